package dev.statekit.jdbc.internal;

import dev.statekit.store.RenewResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Objects;

/**
 * What changes on a task without a version or a history entry: lease renewals, the cancellation
 * flag, the priority and FIFO sequence, and the sequences themselves. Immutable and thread-safe.
 */
public final class TaskMetadata {
    private final Jdbc jdbc;
    private final Sql sql;

    /** Creates the metadata writes of one store. */
    public TaskMetadata(JdbcContext context) {
        this.jdbc = context.jdbc();
        this.sql = context.sql();
    }

    /** Extends a lease still held with {@code fencingToken} and not expired at {@code now}; reports a cancel request. */
    public RenewResult renew(long taskId, long fencingToken, Instant now, Instant expiresAt) {
        Objects.requireNonNull(now, "now");
        Objects.requireNonNull(expiresAt, "expiresAt");
        return jdbc.transaction("renewing a lease", taskId, c -> {
            int renewed = Jdbc.update(c, sql.renew, ps -> {
                sql.times.set(ps, 1, expiresAt);
                ps.setLong(2, taskId);
                ps.setLong(3, fencingToken);
                sql.times.set(ps, 4, now);
            });
            if (renewed == 0) return RenewResult.LOST;
            return cancelFlag(c, taskId) ? RenewResult.RENEWED_CANCEL_REQUESTED : RenewResult.RENEWED;
        });
    }

    /** Sets the cancellation flag of {@code taskId}; returns whether the task exists. */
    public boolean requestCancel(long taskId) {
        return jdbc.transaction("requesting cancellation", taskId,
                c -> Jdbc.update(c, sql.requestCancel, ps -> ps.setLong(1, taskId)) > 0);
    }

    /** Returns whether cancelling {@code taskId} was requested since its last claim. */
    public boolean cancelRequested(long taskId) {
        return jdbc.read("reading the cancellation flag", taskId, c -> cancelFlag(c, taskId));
    }

    private boolean cancelFlag(Connection c, long taskId) throws SQLException {
        Boolean flag = Jdbc.queryOne(c, sql.cancelFlag, ps -> ps.setLong(1, taskId), rs -> rs.getBoolean(1));
        return flag != null && flag;
    }

    /** Sets the priority and FIFO sequence of {@code taskId}; returns whether the task exists. */
    public boolean reorder(long taskId, int priority, long sequence) {
        return jdbc.transaction("reordering a task", taskId, c -> Jdbc.update(c, sql.reorder, ps -> {
            ps.setInt(1, priority);
            ps.setLong(2, sequence);
            ps.setLong(3, taskId);
        }) > 0);
    }

    /** Returns a new FIFO sequence number, at the back or (negated) at the front. */
    public long nextSequence(boolean front) {
        return jdbc.transaction("drawing a sequence number", null, c -> {
            long v = Jdbc.queryLong(c, front ? sql.nextFront : sql.nextSequence, Jdbc.NO_PARAMETERS);
            return front ? -v : v;
        });
    }
}
