package dev.statekit.test;

import dev.statekit.store.TriggerSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A sequence of events to fire at one task, each with its trigger source, as drawn by
 * {@link EventSequences}: each step says whether the table allows it in the state the steps
 * before it lead to, and to which state. A guard may still refuse an allowed step when it is
 * fired; {@link MachineChecker#run(EventSequence)} fires a sequence and checks the promises.
 *
 * @param steps the steps, in order
 * @param <S>   the state type
 * @param <E>   the event type
 */
public record EventSequence<S extends Enum<S>, E extends Enum<E>>(List<Step<S, E>> steps) {

    /**
     * One event of a sequence.
     *
     * @param event    the event
     * @param source   who fires it
     * @param from     the state the table's rows lead to before this step
     * @param expected the state the table's first row for the event and source leads to, or null when the table refuses the step
     * @param <S>      the state type
     * @param <E>      the event type
     */
    public record Step<S extends Enum<S>, E extends Enum<E>>(E event, TriggerSource source, S from, @Nullable S expected) {
        /** Creates a step. */
        public Step {
            Objects.requireNonNull(event, "event");
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(from, "from");
        }

        /** Returns whether the table allows this step. */
        public boolean allowed() {
            return expected != null;
        }

        @Override
        public String toString() {
            return event + " by " + source + (expected == null ? " (refused in " + from + ")" : "");
        }
    }

    /** Creates a sequence. */
    public EventSequence {
        steps = List.copyOf(steps);
    }

    /** Returns how many steps the table refuses. */
    public int refused() {
        int n = 0;
        for (Step<S, E> s : steps) if (!s.allowed()) n++;
        return n;
    }

    /** Returns the events of the steps, in order. */
    public List<E> events() {
        List<E> events = new ArrayList<>(steps.size());
        for (Step<S, E> s : steps) events.add(s.event());
        return events;
    }

    @Override
    public String toString() {
        return steps.toString();
    }
}
