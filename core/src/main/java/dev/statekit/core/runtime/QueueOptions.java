package dev.statekit.core.runtime;

import dev.statekit.core.spi.Precondition;
import dev.statekit.store.RateLimit;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How a runtime serves one queue: its concurrency limit and rate limit (held across every runtime
 * on the store), anti-starvation, and an optional precondition checked before a task starts.
 * Immutable; start from {@link #defaults()}.
 */
public final class QueueOptions {
    private static final QueueOptions DEFAULTS = new QueueOptions(-1, 0, null, null);

    private final int concurrency;
    private final int starvationLimit;
    private final @Nullable Precondition precondition;
    private final @Nullable RateLimit rateLimit;

    private QueueOptions(int concurrency, int starvationLimit, @Nullable Precondition precondition, @Nullable RateLimit rateLimit) {
        this.concurrency = concurrency;
        this.starvationLimit = starvationLimit;
        this.precondition = precondition;
        this.rateLimit = rateLimit;
    }

    /** Returns the defaults: the limits stored for the queue are kept, no anti-starvation, no precondition. */
    public static QueueOptions defaults() {
        return DEFAULTS;
    }

    /**
     * Returns these options with a concurrency limit, written to the store when the runtime
     * starts; 0 means no limit.
     *
     * @throws IllegalArgumentException if {@code limit} is negative
     */
    public QueueOptions concurrency(int limit) {
        if (limit < 0) throw new IllegalArgumentException("concurrency must be >= 0, was " + limit);
        return new QueueOptions(limit, starvationLimit, precondition, rateLimit);
    }

    /**
     * Returns these options with anti-starvation: after {@code k} consecutive starts that passed
     * over a lower-priority runnable task, the best lower-priority task starts next; 0 turns it off.
     *
     * @throws IllegalArgumentException if {@code k} is negative
     */
    public QueueOptions starvationLimit(int k) {
        if (k < 0) throw new IllegalArgumentException("starvation limit must be >= 0, was " + k);
        return new QueueOptions(concurrency, k, precondition, rateLimit);
    }

    /** Returns these options with a precondition checked before each start. */
    public QueueOptions precondition(Precondition check) {
        return new QueueOptions(concurrency, starvationLimit, Objects.requireNonNull(check, "precondition"), rateLimit);
    }

    /** Returns the configured limit, or -1 when the stored limit is kept. */
    public int concurrency() {
        return concurrency;
    }

    /**
     * Returns these options with a rate limit of at most {@code starts} starts per {@code period}
     * for the whole queue, written to the store when the runtime starts ({@link RateLimit}).
     *
     * @throws IllegalArgumentException as {@link RateLimit} does
     */
    public QueueOptions rateLimit(int starts, Duration period) {
        return new QueueOptions(concurrency, starvationLimit, precondition, RateLimit.perQueue(starts, period));
    }

    /**
     * Returns these options with a rate limit of at most {@code starts} starts per {@code period}
     * for each value of the task attribute {@code keyAttribute} (for example {@code model}),
     * written to the store when the runtime starts ({@link RateLimit}).
     *
     * @throws IllegalArgumentException as {@link RateLimit} does
     */
    public QueueOptions rateLimitPerKey(int starts, Duration period, String keyAttribute) {
        return new QueueOptions(concurrency, starvationLimit, precondition, RateLimit.perKey(starts, period, keyAttribute));
    }

    /** Returns the rate limit to write when the runtime starts, or null to keep the one stored. */
    public @Nullable RateLimit rateLimit() {
        return rateLimit;
    }

    /** Returns the anti-starvation limit; 0 when off. */
    public int starvationLimit() {
        return starvationLimit;
    }

    /** Returns the precondition, or null. */
    public @Nullable Precondition precondition() {
        return precondition;
    }
}
