package dev.statekit.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.statekit.store.TriggerSource;
import dev.statekit.test.KitMachines.Event;
import dev.statekit.test.KitMachines.State;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;


class EventSequencesTest {

    @Provide
    Arbitrary<EventSequence<State, Event>> sequences() {
        return EventSequences.of(KitMachines.JOB).refusedShare(0.25).ofMinLength(1).ofMaxLength(30);
    }

    @Property(tries = 300)
    void stepsFollowTheTableFromTheInitialState(@ForAll("sequences") EventSequence<State, Event> sequence) {
        assertThat(sequence.steps()).hasSizeBetween(1, 30);
        State state = KitMachines.JOB.initial();
        for (EventSequence.Step<State, Event> step : sequence.steps()) {
            assertThat(step.from()).isEqualTo(state);
            boolean allowed = KitMachines.JOB.allowedEvents(state, step.source()).contains(step.event());
            assertThat(step.allowed()).as("%s", step).isEqualTo(allowed);
            if (allowed) state = step.expected();
        }
    }

    @Example
    void theShareOfRefusedStepsFollowsTheSetting() {
        for (double share : List.of(0.0, 0.25, 1.0)) {
            Arbitrary<EventSequence<State, Event>> arbitrary = EventSequences.of(KitMachines.JOB).refusedShare(share).ofMaxLength(40).ofMinLength(40);
            Random random = new Random(42);
            int refused = 0;
            int steps = 0;
            for (int i = 0; i < 200; i++) {
                for (EventSequence.Step<State, Event> step : arbitrary.generator(1000).next(random).value().steps()) {
                    if (KitMachines.JOB.isTerminal(step.from())) {
                        assertThat(step.allowed()).as("a step in a terminal state").isFalse();
                        continue;
                    }
                    steps++;
                    if (!step.allowed()) refused++;
                }
            }
            double seen = (double) refused / steps;
            assertThat(seen).as("share of refused steps outside terminal states, set to %s", share).isCloseTo(share, within(0.05));
        }
    }

    @Example
    void onlyTheChosenSourcesFire() {
        Arbitrary<EventSequence<State, Event>> arbitrary = EventSequences.of(KitMachines.JOB).sources(TriggerSource.USER).ofMinLength(10);
        Random random = new Random(7);
        for (int i = 0; i < 50; i++) {
            assertThat(arbitrary.generator(1000).next(random).value().steps()).allMatch(s -> s.source() == TriggerSource.USER);
        }
    }
}
