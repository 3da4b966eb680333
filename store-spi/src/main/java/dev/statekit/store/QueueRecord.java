package dev.statekit.store;

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
 */
public record QueueRecord(String name, boolean paused, @Nullable String pauseReason, int concurrency, int skippedLower) {
    /** Creates a record. */
    public QueueRecord {
        Objects.requireNonNull(name, "name");
        if (concurrency < 0) throw new IllegalArgumentException("concurrency must be >= 0, was " + concurrency);
        if (skippedLower < 0) throw new IllegalArgumentException("skippedLower must be >= 0");
    }

    /** Returns the record of a queue nobody configured: running, unlimited. */
    public static QueueRecord defaults(String name) {
        return new QueueRecord(name, false, null, 0, 0);
    }

    /** Returns this record paused for {@code reason} (which may be null). */
    public QueueRecord paused(@Nullable String reason) {
        return new QueueRecord(name, true, reason, concurrency, skippedLower);
    }

    /** Returns this record running, without a pause reason. */
    public QueueRecord resumed() {
        return new QueueRecord(name, false, null, concurrency, skippedLower);
    }

    /**
     * Returns this record with the concurrency limit {@code limit}; 0 means no limit.
     *
     * @throws IllegalArgumentException if {@code limit} is negative
     */
    public QueueRecord withConcurrency(int limit) {
        return new QueueRecord(name, paused, pauseReason, limit, skippedLower);
    }

    /**
     * Returns this record with the anti-starvation count {@code skipped}.
     *
     * @throws IllegalArgumentException if {@code skipped} is negative
     */
    public QueueRecord withSkippedLower(int skipped) {
        return new QueueRecord(name, paused, pauseReason, concurrency, skipped);
    }
}
