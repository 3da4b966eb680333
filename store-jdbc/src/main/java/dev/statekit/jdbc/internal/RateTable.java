package dev.statekit.jdbc.internal;

import java.util.List;

import dev.statekit.store.Claimed;

import dev.statekit.store.QueueRecord;
import dev.statekit.store.RateLimit;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.support.RateGate;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The starts and key holds of rate-limited queues ({@code rate_starts}, {@code rate_holds}): what
 * a claim reads to build its {@link RateGate}, and writes after, on the claim's connection while it
 * holds the queue's row lock, so that claims of the queue from every process count the same starts
 * in turn. Immutable and thread-safe.
 */
final class RateTable {
    private final String latestStart;
    private final String startsInWindow;
    private final String dropOldStarts;
    private final String insertStart;
    private final String heldKeys;
    private final String holdOf;
    private final String insertHold;
    private final String extendHold;
    private final String markHeld;
    private final String dropHolds;
    private final String forgetHolds;
    private final Times times;

    RateTable(Sql sql) {
        this.times = sql.times;
        latestStart = "select max(started_at) from " + sql.rateStarts + " where queue = ?";
        startsInWindow = "select rate_key, count(*) from " + sql.rateStarts + " where queue = ? and started_at > ? group by rate_key";
        dropOldStarts = "delete from " + sql.rateStarts + " where queue = ? and started_at <= ?";
        insertStart = "insert into " + sql.rateStarts + " (queue, rate_key, started_at) values (?, ?, ?)";
        heldKeys = "select rate_key from " + sql.rateHolds + " where queue = ? and held_until > ?";
        holdOf = "select held_until from " + sql.rateHolds + " where queue = ? and rate_key = ?";
        insertHold = "insert into " + sql.rateHolds + " (queue, rate_key, held_until) values (?, ?, ?)";
        extendHold = "update " + sql.rateHolds + " set held_until = ? where queue = ? and rate_key = ? and held_until < ?";
        markHeld = "update " + sql.queues + " set held_until = ? where name = ? and (held_until is null or held_until < ?)";
        dropHolds = "delete from " + sql.rateHolds + " where queue = ? and held_until <= ?";
        forgetHolds = "update " + sql.queues + " set held_until = null where name = ?";
    }

    /** Returns the latest start of {@code queue} kept, or null; the caller holds the queue's row lock. */
    @Nullable Instant latestStart(Connection c, String queue) throws SQLException {
        return Jdbc.queryOne(c, latestStart, ps -> ps.setString(1, queue), rs -> times.get(rs, 1));
    }

    /**
     * Returns the gate of a claim of {@code q} at {@code now} ({@link RateLimit#claimTime} of the
     * queue's latest start {@code latest}) over {@code inner}, after deleting the starts no claim
     * counts any more ({@link RateLimit#keepAfter}: a claim whose time lags another's still counts
     * the starts of its window); the caller holds the queue's row lock.
     */
    RateGate<TaskRecord, SQLException> gate(Connection c, QueueRecord q, Instant now, @Nullable Instant latest,
            ClaimCandidates inner) throws SQLException {
        RateLimit limit = q.rateLimit();
        Map<String, Integer> starts = new HashMap<>();
        if (limit != null) {
            Instant after = Rows.micros(limit.windowAfter(now));
            if (latest != null) {
                Instant forgotten = Rows.micros(limit.keepAfter(latest));
                Jdbc.update(c, dropOldStarts, ps -> {
                    ps.setString(1, q.name());
                    times.set(ps, 2, forgotten);
                });
            }
            for (Object[] row : Jdbc.query(c, startsInWindow, ps -> {
                ps.setString(1, q.name());
                times.set(ps, 2, after);
            }, rs -> new Object[] {rs.getString(1), rs.getInt(2)})) {
                starts.put((String) row[0], (Integer) row[1]);
            }
        }
        Set<String> held = new HashSet<>();
        if (RateGate.holdsApply(q.heldUntil(), now)) {
            held.addAll(Jdbc.query(c, heldKeys, ps -> {
                ps.setString(1, q.name());
                times.set(ps, 2, now);
            }, rs -> rs.getString(1)));
        } else if (q.heldUntil() != null) {
            Jdbc.update(c, dropHolds, ps -> {
                ps.setString(1, q.name());
                times.set(ps, 2, now);
            });
            Jdbc.update(c, forgetHolds, ps -> ps.setString(1, q.name()));
        }
        return new RateGate<>(inner, t -> RateLimit.keyOf(limit, t), limit, starts, held);
    }

    /**
     * Writes one start for each task claimed, at the time of its claim's history entry (the claim's
     * time, or the task's last change when that is later), so that the starts a gate counts are
     * those the history shows.
     */
    void started(Connection c, String queue, RateLimit limit, List<Claimed> claimed) throws SQLException {
        if (claimed.isEmpty()) return;
        try (PreparedStatement ps = c.prepareStatement(insertStart)) {
            for (Claimed k : claimed) {
                ps.setString(1, queue);
                ps.setString(2, RateLimit.keyOf(limit, k.task()));
                times.set(ps, 3, k.entry().at());
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** Holds {@code key} of {@code queue} until {@code until}; the caller holds the queue's row lock. */
    void hold(Connection c, String queue, String key, Instant until) throws SQLException {
        boolean exists = Jdbc.queryOne(c, holdOf, ps -> {
            ps.setString(1, queue);
            ps.setString(2, key);
        }, rs -> Boolean.TRUE) != null;
        if (!exists) {
            Jdbc.update(c, insertHold, ps -> {
                ps.setString(1, queue);
                ps.setString(2, key);
                times.set(ps, 3, until);
            });
        } else {
            Jdbc.update(c, extendHold, ps -> {
                times.set(ps, 1, until);
                ps.setString(2, queue);
                ps.setString(3, key);
                times.set(ps, 4, until);
            });
        }
        Jdbc.update(c, markHeld, ps -> {
            times.set(ps, 1, until);
            ps.setString(2, queue);
            times.set(ps, 3, until);
        });
    }
}
