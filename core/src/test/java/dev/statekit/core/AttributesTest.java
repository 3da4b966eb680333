package dev.statekit.core;

import dev.statekit.core.runtime.TaskRuntime;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.StatekitException;
import dev.statekit.store.TriggerSource;
import dev.statekit.test.fixtures.Jobs;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/** Typed attribute keys over the string attributes, and the history read in a machine's enums. */
class AttributesTest {
    enum Mode { FAST, CAREFUL }

    static final Attribute<Integer> INDEX = Attribute.integer("index");
    static final Attribute<Long> BYTES = Attribute.longInteger("bytes");
    static final Attribute<Boolean> URGENT = Attribute.bool("urgent");
    static final Attribute<Instant> SEEN = Attribute.instant("seen");
    static final Attribute<Duration> TOOK = Attribute.duration("took");
    static final Attribute<Mode> MODE = Attribute.enumeration("mode", Mode.class);
    static final Attribute<String> NAME = Attribute.string("name");

    final ManualClock clock = new ManualClock(Instant.parse("2031-04-05T13:30:00Z"));
    final InMemoryStore store = new InMemoryStore();
    final TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock).build();

    @Property
    void integersLongsAndBooleansComeBackAsWritten(@ForAll int i, @ForAll long l, @ForAll boolean b) {
        assertThat(INDEX.decode(INDEX.encode(i))).isEqualTo(i);
        assertThat(BYTES.decode(BYTES.encode(l))).isEqualTo(l);
        assertThat(URGENT.decode(URGENT.encode(b))).isEqualTo(b);
    }

    @Test
    void theTextIsThePlainFormOfTheValue() {
        assertThat(INDEX.encode(-7)).isEqualTo("-7");
        assertThat(SEEN.encode(Instant.parse("2031-04-05T13:30:00Z"))).isEqualTo("2031-04-05T13:30:00Z");
        assertThat(TOOK.encode(Duration.ofSeconds(90))).isEqualTo("PT1M30S");
        assertThat(MODE.encode(Mode.CAREFUL)).isEqualTo("CAREFUL");
        assertThat(TOOK.decode("PT1M30S")).isEqualTo(Duration.ofSeconds(90));
        assertThat(MODE.decode("FAST")).isEqualTo(Mode.FAST);
    }

    @Test
    void aTextOfAnotherTypeIsReportedWithTheKeyAndTheText() {
        assertThatThrownBy(() -> INDEX.decode("seven")).isInstanceOf(IllegalStateException.class)
                .hasMessage("attribute index holds 'seven', which is not an integer");
        assertThatThrownBy(() -> URGENT.decode("yes")).hasMessage("attribute urgent holds 'yes', which is not true or false");
        assertThatThrownBy(() -> MODE.decode("SLOW")).hasMessage("attribute mode holds 'SLOW', which is not a constant of Mode");
        Attribute<Integer> even = Attribute.of("even", "an even number", String::valueOf, text -> {
            int v = Integer.parseInt(text);
            if (v % 2 != 0) throw new IllegalArgumentException("odd");
            return v;
        });
        assertThat(even.decode("4")).isEqualTo(4);
        assertThatThrownBy(() -> even.decode("3")).hasMessage("attribute even holds '3', which is not an even number");
    }

    @Test
    void keysAreEqualByNameAndType() {
        assertThat(Attribute.integer("index")).isEqualTo(INDEX).hasSameHashCodeAs(INDEX);
        assertThat(Attribute.longInteger("index")).isNotEqualTo(INDEX);
        assertThatThrownBy(() -> Attribute.integer(" ")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void specsCommandsAndWorkersWriteTypedValuesThatTasksReadBack() {
        Machine<Jobs.State, Jobs.Event> m = Jobs.MACHINE;
        long id = engine.create(m, TaskSpec.defaults().attribute(INDEX, 7).attribute(MODE, Mode.FAST).attribute(NAME, "a.txt"))
                .task().id();
        Task<Jobs.State> created = engine.find(m, id).orElseThrow();
        assertThat(created.get(INDEX)).isEqualTo(7);
        assertThat(created.attribute("index")).as("the string underneath").isEqualTo("7");
        assertThat(created.get(MODE)).isEqualTo(Mode.FAST);
        assertThat(created.get(URGENT)).isNull();
        assertThat(created.get(URGENT, false)).isFalse();

        Task<Jobs.State> fired = engine.fire(m, id, Jobs.Event.BLOCK, Command.system().set(URGENT, true).remove(MODE))
                .orElseThrow().task();
        assertThat(fired.get(URGENT)).isTrue();
        assertThat(fired.get(MODE)).isNull();
        engine.fire(m, id, Jobs.Event.UNBLOCK).orElseThrow();

        ManualExecutor executor = new ManualExecutor();
        TaskRuntime rt = TaskRuntime.builder(engine).owner("r").executor(executor).workers(1)
                .register(m, ctx -> WorkResult.success(BYTES, 4096L).with(TOOK, Duration.ofMillis(1500)))
                .build();
        rt.start();
        executor.runAll();
        Task<Jobs.State> done = engine.find(m, id).orElseThrow();
        assertThat(done.state()).isEqualTo(Jobs.State.DONE);
        assertThat(done.get(BYTES)).isEqualTo(4096L);
        assertThat(done.get(TOOK)).isEqualTo(Duration.ofMillis(1500));
        assertThat(done.get(INDEX)).isEqualTo(7);
        rt.halt();
    }

    @Test
    void aTaskReportsATextThatIsNotOfTheKeysType() {
        long id = engine.create(Jobs.MACHINE, TaskSpec.defaults().attribute("index", "seven")).task().id();
        Task<Jobs.State> t = engine.find(Jobs.MACHINE, id).orElseThrow();
        assertThatThrownBy(() -> t.get(INDEX)).isInstanceOf(IllegalStateException.class)
                .hasMessage("task " + id + ": attribute index holds 'seven', which is not an integer");
    }

    @Test
    void theHistoryReadsInTheMachinesStatesAndEvents() {
        Machine<Jobs.State, Jobs.Event> m = Jobs.MACHINE;
        long id = engine.create(m, TaskSpec.defaults()).task().id();
        engine.fire(m, id, Jobs.Event.BLOCK).orElseThrow();
        engine.fire(m, id, Jobs.Event.UNBLOCK).orElseThrow();
        engine.fire(m, id, Jobs.Event.CANCEL, Command.user("ann")).orElseThrow();
        List<HistoryStep<Jobs.State, Jobs.Event>> steps = engine.history(m, id);
        assertThat(steps).extracting(HistoryStep::from)
                .containsExactly(Jobs.State.QUEUED, Jobs.State.BLOCKED, Jobs.State.QUEUED);
        assertThat(steps).extracting(HistoryStep::to)
                .containsExactly(Jobs.State.BLOCKED, Jobs.State.QUEUED, Jobs.State.CANCELED);
        assertThat(steps).extracting(HistoryStep::event)
                .containsExactly(Jobs.Event.BLOCK, Jobs.Event.UNBLOCK, Jobs.Event.CANCEL);
        assertThat(steps.get(2).entry().source()).isEqualTo(TriggerSource.USER);
        assertThat(steps.get(2).entry().actor()).isEqualTo("ann");
        assertThat(steps).extracting(HistoryStep::entry).containsExactlyElementsOf(engine.history(id));
        assertThat(engine.history(Machines.other(), id)).as("another machine's view of the task").isEmpty();
    }

    @Test
    void anEntryWhoseEventIsNotTheMachinesKeepsItsNameAndAStateItDoesNotKnowIsReported() {
        Machine<Jobs.State, Jobs.Event> m = Jobs.MACHINE;
        long id = engine.create(m, TaskSpec.defaults()).task().id();
        var t = store.find(id).orElseThrow();
        var released = t.toBuilder().version(t.version() + 1).updatedAt(clock.now()).build();
        store.apply(new dev.statekit.store.Change(t.version(), released, new HistoryEntry(id, released.version(), "QUEUED", "QUEUED",
                "NUDGE", TriggerSource.SYSTEM, "r", null, clock.now(), null)));     // not one of the machine's events
        HistoryStep<Jobs.State, Jobs.Event> step = engine.history(m, id).get(0);
        assertThat(step.event()).isNull();
        assertThat(step.eventName()).isEqualTo("NUDGE");

        var now = store.find(id).orElseThrow();
        var drifted = now.toBuilder().state("ARCHIVED").version(now.version() + 1).updatedAt(clock.now()).build();
        store.apply(new dev.statekit.store.Change(now.version(), drifted, new HistoryEntry(id, drifted.version(), "QUEUED", "ARCHIVED",
                "ARCHIVE", TriggerSource.SYSTEM, null, null, clock.now(), null)));
        assertThatThrownBy(() -> engine.history(m, id)).isInstanceOf(StatekitException.class)
                .satisfies(e -> assertThat(((StatekitException) e).code()).isEqualTo(ErrorCode.SCHEMA_DRIFT))
                .hasMessageContaining("task " + id).hasMessageContaining("'ARCHIVED'");
    }

    /** Another machine, for reading a task through a machine it does not live in. */
    static final class Machines {
        static Machine<Jobs.State, Jobs.Event> other() {
            return Jobs.machine("other", false, false);
        }
    }
}
