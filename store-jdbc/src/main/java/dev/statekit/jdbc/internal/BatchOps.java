package dev.statekit.jdbc.internal;

import dev.statekit.store.Change;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.Claimed;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.NewTask;
import dev.statekit.store.TaskRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The generic path of H2 and MariaDB: batches are JDBC batches plus one history insert; claim
 * candidates are locked by id after they are read (a {@code FOR UPDATE} with a limit may lock
 * every row the condition matches); wake-ups are the dialect's {@link Wakes}. Immutable and
 * thread-safe.
 */
public final class BatchOps implements DialectOps {
    private final Sql sql;
    private final RowWrites rows;
    private final Wakes wakes;
    private final ClaimUpdates claims;

    /** Creates the operations of one store's tables. */
    public BatchOps(Sql sql, RowWrites rows, Wakes wakes, ClaimUpdates claims) {
        this.sql = sql;
        this.rows = rows;
        this.wakes = wakes;
        this.claims = claims;
    }

    @Override
    public void notifyWaiters(Connection c) throws SQLException {
        wakes.notifyWaiters(c);
    }

    @Override
    public AutoCloseable watch(Runnable wake) {
        return wakes.watch(wake);
    }

    /** One statement of rows of values. */
    @Override
    public List<InsertedRow> insertRows(Connection c, List<NewTask> specs, List<String> attributes) throws SQLException {
        return Jdbc.query(c, sql.insertTasks(specs.size()), ps -> {
            int p = 1;
            for (int i = 0; i < specs.size(); i++) p = TaskInserts.bindInsert(sql.times, ps, p, specs.get(i), attributes.get(i), null);
        }, rs -> new InsertedRow(rs.getLong(1), rs.getLong(2)));
    }

    /**
     * The updates go as two JDBC batches (free and leased snapshots), the history entries of the
     * applied ones as one insert, their marks as one more batch.
     */
    @Override
    public Set<Long> writeEach(Connection c, List<Change> sorted) throws SQLException {
        Set<Long> updated = new HashSet<>();
        for (boolean leased : new boolean[] {false, true}) {
            List<Change> group = new ArrayList<>();
            for (Change change : sorted) if ((change.next().lease() != null) == leased) group.add(change);
            if (group.isEmpty()) continue;
            try (PreparedStatement ps = c.prepareStatement(rows.updateOf(group.get(0)))) {
                for (Change change : group) {
                    rows.bindUpdate(ps, change);
                    ps.addBatch();
                }
                int[] counts = ps.executeBatch();
                for (int i = 0; i < counts.length; i++) {
                    long id = group.get(i).next().id();
                    if (counts[i] > 1) throw new IllegalStateException(counts[i] + " rows updated for task " + id);
                    if (counts[i] == Statement.SUCCESS_NO_INFO) throw new SQLException("the driver did not count the rows updated");
                    if (counts[i] == 1) updated.add(id);
                }
            }
        }
        List<HistoryEntry> entries = new ArrayList<>();
        for (Change change : sorted) if (updated.contains(change.next().id())) entries.add(change.entry());
        rows.insertHistory(c, entries);
        List<GroupRows.StateChange> moves = new ArrayList<>(updated.size());
        for (Change change : sorted) if (updated.contains(change.next().id())) moves.add(GroupRows.StateChange.of(change));
        GroupRows.marked(c, sql.groups, moves);
        return updated;
    }

    /** The picked rows are locked: their updates ({@link ClaimUpdates}) with tokens drawn first, then one history insert and the marks. */
    @Override
    public List<Claimed> claim(Connection c, ClaimRequest request, List<TaskRecord> picks, Instant now, Instant expires)
            throws SQLException {
        List<Claimed> claimed = new ArrayList<>(picks.size());
        List<HistoryEntry> entries = new ArrayList<>(picks.size());
        List<ClaimUpdates.Row> updates = new ArrayList<>(picks.size());
        long[] tokens = rows.tokens(c, picks.size());
        for (int p = 0; p < picks.size(); p++) {
            TaskRecord t = picks.get(p);
            ClaimRule rule = RowWrites.ruleOf(request, t);
            // the start row's effect runs here, while the row is locked
            TaskRecord next = rule.claim(t, new Lease(request.owner(), tokens[p], expires), now);
            updates.add(new ClaimUpdates.Row(t.id(), t.version(), rule.to(), AttributeCodec.encode(next.attributes()), tokens[p],
                    next.updatedAt()));
            HistoryEntry entry = rule.entry(t, request.owner(), now);
            claimed.add(new Claimed(next, entry, ClaimRule.readySince(t)));
            entries.add(entry);
        }
        claims.update(c, sql, updates, request.owner(), expires);
        rows.insertHistory(c, entries);
        List<GroupRows.StateChange> moves = new ArrayList<>(claimed.size());
        for (Claimed t : claimed) {
            moves.add(new GroupRows.StateChange(t.task().id(), t.task().parentId(), t.task().machine(), t.entry().from(), t.entry().to()));
        }
        GroupRows.marked(c, sql.groups, moves);
        return claimed;
    }

    /**
     * Locks the rows read by id, skipping those another transaction holds and those no longer
     * runnable, and returns them as they are now, in the order read.
     */
    @Override
    public List<TaskRecord> lockCandidates(Connection c, ClaimRequest request, List<String> states, List<TaskRecord> read,
                                           Jdbc.RowReader<@Nullable TaskRecord> reader) throws SQLException {
        if (read.isEmpty()) return read;
        Map<Long, TaskRecord> locked = new HashMap<>();
        List<@Nullable TaskRecord> rowsRead = Jdbc.query(c, sql.lockRunnable(states.size(), read.size()), ps -> {
            int i = 1;
            for (TaskRecord t : read) ps.setLong(i++, t.id());
            ps.setString(i++, request.machine());
            ps.setString(i++, request.queue());
            for (String s : states) ps.setString(i++, s);
            sql.times.set(ps, i, request.now());
        }, reader);
        // H2 returns a row it locked as it is now without testing the condition again: a task another
        // claimer took and finished between the read and the lock comes back finished, and is left alone here.
        for (TaskRecord t : rowsRead) {
            if (t != null && t.lease() == null && states.contains(t.state()) && t.machine().equals(request.machine())
                    && t.queue().equals(request.queue()) && (t.notBefore() == null || !t.notBefore().isAfter(request.now()))) {
                locked.put(t.id(), t);
            }
        }
        List<TaskRecord> result = new ArrayList<>(locked.size());
        for (TaskRecord t : read) {
            TaskRecord now = locked.get(t.id());
            if (now != null) result.add(now);
        }
        return result;
    }


    /** No: H2 has no shared row locks, and a limited {@code FOR UPDATE} may lock every row it matches. */
    @Override
    public boolean claimsSideBySide() {
        return false;
    }
}
