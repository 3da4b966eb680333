package dev.statekit.core;

import java.util.Objects;

/**
 * What a change does to a task, as {@link Commit} writes it: a row of the table fired by an event,
 * the runtime's move of a running task back to a claimable state, a migration out of a state a
 * machine's version no longer has, or a new place in its queue. Each is recorded with one history
 * entry named {@link #name()}; {@link Decider#decide} decides every kind.
 *
 * @param <S> the state type
 * @param <E> the event type
 */
sealed interface Move<S extends Enum<S>, E extends Enum<E>> {
    /** The history entry's event name, and what an authorizer is asked about. */
    String name();

    /** Fires {@code event}: the row of the task's state and the event, its guard and effect. */
    record Row<S extends Enum<S>, E extends Enum<E>>(E event) implements Move<S, E> {
        public Row {
            Objects.requireNonNull(event, "event");
        }

        @Override
        public String name() {
            return event.name();
        }
    }

    /**
     * The runtime's move of a running task back to the claimable state {@code to} without a row of
     * the table (a release or a retry that waits in place), recorded as {@code name}.
     */
    record Requeue<S extends Enum<S>, E extends Enum<E>>(S to, String name) implements Move<S, E> {
        public Requeue {
            Objects.requireNonNull(to, "to");
            Objects.requireNonNull(name, "name");
        }
    }

    /** Moves a task out of a state its machine's version removed into {@code to} ({@link MachineBuilder#migrate}). */
    record Migrate<S extends Enum<S>, E extends Enum<E>>(S to) implements Move<S, E> {
        /** The history event of a migration. */
        static final String NAME = "MIGRATE";

        public Migrate {
            Objects.requireNonNull(to, "to");
        }

        @Override
        public String name() {
            return NAME;
        }
    }

    /**
     * Gives a task a new place in its queue, {@code priority} and FIFO {@code sequence}, in the
     * state it is in: an operator's move to the front, change of priority or move before another
     * task, recorded as {@code name}.
     */
    record Reorder<S extends Enum<S>, E extends Enum<E>>(String name, int priority, long sequence) implements Move<S, E> {
        public Reorder {
            Objects.requireNonNull(name, "name");
        }
    }
}
