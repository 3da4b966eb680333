package dev.statekit.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.HistoryEntry;
import dev.statekit.test.KitMachines.Event;
import dev.statekit.test.KitMachines.State;
import java.time.Duration;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.state.ActionChain;
import org.junit.jupiter.api.Test;

class RuntimeSimulationTest {

    @Test
    void aCrashedRuntimesLeaseExpiresAndAnotherRuntimeFinishesTheTask() {
        RuntimeSimulation<State, Event> sim = RuntimeSimulation.of(KitMachines.JOB, ctx -> WorkResult.success()).runtimes(2).build();
        long id = sim.enqueue();
        while (sim.task(id).lease() == null) {
            assertThat(sim.runOne(0)).as("a runnable waits").isTrue();
        }
        String holder = sim.task(id).lease().owner();
        sim.crash(holder.equals("runtime-0") ? 0 : 1);        // the claim is held; the worker never runs
        sim.check();
        assertThat(sim.task(id).state()).isEqualTo(State.RUNNING.name());

        sim.expireLeases();
        sim.check();
        sim.settle();

        assertThat(sim.task(id).state()).isEqualTo(State.DONE.name());
        assertThat(sim.store().history(id)).extracting(HistoryEntry::event)
                .containsExactly("START", "RELEASE", "START", "FINISH");
        assertThat(sim.workerCalls()).isEqualTo(1);
    }

    @Test
    void tasksThatFailForGoodRestInAStateOnlyAPersonLeaves() {
        RuntimeSimulation<State, Event> sim = RuntimeSimulation.of(KitMachines.JOB, KitMachines.FLAKY).concurrency(2).build();
        for (int i = 0; i < 6; i++) sim.enqueue();
        sim.settle();

        assertThat(sim.tasks()).allSatisfy(id -> assertThat(sim.task(id).state())
                .isEqualTo(id % 5 == 0 ? State.FAILED.name() : State.DONE.name()));
    }

    @Test
    void settleFailsWhenATaskNeverComesToRest() {
        RuntimeSimulation<State, Event> sim = RuntimeSimulation.of(KitMachines.JOB, ctx -> WorkResult.snooze(Duration.ofSeconds(5)))
                .settleSteps(200).build();
        sim.enqueue();

        assertThatThrownBy(sim::settle).isInstanceOf(AssertionError.class).hasMessageContaining("did not come to rest");
    }

    @Test
    void theRestingStatesCanBeNamed() {
        RuntimeSimulation<State, Event> sim = RuntimeSimulation.of(KitMachines.JOB, KitMachines.FLAKY).restingStates(State.DONE).settleSteps(500).build();
        for (int i = 0; i < 5; i++) sim.enqueue();         // task 5 fails for good: FAILED is not named

        assertThatThrownBy(sim::settle).isInstanceOf(AssertionError.class).hasMessageContaining("FAILED");
    }

    @Provide
    Arbitrary<ActionChain<RuntimeSimulation<State, Event>>> chains() {
        return RuntimeSimulation.of(KitMachines.JOB, KitMachines.FLAKY).runtimes(2).workers(2).concurrency(2).chains(40);
    }

    @Property(tries = 60)
    void anyChainKeepsTheInvariantsAndSettles(@ForAll("chains") ActionChain<RuntimeSimulation<State, Event>> chain) {
        chain.run().settle();
    }
}
