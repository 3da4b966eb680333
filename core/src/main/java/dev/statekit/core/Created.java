package dev.statekit.core;

import java.util.Objects;

/**
 * The result of {@link TransitionEngine#create}: the task and whether this call created it
 * ({@code false} when the idempotency key named an existing task, and nothing was written).
 *
 * @param task    the created or existing task
 * @param created whether this call created it
 * @param <S>     the state type
 */
public record Created<S extends Enum<S>>(Task<S> task, boolean created) {
    /** Creates a result. */
    public Created {
        Objects.requireNonNull(task, "task");
    }
}
