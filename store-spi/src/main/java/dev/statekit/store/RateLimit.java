package dev.statekit.store;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A queue's rate limit: at most {@code starts} claims (starts) per {@code period}, for the whole
 * queue or, with a {@code keyAttribute}, for each key within it: the value of that attribute of
 * the task (for example {@code model}); a task without the attribute has the empty key.
 *
 * <p>The window slides: a claim at {@code now} counts the starts of the key after
 * {@code now - period}, so a start at {@code s} leaves its key's room again at {@code s + period}.
 * Every start counts, whatever becomes of the task. Stores keep the starts and enforce the limit
 * inside the claim, so it holds across every process that shares the store. A claim's time is read
 * before the claim waits for the queue's lock, so a claim may come after another whose time is
 * later: it counts every start after the beginning of its window, later ones included. Stores keep
 * the starts for a period more than the window before the queue's latest start
 * ({@link #keepAfter}), and a claim whose time lags that latest start by more than a period is
 * made a period before it ({@link #claimTime}), so that every start its window holds is still
 * kept. The limit holds, for windows of the starts' times, however late a claim comes.
 *
 * @param starts       the most starts per period, at least 1
 * @param period       the period, at least one millisecond (stores keep milliseconds)
 * @param keyAttribute the attribute whose value is the key, or null for one key for the whole queue
 */
public record RateLimit(int starts, Duration period, @Nullable String keyAttribute) {
    /** The key of a task when the limit is not per key, or the task has no value for the key attribute. */
    public static final String NO_KEY = "";

    /**
     * Creates a limit.
     *
     * @throws IllegalArgumentException if {@code starts} is below 1, the period is below one
     *                                  millisecond or not whole milliseconds, or the key attribute is blank
     */
    public RateLimit {
        Objects.requireNonNull(period, "period");
        if (starts < 1) throw new IllegalArgumentException("a rate limit needs at least 1 start per period, was " + starts);
        if (period.compareTo(Duration.ofMillis(1)) < 0 || period.toNanos() % 1_000_000 != 0) {
            throw new IllegalArgumentException("a rate limit's period must be whole milliseconds, at least 1, was " + period);
        }
        if (keyAttribute != null && keyAttribute.isBlank()) throw new IllegalArgumentException("a rate limit's key attribute must not be blank");
    }

    /** Returns a limit of {@code starts} per {@code period} for the whole queue. */
    public static RateLimit perQueue(int starts, Duration period) {
        return new RateLimit(starts, period, null);
    }

    /** Returns a limit of {@code starts} per {@code period} for each value of the task attribute {@code keyAttribute}. */
    public static RateLimit perKey(int starts, Duration period, String keyAttribute) {
        return new RateLimit(starts, period, Objects.requireNonNull(keyAttribute, "keyAttribute"));
    }

    /** Returns the key of {@code task} under this limit. */
    public String keyOf(TaskRecord task) {
        return keyOf(this, task);
    }

    /** Returns the key of {@code task} under {@code limit}; {@link #NO_KEY} without a limit or without a key attribute. */
    public static String keyOf(@Nullable RateLimit limit, TaskRecord task) {
        if (limit == null || limit.keyAttribute() == null) return NO_KEY;
        return task.attributes().getOrDefault(limit.keyAttribute(), NO_KEY);
    }

    /**
     * Returns the time of a claim whose time was read at {@code now}, of a queue whose latest start
     * kept is {@code latestStart} (null when it keeps none): the later of {@code now} and a period
     * before that start. A claim no earlier than that counts every start a store keeps
     * ({@link #keepAfter}) within its window.
     */
    public Instant claimTime(Instant now, @Nullable Instant latestStart) {
        if (latestStart == null) return now;
        Instant earliest = latestStart.minus(period);
        return earliest.isAfter(now) ? earliest : now;
    }

    /**
     * Returns the instant before which (inclusive) a store may forget the starts of a queue whose
     * latest start is {@code latestStart}: two periods before it, one more than the window of the
     * earliest claim {@link #claimTime} lets come after it. The latest start itself is always kept.
     */
    public Instant keepAfter(Instant latestStart) {
        return latestStart.minus(period).minus(period);
    }

    /** Returns the first instant whose starts still count at {@code now}: starts after it count. */
    public Instant windowAfter(Instant now) {
        return now.minus(period);
    }
}
