package dev.statekit.core;

import dev.statekit.core.runtime.RuntimeParts;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.spi.Cancellable;
import dev.statekit.core.spi.TransitionListener;
import dev.statekit.store.Attributes;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.test.fixtures.Jobs;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The engine's listeners: who hears of a change, in which order, and what a failing one changes. */
class ListenersTest {
    static final Instant T0 = Instant.parse("2027-03-28T01:30:00Z");
    static final TaskRecord TASK = new TaskRecord(4, "job", 1, "RUNNING", "q", 0, 1, null, 1, 0, null, null, null, Attributes.EMPTY,
            null, null, T0, T0, 1);
    static final HistoryEntry ENTRY = new HistoryEntry(4, 1, "QUEUED", "RUNNING", "START", TriggerSource.SYSTEM, "r", null, T0, null);

    final List<String> heard = new ArrayList<>();

    TransitionListener named(String name) {
        return new TransitionListener() {
            @Override
            public void onTransition(String machine, TaskRecord task, HistoryEntry entry) {
                heard.add(name + ": " + machine + " " + task.id() + " " + entry.event());
            }

            @Override
            public void onCreated(String machine, TaskRecord task) {
                heard.add(name + ": created " + machine + " " + task.id());
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }

    TransitionListener failing(String name) {
        return new TransitionListener() {
            @Override
            public void onTransition(String machine, TaskRecord task, HistoryEntry entry) {
                heard.add(name + " fails");
                throw new IllegalStateException(name + " is broken");
            }

            @Override
            public void onCreated(String machine, TaskRecord task) {
                heard.add(name + " fails");
                throw new IllegalStateException(name + " is broken");
            }
        };
    }

    @Test
    void listenersHearInTheOrderTheyCameTheInitialOnesFirst() {
        Listeners listeners = new Listeners(List.of(named("a"), named("b")), new InMemoryStore());
        listeners.add(named("c"));
        listeners.transitioned("job", TASK, ENTRY);
        listeners.created("job", TASK);
        assertThat(heard).containsExactly("a: job 4 START", "b: job 4 START", "c: job 4 START",
                "a: created job 4", "b: created job 4", "c: created job 4");
    }

    @Test
    void aFailingListenerDoesNotKeepTheOthersFromHearing() {
        Listeners listeners = new Listeners(List.of(failing("a")), new InMemoryStore());
        listeners.add(named("b"));
        listeners.transitioned("job", TASK, ENTRY);
        listeners.created("job", TASK);
        assertThat(heard).containsExactly("a fails", "b: job 4 START", "a fails", "b: created job 4");
    }

    @Test
    void aHandleRemovesItsListenerOnce() {
        Listeners listeners = new Listeners(List.of(named("a")), new InMemoryStore());
        Cancellable b = listeners.add(named("b"));
        assertThat(b.cancel()).isTrue();
        assertThat(b.cancel()).isFalse();
        listeners.transitioned("job", TASK, ENTRY);
        assertThat(heard).containsExactly("a: job 4 START");
    }

    @Test
    void aListenerAddedTwiceHearsTwiceUntilOneHandleRemovesOne() {
        Listeners listeners = new Listeners(List.of(), new InMemoryStore());
        TransitionListener twice = named("x");
        Cancellable first = listeners.add(twice);
        listeners.add(twice);
        listeners.transitioned("job", TASK, ENTRY);
        assertThat(heard).hasSize(2);
        first.cancel();
        heard.clear();
        listeners.transitioned("job", TASK, ENTRY);
        assertThat(heard).containsExactly("x: job 4 START");
    }

    @Test
    void anyBesidesTellsWhetherSomeoneElseListens() {
        Listeners listeners = new Listeners(List.of(), new InMemoryStore());
        TransitionListener own = named("own");
        listeners.add(own);
        assertThat(listeners.anyBesides(own)).isFalse();
        Cancellable other = listeners.add(named("other"));
        assertThat(listeners.anyBesides(own)).isTrue();
        other.cancel();
        assertThat(listeners.anyBesides(own)).isFalse();
    }

    @Test
    void anEnginesListenersHearAChangeOnlyOnceItIsWrittenAndCannotUndoIt() {
        RuntimeParts parts = new RuntimeParts();
        List<Long> storedVersionWhenHeard = new ArrayList<>();
        parts.engine.subscribe(failing("first"));
        parts.engine.subscribe((machine, task, entry) -> storedVersionWhenHeard.add(parts.task(task.id()).version()));
        long id = parts.engine.create(Jobs.MACHINE, TaskSpec.defaults().queue("q")).task().id();
        Outcome<Jobs.State> o = parts.engine.fire(Jobs.MACHINE, id, Jobs.Event.START);
        assertThat(o.isApplied()).isTrue();
        assertThat(storedVersionWhenHeard).containsExactly(1L);
        assertThat(parts.task(id).state()).isEqualTo("RUNNING");
        assertThat(parts.events(id)).containsExactly("START");
        assertThat(heard).containsExactly("first fails", "first fails");
    }
}
