package com.example.tickets;

import static com.example.tickets.Tickets.TICKETS;
import static org.assertj.core.api.Assertions.assertThat;

import com.example.tickets.Tickets.AnsweringWorker;
import com.example.tickets.Tickets.Event;
import com.example.tickets.Tickets.State;
import dev.statekit.core.Command;
import dev.statekit.core.RefusalCode;
import dev.statekit.store.TriggerSource;
import dev.statekit.test.EventSequence;
import dev.statekit.test.EventSequences;
import dev.statekit.test.MachineChecker;
import dev.statekit.test.MachineMatrix;
import dev.statekit.test.RuntimeSimulation;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.state.ActionChain;

/** This project's machine and worker, checked with statekit-test. */
class TicketMachineTest {

    @Example
    void theTableKeepsItsPromises() {
        MachineMatrix<State, Event> matrix = MachineChecker.of(TICKETS).check().assertPromises();

        assertThat(matrix.unreachable()).isEmpty();
        assertThat(matrix.target(State.OPEN, Event.ANSWER, TriggerSource.SYSTEM)).isEqualTo(State.ANSWERING);
        assertThat(matrix.result(State.ANSWERED, Event.REOPEN, TriggerSource.USER))
                .isEqualTo(new MachineMatrix.Refused(RefusalCode.GUARD_REFUSED, "NO_COMMENT"));
        assertThat(matrix.toMarkdown()).contains("| CLOSED | REOPEN | refused: ILLEGAL_TRANSITION | refused: ILLEGAL_TRANSITION |");
    }

    @Example
    void aCommentReopensAnAnsweredTicket() {
        MachineMatrix<State, Event> matrix = MachineChecker.of(TICKETS)
                .commands((task, event, source) -> source == TriggerSource.USER
                        ? Command.user("sam").reason("still broken") : Command.system())
                .store(() -> new AuditedStore(8192))
                .check().assertPromises();

        assertThat(matrix.target(State.ANSWERED, Event.REOPEN, TriggerSource.USER)).isEqualTo(State.OPEN);
    }

    @Property(tries = 200)
    void anySequenceOfEventsKeepsThePromises(@ForAll("tickets") EventSequence<State, Event> events) {
        MachineChecker.of(TICKETS).run(events);
    }

    @Provide
    Arbitrary<EventSequence<State, Event>> tickets() {
        return EventSequences.of(TICKETS).refusedShare(0.25).ofMaxLength(30);
    }

    @Property(tries = 100)
    void theWorkerKeepsTheRuntimeInvariants(@ForAll("runs") ActionChain<RuntimeSimulation<State, Event>> chain) {
        chain.run().settle();
    }

    @Provide
    Arbitrary<ActionChain<RuntimeSimulation<State, Event>>> runs() {
        return RuntimeSimulation.of(TICKETS, new AnsweringWorker()).runtimes(2).concurrency(2)
                .store(() -> new AuditedStore(8192)).chains(40);
    }

    @Example
    void aSimulatedCrashLeavesNoTicketBehind() {
        RuntimeSimulation<State, Event> sim = RuntimeSimulation.of(TICKETS, new AnsweringWorker()).runtimes(2).build();
        for (int i = 0; i < 8; i++) sim.enqueue();
        sim.runOne(0);
        sim.crash(0);
        sim.expireLeases();
        sim.settle();

        assertThat(sim.tasks()).allSatisfy(id -> assertThat(sim.task(id).state())
                .isEqualTo(id % 4 == 0 ? State.ESCALATED.name() : State.ANSWERED.name()));
    }
}
