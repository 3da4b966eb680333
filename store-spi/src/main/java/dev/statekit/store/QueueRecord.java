package dev.statekit.store;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The persisted control record of one queue, shared by every runtime on the store.
 *
 * @param name             the queue's name
 * @param paused           whether claims are suspended (running tasks finish; nothing new starts)
 * @param pauseReason      why it was paused (for example {@code STOP_AFTER_CURRENT}), if paused
 * @param concurrency      the most tasks of the queue that may hold a lease at once; 0 means no limit
 * @param skippedLower     consecutive claims that passed over a lower-priority runnable task
 * @param rateLimit        the most starts per period, for the queue or per key; null for none
 * @param heldUntil        the latest end of a hold on one of the queue's keys
 *                         ({@link Store#holdKey}), or null when no hold was made since the last
 *                         claim that found every hold over
 */
public record QueueRecord(String name, boolean paused, @Nullable String pauseReason, int concurrency, int skippedLower,
                          @Nullable RateLimit rateLimit, @Nullable Instant heldUntil) {
    /** Creates a record. */
    public QueueRecord {
        Objects.requireNonNull(name, "name");
        if (concurrency < 0) throw new IllegalArgumentException("concurrency must be >= 0, was " + concurrency);
        if (skippedLower < 0) throw new IllegalArgumentException("skippedLower must be >= 0");
    }

    /** Creates a record without a rate limit or holds. */
    public QueueRecord(String name, boolean paused, @Nullable String pauseReason, int concurrency, int skippedLower) {
        this(name, paused, pauseReason, concurrency, skippedLower, null, null);
    }

    /** Returns the record of a queue nobody configured: running, unlimited. */
    public static QueueRecord defaults(String name) {
        return new QueueRecord(name, false, null, 0, 0);
    }

    /** Returns this record paused for {@code reason} (which may be null). */
    public QueueRecord paused(@Nullable String reason) {
        return new QueueRecord(name, true, reason, concurrency, skippedLower, rateLimit, heldUntil);
    }

    /** Returns this record running, without a pause reason. */
    public QueueRecord resumed() {
        return new QueueRecord(name, false, null, concurrency, skippedLower, rateLimit, heldUntil);
    }

    /**
     * Returns this record with the concurrency limit {@code limit}; 0 means no limit.
     *
     * @throws IllegalArgumentException if {@code limit} is negative
     */
    public QueueRecord withConcurrency(int limit) {
        return new QueueRecord(name, paused, pauseReason, limit, skippedLower, rateLimit, heldUntil);
    }

    /**
     * Returns this record with the anti-starvation count {@code skipped}.
     *
     * @throws IllegalArgumentException if {@code skipped} is negative
     */
    public QueueRecord withSkippedLower(int skipped) {
        return new QueueRecord(name, paused, pauseReason, concurrency, skipped, rateLimit, heldUntil);
    }

    /** Returns this record with the rate limit {@code limit}; null means none. */
    public QueueRecord withRateLimit(@Nullable RateLimit limit) {
        return new QueueRecord(name, paused, pauseReason, concurrency, skippedLower, limit, heldUntil);
    }

    /** Returns this record with the latest hold ending at {@code until}; null when no hold is left. */
    public QueueRecord withHeldUntil(@Nullable Instant until) {
        return new QueueRecord(name, paused, pauseReason, concurrency, skippedLower, rateLimit, until);
    }

    /**
     * Returns whether claims of this queue must count starts or look at holds: it has a rate limit
     * or a hold was made since the last claim that found every hold over.
     */
    public boolean rateLimited() {
        return rateLimit != null || heldUntil != null;
    }
}
