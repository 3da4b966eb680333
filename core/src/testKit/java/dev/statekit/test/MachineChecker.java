package dev.statekit.test;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.Task;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.Transition;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.Store;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Checks a {@link Machine} through a {@link TransitionEngine} on an in-memory store (or one of
 * {@link #store(Supplier)}): explores
 * every state a task reaches from the initial state by firing the table's rows, fires every event
 * from every {@link TriggerSource} in each of them, and reports the {@link MachineMatrix}; or fires
 * one {@link EventSequence} at a task ({@link #run}). Either way it checks the machine's promises
 * on every fire: nothing leaves a terminal state, an applied event follows a row of the table for
 * its source and writes exactly one history entry, and a refusal changes nothing (the stored
 * record and the history stay as they were).
 *
 * <pre>{@code
 * MachineMatrix<State, Event> matrix = MachineChecker.of(machine).check().assertPromises();
 * assertThat(matrix.target(State.QUEUED, Event.START, TriggerSource.SYSTEM)).isEqualTo(State.RUNNING);
 * }</pre>
 *
 * <p>Guards see the attributes that earlier effects set, since every task is brought to its state
 * through the engine; a guard that needs a command's attributes gets them from
 * {@link #commands(Commands)}. The exploration stops at {@link #maxDepth(int)} events from the
 * initial state and after {@link #maxTasks(int)} explored tasks. Not thread-safe; a checker is
 * cheap, make one per test.
 *
 * @param <S> the state type
 * @param <E> the event type
 */
public final class MachineChecker<S extends Enum<S>, E extends Enum<E>> {

    /**
     * Makes the command an event is fired with.
     *
     * @param <S> the state type
     * @param <E> the event type
     */
    @FunctionalInterface
    public interface Commands<S extends Enum<S>, E extends Enum<E>> {
        /** Returns the command that fires {@code event} by {@code source} at {@code task}. */
        Command command(Task<S> task, E event, TriggerSource source);
    }

    private final Machine<S, E> machine;
    private TaskSpec spec = TaskSpec.defaults();
    private Commands<S, E> commands = (task, event, source) -> defaultCommand(source);
    private int maxDepth = 12;
    private int maxTasks = 2_000;
    private Supplier<Store> stores = InMemoryStore::new;

    private MachineChecker(Machine<S, E> machine) {
        this.machine = Objects.requireNonNull(machine, "machine");
    }

    /** Returns a checker of {@code machine}. */
    public static <S extends Enum<S>, E extends Enum<E>> MachineChecker<S, E> of(Machine<S, E> machine) {
        return new MachineChecker<>(machine);
    }

    /** The command fired by default: {@link Command#system()}, or {@link Command#user(String)} by "checker". */
    static Command defaultCommand(TriggerSource source) {
        return source == TriggerSource.USER ? Command.user("checker") : Command.system();
    }

    /** Creates tasks with {@code value} (default {@link TaskSpec#defaults()}); returns this checker. */
    public MachineChecker<S, E> spec(TaskSpec value) {
        spec = Objects.requireNonNull(value, "spec");
        return this;
    }

    /** Fires events with the commands {@code value} makes (default: the bare command of each source); returns this checker. */
    public MachineChecker<S, E> commands(Commands<S, E> value) {
        commands = Objects.requireNonNull(value, "commands");
        return this;
    }

    /** Keeps the tasks in stores {@code supplier} makes, one per check or run (default a new {@link InMemoryStore}); returns this checker. */
    public MachineChecker<S, E> store(Supplier<Store> supplier) {
        stores = Objects.requireNonNull(supplier, "store");
        return this;
    }

    /** Explores paths of at most {@code depth} events from the initial state (default 12); returns this checker. */
    public MachineChecker<S, E> maxDepth(int depth) {
        if (depth < 0) throw new IllegalArgumentException("maxDepth must not be negative: " + depth);
        maxDepth = depth;
        return this;
    }

    /** Explores at most {@code count} tasks (default 2,000); returns this checker. */
    public MachineChecker<S, E> maxTasks(int count) {
        if (count < 1) throw new IllegalArgumentException("maxTasks must be positive: " + count);
        maxTasks = count;
        return this;
    }

    // --- the matrix ----------------------------------------------------------------------------

    /** One applied step of a path: the event and who fired it. */
    private record Step<E>(E event, TriggerSource source) {}

    /**
     * Explores the reachable states and fires every event from every source in each; returns the
     * matrix with the violations found (see {@link MachineMatrix#assertPromises()}).
     */
    public MachineMatrix<S, E> check() {
        Run run = new Run();
        Map<S, List<MachineMatrix.Cell<S, E>>> byState = new EnumMap<>(machine.stateType());
        Set<String> seen = new HashSet<>();
        ArrayDeque<List<Step<E>>> paths = new ArrayDeque<>();
        paths.add(List.of());
        int explored = 0;
        while (!paths.isEmpty() && explored++ < maxTasks) {
            List<Step<E>> path = paths.poll();
            long id = run.replay(path);
            if (id < 0) continue;
            S state = run.task(id).state();
            boolean first = !byState.containsKey(state);
            List<MachineMatrix.Cell<S, E>> cells = new ArrayList<>();
            for (E event : machine.eventType().getEnumConstants()) {
                for (TriggerSource source : TriggerSource.values()) {
                    Outcome<S> o = run.fire(id, event, source, "after " + describe(path));
                    if (o instanceof Outcome.Applied<S> applied) {
                        cells.add(new MachineMatrix.Cell<>(state, event, source, new MachineMatrix.Applied(applied.task().state())));
                        if (path.size() < maxDepth
                                && seen.add(applied.task().state() + " " + applied.task().attributes())) {
                            List<Step<E>> next = new ArrayList<>(path);
                            next.add(new Step<>(event, source));
                            paths.add(List.copyOf(next));
                        }
                        id = run.replay(path);            // back to the state before the applied event
                        if (id < 0) break;
                    } else {
                        Outcome.Refused<S> r = (Outcome.Refused<S>) o;
                        cells.add(new MachineMatrix.Cell<>(state, event, source, new MachineMatrix.Refused(r.code(), r.reasonCode())));
                    }
                }
                if (id < 0) break;
            }
            if (first) byState.put(state, cells);
        }
        List<MachineMatrix.Cell<S, E>> all = new ArrayList<>();
        for (List<MachineMatrix.Cell<S, E>> cells : byState.values()) all.addAll(cells);
        return new MachineMatrix<>(machine, all, byState.keySet(), run.violations);
    }

    /**
     * Creates a task, fires {@code sequence} at it step by step and checks the promises on every
     * fire (an event the table allows may still be refused by a guard: the refusal must change
     * nothing).
     *
     * @throws AssertionError at the first fire that breaks a promise, naming the steps before it
     */
    public void run(EventSequence<S, E> sequence) {
        Run run = new Run();
        long id = run.create();
        List<String> done = new ArrayList<>();
        for (EventSequence.Step<S, E> step : sequence.steps()) {
            run.fire(id, step.event(), step.source(), "after " + (done.isEmpty() ? "creation" : String.join(", ", done)));
            if (!run.violations.isEmpty()) throw new AssertionError(run.violations.get(0));
            done.add(step.toString());
        }
        TaskRecord end = run.engine.store().find(id).orElseThrow();
        if (end.version() != run.engine.history(id).size()) {
            throw new AssertionError("task " + id + " is at version " + end.version() + " with " + run.engine.history(id).size()
                    + " history entries after " + sequence);
        }
    }

    private String describe(List<Step<E>> path) {
        if (path.isEmpty()) return "creation";
        List<String> parts = new ArrayList<>();
        for (Step<E> s : path) parts.add(s.event() + " by " + s.source());
        return String.join(", ", parts);
    }

    /** One engine on a fresh in-memory store, and the violations found on it. */
    private final class Run {
        final TransitionEngine engine = TransitionEngine.builder().store(stores.get()).clock(new ManualClock()).build();
        final List<String> violations = new ArrayList<>();

        long create() {
            return engine.create(machine, spec).task().id();
        }

        Task<S> task(long id) {
            return engine.find(machine, id).orElseThrow();
        }

        /** Creates a task and fires {@code path} at it; returns its id, or -1 when a step no longer applies (reported). */
        long replay(List<Step<E>> path) {
            long id = create();
            for (Step<E> s : path) {
                Outcome<S> o = engine.fire(machine, id, s.event(), commands.command(task(id), s.event(), s.source()));
                if (!o.isApplied()) {
                    violations.add(String.format(Locale.ROOT, "replaying %s gave %s at %s by %s: the machine is not deterministic",
                            describe(path), o, s.event(), s.source()));
                    return -1;
                }
            }
            return id;
        }

        /** Fires {@code event} by {@code source} at task {@code id}, checking the promises; returns the outcome. */
        Outcome<S> fire(long id, E event, TriggerSource source, String context) {
            Task<S> before = task(id);
            TaskRecord beforeRecord = engine.store().find(id).orElseThrow();
            List<HistoryEntry> beforeHistory = engine.history(id);
            Outcome<S> o = engine.fire(machine, id, event, commands.command(before, event, source));
            TaskRecord afterRecord = engine.store().find(id).orElseThrow();
            List<HistoryEntry> afterHistory = engine.history(id);
            S from = before.state();
            String what = String.format(Locale.ROOT, "%s by %s in %s (%s)", event, source, from, context);
            if (o instanceof Outcome.Applied<S> applied) {
                S to = applied.task().state();
                if (machine.isTerminal(from)) violations.add(what + " left the terminal state " + from + " for " + to);
                boolean row = false;
                for (Transition<S, E> t : machine.transitions(from, event)) row |= t.to() == to && t.allows(source);
                if (!row) violations.add(what + " moved the task to " + to + ", which no row of the table allows for " + source);
                if (applied.replayed()) violations.add(what + " was reported as a replay, but no idempotency key was given");
                if (afterRecord.version() != beforeRecord.version() + 1) {
                    violations.add(what + " moved the version from " + beforeRecord.version() + " to " + afterRecord.version());
                }
                if (afterHistory.size() != beforeHistory.size() + 1 || !afterHistory.subList(0, beforeHistory.size()).equals(beforeHistory)) {
                    violations.add(what + " did not append exactly one history entry: " + beforeHistory.size() + " before, "
                            + afterHistory.size() + " after");
                } else {
                    HistoryEntry e = afterHistory.get(afterHistory.size() - 1);
                    if (!e.from().equals(from.name()) || !e.to().equals(to.name()) || !e.event().equals(event.name())
                            || e.source() != source || e.version() != afterRecord.version()) {
                        violations.add(what + " wrote the history entry " + e);
                    }
                }
            } else {
                if (!afterRecord.equals(beforeRecord)) {
                    violations.add(what + " was refused (" + o + ") but changed the task from " + beforeRecord + " to " + afterRecord);
                }
                if (!afterHistory.equals(beforeHistory)) {
                    violations.add(what + " was refused (" + o + ") but changed the history from " + beforeHistory.size() + " to "
                            + afterHistory.size() + " entries");
                }
            }
            return o;
        }
    }

    /** Returns the state a task in {@code state} moves to by the first row for {@code event} and {@code source}, or null. */
    static <S extends Enum<S>, E extends Enum<E>> @Nullable S rowTarget(Machine<S, E> machine, S state, E event, TriggerSource source) {
        for (Transition<S, E> t : machine.transitions(state, event)) if (t.allows(source)) return t.to();
        return null;
    }
}
