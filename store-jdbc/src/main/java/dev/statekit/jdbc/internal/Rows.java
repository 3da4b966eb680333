package dev.statekit.jdbc.internal;

import dev.statekit.store.Attributes;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.QueueRecord;
import dev.statekit.store.RateLimit;
import dev.statekit.store.StatekitException;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.jspecify.annotations.Nullable;

/**
 * Binding of values and reading of rows. Times travel as their dialect says ({@link Times}).
 */
public final class Rows {
    /** The columns of a task row, in the order {@link #task} reads them. */
    public static final String TASK_COLUMNS = "id, machine, machine_version, state, queue, priority, sequence, parent_id, "
            + "attempts, retries, lease_owner, lease_token, lease_expires_at, not_before, last_error_code, "
            + "last_error_message, last_error_retryable, last_error_step, attributes, payload, idempotency_key, "
            + "created_at, updated_at, version, cancel_requested, unique_key, last_error_detail";
    /** The columns of a history row, in the order {@link #history} reads them. */
    public static final String HISTORY_COLUMNS = "task_id, version, from_state, to_state, event, source, actor, reason, at, command_key,"
            + " error_code, error_message, error_retryable, error_step, error_detail";
    /** The number of columns of {@link #HISTORY_COLUMNS}. */
    public static final int HISTORY_WIDTH = 15;
    /** The values of the error columns of a history entry that recorded none, for statements that insert them with others. */
    public static final String NO_HISTORY_ERROR = "null, null, null, null, null";
    /** The columns of a queue row, in the order {@link #queue} reads them. */
    public static final String QUEUE_COLUMNS = "name, paused, pause_reason, concurrency, skipped_lower, rate_limit, rate_period_ms,"
            + " rate_key_attribute, held_until";

    private Rows() {
    }

    /** Returns {@code t} cut to the microsecond, as the database keeps it; null stays null. */
    public static @Nullable Instant micros(@Nullable Instant t) {
        return t == null ? null : t.truncatedTo(ChronoUnit.MICROS);
    }

    /** Returns {@code t} as whole microseconds since the epoch (cut, as stored), or null. */
    public static @Nullable Long epochMicros(@Nullable Instant t) {
        if (t == null) return null;
        return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000);
    }

    /** Binds a long, or SQL null. */
    public static void setLong(PreparedStatement ps, int i, @Nullable Long v) throws SQLException {
        if (v == null) ps.setNull(i, Types.BIGINT);
        else ps.setLong(i, v);
    }

    /** Binds an int, or SQL null. */
    public static void setInteger(PreparedStatement ps, int i, @Nullable Integer v) throws SQLException {
        if (v == null) ps.setNull(i, Types.INTEGER);
        else ps.setInt(i, v);
    }

    /** Binds a string, or SQL null. */
    public static void setString(PreparedStatement ps, int i, @Nullable String v) throws SQLException {
        if (v == null) ps.setNull(i, Types.VARCHAR);
        else ps.setString(i, v);
    }

    /** Binds a boolean, or SQL null. */
    public static void setBoolean(PreparedStatement ps, int i, @Nullable Boolean v) throws SQLException {
        if (v == null) ps.setNull(i, Types.BOOLEAN);
        else ps.setBoolean(i, v);
    }

    /** Reads a long, or null. */
    public static @Nullable Long getLong(ResultSet rs, int i) throws SQLException {
        long v = rs.getLong(i);
        return rs.wasNull() ? null : v;
    }

    /**
     * Reads the task of the current row ({@link #TASK_COLUMNS}).
     *
     * @throws StatekitException {@link ErrorCode#STORE_FAILURE} naming the task when the row cannot be
     *                           made into a task (its attributes do not decode, a value is out of range)
     */
    public static TaskRecord task(Times times, ResultSet rs) throws SQLException {
        long id = rs.getLong(1);
        try {
            Attributes attributes;
            try {
                attributes = AttributeCodec.decode(nonNull(rs.getString(19), "attributes"));
            } catch (IllegalArgumentException e) {
                throw new StatekitException(ErrorCode.STORE_FAILURE, "attributes of task " + id + " cannot be decoded: "
                        + e.getMessage(), id, e);
            }
            Long token = getLong(rs, 12);
            Lease lease = null;
            if (token != null) {
                lease = new Lease(nonNull(rs.getString(11), "lease_owner"), token, nonNull(times.get(rs, 13), "lease_expires_at"));
            }
            String errorCode = rs.getString(15);
            TaskError error = null;
            if (errorCode != null) {
                error = new TaskError(errorCode, nonNull(rs.getString(16), "last_error_message"), rs.getBoolean(17), rs.getString(18),
                        rs.getString(27));
            }
            return new TaskRecord(id, rs.getString(2), rs.getInt(3), rs.getString(4), rs.getString(5), rs.getInt(6),
                    rs.getLong(7), getLong(rs, 8), rs.getInt(9), rs.getInt(10), lease, times.get(rs, 14), error, attributes,
                    rs.getString(20), rs.getString(21), nonNull(times.get(rs, 22), "created_at"),
                    nonNull(times.get(rs, 23), "updated_at"), rs.getLong(24), rs.getString(26));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new StatekitException(ErrorCode.STORE_FAILURE, "task " + id + " cannot be read: " + e.getMessage(), id, e);
        }
    }

    /** Reads the history entry of the current row ({@link #HISTORY_COLUMNS}) from column {@code first} on. */
    public static HistoryEntry history(Times times, ResultSet rs, int first) throws SQLException {
        int i = first - 1;
        long taskId = rs.getLong(i + 1);
        try {
            return new HistoryEntry(taskId, rs.getLong(i + 2), rs.getString(i + 3), rs.getString(i + 4), rs.getString(i + 5),
                    TriggerSource.valueOf(rs.getString(i + 6)), rs.getString(i + 7), rs.getString(i + 8),
                    nonNull(times.get(rs, i + 9), "at"), rs.getString(i + 10), historyError(rs, i + 11));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new StatekitException(ErrorCode.STORE_FAILURE, "history of task " + taskId + " cannot be read: "
                    + e.getMessage(), taskId, e);
        }
    }

    private static @Nullable TaskError historyError(ResultSet rs, int first) throws SQLException {
        String code = rs.getString(first);
        if (code == null) return null;
        return new TaskError(code, nonNull(rs.getString(first + 1), "error_message"), rs.getBoolean(first + 2), rs.getString(first + 3),
                rs.getString(first + 4));
    }

    /** Reads the queue record of the current row ({@link #QUEUE_COLUMNS}). */
    public static QueueRecord queue(Times times, ResultSet rs) throws SQLException {
        int starts = rs.getInt(6);
        RateLimit limit = starts > 0 ? new RateLimit(starts, java.time.Duration.ofMillis(rs.getLong(7)), rs.getString(8)) : null;
        return new QueueRecord(rs.getString(1), rs.getBoolean(2), rs.getString(3), rs.getInt(4), rs.getInt(5), limit, times.get(rs, 9));
    }

    /** Binds the {@value #HISTORY_WIDTH} values of a history row ({@link #HISTORY_COLUMNS}) from {@code first} on. */
    public static void bindHistory(Times times, PreparedStatement ps, int first, HistoryEntry e) throws SQLException {
        ps.setLong(first, e.taskId());
        ps.setLong(first + 1, e.version());
        ps.setString(first + 2, e.from());
        ps.setString(first + 3, e.to());
        ps.setString(first + 4, e.event());
        ps.setString(first + 5, e.source().name());
        setString(ps, first + 6, e.actor());
        setString(ps, first + 7, e.reason());
        times.set(ps, first + 8, e.at());
        setString(ps, first + 9, e.commandKey());
        TaskError error = e.error();
        setString(ps, first + 10, error == null ? null : error.code());
        setString(ps, first + 11, error == null ? null : error.message());
        setBoolean(ps, first + 12, error == null ? null : error.retryable());
        setString(ps, first + 13, error == null ? null : error.step());
        setString(ps, first + 14, error == null ? null : error.detail());
    }

    private static <T> T nonNull(@Nullable T value, String column) {
        if (value == null) throw new NullPointerException("column " + column + " is null");
        return value;
    }
}
