package dev.statekit.jdbc.internal;

import dev.statekit.store.ApplyResult;
import dev.statekit.store.Change;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.StatekitException;
import dev.statekit.store.support.StoreChecks;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Applying changes: one or several atomically ({@link #applyAll}), or several each on its own in
 * one transaction ({@link #applyEach}: with savepoints when they carry command keys, else through
 * the dialect's batch write). Rows are written in id order, so overlapping writers cannot
 * deadlock; an update count of 0 is a conflict or a missing task (told apart by one more read),
 * more than 1 a bug. Every change of state marks the groups it counts in ({@link GroupRows#marked}),
 * in the same transaction. Immutable and thread-safe.
 */
public final class TaskWrites {
    /** Undoes the writes of a refused change. */
    @FunctionalInterface
    private interface Undo {
        void run() throws SQLException;
    }

    private final Jdbc jdbc;
    private final Sql sql;
    private final RowWrites rows;
    private final DialectOps ops;
    private final TaskReads reads;
    private final int maxPayloadChars;

    /** Creates the writes of one store. */
    public TaskWrites(JdbcContext context, TaskReads reads) {
        this.jdbc = context.jdbc();
        this.sql = context.sql();
        this.rows = context.rows();
        this.ops = context.ops();
        this.reads = reads;
        this.maxPayloadChars = context.maxPayloadChars();
    }

    /** Applies {@code changes} atomically, as {@link dev.statekit.store.Store#applyAll} describes. */
    public ApplyResult applyAll(List<Change> changes) {
        if (changes.isEmpty()) throw new IllegalArgumentException("no changes to apply");
        StoreChecks.requireDistinctTasks(changes);
        Long taskId = changes.size() == 1 ? changes.get(0).next().id() : null;
        String doing = changes.size() == 1 ? "applying a change" : "applying " + changes.size() + " changes";
        ApplyResult result = jdbc.transaction(doing, taskId, c -> {
            ApplyResult r = write(c, changes, c::rollback);
            if (r.applied() && changesState(changes)) ops.notifyWaiters(c);
            return r;
        });
        if (result.applied()) logApplied(changes);
        return result;
    }

    /**
     * Applies {@code changes} each on its own in one transaction, as {@link dev.statekit.store.Store#applyEach}
     * describes. When a change's payload is over the limit, the changes before it are committed and
     * the exception is thrown, as applying them one by one would.
     */
    public List<ApplyResult> applyEach(List<Change> changes) {
        StoreChecks.requireDistinctTasks(changes);
        if (changes.isEmpty()) return List.of();
        if (changes.size() == 1) return List.of(applyAll(changes));
        for (Change change : changes) if (change.entry().commandKey() != null) return applyEachKeyed(changes);
        return applyEachUnkeyed(changes);
    }

    /** Each change within a savepoint of its own. */
    private List<ApplyResult> applyEachKeyed(List<Change> changes) {
        StatekitException[] refused = new StatekitException[1];
        List<ApplyResult> results = jdbc.transaction("applying " + changes.size() + " changes one by one", null, c -> {
            List<ApplyResult> rs = new ArrayList<>(changes.size());
            List<Change> applied = new ArrayList<>();
            for (Change change : changes) {
                Savepoint savepoint = c.setSavepoint();
                ApplyResult r;
                try {
                    r = write(c, List.of(change), () -> c.rollback(savepoint));
                } catch (StatekitException e) {
                    if (e.code() != ErrorCode.PAYLOAD_TOO_LARGE) throw e;
                    c.rollback(savepoint);
                    refused[0] = e;
                    break;
                }
                if (r.applied()) {
                    c.releaseSavepoint(savepoint);
                    applied.add(change);
                }
                rs.add(r);
            }
            if (changesState(applied)) ops.notifyWaiters(c);
            logApplied(applied);
            return rs;
        });
        if (refused[0] != null) throw refused[0];
        return results;
    }

    /**
     * Changes without command keys, in one transaction without savepoints: a change whose update
     * finds its task at another version (or none) writes nothing, and no history insert can meet a
     * command key; the dialect writes them as a batch.
     */
    private List<ApplyResult> applyEachUnkeyed(List<Change> changes) {
        int allowed = 0;
        StatekitException refused = null;
        for (Change change : changes) {
            try {
                StoreChecks.checkPayload(change.next(), maxPayloadChars);
            } catch (StatekitException e) {
                refused = e;      // the changes before it are written, as applying them one by one would
                break;
            }
            allowed++;
        }
        List<Change> writing = changes.subList(0, allowed);
        List<ApplyResult> results = writing.isEmpty() ? List.of()
                : jdbc.transaction("applying " + writing.size() + " changes one by one", null, c -> {
                    List<Change> sorted = byId(writing);
                    Set<Long> updated = ops.writeEach(c, sorted);
                    return eachResults(c, writing, sorted, updated);
                });
        if (refused != null) throw refused;
        return results;
    }

    /**
     * Returns the results of changes written each on its own, given the tasks that took theirs
     * ({@code updated}): the others are told apart as conflicts or missing tasks. Notifies waiters
     * and logs the applied changes.
     */
    private List<ApplyResult> eachResults(Connection c, List<Change> changes, List<Change> sorted, Set<Long> updated)
            throws SQLException {
        List<Change> applied = new ArrayList<>(updated.size());
        for (Change change : sorted) if (updated.contains(change.next().id())) applied.add(change);
        List<ApplyResult> results = new ArrayList<>(changes.size());
        for (Change change : changes) {
            long id = change.next().id();
            if (updated.contains(id)) results.add(ApplyResult.APPLIED);
            else results.add(reads.exists(c, id) ? ApplyResult.conflict(id) : ApplyResult.notFound(id));
        }
        if (changesState(applied)) ops.notifyWaiters(c);
        logApplied(applied);
        return results;
    }

    private static List<Change> byId(List<Change> changes) {
        List<Change> sorted = new ArrayList<>(changes);
        sorted.sort(Comparator.comparingLong(ch -> ch.next().id()));
        return sorted;
    }

    private ApplyResult write(Connection c, List<Change> changes, Undo undo) throws SQLException {
        // Refusals name the first task, in the order given, that stands in the way.
        boolean checked = changes.size() > 1 || changes.get(0).entry().commandKey() != null;
        if (checked) {
            ApplyResult refusal = check(c, changes);
            if (refusal != null) {
                undo.run();
                return refusal;
            }
        }
        // Rows are written in id order, so that overlapping writers cannot deadlock.
        List<Change> sorted = byId(changes);
        for (Change change : sorted) {
            long id = change.next().id();
            int updated = rows.update(c, change);
            if (updated == 0) {
                undo.run();
                return reads.exists(c, id) ? ApplyResult.conflict(id) : ApplyResult.notFound(id);
            }
            if (updated > 1) throw new IllegalStateException(updated + " rows updated for task " + id);
            if (!checked) StoreChecks.checkPayload(change.next(), maxPayloadChars);
        }
        try {
            List<HistoryEntry> entries = new ArrayList<>(sorted.size());
            for (Change change : sorted) entries.add(change.entry());
            rows.insertHistory(c, entries);
        } catch (SQLException e) {
            if (!SqlErrors.uniqueViolation(e)) throw e;
            // A concurrent writer applied the same command key first.
            undo.run();
            for (Change change : changes) {
                String key = change.entry().commandKey();
                if (key == null) continue;
                Optional<HistoryEntry> prior = reads.command(c, change.next().id(), key);
                if (prior.isPresent()) return ApplyResult.duplicate(prior.get());
            }
            throw e;
        }
        List<GroupRows.StateChange> moves = new ArrayList<>(sorted.size());
        for (Change change : sorted) moves.add(GroupRows.StateChange.of(change));
        GroupRows.marked(c, sql.groups, moves);
        return ApplyResult.APPLIED;
    }

    /**
     * Writes {@code changes} atomically on {@code c}, inside the caller's transaction, with their
     * marks; a refusal rolls the whole transaction back and is returned.
     */
    public ApplyResult writeAll(Connection c, List<Change> changes) throws SQLException {
        StoreChecks.requireDistinctTasks(changes);
        return write(c, changes, c::rollback);
    }

    /** Checks versions, command keys and payloads in the order given; returns the first refusal, or null. */
    private @Nullable ApplyResult check(Connection c, List<Change> changes) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.checkChange)) {
            for (Change change : changes) {
                ApplyResult refusal = check(ps, change);
                if (refusal != null) return refusal;
                StoreChecks.checkPayload(change.next(), maxPayloadChars);
            }
        }
        return null;
    }

    private @Nullable ApplyResult check(PreparedStatement ps, Change change) throws SQLException {
        long id = change.next().id();
        Rows.setString(ps, 1, change.entry().commandKey());
        ps.setLong(2, id);
        try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) return ApplyResult.notFound(id);
            long version = rs.getLong(1);
            rs.getLong(2);
            if (!rs.wasNull()) return ApplyResult.duplicate(Rows.history(sql.times, rs, 2));
            return version == change.expectedVersion() ? null : ApplyResult.conflict(id);
        }
    }

    private static boolean changesState(List<Change> changes) {
        for (Change change : changes) if (!change.entry().from().equals(change.entry().to())) return true;
        return false;
    }

    private static void logApplied(List<Change> changes) {
        if (!Jdbc.LOG.isDebugEnabled()) return;
        for (Change change : changes) {
            Jdbc.LOG.debug("task {} {} -> {} by {} at version {}", change.next().id(), change.entry().from(),
                    change.entry().to(), change.entry().event(), change.next().version());
        }
    }
}
