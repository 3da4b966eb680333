package dev.statekit.core;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.store.memory.InMemoryStore;
import org.junit.jupiter.api.Test;

/**
 * Unique states: the validation refuses a gap a duplicate could slip through, and the engine frees a
 * task's key when it leaves them. docs/machines.md ("Unique keys") shows this code.
 */
class UniqueStatesTest {
    enum State { QUEUED, RUNNING, FAILED, DONE }

    enum Event { START, SUCCEED, FAIL, RETRY }

    static MachineBuilder<State, Event> table() {
        return Machine.builder("convert", State.class, Event.class)
                .initial(State.QUEUED)
                .terminal(State.DONE)
                .transition(State.QUEUED, Event.START, State.RUNNING, SYSTEM)
                .transition(State.RUNNING, Event.SUCCEED, State.DONE, SYSTEM)
                .transition(State.RUNNING, Event.FAIL, State.FAILED, SYSTEM)
                .transition(State.FAILED, Event.RETRY, State.QUEUED, USER);
    }

    @Test
    void aStateBetweenTwoUniqueStatesThatIsNotUniqueIsAGap() {
        assertThatThrownBy(() -> table().unique(State.QUEUED, State.RUNNING).build())
                .isInstanceOf(MachineDefinitionException.class)
                .hasMessageContaining("row RUNNING --FAIL--> FAILED")
                .hasMessageContaining("FAILED --RETRY--> QUEUED")
                .hasMessageContaining("gap");
        assertThatThrownBy(() -> table().unique(State.RUNNING, State.FAILED).build())
                .hasMessageContaining("do not contain the initial state QUEUED");
        Machine<State, Event> convert = table().unique(State.QUEUED, State.RUNNING, State.FAILED).build();
        assertThat(convert.uniqueStates()).containsExactlyInAnyOrder(State.QUEUED, State.RUNNING, State.FAILED);
    }

    @Test
    void aDuplicateReturnsTheTaskUntilItLeavesTheUniqueStates() {
        Machine<State, Event> convert = table().unique(State.QUEUED, State.RUNNING, State.FAILED).build();
        TransitionEngine engine = TransitionEngine.builder().store(new InMemoryStore()).build();
        TaskSpec spec = TaskSpec.defaults().uniqueKey("a.txt -> a.pdf");
        Created<State> first = engine.create(convert, spec);
        Created<State> again = engine.create(convert, spec);
        assertThat(again.created()).isFalse();
        assertThat(again.task().id()).isEqualTo(first.task().id());

        long id = first.task().id();
        engine.fire(convert, id, Event.START, Command.system());
        engine.fire(convert, id, Event.FAIL, Command.system());
        engine.fire(convert, id, Event.RETRY, Command.user("alice"));
        assertThat(engine.create(convert, spec).task().id()).as("retried within the unique states").isEqualTo(id);
        engine.fire(convert, id, Event.START, Command.system());
        engine.fire(convert, id, Event.SUCCEED, Command.system());
        assertThat(engine.find(convert, id).orElseThrow().record().uniqueKey()).isNull();
        Created<State> next = engine.create(convert, spec);
        assertThat(next.created()).as("the key is free once the task is done").isTrue();

        assertThatThrownBy(() -> engine.create(table().build(), spec)).hasMessageContaining("declares no unique states");
    }
}
