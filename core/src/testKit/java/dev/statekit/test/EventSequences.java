package dev.statekit.test;

import dev.statekit.core.Machine;
import dev.statekit.store.TriggerSource;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.arbitraries.ArbitraryDecorator;

/**
 * jqwik arbitraries of {@link EventSequence}s of a machine. Each step is drawn from
 * {@link Machine#allowedEvents(Enum, TriggerSource)} of the state the steps before it lead to,
 * except a configurable share of steps drawn from the events the table refuses there; in a state
 * no row leaves (a terminal state) every step is a refused one. Sequences shrink towards fewer
 * steps and towards allowed ones.
 *
 * <pre>{@code
 * @Provide
 * Arbitrary<EventSequence<State, Event>> sequences() {
 *     return EventSequences.of(machine).refusedShare(0.2).ofMaxLength(30);
 * }
 * }</pre>
 */
public final class EventSequences {
    private EventSequences() {
    }

    /** Returns an arbitrary of event sequences of {@code machine}: up to 20 steps, a tenth of them refused, both sources. */
    public static <S extends Enum<S>, E extends Enum<E>> Sequences<S, E> of(Machine<S, E> machine) {
        return new Sequences<>(machine, 0.1, 0, 20, EnumSet.allOf(TriggerSource.class));
    }

    /**
     * The arbitrary of event sequences of one machine; immutable, each setting returns a new one.
     *
     * @param <S> the state type
     * @param <E> the event type
     */
    public static final class Sequences<S extends Enum<S>, E extends Enum<E>> extends ArbitraryDecorator<EventSequence<S, E>> {
        private static final int COIN = 1_000;
        private final Machine<S, E> machine;
        private final double refusedShare;
        private final int minLength;
        private final int maxLength;
        private final Set<TriggerSource> sources;

        Sequences(Machine<S, E> machine, double refusedShare, int minLength, int maxLength, Set<TriggerSource> sources) {
            this.machine = Objects.requireNonNull(machine, "machine");
            this.refusedShare = refusedShare;
            this.minLength = minLength;
            this.maxLength = maxLength;
            this.sources = sources;
        }

        /**
         * Returns this arbitrary with {@code share} (0 to 1) of the steps drawn from the events the
         * table refuses in the current state (default 0.1).
         */
        public Sequences<S, E> refusedShare(double share) {
            if (!(share >= 0 && share <= 1)) throw new IllegalArgumentException("refusedShare must be within 0 and 1: " + share);
            return new Sequences<>(machine, share, minLength, maxLength, sources);
        }

        /** Returns this arbitrary with at most {@code length} steps (default 20). */
        public Sequences<S, E> ofMaxLength(int length) {
            if (length < minLength) throw new IllegalArgumentException("maxLength " + length + " is below minLength " + minLength);
            return new Sequences<>(machine, refusedShare, minLength, length, sources);
        }

        /** Returns this arbitrary with at least {@code length} steps (default 0). */
        public Sequences<S, E> ofMinLength(int length) {
            if (length < 0 || length > maxLength) throw new IllegalArgumentException("minLength must be within 0 and " + maxLength + ": " + length);
            return new Sequences<>(machine, refusedShare, length, maxLength, sources);
        }

        /** Returns this arbitrary with events fired only by {@code first} and {@code more} (default both sources). */
        public Sequences<S, E> sources(TriggerSource first, TriggerSource... more) {
            return new Sequences<>(machine, refusedShare, minLength, maxLength, EnumSet.of(first, more));
        }

        @Override
        protected Arbitrary<EventSequence<S, E>> arbitrary() {
            Arbitrary<int[]> choices = Combinators.combine(
                    Arbitraries.integers().between(0, COIN - 1).withDistribution(RandomDistribution.uniform()),
                    Arbitraries.integers().between(0, 1 << 20).withDistribution(RandomDistribution.uniform()))
                    .as((coin, pick) -> new int[] {coin, pick});
            return choices.list().ofMinSize(minLength).ofMaxSize(maxLength).map(this::interpret);
        }

        /** Turns choices into steps: a coin at or above the allowed share picks a refused step, the pick chooses which. */
        private EventSequence<S, E> interpret(List<int[]> choices) {
            List<EventSequence.Step<S, E>> steps = new ArrayList<>(choices.size());
            S state = machine.initial();
            for (int[] choice : choices) {
                List<EventSequence.Step<S, E>> allowed = new ArrayList<>();
                List<EventSequence.Step<S, E>> refused = new ArrayList<>();
                for (E event : machine.eventType().getEnumConstants()) {
                    for (TriggerSource source : sources) {
                        S target = MachineChecker.rowTarget(machine, state, event, source);
                        (target != null ? allowed : refused).add(new EventSequence.Step<>(event, source, state, target));
                    }
                }
                boolean refuse = choice[0] >= Math.round(COIN * (1 - refusedShare));
                List<EventSequence.Step<S, E>> from = (refuse && !refused.isEmpty()) || allowed.isEmpty() ? refused : allowed;
                if (from.isEmpty()) break;
                EventSequence.Step<S, E> step = from.get(choice[1] % from.size());
                steps.add(step);
                if (step.expected() != null) state = step.expected();
            }
            return new EventSequence<>(steps);
        }
    }
}
