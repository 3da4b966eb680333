package dev.statekit.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.RefusalCode;
import dev.statekit.core.Task;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.Transition;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.TriggerSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract every seed machine is held to, run against the {@link TransitionEngine}: each row
 * of the table applies when fired by each of its sources, and every (state, event, source) the
 * table does not allow is refused and changes nothing.
 *
 * <p>A task is brought to a row's state by firing a path of rows found by breadth-first search
 * through the engine itself, so guards see the attributes that earlier effects really set. A
 * subclass says which command makes a row's guard pass ({@link #command}) and which refusals
 * carry a named code ({@link #namedRefusals}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class MachineContract<S extends Enum<S>, E extends Enum<E>> {
    private static final int MAX_DEPTH = 12;
    private static final int MAX_NODES = 3_000;

    final ManualClock clock = new ManualClock();
    final TransitionEngine engine = TransitionEngine.builder().store(new InMemoryStore()).clock(clock).build();
    private @Nullable Exploration<S, E> exploration;

    /** Returns the machine under test. */
    abstract Machine<S, E> machine();

    /** Returns the spec new tasks are created with. */
    TaskSpec spec() {
        return TaskSpec.defaults();
    }

    /** Returns a command that makes {@code row} apply to {@code task} when fired by {@code source}. */
    Command command(Transition<S, E> row, TriggerSource source, Task<S> task) {
        return base(source);
    }

    /**
     * Returns the rows the seed asks for, restated independently of the machine's code, one per
     * line: {@code FROM EVENT TO SOURCES [guard]}, with sources {@code S}, {@code U} or {@code SU}.
     */
    abstract List<String> expectedRows();

    /** Returns the named refusal codes, keyed by {@code STATE/EVENT}. */
    Map<String, String> namedRefusals() {
        return Map.of();
    }

    static Command base(TriggerSource source) {
        return source == TriggerSource.USER ? Command.user("alice") : Command.system();
    }

    // --- helpers for scenarios ----------------------------------------------------------------

    long create() {
        return engine.create(machine(), spec()).task().id();
    }

    Task<S> task(long id) {
        return engine.find(machine(), id).orElseThrow();
    }

    Outcome<S> fire(long id, E event, Command command) {
        return engine.fire(machine(), id, event, command);
    }

    /** Fires and insists that the command applied; returns the task after it. */
    Task<S> apply(long id, E event, Command command) {
        Outcome<S> o = fire(id, event, command);
        assertThat(o).as("%s on task %d", event, id).isInstanceOf(Outcome.Applied.class);
        return o.orElseThrow().task();
    }

    /** Fires and insists that the command was refused with {@code code} and changed nothing. */
    Outcome.Refused<S> refuse(long id, E event, Command command, RefusalCode code, String reasonCode) {
        Task<S> before = task(id);
        int history = engine.history(id).size();
        Outcome<S> o = fire(id, event, command);
        assertThat(o).as("%s on task %d in %s", event, id, before.state()).isInstanceOf(Outcome.Refused.class);
        Outcome.Refused<S> r = (Outcome.Refused<S>) o;
        assertThat(r.code()).isEqualTo(code);
        assertThat(r.reasonCode()).isEqualTo(reasonCode);
        assertUnchanged(id, before, history);
        return r;
    }

    void assertUnchanged(long id, Task<S> before, int historySize) {
        Task<S> after = task(id);
        assertThat(after.state()).isEqualTo(before.state());
        assertThat(after.version()).isEqualTo(before.version());
        assertThat(after.attributes()).isEqualTo(before.attributes());
        assertThat(engine.history(id)).hasSize(historySize);
    }

    // --- the contract ---------------------------------------------------------------------------

    /** One row fired by one of its sources. */
    record RowCase<S extends Enum<S>, E extends Enum<E>>(Transition<S, E> row, TriggerSource source) {
        @Override
        public String toString() {
            return row.from() + " --" + row.event() + (row.guardName() == null ? "" : " [" + row.guardName() + "]")
                    + "--> " + row.to() + " by " + source;
        }
    }

    /** A (state, event, source) the table does not allow. */
    record PairCase<S extends Enum<S>, E extends Enum<E>>(S state, E event, TriggerSource source) {
        @Override
        public String toString() {
            return state + " / " + event + " by " + source;
        }
    }

    Stream<RowCase<S, E>> rows() {
        List<RowCase<S, E>> cases = new ArrayList<>();
        for (Transition<S, E> row : machine().transitions()) {
            for (TriggerSource source : TriggerSource.values()) if (row.allows(source)) cases.add(new RowCase<>(row, source));
        }
        return cases.stream();
    }

    Stream<PairCase<S, E>> refusedPairs() {
        List<PairCase<S, E>> cases = new ArrayList<>();
        for (S state : machine().states()) {
            for (E event : machine().eventType().getEnumConstants()) {
                for (TriggerSource source : TriggerSource.values()) {
                    if (!machine().allowedEvents(state, source).contains(event)) cases.add(new PairCase<>(state, event, source));
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void everyRowApplies(RowCase<S, E> c) {
        List<Step<S, E>> path = exploration().rowPaths.get(c);
        assertThat(path).as("no path of rows leads to a task on which %s applies", c).isNotNull();
        long id = replay(path);
        Task<S> before = task(id);
        int history = engine.history(id).size();
        assertThat(before.state()).isEqualTo(c.row().from());

        Outcome<S> o = fire(id, c.row().event(), command(c.row(), c.source(), before));

        assertThat(o).as("%s", o).isInstanceOf(Outcome.Applied.class);
        Outcome.Applied<S> applied = o.orElseThrow();
        assertThat(applied.replayed()).isFalse();
        assertThat(applied.task().state()).isEqualTo(c.row().to());
        assertThat(applied.task().version()).isEqualTo(before.version() + 1);
        assertThat(applied.entry().from()).isEqualTo(c.row().from().name());
        assertThat(applied.entry().to()).isEqualTo(c.row().to().name());
        assertThat(applied.entry().event()).isEqualTo(c.row().event().name());
        assertThat(applied.entry().source()).isEqualTo(c.source());
        assertThat(engine.history(id)).hasSize(history + 1).last().isEqualTo(applied.entry());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedPairs")
    void everyOtherPairIsRefused(PairCase<S, E> c) {
        List<Step<S, E>> path = exploration().statePaths.get(c.state());
        assertThat(path).as("state %s is never reached", c.state()).isNotNull();
        long id = replay(path);
        String expected = namedRefusals().getOrDefault(c.state() + "/" + c.event(), RefusalCode.ILLEGAL_TRANSITION.name());

        Outcome.Refused<S> r = refuse(id, c.event(), base(c.source()), RefusalCode.ILLEGAL_TRANSITION, expected);

        assertThat(r.state()).isEqualTo(c.state());
        assertThat(r.event()).isEqualTo(c.event().name());
        assertThat(r.code().httpStatus()).isEqualTo(409);
    }

    @Test
    void theTableHoldsExactlyTheRowsTheSeedAsksFor() {
        List<String> actual = new ArrayList<>();
        for (Transition<S, E> t : machine().transitions()) {
            String sources = (t.allows(TriggerSource.SYSTEM) ? "S" : "") + (t.allows(TriggerSource.USER) ? "U" : "");
            actual.add(t.from() + " " + t.event() + " " + t.to() + " " + sources + (t.guarded() ? " [" + t.guardName() + "]" : ""));
        }
        assertThat(actual).containsExactlyInAnyOrderElementsOf(expectedRows().stream().map(r -> r.trim().replaceAll(" +", " ")).toList());
    }

    @Test
    void everyStateIsReachedThroughTheEngine() {
        assertThat(exploration().statePaths.keySet()).containsExactlyInAnyOrderElementsOf(machine().states());
    }

    @Test
    void namedRefusalsAreForPairsTheTableRefuses() {
        for (String key : namedRefusals().keySet()) {
            String[] parts = key.split("/");
            S state = Enum.valueOf(machine().stateType(), parts[0]);
            E event = Enum.valueOf(machine().eventType(), parts[1]);
            assertThat(machine().permits(state, event)).as(key).isFalse();
        }
    }

    @Test
    void terminalStatesHaveNoExitAndOthersHaveOne() {
        for (S s : machine().states()) {
            assertThat(machine().allowedEvents(s).isEmpty()).as("%s", s).isEqualTo(machine().isTerminal(s));
        }
    }

    // --- search ---------------------------------------------------------------------------------

    /** One fired row of a path. */
    record Step<S extends Enum<S>, E extends Enum<E>>(Transition<S, E> row, TriggerSource source) {}

    /** Shortest paths, as fired through the engine, to every state and to a task on which each row applies. */
    static final class Exploration<S extends Enum<S>, E extends Enum<E>> {
        final Map<S, List<Step<S, E>>> statePaths;
        final Map<RowCase<S, E>, List<Step<S, E>>> rowPaths = new HashMap<>();

        Exploration(Class<S> stateType) {
            this.statePaths = new EnumMap<>(stateType);
        }
    }

    /** Creates a task and fires {@code path} at it; returns its id. */
    long replay(List<Step<S, E>> path) {
        long id = create();
        for (Step<S, E> step : path) {
            Outcome<S> o = fire(id, step.row().event(), command(step.row(), step.source(), task(id)));
            assertThat(o).as("replaying %s", step).isInstanceOf(Outcome.Applied.class);
        }
        return id;
    }

    Exploration<S, E> exploration() {
        Exploration<S, E> x = exploration;
        if (x == null) {
            x = explore();
            exploration = x;
        }
        return x;
    }

    private Exploration<S, E> explore() {
        Exploration<S, E> x = new Exploration<>(machine().stateType());
        Set<RowCase<S, E>> wanted = new HashSet<>(rows().toList());
        Set<S> unseen = EnumSet.copyOf(machine().states());
        Set<String> seen = new HashSet<>();
        ArrayDeque<List<Step<S, E>>> queue = new ArrayDeque<>();
        queue.add(List.of());
        int nodes = 0;
        while (!queue.isEmpty() && nodes++ < MAX_NODES && (!wanted.isEmpty() || !unseen.isEmpty())) {
            List<Step<S, E>> path = queue.poll();
            Task<S> at = task(replay(path));
            x.statePaths.putIfAbsent(at.state(), path);
            unseen.remove(at.state());
            if (path.size() >= MAX_DEPTH) continue;
            for (RowCase<S, E> c : rows().toList()) {
                if (c.row().from() != at.state()) continue;
                long id = replay(path);
                Outcome<S> o = fire(id, c.row().event(), command(c.row(), c.source(), task(id)));
                if (!(o instanceof Outcome.Applied<S> applied)) continue;
                if (applied.task().state() == c.row().to() && wanted.remove(c)) x.rowPaths.put(c, path);
                List<Step<S, E>> next = new ArrayList<>(path);
                next.add(new Step<>(c.row(), c.source()));
                if (seen.add(applied.task().state() + " " + applied.task().attributes())) queue.add(List.copyOf(next));
            }
        }
        return x;
    }
}
