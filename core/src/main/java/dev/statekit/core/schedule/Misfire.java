package dev.statekit.core.schedule;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What to do about occurrences missed while nothing ran: {@link #skip()}, {@link #runOnce()} or
 * {@link #runEach(int)}, each with a {@link #threshold()}.
 *
 * <p>An occurrence is <em>on time</em> while it is at most {@code threshold} old (default one
 * minute, as Quartz's misfire threshold): it is created whatever the policy. An older one not yet
 * created is <em>missed</em>, and the policy decides:
 * <ul>
 *   <li>{@link Policy#SKIP}: none of the missed ones; the schedule continues with the next.</li>
 *   <li>{@link Policy#RUN_ONCE}: one for all of them, the latest missed occurrence.</li>
 *   <li>{@link Policy#RUN_EACH}: each missed occurrence, at most {@link #limit()}: the latest ones
 *       (the most recent are the most useful; the older ones are dropped).</li>
 * </ul>
 * {@link Recurrence#due} applies it.
 *
 * <p>Immutable and thread-safe.
 */
public final class Misfire {
    /** The default threshold: one minute. */
    public static final Duration DEFAULT_THRESHOLD = Duration.ofMinutes(1);

    /** The three policies. */
    public enum Policy {
        /** Create none of the missed occurrences. */
        SKIP,
        /** Create the latest missed occurrence only. */
        RUN_ONCE,
        /** Create each missed occurrence, the latest {@link Misfire#limit()} of them. */
        RUN_EACH
    }

    private final Policy policy;
    private final int limit;
    private final Duration threshold;

    private Misfire(Policy policy, int limit, Duration threshold) {
        this.policy = policy;
        this.limit = limit;
        this.threshold = threshold;
    }

    /** Returns the policy that creates none of the missed occurrences. */
    public static Misfire skip() {
        return new Misfire(Policy.SKIP, 0, DEFAULT_THRESHOLD);
    }

    /** Returns the policy that creates the latest missed occurrence, one for all of them. */
    public static Misfire runOnce() {
        return new Misfire(Policy.RUN_ONCE, 1, DEFAULT_THRESHOLD);
    }

    /**
     * Returns the policy that creates each missed occurrence, the latest {@code limit} of them.
     *
     * @throws IllegalArgumentException when {@code limit} is below 1
     */
    public static Misfire runEach(int limit) {
        if (limit < 1) throw new IllegalArgumentException("limit must be >= 1, was " + limit);
        return new Misfire(Policy.RUN_EACH, limit, DEFAULT_THRESHOLD);
    }

    /**
     * Returns the policy {@code policy} with {@code limit} (what a store reads back): {@code limit}
     * is 0 for SKIP, 1 for RUN_ONCE, at least 1 for RUN_EACH.
     *
     * @throws IllegalArgumentException when {@code limit} does not fit {@code policy}
     */
    public static Misfire of(Policy policy, int limit) {
        Objects.requireNonNull(policy, "policy");
        switch (policy) {
            case SKIP:
                if (limit != 0) throw new IllegalArgumentException("SKIP takes limit 0, was " + limit);
                return skip();
            case RUN_ONCE:
                if (limit != 1) throw new IllegalArgumentException("RUN_ONCE takes limit 1, was " + limit);
                return runOnce();
            default:
                return runEach(limit);
        }
    }

    /**
     * Returns this policy with another threshold: how old an occurrence may be and still be on time.
     *
     * @throws IllegalArgumentException when {@code threshold} is negative
     */
    public Misfire withThreshold(Duration threshold) {
        Objects.requireNonNull(threshold, "threshold");
        if (threshold.isNegative()) throw new IllegalArgumentException("threshold must not be negative, was " + threshold);
        return new Misfire(policy, limit, threshold);
    }

    /** Returns the policy. */
    public Policy policy() {
        return policy;
    }

    /** Returns how many missed occurrences are created at most: 0 for SKIP, 1 for RUN_ONCE, the limit for RUN_EACH. */
    public int limit() {
        return limit;
    }

    /** Returns how old an occurrence may be and still be on time. */
    public Duration threshold() {
        return threshold;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof Misfire && ((Misfire) o).policy == policy && ((Misfire) o).limit == limit && ((Misfire) o).threshold.equals(threshold);
    }

    @Override
    public int hashCode() {
        return Objects.hash(policy, limit, threshold);
    }

    /** Returns the policy, such as {@code RUN_EACH(3) after PT1M}. */
    @Override
    public String toString() {
        return (policy == Policy.RUN_EACH ? "RUN_EACH(" + limit + ")" : policy.name()) + " after " + threshold;
    }
}
