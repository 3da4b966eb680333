package dev.statekit.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.core.Command;
import dev.statekit.core.RefusalCode;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.Store;
import dev.statekit.store.TriggerSource;
import dev.statekit.test.KitMachines.Event;
import dev.statekit.test.KitMachines.State;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class MachineCheckerTest {

    @Test
    void theMatrixHoldsEveryReachableStateEventAndSource() {
        MachineMatrix<State, Event> matrix = MachineChecker.of(KitMachines.JOB).check().assertPromises();

        assertThat(matrix.reachable()).containsExactlyInAnyOrder(State.values());
        assertThat(matrix.unreachable()).isEmpty();
        assertThat(matrix.cells()).hasSize(State.values().length * Event.values().length * TriggerSource.values().length);
        assertThat(matrix.target(State.QUEUED, Event.START, TriggerSource.SYSTEM)).isEqualTo(State.RUNNING);
        assertThat(matrix.target(State.RUNNING, Event.CANCEL, TriggerSource.USER)).isEqualTo(State.CANCELED);
        assertThat(matrix.result(State.QUEUED, Event.START, TriggerSource.USER))
                .isEqualTo(new MachineMatrix.Refused(RefusalCode.ILLEGAL_TRANSITION, "ILLEGAL_TRANSITION"));
        for (MachineMatrix.Cell<State, Event> c : matrix.cells()) {
            if (KitMachines.JOB.isTerminal(c.state())) assertThat(c.applied()).as("%s", c).isFalse();
            assertThat(c.applied()).as("%s", c).isEqualTo(KitMachines.JOB.allowedEvents(c.state(), c.source()).contains(c.event()));
        }
    }

    @Test
    void theMarkdownTableHasALinePerStateAndEvent() {
        String table = MachineChecker.of(KitMachines.JOB).check().toMarkdown();

        List<String> lines = table.lines().toList();
        assertThat(lines.get(0)).isEqualTo("| state | event | SYSTEM | USER |");
        assertThat(lines).hasSize(2 + State.values().length * Event.values().length);
        assertThat(lines).contains("| QUEUED | START | → RUNNING | refused: ILLEGAL_TRANSITION |",
                "| FAILED | RETRY | refused: ILLEGAL_TRANSITION | → QUEUED |");
    }

    @Test
    void aGuardRefusesWithItsCodeAndCommandsMakeItPass() {
        MachineMatrix<State, Event> bare = MachineChecker.of(KitMachines.REVIEW).check().assertPromises();
        assertThat(bare.result(State.QUEUED, Event.APPROVE, TriggerSource.USER))
                .isEqualTo(new MachineMatrix.Refused(RefusalCode.GUARD_REFUSED, "NO_REVIEWER"));
        assertThat(bare.unreachable()).containsExactly(State.DONE);

        MachineMatrix<State, Event> reviewed = MachineChecker.of(KitMachines.REVIEW)
                .commands((task, event, source) -> source == TriggerSource.USER
                        ? Command.user("ana").set("reviewer", "ana") : Command.system())
                .check().assertPromises();
        assertThat(reviewed.target(State.QUEUED, Event.APPROVE, TriggerSource.USER)).isEqualTo(State.DONE);
        assertThat(reviewed.reachable()).containsExactlyInAnyOrder(State.QUEUED, State.DONE, State.CANCELED);
        assertThat(reviewed.toMarkdown()).contains("| DONE | APPROVE | refused: ILLEGAL_TRANSITION | refused: ILLEGAL_TRANSITION |");
    }

    /** A store that forgets the newest history entry of a task once it has two: applied events seem to write none. */
    private static Store forgetful() {
        InMemoryStore store = new InMemoryStore();
        return (Store) Proxy.newProxyInstance(Store.class.getClassLoader(), new Class<?>[] {Store.class}, (proxy, method, args) -> {
            try {
                Object result = method.invoke(store, args);
                if (method.getName().equals("history") && result instanceof List<?> list && list.size() > 1) {
                    return List.copyOf(list.subList(0, list.size() - 1));
                }
                return result;
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }

    @Test
    void aBrokenPromiseIsReportedAndFailsTheAssertion() {
        MachineMatrix<State, Event> matrix = MachineChecker.of(KitMachines.JOB).store(MachineCheckerTest::forgetful).check();

        assertThat(matrix.violations()).isNotEmpty()
                .anySatisfy(v -> assertThat(v).contains("did not append exactly one history entry"));
        assertThatThrownBy(matrix::assertPromises).isInstanceOf(AssertionError.class)
                .hasMessageContaining("machine kit-job breaks");
    }

    @Provide
    Arbitrary<EventSequence<State, Event>> jobs() {
        return EventSequences.of(KitMachines.JOB).refusedShare(0.3).ofMaxLength(25);
    }

    @Property(tries = 200)
    void anySequenceKeepsThePromises(@ForAll("jobs") EventSequence<State, Event> events) {
        MachineChecker.of(KitMachines.JOB).run(events);
    }

    @Property(tries = 50)
    void aBrokenStoreFailsASequenceThatAppliesTwice(@ForAll("jobs") EventSequence<State, Event> events) {
        long applied = events.steps().stream().filter(EventSequence.Step::allowed).count();
        if (applied < 2) {
            MachineChecker.of(KitMachines.JOB).store(MachineCheckerTest::forgetful).run(events);      // nothing to forget yet
            return;
        }
        assertThatThrownBy(() -> MachineChecker.of(KitMachines.JOB).store(MachineCheckerTest::forgetful).run(events))
                .isInstanceOf(AssertionError.class).hasMessageContaining("history entry");
    }

    @Test
    void maxDepthBoundsTheExploration() {
        MachineMatrix<State, Event> matrix = MachineChecker.of(KitMachines.JOB).maxDepth(1).check().assertPromises();

        assertThat(matrix.reachable()).containsExactlyInAnyOrder(State.QUEUED, State.RUNNING, State.CANCELED);
        assertThat(matrix.result(State.DONE, Event.FINISH, TriggerSource.SYSTEM)).isNull();
    }
}
