package dev.statekit.core;

import dev.statekit.store.HistoryEntry;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One entry of a task's history read in its machine's enums ({@link TransitionEngine#history(Machine, long)}).
 *
 * @param entry the entry as stored, with its source, actor, reason, time and command key
 * @param from  the state the task left
 * @param to    the state the task entered
 * @param event the event, or null when the entry names none of the machine's events (the
 *              runtime's own moves: a release without a release row is recorded as
 *              {@code RELEASE}, a retry without a retry row as {@code RETRY}; see
 *              {@link #eventName()})
 * @param <S>   the machine's states
 * @param <E>   the machine's events
 */
public record HistoryStep<S extends Enum<S>, E extends Enum<E>>(HistoryEntry entry, S from, S to, @Nullable E event) {
    /** Creates a step. */
    public HistoryStep {
        Objects.requireNonNull(entry, "entry");
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
    }

    /** Returns the event's name as stored. */
    public String eventName() {
        return entry.event();
    }
}
