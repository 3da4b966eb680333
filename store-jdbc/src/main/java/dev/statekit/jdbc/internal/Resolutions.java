package dev.statekit.jdbc.internal;

import dev.statekit.store.ApplyResult;
import dev.statekit.store.Change;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.GroupKind;
import dev.statekit.store.GroupPass;
import dev.statekit.store.GroupRecord;
import dev.statekit.store.GroupResolver;
import dev.statekit.store.MemberState;
import dev.statekit.store.StatekitException;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.support.GroupLedger;
import dev.statekit.store.support.GroupLedger.Mark;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Resolution passes, each one transaction: pick owners with marks (oldest mark first), then owners
 * of awaiting groups (least recently checked first); lock the owners' rows in id order, skipping
 * those another transaction holds; only then take every mark of the owners they got, so that a pass
 * takes each member's changes up to some point, never a later one without an earlier one; count,
 * ask the resolver, write its decision, commit.
 *
 * <p>Concurrency: the owner's row lock is what makes a pass the only one working on a group, and
 * with {@code SKIP LOCKED} concurrent passes (in any process) take different owners instead of
 * waiting for each other. The marks themselves are never locked by a pick: a pass that locked an
 * owner's marks while another held the owner would deadlock with it when that one deletes all of
 * the owner's marks. Member writes only insert marks, so they never wait for a pass.
 *
 * <p>A resolver's change refused by its version check rolls the whole pass back (the marks stay for
 * a later pass), and the pass runs again without that group, at most twice. Immutable and thread-safe.
 */
public final class Resolutions {
    private static final int RETRIES = 2;
    /** The most tasks one read of the written changes asks for. */
    private static final int READ_CHUNK = 500;

    /** A mark as a pass takes it, with its row's id (the order it was written in). */
    private record Taken(long id, Mark mark) {}

    /** How a pass ended: written, or refused (and rolled back) for one owner's decision. */
    private sealed interface Outcome permits Written, Refused {}

    /** The pass wrote its decisions: {@code changes} and {@code groups} as stored. */
    private record Written(List<GroupPass.Written> changes, List<GroupRecord> groups) implements Outcome {
        static final Written NONE = new Written(List.of(), List.of());
    }

    /** A version check refused the changes decided for {@code ownerId}; the pass was rolled back. */
    private record Refused(long ownerId) implements Outcome {}

    /** Carries a {@link SQLException} of a member read out of the resolver. */
    private static final class MemberReadFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        MemberReadFailed(SQLException cause) {
            super(cause);
        }
    }

    private final Jdbc jdbc;
    private final Sql sql;
    private final GroupSql gsql;
    private final DialectOps ops;
    private final TaskWrites writes;
    private final TaskInserts inserts;

    /** Creates the passes of one store. */
    public Resolutions(JdbcContext context, TaskWrites writes, TaskInserts inserts) {
        this.jdbc = context.jdbc();
        this.sql = context.sql();
        this.gsql = context.sql().groups;
        this.ops = context.ops();
        this.writes = writes;
        this.inserts = inserts;
    }

    /** Runs one pass, as {@link dev.statekit.store.Store#resolveGroups} describes; returns what it committed. */
    public GroupPass resolve(Collection<String> ownerMachines, int max, GroupResolver resolver) {
        if (max <= 0) throw new IllegalArgumentException("max must be positive, was " + max);
        Objects.requireNonNull(resolver, "resolver");
        List<String> machines = new ArrayList<>(new TreeSet<>(ownerMachines));
        Written written = jdbc.transaction("resolving groups", null, c -> {
            Set<Long> excluded = new HashSet<>();
            for (int attempt = 0; !machines.isEmpty(); attempt++) {
                Outcome outcome = pass(c, machines, max, resolver, excluded);
                if (outcome instanceof Written w) return w;
                excluded.add(((Refused) outcome).ownerId());      // rolled back: its marks wait for a later pass
                if (attempt >= RETRIES) break;
            }
            return Written.NONE;
        });
        // Whether marks are left is read after the commit: a member's change that committed while
        // this pass held its owner (too late for the pass to read it) is seen here, so the caller
        // runs another pass. Read before the commit, it could be missed by both this pass and one
        // that another process ran for it meanwhile, which skipped the owner this pass held.
        boolean marksLeft = jdbc.read("resolving groups", null, c -> Jdbc.queryLong(c, gsql.anyMark, Jdbc.NO_PARAMETERS) > 0);
        return new GroupPass(written.changes(), written.groups(), marksLeft);
    }

    private Outcome pass(Connection c, List<String> machines, int max, GroupResolver resolver, Set<Long> excluded) throws SQLException {
        // More candidates than the pass takes: those other passes hold are skipped, the next ones taken.
        List<Long> candidates = pick(c, machines, (int) Math.min(Integer.MAX_VALUE, 2L * max), excluded);
        if (candidates.isEmpty()) return Written.NONE;
        List<TaskRecord> owners = new ArrayList<>();
        int next = 0;
        while (owners.size() < max && next < candidates.size()) {     // in the order picked, a chunk at a time
            List<Long> chunk = candidates.subList(next, Math.min(candidates.size(), next + max - owners.size()));
            next += chunk.size();
            owners.addAll(Jdbc.tasks(c, sql.times, gsql.lockOwners(chunk.size()), ps -> bindIds(ps, 1, chunk)));
        }
        owners.sort((a, b) -> Long.compare(a.id(), b.id()));
        List<Long> ids = new ArrayList<>(owners.size());
        for (TaskRecord t : owners) ids.add(t.id());
        List<Long> missed = new ArrayList<>(candidates.subList(0, next));
        missed.removeAll(ids);
        if (!missed.isEmpty()) {
            missed.removeAll(Jdbc.query(c, gsql.existing(missed.size()), ps -> bindIds(ps, 1, missed), rs -> rs.getLong(1)));
            if (!missed.isEmpty()) Jdbc.update(c, gsql.deleteOrphanMarks(missed.size()), ps -> bindIds(ps, 1, missed));
        }
        if (owners.isEmpty()) return Written.NONE;
        Map<Long, GroupRows.Stored> groups = new HashMap<>();
        for (GroupRows.Stored g : Jdbc.query(c, gsql.groupsOf(ids.size()), ps -> bindIds(ps, 1, ids), GroupRows::group)) {
            groups.put(g.ownerId(), g);
        }
        Map<Long, Map<MemberState, Long>> counts = GroupRows.counts(c, gsql, ids);
        Map<Long, List<Mark>> marks = take(c, ids);

        List<Long> resolved = new ArrayList<>();
        Map<Long, GroupResolver.Resolution> decisions = new HashMap<>();
        Map<Long, GroupRecord> records = new HashMap<>();
        for (TaskRecord owner : owners) {
            GroupRows.Stored g = groups.get(owner.id());
            if (g == null) continue;
            GroupLedger.Counts after = GroupLedger.counted(g.total(), counts.getOrDefault(owner.id(), Map.of()),
                    marks.getOrDefault(owner.id(), List.of()));
            GroupRecord view = g.record(after.total(), after.counts());
            GroupResolver.Resolution r;
            try {
                r = resolver.resolve(new GroupResolver.View(owner, view, (machine, state, afterId, limit) -> members(c, g, machine, state, afterId, limit)));
            } catch (MemberReadFailed e) {
                throw (SQLException) e.getCause();
            }
            resolved.add(owner.id());
            decisions.put(owner.id(), Objects.requireNonNull(r, "resolution"));
            records.put(owner.id(), view);
        }
        boolean wakes = false;
        List<Change> applied = new ArrayList<>();
        for (long owner : resolved) {
            List<Change> changes = decisions.get(owner).changes();
            if (changes.isEmpty()) continue;
            ApplyResult r = writes.writeAll(c, changes);
            if (!r.applied()) return new Refused(owner);
            applied.addAll(changes);
            wakes = true;
        }
        for (long owner : resolved) {
            GroupResolver.Resolution r = decisions.get(owner);
            if (!r.creates().isEmpty()) {
                if (inserts.insertAll(c, r.creates(), inserts.encode(r.creates()), false).isEmpty()) {
                    throw new StatekitException(ErrorCode.STORE_UNAVAILABLE, "the creations of the resolution of task " + owner
                            + " raced with the deletion of a task holding one of their idempotency keys", owner, null);
                }
                wakes = true;
            }
            for (long id : r.cancels()) Jdbc.update(c, sql.requestCancel, ps -> ps.setLong(1, id));
            if (GroupLedger.movesCounts(marks.getOrDefault(owner, List.of()))) GroupRows.writeCounts(c, gsql, owner, records.get(owner).counts());
        }
        try (PreparedStatement ps = c.prepareStatement(gsql.resolveGroup)) {
            for (long owner : resolved) {      // in id order: the earlier owner is checked first
                GroupResolver.Resolution r = decisions.get(owner);
                ps.setLong(1, records.get(owner).total());
                Rows.setString(ps, 2, r.resolution());
                ps.setBoolean(3, r.awaiting());
                Boolean hold = r.hold();
                if (hold == null) ps.setNull(4, java.sql.Types.BOOLEAN);
                else ps.setBoolean(4, hold);
                ps.setLong(5, owner);
                ps.addBatch();
            }
            ps.executeBatch();
        }
        if (wakes) ops.notifyWaiters(c);
        if (!resolved.isEmpty()) Jdbc.LOG.debug("resolved the groups of tasks {}", resolved);
        List<GroupRecord> written = new ArrayList<>(resolved.size());
        for (long owner : resolved) {
            GroupRecord g = records.get(owner);
            GroupResolver.Resolution r = decisions.get(owner);
            Boolean hold = r.hold();
            written.add(new GroupRecord(owner, g.kind(), g.sealed(), g.total(), g.counts(), r.resolution(),
                    hold == null ? g.hold() : hold, r.awaiting()));
        }
        return new Written(stored(c, applied), written);
    }

    /** Returns the changes as written: each task read back as stored (the row keeps its place and renewed lease), with its entry. */
    private List<GroupPass.Written> stored(Connection c, List<Change> applied) throws SQLException {
        if (applied.isEmpty()) return List.of();
        Map<Long, TaskRecord> rows = new HashMap<>();
        for (int from = 0; from < applied.size(); from += READ_CHUNK) {
            List<Change> chunk = applied.subList(from, Math.min(applied.size(), from + READ_CHUNK));
            for (TaskRecord t : Jdbc.tasks(c, sql.times, sql.tasksByIds(chunk.size()), ps -> {
                for (int i = 0; i < chunk.size(); i++) ps.setLong(i + 1, chunk.get(i).next().id());
            })) {
                rows.put(t.id(), t);
            }
        }
        List<GroupPass.Written> written = new ArrayList<>(applied.size());
        for (Change change : applied) {
            written.add(new GroupPass.Written(Objects.requireNonNull(rows.get(change.next().id())), change.entry()));
        }
        return written;
    }

    /**
     * Picks the candidates of a pass in {@link GroupLedger#passOrder}: owners with marks, oldest mark
     * first ({@link GroupSql#marked}), then owners of awaiting groups, least recently checked first
     * ({@link GroupSql#awaiting}, read only when the marked ones do not fill the pass).
     */
    private List<Long> pick(Connection c, List<String> machines, int want, Set<Long> excluded) throws SQLException {
        int rows = (int) Math.min(10_000, 8L * want + excluded.size());
        List<Long> marked = Jdbc.query(c, gsql.marked(machines.size()), ps -> bind(ps, machines, rows), rs -> rs.getLong(1));
        List<Long> picked = GroupLedger.passOrder(marked, List.of(), want, excluded);
        if (picked.size() >= want) return picked;
        int more = want + picked.size() + excluded.size();
        List<Long> awaiting = Jdbc.query(c, gsql.awaiting(machines.size()), ps -> bind(ps, machines, more), rs -> rs.getLong(1));
        return GroupLedger.passOrder(marked, awaiting, want, excluded);
    }

    private static void bind(PreparedStatement ps, List<String> machines, int limit) throws SQLException {
        int i = 1;
        for (String m : machines) ps.setString(i++, m);
        ps.setInt(i, limit);
    }

    private static void bindIds(PreparedStatement ps, int first, List<Long> ids) throws SQLException {
        for (int i = 0; i < ids.size(); i++) ps.setLong(first + i, ids.get(i));
    }

    /** Deletes every mark of the owners (whose rows the pass holds) and returns them by owner, in the order written. */
    private Map<Long, List<Mark>> take(Connection c, List<Long> owners) throws SQLException {
        Map<Long, List<Taken>> taken = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(gsql.takeMarks(owners.size()))) {
            bindIds(ps, 1, owners);
            try (ResultSet rs = Jdbc.rows(ps)) {
                while (rs.next()) {
                    taken.computeIfAbsent(rs.getLong(1), k -> new ArrayList<>())
                            .add(new Taken(rs.getLong(2), new Mark(rs.getString(3), rs.getString(4), rs.getString(5))));
                }
            }
        }
        Map<Long, List<Mark>> marks = new HashMap<>();
        for (Map.Entry<Long, List<Taken>> e : taken.entrySet()) {
            List<Taken> rows = e.getValue();
            rows.sort((a, b) -> Long.compare(a.id(), b.id()));
            List<Mark> inOrder = new ArrayList<>(rows.size());
            for (Taken t : rows) inOrder.add(t.mark());
            marks.put(e.getKey(), inOrder);
        }
        return marks;
    }

    private List<TaskRecord> members(Connection c, GroupRows.Stored g, String machine, String state, long afterId, int limit) {
        String query = g.kind() == GroupKind.CHILDREN ? gsql.childrenInState : gsql.dependenciesInState;
        try {
            return Jdbc.tasks(c, sql.times, query, ps -> {
                ps.setLong(1, g.ownerId());
                ps.setString(2, machine);
                ps.setString(3, state);
                ps.setLong(4, afterId);
                ps.setInt(5, limit);
            });
        } catch (SQLException e) {
            throw new MemberReadFailed(e);
        }
    }
}
