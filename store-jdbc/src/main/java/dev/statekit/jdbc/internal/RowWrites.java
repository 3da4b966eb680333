package dev.statekit.jdbc.internal;

import dev.statekit.store.Change;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;

/**
 * The writes both dialects share, below {@link DialectOps}: a task's update by (id, version) to a
 * change's snapshot, history rows, fencing tokens. Immutable and thread-safe.
 */
public final class RowWrites {
    private static final int INSERT_CHUNK = 1000;
    private static final int TOKEN_CHUNK = 1000;
    private static final int HISTORY_PARAMETERS = Rows.HISTORY_WIDTH;

    private final Sql sql;

    /** Creates the writes of one store's tables. */
    public RowWrites(Sql sql) {
        this.sql = sql;
    }

    /** Returns the update statement of {@code change}: {@link Sql#updateLeased} or {@link Sql#updateFree}, as its lease says. */
    public String updateOf(Change change) {
        return change.next().lease() != null ? sql.updateLeased : sql.updateFree;
    }

    /** Updates the task of {@code change} if it is at the expected version; returns the update count. */
    public int update(Connection c, Change change) throws SQLException {
        return Jdbc.update(c, updateOf(change), ps -> bindUpdate(ps, change));
    }

    /** Binds the parameters of {@link #updateOf}{@code (change)}. */
    public void bindUpdate(PreparedStatement ps, Change change) throws SQLException {
        TaskRecord n = change.next();
        Lease lease = n.lease();
        int i = 1;
        ps.setString(i++, n.state());
        ps.setString(i++, n.queue());
        ps.setInt(i++, n.attempts());
        ps.setInt(i++, n.retries());
        if (lease != null) {
            // A lease kept with its fencing token keeps the stored expiry: only renew moves it.
            ps.setLong(i++, lease.fencingToken());
            ps.setString(i++, lease.owner());
            ps.setLong(i++, lease.fencingToken());
            sql.times.set(ps, i++, lease.expiresAt());
            ps.setLong(i++, lease.fencingToken());
        }
        sql.times.set(ps, i++, n.notBefore());
        TaskError error = n.lastError();
        Rows.setString(ps, i++, error == null ? null : error.code());
        Rows.setString(ps, i++, error == null ? null : error.message());
        Rows.setBoolean(ps, i++, error == null ? null : error.retryable());
        Rows.setString(ps, i++, error == null ? null : error.step());
        Rows.setString(ps, i++, error == null ? null : error.detail());
        ps.setString(i++, AttributeCodec.encode(n.attributes()));
        Rows.setString(ps, i++, n.payload());
        sql.times.set(ps, i++, n.updatedAt());
        ps.setLong(i++, n.version());
        Rows.setInteger(ps, i++, change.reorders() ? n.priority() : null);     // null keeps the stored place
        Rows.setLong(ps, i++, change.reorders() ? n.sequence() : null);
        ps.setBoolean(i++, n.uniqueKey() != null);                             // false frees the key
        ps.setLong(i++, n.id());
        ps.setLong(i, change.expectedVersion());
    }

    /** Inserts history entries, up to 1,000 per statement. */
    public void insertHistory(Connection c, List<HistoryEntry> entries) throws SQLException {
        for (int from = 0; from < entries.size(); from += INSERT_CHUNK) {
            List<HistoryEntry> chunk = entries.subList(from, Math.min(entries.size(), from + INSERT_CHUNK));
            Jdbc.update(c, chunk.size() == 1 ? sql.insertHistory : sql.insertHistories(chunk.size()), ps -> {
                int i = 1;
                for (HistoryEntry e : chunk) {
                    Rows.bindHistory(sql.times, ps, i, e);
                    i += HISTORY_PARAMETERS;
                }
            });
        }
    }

    /** Returns the rule that claims {@code candidate}, a task the claim read in one of its from-states. */
    public static ClaimRule ruleOf(ClaimRequest request, TaskRecord candidate) {
        return Objects.requireNonNull(request.ruleFor(candidate.state()), "no rule for a candidate's state");
    }

    /** Draws {@code n} fencing tokens, with one query per {@value #TOKEN_CHUNK} (MariaDB's recursion stops at 1,000 rows). */
    public long[] tokens(Connection c, int n) throws SQLException {
        long[] tokens = new long[n];
        try (PreparedStatement ps = c.prepareStatement(sql.nextTokens)) {
            for (int from = 0; from < n; from += TOKEN_CHUNK) {
                int count = Math.min(TOKEN_CHUNK, n - from);
                ps.setInt(1, count);
                try (ResultSet rs = ps.executeQuery()) {
                    for (int i = 0; i < count; i++) {
                        if (!rs.next()) throw new SQLException("the fencing sequence returned " + i + " values, not " + count);
                        tokens[from + i] = rs.getLong(1);
                    }
                }
            }
        }
        return tokens;
    }
}
