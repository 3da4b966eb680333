package dev.statekit.core;

import java.util.Objects;

/**
 * One command of a {@link TransitionEngine#fireAll batch}: fire {@code event} at task
 * {@code taskId} of {@code machine} with {@code command}.
 *
 * @param machine the machine the task lives in
 * @param taskId  the task
 * @param event   the event
 * @param command the command context
 * @param <S>     the state type
 * @param <E>     the event type
 */
public record Fire<S extends Enum<S>, E extends Enum<E>>(Machine<S, E> machine, long taskId, E event, Command command) {
    /** Creates a command of a batch. */
    public Fire {
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(command, "command");
    }

    /** Returns a system-triggered command of a batch. */
    public static <S extends Enum<S>, E extends Enum<E>> Fire<S, E> of(Machine<S, E> machine, long taskId, E event) {
        return new Fire<>(machine, taskId, event, Command.system());
    }
}
