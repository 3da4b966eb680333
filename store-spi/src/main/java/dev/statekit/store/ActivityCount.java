package dev.statekit.store;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Objects;

/**
 * How many history entries of one machine's tasks on one queue, with one event and one target
 * state, were stamped within one time bucket, as {@link Store#activity} counts them. The store
 * keeps names only: what an event means (a start, a success, a failure, a retry) is the machine's to say.
 *
 * @param machine the machine's name
 * @param queue   the task's queue
 * @param event   the entry's event name
 * @param to      the entry's target state
 * @param bucket  the start of the bucket: the entry's time rounded down to a multiple of the bucket
 *                length since the epoch ({@link #bucketOf})
 * @param entries how many entries; at least 1
 */
public record ActivityCount(String machine, String queue, String event, String to, Instant bucket, long entries) {
    /** The order of {@link Store#activity}: by machine, queue, bucket, event, then target state. */
    public static final Comparator<ActivityCount> ORDER = Comparator.comparing(ActivityCount::machine)
            .thenComparing(ActivityCount::queue).thenComparing(ActivityCount::bucket)
            .thenComparing(ActivityCount::event).thenComparing(ActivityCount::to);

    /**
     * Creates a count.
     *
     * @throws IllegalArgumentException if {@code entries} is not positive
     */
    public ActivityCount {
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(bucket, "bucket");
        if (entries < 1) throw new IllegalArgumentException("entries must be >= 1, was " + entries);
    }

    /**
     * Returns the start of the bucket of length {@code bucket} that holds {@code at}: {@code at}
     * rounded down, to the millisecond, to a multiple of the bucket length since the epoch.
     *
     * @throws IllegalArgumentException if {@code bucket} is not a positive whole number of milliseconds
     */
    public static Instant bucketOf(Instant at, Duration bucket) {
        long ms = bucketMillis(bucket);
        return Instant.ofEpochMilli(Math.floorDiv(at.toEpochMilli(), ms) * ms);
    }

    /**
     * Returns the length of {@code bucket} in milliseconds.
     *
     * @throws IllegalArgumentException if {@code bucket} is not a positive whole number of milliseconds
     */
    public static long bucketMillis(Duration bucket) {
        if (bucket.isNegative() || bucket.isZero() || bucket.toNanosPart() % 1_000_000 != 0) {
            throw new IllegalArgumentException("bucket must be a positive whole number of milliseconds, was " + bucket);
        }
        return bucket.toMillis();
    }

    /**
     * Checks the arguments of {@link Store#activity} and returns the bucket length in milliseconds.
     *
     * @throws IllegalArgumentException if {@code to} is before {@code from} or {@code bucket} is not
     *         a positive whole number of milliseconds
     */
    public static long requireWindow(Instant from, Instant to, Duration bucket) {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        if (to.isBefore(from)) throw new IllegalArgumentException("to " + to + " is before from " + from);
        return bucketMillis(Objects.requireNonNull(bucket, "bucket"));
    }
}
