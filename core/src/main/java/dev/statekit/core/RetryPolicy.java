package dev.statekit.core;

import java.time.Duration;
import java.util.Objects;

/**
 * How automatic retries are bounded and spaced: at most {@code maxRetries} retries, the n-th
 * (from 0) after {@code min(cap, initial * 2^n)}, reduced by a random fraction of at most
 * {@code jitter} so that many failures at once do not retry at once.
 *
 * <p>Immutable and thread-safe. The default is 004's: 1 s, 2 s, 4 s, 8 s … capped at 30 s, at
 * most 3 retries, jitter 0.2.
 */
public final class RetryPolicy {
    private static final RetryPolicy DEFAULT = new RetryPolicy(3, Duration.ofSeconds(1), Duration.ofSeconds(30), 0.2);
    private static final RetryPolicy NONE = new RetryPolicy(0, Duration.ofSeconds(1), Duration.ofSeconds(1), 0);

    private final int maxRetries;
    private final Duration initial;
    private final Duration cap;
    private final double jitter;

    private RetryPolicy(int maxRetries, Duration initial, Duration cap, double jitter) {
        this.maxRetries = maxRetries;
        this.initial = initial;
        this.cap = cap;
        this.jitter = jitter;
    }

    /** Returns the default policy: 3 retries after 1 s, 2 s, 4 s (cap 30 s), jitter 0.2. */
    public static RetryPolicy defaults() {
        return DEFAULT;
    }

    /** Returns a policy that never retries automatically. */
    public static RetryPolicy none() {
        return NONE;
    }

    /**
     * Returns a capped exponential policy without jitter.
     *
     * @throws IllegalArgumentException if {@code maxRetries} is negative or a duration is not positive or {@code cap < initial}
     */
    public static RetryPolicy exponential(int maxRetries, Duration initial, Duration cap) {
        Objects.requireNonNull(initial, "initial");
        Objects.requireNonNull(cap, "cap");
        if (maxRetries < 0) throw new IllegalArgumentException("maxRetries must be >= 0, was " + maxRetries);
        if (initial.isNegative() || initial.isZero()) throw new IllegalArgumentException("initial backoff must be positive, was " + initial);
        if (cap.compareTo(initial) < 0) throw new IllegalArgumentException("cap " + cap + " is below the initial backoff " + initial);
        return new RetryPolicy(maxRetries, initial, cap, 0);
    }

    /**
     * Returns this policy with jitter: each delay is reduced by a random fraction in [0, {@code fraction}].
     *
     * @throws IllegalArgumentException if {@code fraction} is not within [0, 1)
     */
    public RetryPolicy withJitter(double fraction) {
        if (!(fraction >= 0 && fraction < 1)) throw new IllegalArgumentException("jitter must be within [0, 1), was " + fraction);
        return new RetryPolicy(maxRetries, initial, cap, fraction);
    }

    /** Returns the most automatic retries. */
    public int maxRetries() {
        return maxRetries;
    }

    /** Returns the delay before the first retry, before jitter. */
    public Duration initial() {
        return initial;
    }

    /** Returns the largest delay. */
    public Duration cap() {
        return cap;
    }

    /** Returns the jitter fraction. */
    public double jitter() {
        return jitter;
    }

    /** Returns the delay before retry {@code retry} (0-based), before jitter: {@code min(cap, initial * 2^retry)}. */
    public Duration baseDelay(int retry) {
        if (retry < 0) throw new IllegalArgumentException("retry must be >= 0, was " + retry);
        if (retry >= 62) return cap;
        Duration d;
        try {
            d = initial.multipliedBy(1L << retry);
        } catch (ArithmeticException overflow) {
            return cap;
        }
        return d.compareTo(cap) > 0 ? cap : d;
    }

    /**
     * Returns the delay before retry {@code retry} with jitter applied, given a uniform random
     * number {@code random} in [0, 1).
     */
    public Duration delay(int retry, double random) {
        Duration base = baseDelay(retry);
        if (jitter == 0) return base;
        long nanos = base.toNanos();
        return Duration.ofNanos(nanos - (long) (nanos * jitter * random));
    }

    @Override
    public String toString() {
        return "RetryPolicy[maxRetries=" + maxRetries + ", initial=" + initial + ", cap=" + cap + ", jitter=" + jitter + "]";
    }
}
