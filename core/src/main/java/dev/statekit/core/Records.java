package dev.statekit.core;

import dev.statekit.core.spi.Clock;
import dev.statekit.core.spi.TaskInterceptor;
import dev.statekit.store.ArchivedTask;
import dev.statekit.store.Attributes;
import dev.statekit.store.CreateResult;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.NewTask;
import dev.statekit.store.StatekitException;
import dev.statekit.store.Page;
import dev.statekit.store.Store;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's creations and its reads in a machine's terms: a new task's description and its
 * write, and a task's history in the machine's states and events, from the hot table or the
 * archive. Immutable; thread-safe.
 */
final class Records {
    private static final Logger log = LoggerFactory.getLogger(TransitionEngine.class);

    private final Store store;
    private final Clock clock;
    private final Listeners listeners;
    private final List<TaskInterceptor> interceptors;

    Records(Store store, Clock clock, Listeners listeners, List<TaskInterceptor> interceptors) {
        this.store = store;
        this.clock = clock;
        this.listeners = listeners;
        this.interceptors = interceptors;
    }

    /** Creates a task as {@link TransitionEngine#create(Machine, TaskSpec)} says. */
    <S extends Enum<S>, E extends Enum<E>> Created<S> create(Machine<S, E> machine, TaskSpec spec) {
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(spec, "spec");
        Long parent = spec.parentId();
        if (parent != null && store.find(parent).isEmpty()) {
            throw new StatekitException(ErrorCode.INVALID_ARGUMENT, "parent task " + parent + " does not exist", parent, null);
        }
        if (!spec.dependsOn().isEmpty() && machine.dependencies() == null) {
            throw new StatekitException(ErrorCode.INVALID_ARGUMENT, "machine " + machine.name()
                    + " declares no dependencies (MachineBuilder.dependencies): a failed dependency would leave the task waiting");
        }
        NewTask task = newTask(machine, spec);
        CreateResult result = store.create(task);
        TaskRecord record = result.task();
        if (result.created()) {
            log.debug("created task {} of {} in {}", record.id(), machine.name(), record.state());
            listeners.created(machine.name(), record);
        }
        return new Created<>(new Task<>(Decider.stateOf(machine, record), record), result.created());
    }

    /** Describes a new task of {@code machine} as {@code spec} says. */
    NewTask newTask(Machine<?, ?> machine, TaskSpec spec) {
        String queue = spec.queue() != null ? spec.queue() : defaultQueue(machine);
        NewTask task = new NewTask(machine.name(), machine.version(), machine.initial().name(), queue, spec.priority(),
                spec.parentId(), intercepted(machine, spec), spec.payload(), spec.idempotencyKey(), spec.notBefore(), clock.now(),
                spec.dependsOn());
        String unique = spec.uniqueKey();
        if (unique == null) return task;
        if (machine.uniqueStates().isEmpty()) {
            throw new StatekitException(ErrorCode.INVALID_ARGUMENT, "machine " + machine.name()
                    + " declares no unique states (MachineBuilder.unique): a unique key would hold nowhere");
        }
        return task.withUniqueKey(unique, machine.uniqueStateNames());
    }

    /** Returns the attributes of {@code spec} with what the interceptors add; the spec's own win. */
    private Attributes intercepted(Machine<?, ?> machine, TaskSpec spec) {
        Attributes own = spec.attributes();
        if (interceptors.isEmpty()) return own;
        Map<String, String> added = new HashMap<>();
        for (TaskInterceptor i : interceptors) {
            Map<String, String> more = Objects.requireNonNull(i.onCreate(machine.name(), spec.parentId()),
                    "an interceptor returned null attributes");
            more.forEach((k, v) -> { if (!own.contains(k)) added.put(k, v); });
        }
        return added.isEmpty() ? own : own.with(added);
    }

    private static <S extends Enum<S>, E extends Enum<E>> String defaultQueue(Machine<S, E> machine) {
        String stageQueue = machine.stageQueue(machine.initial());
        return stageQueue != null ? stageQueue : machine.name();
    }

    /** Returns the history of task {@code id} of {@code machine} as {@link TransitionEngine#history(Machine, long)} says. */
    <S extends Enum<S>, E extends Enum<E>> List<HistoryStep<S, E>> history(Machine<S, E> machine, long id) {
        List<HistoryEntry> entries;
        Optional<TaskRecord> r = store.find(id);
        if (r.isPresent()) {
            if (!r.get().machine().equals(machine.name())) return List.of();
            entries = store.history(id);
        } else {
            Optional<ArchivedTask> a = store.findArchived(id);
            if (a.isEmpty() || !a.get().task().machine().equals(machine.name())) return List.of();
            entries = a.get().history();
        }
        List<HistoryStep<S, E>> steps = new ArrayList<>(entries.size());
        for (HistoryEntry e : entries) {
            steps.add(new HistoryStep<>(e, historyState(machine, id, e.from()), historyState(machine, id, e.to()),
                    machine.event(e.event())));
        }
        return steps;
    }

    private static <S extends Enum<S>, E extends Enum<E>> S historyState(Machine<S, E> machine, long id, String name) {
        S s = machine.state(name);
        if (s == null) {
            throw new StatekitException(ErrorCode.SCHEMA_DRIFT, "the history of task " + id
                    + " names state '" + name + "', which machine " + machine.name() + " v" + machine.version() + " does not know",
                    id, null);
        }
        return s;
    }

    /** Returns {@code found} as a task of {@code machine}, if it is one. */
    <S extends Enum<S>, E extends Enum<E>> Optional<Task<S>> find(Machine<S, E> machine, Optional<TaskRecord> found) {
        if (found.isEmpty() || !found.get().machine().equals(machine.name())) return Optional.empty();
        return Optional.of(new Task<>(Decider.stateOf(machine, found.get()), found.get()));
    }

    /** Returns one page of {@code machine}'s tasks matching {@code query}, in the machine's states. */
    <S extends Enum<S>, E extends Enum<E>> Page<Task<S>> query(Machine<S, E> machine, TaskQuery query) {
        Page<TaskRecord> page = store.query(query.machine(machine.name()));
        List<Task<S>> items = new ArrayList<>(page.items().size());
        for (TaskRecord r : page.items()) items.add(new Task<>(Decider.stateOf(machine, r), r));
        return new Page<>(items, page.nextAfterId());
    }
}
