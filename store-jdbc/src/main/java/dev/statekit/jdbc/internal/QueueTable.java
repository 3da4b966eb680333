package dev.statekit.jdbc.internal;

import dev.statekit.store.QueueRecord;
import dev.statekit.store.RateLimit;
import dev.statekit.store.support.StoreChecks;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The queue control rows: reading, locking (created on first use), pausing, resuming, the
 * concurrency limit, the rate limit and key holds (through {@link RateTable}), the
 * anti-starvation count, and the count of a queue's leased tasks.
 * Immutable and thread-safe.
 */
public final class QueueTable {
    private final Jdbc jdbc;
    private final Sql sql;
    private final DialectOps ops;
    private final RateTable rates;
    private final String setRateLimit;

    /** Creates the queue table of one store. */
    public QueueTable(JdbcContext context) {
        this.jdbc = context.jdbc();
        this.sql = context.sql();
        this.ops = context.ops();
        this.rates = new RateTable(sql);
        this.setRateLimit = "update " + sql.queues + " set rate_limit = ?, rate_period_ms = ?, rate_key_attribute = ? where name = ?";
    }

    /** Returns the starts and holds of the rate-limited queues. */
    RateTable rates() {
        return rates;
    }

    /** Sets the rate limit of {@code queue} (null removes it), waking other processes; returns the new record. */
    public QueueRecord setRateLimit(String queue, @Nullable RateLimit limit) {
        Objects.requireNonNull(queue, "queue");
        return jdbc.transaction("setting the rate limit of queue " + queue, null, c -> {
            QueueRecord q = lock(c, queue);
            Jdbc.update(c, setRateLimit, ps -> {
                ps.setInt(1, limit == null ? 0 : limit.starts());
                ps.setLong(2, limit == null ? 0 : limit.period().toMillis());
                Rows.setString(ps, 3, limit == null ? null : limit.keyAttribute());
                ps.setString(4, queue);
            });
            ops.notifyWaiters(c);
            return q.withRateLimit(limit);
        });
    }

    /** Holds {@code key} of {@code queue} until {@code until}, as {@link dev.statekit.store.Store#holdKey} describes. */
    public void holdKey(String queue, String key, Instant until) {
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(until, "until");
        jdbc.transaction("holding key " + key + " of queue " + queue, null, c -> {
            lock(c, queue);
            rates.hold(c, queue, key, until);
            return null;
        });
    }

    /** Returns the record of {@code queue} ({@link QueueRecord#defaults} if it has no row). */
    public QueueRecord get(String queue) {
        Objects.requireNonNull(queue, "queue");
        return jdbc.read("reading queue " + queue, null, c -> {
            QueueRecord q = select(c, sql.queue, queue);
            return q != null ? q : QueueRecord.defaults(queue);
        });
    }

    /** Pauses {@code queue}; returns the new record. */
    public QueueRecord pause(String queue, @Nullable String reason) {
        Objects.requireNonNull(queue, "queue");
        return jdbc.transaction("pausing queue " + queue, null, c -> {
            QueueRecord q = lock(c, queue);
            Jdbc.update(c, sql.pauseQueue, ps -> {
                Rows.setString(ps, 1, reason);
                ps.setString(2, queue);
            });
            return q.paused(reason);
        });
    }

    /** Resumes {@code queue}, waking other processes; returns the new record. */
    public QueueRecord resume(String queue) {
        Objects.requireNonNull(queue, "queue");
        return jdbc.transaction("resuming queue " + queue, null, c -> {
            QueueRecord q = lock(c, queue);
            Jdbc.update(c, sql.resumeQueue, ps -> ps.setString(1, queue));
            ops.notifyWaiters(c);
            return q.resumed();
        });
    }

    /** Sets the concurrency limit of {@code queue}, waking other processes when it grew; returns the new record. */
    public QueueRecord setConcurrency(String queue, int limit) {
        Objects.requireNonNull(queue, "queue");
        StoreChecks.requireConcurrencyLimit(limit);
        return jdbc.transaction("limiting queue " + queue, null, c -> {
            QueueRecord q = lock(c, queue);
            Jdbc.update(c, sql.setConcurrency, ps -> {
                ps.setInt(1, limit);
                ps.setString(2, queue);
            });
            if (limit == 0 || limit > q.concurrency()) ops.notifyWaiters(c);
            return q.withConcurrency(limit);
        });
    }

    /** Returns how many tasks of {@code queue} hold a lease, expired or not. */
    public int leased(String queue) {
        Objects.requireNonNull(queue, "queue");
        return jdbc.read("counting leases of queue " + queue, null, c -> leased(c, queue));
    }

    /** Returns how many tasks of {@code queue} hold a lease, expired or not, on {@code c}. */
    public int leased(Connection c, String queue) throws SQLException {
        return (int) Jdbc.queryLong(c, sql.leased, ps -> ps.setString(1, queue));
    }

    /** Locks the row of {@code queue} until the transaction ends, creating it first if it is missing; returns its record. */
    public QueueRecord lock(Connection c, String queue) throws SQLException {
        QueueRecord q = select(c, sql.lockQueue, queue);
        if (q != null) return q;
        try {
            Jdbc.update(c, sql.insertQueue, ps -> ps.setString(1, queue));
        } catch (SQLException e) {
            // H2 waits for a concurrent creator of the row, then reports the duplicate: the row is there.
            // (PostgreSQL's insert does nothing on a conflict.)
            if (!SqlErrors.uniqueViolation(e)) throw e;
        }
        q = select(c, sql.lockQueue, queue);
        if (q == null) throw new IllegalStateException("the control row of queue " + queue + " vanished");
        return q;
    }

    /**
     * Locks the row of {@code queue} against changes (pausing, limits) until the transaction ends,
     * but not against other transactions that lock it so; returns its record, or null when the
     * queue has no row yet. PostgreSQL only: on H2 the lock is exclusive.
     */
    public @Nullable QueueRecord share(Connection c, String queue) throws SQLException {
        return select(c, sql.shareQueue, queue);
    }

    /** Stores the anti-starvation count of {@code queue}, whose row the caller locked. */
    public void setSkipped(Connection c, String queue, int skipped) throws SQLException {
        Jdbc.update(c, sql.setSkipped, ps -> {
            ps.setInt(1, skipped);
            ps.setString(2, queue);
        });
    }

    private @Nullable QueueRecord select(Connection c, String statement, String queue) throws SQLException {
        return Jdbc.queryOne(c, statement, ps -> ps.setString(1, queue), sql.times::queue);
    }
}
