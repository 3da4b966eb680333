package dev.statekit.test.docs;

import static dev.statekit.test.docs.Orders.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.TriggerSource;
import dev.statekit.test.EventSequence;
import dev.statekit.test.EventSequences;
import dev.statekit.test.MachineChecker;
import dev.statekit.test.MachineMatrix;
import dev.statekit.test.RuntimeSimulation;
import dev.statekit.test.docs.Orders.Event;
import dev.statekit.test.docs.Orders.ShippingWorker;
import dev.statekit.test.docs.Orders.State;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.state.ActionChain;

/** The tests docs/testing.md shows, verbatim (TestingDocTest checks it). */
class OrderMachineTest {

    @Example
    void theTableKeepsItsPromises() {
        MachineMatrix<State, Event> matrix = MachineChecker.of(ORDERS).check().assertPromises();
        assertThat(matrix.unreachable()).isEmpty();
        assertThat(matrix.target(State.FAILED, Event.RETRY, TriggerSource.USER)).isEqualTo(State.PAID);
    }

    @Property
    void anySequenceOfEventsKeepsThePromises(@ForAll("orders") EventSequence<State, Event> events) {
        MachineChecker.of(ORDERS).run(events);
    }

    @Provide
    Arbitrary<EventSequence<State, Event>> orders() {
        return EventSequences.of(ORDERS).refusedShare(0.2).ofMaxLength(30);
    }

    @Property(tries = 100)
    void theWorkerKeepsTheRuntimeInvariants(@ForAll("runs") ActionChain<RuntimeSimulation<State, Event>> chain) {
        chain.run().settle();
    }

    @Provide
    Arbitrary<ActionChain<RuntimeSimulation<State, Event>>> runs() {
        return RuntimeSimulation.of(ORDERS, new ShippingWorker()).runtimes(2).concurrency(1).chains(40);
    }
}
