package dev.statekit.jdbc.internal;

import dev.statekit.store.ApplyResult;
import dev.statekit.store.Change;
import dev.statekit.store.CreateResult;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.GroupKind;
import dev.statekit.store.GroupWrite;
import dev.statekit.store.MemberState;
import dev.statekit.store.NewTask;
import dev.statekit.store.StatekitException;
import dev.statekit.store.support.StoreChecks;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Changes written together with group writes, in one transaction: every changed task and every
 * owner is locked first, in id order; the changes are checked and written (a refusal writes
 * nothing); then each owner's group of children is opened if missing, its new children created and
 * counted directly, its flags set, and a look mark written for it. Immutable and thread-safe.
 */
public final class GroupWrites {
    private final Jdbc jdbc;
    private final Sql sql;
    private final DialectOps ops;
    private final TaskWrites writes;
    private final TaskInserts inserts;

    /** Creates the group writes of one store. */
    public GroupWrites(JdbcContext context, TaskWrites writes, TaskInserts inserts) {
        this.jdbc = context.jdbc();
        this.sql = context.sql();
        this.ops = context.ops();
        this.writes = writes;
        this.inserts = inserts;
    }

    /** Applies {@code changes} and {@code groups} atomically, as {@link dev.statekit.store.Store#applyAll(List, List)} describes. */
    public ApplyResult applyAll(List<Change> changes, List<GroupWrite> groups) {
        if (changes.isEmpty() && groups.isEmpty()) throw new IllegalArgumentException("nothing to write");
        StoreChecks.requireDistinctTasks(changes);
        Set<Long> owners = new HashSet<>();
        for (GroupWrite w : groups) {
            if (!owners.add(w.parentId())) throw new IllegalArgumentException("two group writes for task " + w.parentId());
        }
        if (groups.isEmpty()) return writes.applyAll(changes);
        Map<Long, String[]> attributes = new HashMap<>();
        for (GroupWrite w : groups) attributes.put(w.parentId(), inserts.encode(w.children()));
        TreeSet<Long> locks = new TreeSet<>(owners);
        for (Change change : changes) locks.add(change.next().id());
        return jdbc.transaction("writing the groups of " + owners.size() + " tasks", null, c -> {
            // Rows are locked in id order, as every writer of several rows takes them.
            Map<Long, String> machines = new HashMap<>();
            try (PreparedStatement lock = c.prepareStatement(sql.groups.lockTask)) {
                for (long id : locks) {
                    lock.setLong(1, id);
                    try (ResultSet rs = lock.executeQuery()) {
                        if (rs.next()) machines.put(id, rs.getString(2));
                    }
                }
            }
            if (!changes.isEmpty()) {
                ApplyResult r = writes.writeAll(c, changes);
                if (!r.applied()) return r;
            }
            for (GroupWrite w : groups) {
                if (!machines.containsKey(w.parentId())) {
                    c.rollback();
                    return ApplyResult.notFound(w.parentId());
                }
            }
            boolean created = false;
            for (GroupWrite w : groups) created |= write(c, w, machines.get(w.parentId()), attributes.get(w.parentId()));
            if (created || changesState(changes)) ops.notifyWaiters(c);
            return ApplyResult.APPLIED;
        });
    }

    /** Writes one group write; the owner is locked. Returns whether it created a child. */
    private boolean write(Connection c, GroupWrite w, String ownerMachine, String[] attributes) throws SQLException {
        long owner = w.parentId();
        GroupRows.Stored g = GroupRows.find(c, sql.groups, owner);
        if (g != null && g.kind() != GroupKind.CHILDREN) {
            throw new StatekitException(ErrorCode.INVALID_ARGUMENT, "task " + owner + " waits on dependencies and cannot have a group of children",
                    owner, null);
        }
        if (g != null && g.sealed()) {
            for (NewTask child : w.children()) {
                if (!GroupCreations.exists(c, sql, child)) {
                    throw new StatekitException(ErrorCode.GROUP_SEALED, "the children of task " + owner + " are sealed", owner, null);
                }
            }
        }
        if (g == null) {
            Jdbc.update(c, sql.groups.insertGroup, ps -> {
                ps.setLong(1, owner);
                ps.setString(2, ownerMachine);
                ps.setString(3, GroupKind.CHILDREN.name());
                ps.setBoolean(4, false);
                ps.setLong(5, 0);
                ps.setBoolean(6, false);
            });
            g = new GroupRows.Stored(owner, ownerMachine, GroupKind.CHILDREN, false, 0, null, false, false);
        }
        Optional<List<CreateResult>> results = inserts.insertAll(c, w.children(), attributes, true);
        if (results.isEmpty()) {
            throw new StatekitException(ErrorCode.STORE_UNAVAILABLE, "creating the children of task " + owner
                    + " raced with the deletion of a task holding one of their idempotency keys", owner, null);
        }
        Map<MemberState, Long> added = new HashMap<>();
        for (CreateResult r : results.get()) {
            if (r.created()) added.merge(new MemberState(r.task().machine(), r.task().state()), 1L, Long::sum);
        }
        long total = g.total();
        if (!added.isEmpty()) {
            Map<MemberState, Long> counts = GroupRows.counts(c, sql.groups, List.of(owner)).getOrDefault(owner, new HashMap<>());
            for (Map.Entry<MemberState, Long> e : added.entrySet()) {
                counts.merge(e.getKey(), e.getValue(), Long::sum);
                total += e.getValue();
            }
            GroupRows.writeCounts(c, sql.groups, owner, counts);
        }
        long newTotal = total;
        boolean sealed = g.sealed() || w.seal();
        boolean hold = w.hold() != null ? w.hold() : g.hold();
        Jdbc.update(c, sql.groups.updateGroup, ps -> {
            ps.setLong(1, newTotal);
            ps.setBoolean(2, sealed);
            ps.setBoolean(3, hold);
            ps.setLong(4, owner);
        });
        GroupRows.mark(c, sql.groups, owner, ownerMachine, null, null, null);
        return !added.isEmpty();
    }

    private static boolean changesState(List<Change> changes) {
        for (Change change : changes) if (!change.entry().from().equals(change.entry().to())) return true;
        return false;
    }
}
