package dev.statekit.core;

import dev.statekit.core.internal.Adjust;
import dev.statekit.core.internal.Kernel;
import dev.statekit.core.spi.Cancellable;
import dev.statekit.core.spi.Clock;
import dev.statekit.core.spi.TransitionListener;
import dev.statekit.store.ApplyResult;
import dev.statekit.store.ArchivedTask;
import dev.statekit.store.Change;
import dev.statekit.store.CreateResult;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.HistoryEntry;
import java.util.Collection;
import dev.statekit.store.GroupWrite;
import dev.statekit.store.NewTask;
import dev.statekit.store.Page;
import dev.statekit.store.StatekitException;
import dev.statekit.store.Store;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single source of truth for changes to tasks: creates tasks and fires events at them through
 * their machine's table, over a {@link Store}.
 *
 * <p>{@code fire} loads the task, looks up the row for its state and the event, checks the guard,
 * applies the effect, and writes the new snapshot with compare-and-set on its version together
 * with exactly one history entry. Listeners hear of the change after it was written. A refusal is
 * an {@link Outcome.Refused} value with a stable {@link RefusalCode} and changes nothing. When a
 * concurrent change wins the compare-and-set, the command is decided again on the new snapshot
 * (guards and effects are pure, so this is safe), up to a bounded number of times.
 *
 * <p>Instances are immutable and thread-safe. Build one with {@link #builder()}.
 */
public final class TransitionEngine {
    private static final Logger log = LoggerFactory.getLogger(TransitionEngine.class);

    private final Store store;
    private final Clock clock;
    private final Listeners listeners;
    private final Commit commit;
    private final Groups groups;
    private final Awaits awaits;
    private final KernelAccess kernel;

    static {
        Kernel.Access.install(engine -> engine.kernel, KernelAccess.FACTS);
    }

    private TransitionEngine(Builder b) {
        this.store = Objects.requireNonNull(b.store, "store");
        this.clock = b.clock;
        this.listeners = new Listeners(b.listeners);
        this.commit = new Commit(store, clock, listeners, b.authorizer, b.maxConflictRetries);
        this.groups = new Groups(this, store, clock);
        this.awaits = new Awaits(store, clock, b.awaitRecheck, listeners::add);
        this.kernel = new KernelAccess(this, commit, listeners, groups);
    }

    /** Returns a builder: a store is required; the clock defaults to {@link Clock#system()}. */
    public static Builder builder() {
        return new Builder();
    }

    /** Returns the store. */
    public Store store() {
        return store;
    }

    /** Returns the clock. */
    public Clock clock() {
        return clock;
    }

    /**
     * Adds a listener after the engine was built (a runtime subscribes to learn of new work).
     *
     * @return a handle that removes the listener again
     */
    public Cancellable subscribe(TransitionListener listener) {
        return listeners.add(listener);
    }

    // --- create -----------------------------------------------------------------------------

    /** Creates a task in {@code machine}'s initial state with default options. */
    public <S extends Enum<S>, E extends Enum<E>> Created<S> create(Machine<S, E> machine) {
        return create(machine, TaskSpec.defaults());
    }

    /**
     * Creates a task in {@code machine}'s initial state, at version 0 with no history. With an
     * idempotency key, creating again with the same key returns the first task and writes nothing.
     *
     * @throws StatekitException {@link ErrorCode#INVALID_ARGUMENT} when the parent does not exist,
     *         {@link ErrorCode#PAYLOAD_TOO_LARGE} when the store refuses the payload
     */
    public <S extends Enum<S>, E extends Enum<E>> Created<S> create(Machine<S, E> machine, TaskSpec spec) {
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
        return new NewTask(machine.name(), machine.version(), machine.initial().name(), queue, spec.priority(), spec.parentId(),
                spec.attributes(), spec.payload(), spec.idempotencyKey(), spec.notBefore(), clock.now(), spec.dependsOn());
    }

    private static <S extends Enum<S>, E extends Enum<E>> String defaultQueue(Machine<S, E> machine) {
        String stageQueue = machine.stageQueue(machine.initial());
        return stageQueue != null ? stageQueue : machine.name();
    }

    // --- groups -----------------------------------------------------------------------------

    /**
     * Fires {@code event} at task {@code taskId} and creates its {@code children} (of the machine
     * its {@link Machine#children() children declaration} names) in the same atomic write, their
     * group sealed: the group resolver fires the declared event on the task once they have ended.
     * Replaying the command (same idempotency key) creates no child twice; a child whose spec has an
     * idempotency key that exists is not created again. An empty list makes a group of none, which
     * the resolver settles at once.
     *
     * @throws StatekitException with {@link ErrorCode#INVALID_ARGUMENT} if the machine declares no children
     */
    public <S extends Enum<S>, E extends Enum<E>> Outcome<S> fireWithChildren(Machine<S, E> machine, long taskId, E event,
                                                                              Command command, List<TaskSpec> children) {
        Children<S, E> policy = Groups.policy(machine);
        List<NewTask> tasks = groups.children(policy, taskId, Objects.requireNonNull(children, "children"));
        return commit.one(new Commit.Request<>(machine, taskId, new Move.Row<>(Objects.requireNonNull(event, "event")), command, null,
                null, GroupWrite.sealed(taskId, tasks)));
    }

    /**
     * Adds children to the group of {@code parentId} without sealing it (for children created over
     * time); {@link #sealChildren} says when all exist. The group is never resolved before.
     *
     * @return whether the parent exists (as a task of {@code parentMachine})
     * @throws StatekitException with {@link ErrorCode#GROUP_SEALED} if the group is sealed
     */
    public <S extends Enum<S>, E extends Enum<E>> boolean addChildren(Machine<S, E> parentMachine, long parentId, List<TaskSpec> children) {
        return groups.add(parentMachine, parentId, children, false);
    }

    /**
     * Adds children to the group of {@code parentId} and, with {@code seal}, seals it in the same
     * write: the way to give children to a task created without a transition to fan out from.
     *
     * @return whether the parent exists (as a task of {@code parentMachine})
     * @throws StatekitException with {@link ErrorCode#GROUP_SEALED} if the group is sealed and a child is new
     */
    public <S extends Enum<S>, E extends Enum<E>> boolean addChildren(Machine<S, E> parentMachine, long parentId, List<TaskSpec> children,
                                                                     boolean seal) {
        return groups.add(parentMachine, parentId, children, seal);
    }

    /** Seals the group of {@code parentId}: every child exists; returns whether the parent exists. */
    public <S extends Enum<S>, E extends Enum<E>> boolean sealChildren(Machine<S, E> parentMachine, long parentId) {
        return groups.add(parentMachine, parentId, List.of(), true);
    }

    /**
     * Returns how far the group task {@code ownerId} owns has got (its children, or its
     * dependencies), as of the last resolution pass; empty if it owns none.
     */
    public Optional<GroupProgress> progress(Machine<?, ?> ownerMachine, long ownerId) {
        return groups.progress(Groups.registry(List.of(ownerMachine)), ownerId);
    }

    /**
     * Runs resolution passes over the groups owned by tasks of {@code machines} until none is left
     * to resolve (at most {@code maxPasses} passes of up to 200 groups). A {@link TaskRuntime} does
     * this by itself; call it where no runtime runs, or to resolve at a chosen instant in a test.
     *
     * @return how many groups were resolved
     */
    public int resolveGroups(Collection<? extends Machine<?, ?>> machines, int maxPasses) {
        return groups.resolve(List.copyOf(machines), maxPasses);
    }

    // --- machine evolution ------------------------------------------------------------------

    /**
     * Moves up to {@code max} tasks of {@code machine} out of states this version no longer has,
     * by its declared migrations ({@link MachineBuilder#migrate}), in writes of up to 100 tasks:
     * each task moves with a history entry of its own (event {@code MIGRATE}, source
     * {@code SYSTEM}, reason naming the machine's version) and keeps the version of the machine it
     * was created under. A task that holds a lease is left for a later run. Returns how many tasks
     * moved; a host runs it until it returns 0 (for example at start, or from a timer).
     *
     * @throws IllegalArgumentException if {@code max} is not positive
     */
    public <S extends Enum<S>, E extends Enum<E>> int migrate(Machine<S, E> machine, int max) {
        if (max <= 0) throw new IllegalArgumentException("max must be positive, was " + max);
        Command command = Command.system().reason("machine " + machine.name() + " v" + machine.version());
        int moved = 0;
        for (Map.Entry<String, S> migration : machine.migrations().entrySet()) {
            Move<S, E> move = new Move.Migrate<>(migration.getValue());
            long after = 0;
            while (moved < max) {
                Page<TaskRecord> page = store.query(TaskQuery.all().machine(machine.name()).states(List.of(migration.getKey()))
                        .after(after).limit(Math.min(100, max - moved)));
                List<Commit.Request<S, E>> requests = new ArrayList<>(page.items().size());
                for (TaskRecord t : page.items()) {
                    after = t.id();
                    if (t.lease() == null) requests.add(new Commit.Request<>(machine, t.id(), move, command, null, t, null));
                }
                for (Outcome<?> o : requests.isEmpty() ? List.<Outcome<?>>of() : commit.each(requests)) if (o.isApplied()) moved++;
                if (page.nextAfterId() == null) break;
            }
        }
        if (moved > 0) log.info("machine {} v{}: {} tasks migrated out of removed states", machine.name(), machine.version(), moved);
        return moved;
    }

    // --- waiting for a state ------------------------------------------------------------------

    /**
     * Returns a future that completes with task {@code id} once it is in one of {@code states}
     * (at once if it is already), or fails with {@link java.util.concurrent.TimeoutException}
     * after {@code timeout} on the engine's clock, or with {@link java.util.NoSuchElementException}
     * when there is no such task of {@code machine}. Changes written through this engine complete
     * it as they are written; changes of other processes as the store's watch tells of them
     * (PostgreSQL: LISTEN/NOTIFY); anything else at the next check of the waited tasks, every
     * {@link Builder#awaitRecheck} on the clock. Cancelling the future ends the wait.
     */
    public <S extends Enum<S>, E extends Enum<E>> CompletableFuture<Task<S>> await(Machine<S, E> machine, long id, Set<S> states,
                                                                                  Duration timeout) {
        Objects.requireNonNull(machine, "machine");
        return awaits.await(machine, id, Set.copyOf(states), Objects.requireNonNull(timeout, "timeout"));
    }

    /** Returns a future that completes with task {@code id} once it is in a terminal state; otherwise as {@link #await}. */
    public <S extends Enum<S>, E extends Enum<E>> CompletableFuture<Task<S>> awaitTerminal(Machine<S, E> machine, long id,
                                                                                          Duration timeout) {
        return await(machine, id, machine.terminals(), timeout);
    }

    // --- read -------------------------------------------------------------------------------

    /** Returns task {@code id} if it exists and lives in {@code machine}. */
    public <S extends Enum<S>, E extends Enum<E>> Optional<Task<S>> find(Machine<S, E> machine, long id) {
        Optional<TaskRecord> r = store.find(id);
        if (r.isEmpty() || !r.get().machine().equals(machine.name())) return Optional.empty();
        return Optional.of(new Task<>(Decider.stateOf(machine, r.get()), r.get()));
    }

    /**
     * Returns the history of task {@code id}, oldest first, whether the task is in the store's hot
     * table or archived ({@link Retention}); empty when it has none or does not exist.
     */
    public List<HistoryEntry> history(long id) {
        List<HistoryEntry> hot = store.history(id);
        if (!hot.isEmpty()) return hot;
        return store.findArchived(id).map(ArchivedTask::history).orElse(hot);
    }

    /**
     * Returns the history of task {@code id} of {@code machine}, oldest first, in the machine's
     * states and events, whether the task is in the store's hot table or archived
     * ({@link Retention}); empty when no such task of {@code machine} is in either.
     *
     * @throws StatekitException {@code SCHEMA_DRIFT}, naming the task, when an
     *                                              entry names a state the machine does not know
     */
    public <S extends Enum<S>, E extends Enum<E>> List<HistoryStep<S, E>> history(Machine<S, E> machine, long id) {
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

    /**
     * Returns task {@code id} of {@code machine} from the archive, where {@link Retention} moved it
     * once it had finished, as it was when it moved; empty when no such task of {@code machine} is
     * archived (a task still in the hot table is read with {@link #find}). Its history:
     * {@link #history(Machine, long)}.
     *
     * @throws StatekitException {@code SCHEMA_DRIFT} when the archived state is unknown to the machine
     */
    public <S extends Enum<S>, E extends Enum<E>> Optional<Task<S>> findArchived(Machine<S, E> machine, long id) {
        Optional<ArchivedTask> a = store.findArchived(id);
        if (a.isEmpty() || !a.get().task().machine().equals(machine.name())) return Optional.empty();
        return Optional.of(new Task<>(Decider.stateOf(machine, a.get().task()), a.get().task()));
    }

    /** Returns one page of {@code machine}'s tasks matching {@code query}. */
    public <S extends Enum<S>, E extends Enum<E>> Page<Task<S>> query(Machine<S, E> machine, TaskQuery query) {
        Page<TaskRecord> page = store.query(query.machine(machine.name()));
        List<Task<S>> items = new ArrayList<>(page.items().size());
        for (TaskRecord r : page.items()) items.add(new Task<>(Decider.stateOf(machine, r), r));
        return new Page<>(items, page.nextAfterId());
    }

    // --- fire -------------------------------------------------------------------------------

    /** Fires {@code event} at task {@code taskId} as the system. */
    public <S extends Enum<S>, E extends Enum<E>> Outcome<S> fire(Machine<S, E> machine, long taskId, E event) {
        return fire(machine, taskId, event, Command.system());
    }

    /**
     * Fires {@code event} at task {@code taskId} of {@code machine} under {@code command}.
     *
     * @return the applied change, a replay of an earlier application of the command's idempotency
     *         key, or a refusal: {@link RefusalCode#NOT_FOUND}, {@link RefusalCode#ILLEGAL_TRANSITION}
     *         (its message names the allowed events), {@link RefusalCode#GUARD_REFUSED} (with the
     *         guard's code and reason) or {@link RefusalCode#VERSION_CONFLICT}
     * @throws StatekitException {@link ErrorCode#SCHEMA_DRIFT} when the stored state is unknown to
     *         the machine; exceptions of guards, effects and the store propagate, and nothing is written
     */
    public <S extends Enum<S>, E extends Enum<E>> Outcome<S> fire(Machine<S, E> machine, long taskId, E event, Command command) {
        return commit.one(Commit.Request.row(machine, taskId, event, command));
    }

    /**
     * Fires several commands at distinct tasks atomically: all are applied or none is. A command
     * whose idempotency key was already applied to its task is replayed (not applied again) while
     * the others are applied.
     *
     * @throws IllegalArgumentException if {@code fires} is empty or names one task twice
     */
    public BatchOutcome fireAll(List<Fire<?, ?>> fires) {
        List<Commit.Request<?, ?>> requests = new ArrayList<>(fires.size());
        for (Fire<?, ?> f : fires) requests.add(request(f));
        return commit.all(requests);
    }

    private static <S extends Enum<S>, E extends Enum<E>> Commit.Request<S, E> request(Fire<S, E> f) {
        return Commit.Request.row(f.machine(), f.taskId(), f.event(), f.command());
    }

    /** Tells listeners of a change a store applied on the engine's behalf (a claim), with the entry the store wrote. */
    void announce(String machine, TaskRecord task, HistoryEntry entry) {
        listeners.transitioned(machine, task, entry);
    }

    /** Builds a {@link TransitionEngine}. Not thread-safe. */
    public static final class Builder {
        private @Nullable Store store;
        private Clock clock = Clock.system();
        private final List<TransitionListener> listeners = new ArrayList<>();
        private int maxConflictRetries = 100;
        private Duration awaitRecheck = Duration.ofSeconds(1);
        private Authorizer authorizer = Authorizer.ALLOW_ALL;

        private Builder() {}

        /** Sets the store. Required. */
        public Builder store(Store value) {
            this.store = Objects.requireNonNull(value, "store");
            return this;
        }

        /** Sets the clock (default {@link Clock#system()}). */
        public Builder clock(Clock value) {
            this.clock = Objects.requireNonNull(value, "clock");
            return this;
        }

        /** Adds a listener, called after every applied change in the order added. */
        public Builder listener(TransitionListener value) {
            listeners.add(Objects.requireNonNull(value, "listener"));
            return this;
        }

        /**
         * Sets how often a command without an expected version is decided again after losing a
         * compare-and-set to a concurrent change (default 100) before it is refused with
         * {@link RefusalCode#VERSION_CONFLICT}.
         *
         * @throws IllegalArgumentException if negative
         */
        public Builder maxConflictRetries(int value) {
            if (value < 0) throw new IllegalArgumentException("maxConflictRetries must be >= 0, was " + value);
            this.maxConflictRetries = value;
            return this;
        }

        /**
         * Sets how often the tasks that {@link TransitionEngine#await} waits for are read again
         * while waits are pending (default 1 second, on the engine's clock): the safety net for
         * changes neither this engine nor the store's watch tells of.
         *
         * @throws IllegalArgumentException if not positive
         */
        public Builder awaitRecheck(Duration value) {
            if (value.isNegative() || value.isZero()) throw new IllegalArgumentException("awaitRecheck must be positive, was " + value);
            this.awaitRecheck = value;
            return this;
        }

        /**
         * Sets the authorizer asked about every command of a person (default {@link Authorizer#ALLOW_ALL}).
         */
        public Builder authorizer(Authorizer value) {
            this.authorizer = Objects.requireNonNull(value, "authorizer");
            return this;
        }

        /**
         * Builds the engine.
         *
         * @throws IllegalStateException if no store was given
         */
        public TransitionEngine build() {
            if (store == null) throw new IllegalStateException("a TransitionEngine needs a store");
            return new TransitionEngine(this);
        }
    }
}
