package dev.statekit.core.ops;

import dev.statekit.store.HistoryEntry;
import dev.statekit.store.TaskError;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One attempt at a task's work, read from its history ({@link TaskOperations#attempts}): from the
 * claim that started it to the change that ended it, the first later change that took the task
 * out of the state the claim put it in (its result, a retry, a release, a cancellation, a recovery
 * of its lease).
 *
 * @param number   1 for the task's first attempt, counted over the history read
 * @param claim    the claim's history entry: its actor is the worker (the lease owner)
 * @param end      the entry that ended the attempt; null while it runs
 * @param duration from the claim to its end, or to the time of the read while it runs
 */
public record Attempt(int number, HistoryEntry claim, @Nullable HistoryEntry end, Duration duration) {
    /** Creates an attempt. */
    public Attempt {
        Objects.requireNonNull(claim, "claim");
        Objects.requireNonNull(duration, "duration");
        if (number < 1) throw new IllegalArgumentException("attempt number must be positive, was " + number);
    }

    /** Returns when the attempt started: the time of its claim. */
    public Instant startedAt() {
        return claim.at();
    }

    /** Returns the lease owner that ran it (the claim's actor), or null when the history names none. */
    public @Nullable String worker() {
        return claim.actor();
    }

    /** Returns whether the attempt still runs: nothing ended it yet. */
    public boolean running() {
        return end == null;
    }

    /** Returns the error its end recorded (with the stack trace of a thrown exception as its detail), or null. */
    public @Nullable TaskError error() {
        return end == null ? null : end.error();
    }
}
