package dev.statekit.core;

import dev.statekit.store.HistoryEntry;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of {@link TransitionEngine#fire}: {@link Applied} with the new task and its history
 * entry, or {@link Refused} with a stable code. A refused command changed nothing.
 *
 * @param <S> the state type
 */
public sealed interface Outcome<S extends Enum<S>> permits Outcome.Applied, Outcome.Refused {

    /** Returns whether the command was applied (or replayed). */
    boolean isApplied();

    /**
     * Returns the applied outcome, or throws.
     *
     * @throws TransitionRefusedException carrying the refusal when the command was refused
     */
    Applied<S> orElseThrow();

    /**
     * The command was applied: the task at its new version and the history entry written with it.
     * When the command repeated an idempotency key already applied to the task, nothing was
     * written: {@code entry} is the first application's entry, {@code task} the task as it is
     * now, and {@code replayed} is true.
     *
     * @param task     the task after the change
     * @param entry    the history entry of the change
     * @param replayed whether this outcome repeats an earlier application of the same key
     * @param <S>      the state type
     */
    record Applied<S extends Enum<S>>(Task<S> task, HistoryEntry entry, boolean replayed) implements Outcome<S> {
        /** Creates an applied outcome. */
        public Applied {
            Objects.requireNonNull(task, "task");
            Objects.requireNonNull(entry, "entry");
        }

        @Override
        public boolean isApplied() {
            return true;
        }

        @Override
        public Applied<S> orElseThrow() {
            return this;
        }
    }

    /**
     * The command was refused and changed nothing.
     *
     * @param code       the stable category of the refusal
     * @param reasonCode the application's code: a guard's or a named refusal's code, else {@code code.name()}
     * @param message    a message naming the task, its state and the event, and what is allowed instead
     * @param taskId     the task
     * @param state      the task's state when refused; null when the task was not found
     * @param event      the event's name
     * @param <S>        the state type
     */
    record Refused<S extends Enum<S>>(RefusalCode code, String reasonCode, String message, long taskId,
                                      @Nullable S state, String event) implements Outcome<S> {
        /** Creates a refusal. */
        public Refused {
            Objects.requireNonNull(code, "code");
            Objects.requireNonNull(reasonCode, "reasonCode");
            Objects.requireNonNull(message, "message");
            Objects.requireNonNull(event, "event");
        }

        @Override
        public boolean isApplied() {
            return false;
        }

        @Override
        public Applied<S> orElseThrow() {
            throw new TransitionRefusedException(this);
        }
    }
}
