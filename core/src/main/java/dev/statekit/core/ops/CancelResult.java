package dev.statekit.core.ops;

import dev.statekit.core.Outcome;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The result of a cancellation ({@link TaskOperations#cancel}, or a runtime's own): cancelled at
 * once, requested from the worker that runs the task (it stops at its next safe point; past the
 * grace period the runtime that runs it cancels it and fences the worker), or refused.
 *
 * @param status  what happened
 * @param outcome the engine's outcome when cancelled or refused; null when requested
 * @param <S>     the state type
 */
public record CancelResult<S extends Enum<S>>(Status status, @Nullable Outcome<S> outcome) {

    /** What a cancellation did. */
    public enum Status {
        /** The task was cancelled. */
        CANCELLED,
        /** The task runs; its cancellation was requested, and its worker is asked to stop. */
        REQUESTED,
        /** The machine refused the cancellation (for example: a started task may not be cancelled). */
        REFUSED
    }

    /** Creates a result. */
    public CancelResult {
        Objects.requireNonNull(status, "status");
        if ((status == Status.REQUESTED) != (outcome == null)) throw new IllegalArgumentException("outcome exactly unless requested");
    }
}
