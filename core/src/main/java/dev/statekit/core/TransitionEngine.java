package dev.statekit.core;

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
    private final int maxConflictRetries;
    private final Batches batches;
    private final Groups groups;
    private final Awaits awaits;
    private final Authorizer authorizer;

    private TransitionEngine(Builder b) {
        this.store = Objects.requireNonNull(b.store, "store");
        this.clock = b.clock;
        this.listeners = new Listeners(b.listeners);
        this.maxConflictRetries = b.maxConflictRetries;
        this.batches = new Batches(this, store, clock, maxConflictRetries);
        this.groups = new Groups(this, store, clock);
        this.awaits = new Awaits(store, clock, b.awaitRecheck, listeners::add);
        this.authorizer = b.authorizer;
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
        return fire(machine, taskId, event, command, null, GroupWrite.sealed(taskId, tasks));
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

    /** Resolves groups as {@link #resolveGroups(Collection, int)} does, handing {@code resolutions} each group resolved. */
    int resolveGroups(Collection<? extends Machine<?, ?>> machines, int maxPasses,
                      java.util.function.@Nullable BiConsumer<GroupDecider.Resolved, TaskRecord> resolutions) {
        return groups.resolve(List.copyOf(machines), maxPasses, resolutions);
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
        int moved = 0;
        for (Map.Entry<String, S> migration : machine.migrations().entrySet()) {
            long after = 0;
            while (moved < max) {
                Page<TaskRecord> page = store.query(TaskQuery.all().machine(machine.name()).states(List.of(migration.getKey()))
                        .after(after).limit(Math.min(100, max - moved)));
                List<Change> changes = new ArrayList<>(page.items().size());
                Instant now = clock.now();
                for (TaskRecord t : page.items()) {
                    after = t.id();
                    if (t.lease() != null) continue;
                    Instant at = t.updatedAt().isAfter(now) ? t.updatedAt() : now;
                    TaskRecord next = t.toBuilder().state(migration.getValue().name()).version(t.version() + 1).updatedAt(at).build();
                    changes.add(new Change(t.version(), next, new HistoryEntry(t.id(), next.version(), t.state(), next.state(),
                            "MIGRATE", TriggerSource.SYSTEM, null, "machine " + machine.name() + " v" + machine.version(), at, null)));
                }
                List<ApplyResult> results = changes.isEmpty() ? List.of() : store.applyEach(changes);
                for (int i = 0; i < results.size(); i++) {
                    if (!results.get(i).applied()) continue;
                    moved++;
                    announce(machine.name(), changes.get(i).next(), changes.get(i).entry());
                }
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
        return fire(machine, taskId, event, command, null);
    }

    /** {@link #fire(Machine, long, Enum, Command)} with the runtime's adjustment of the written record. */
    <S extends Enum<S>, E extends Enum<E>> Outcome<S> fire(Machine<S, E> machine, long taskId, E event, Command command,
                                                           Decider.@Nullable Adjust adjust) {
        return fire(machine, taskId, event, command, adjust, null);
    }

    private <S extends Enum<S>, E extends Enum<E>> Outcome<S> fire(Machine<S, E> machine, long taskId, E event, Command command,
                                                           Decider.@Nullable Adjust adjust, @Nullable GroupWrite fanOut) {
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(command, "command");
        String key = command.idempotencyKey();
        for (int attempt = 0; ; attempt++) {
            TaskRecord current = store.find(taskId).orElse(null);
            if (current == null || !sameName(current.machine(), machine.name())) return Refusals.notFound(machine, taskId, event);
            Outcome.Refused<S> forbidden = forbidden(machine, current, event, command);
            if (forbidden != null) return forbidden;
            if (key != null && attempt == 0) {
                Optional<HistoryEntry> prior = store.findCommand(taskId, key);
                if (prior.isPresent()) return replay(machine, current, prior.get());
            }
            Decision<S> decision = Decider.decide(machine, current, event, command, adjust, clock.now());
            if (decision instanceof Decision.Refuse<S> refuse) return refuse.refused();
            Change change = ((Decision.Write<S>) decision).change();
            GroupWrite group = Groups.withHold(machine, change, fanOut);
            ApplyResult result = group == null ? store.apply(change) : store.applyAll(List.of(change), List.of(group));
            switch (result.status()) {
                case APPLIED:
                    return applied(machine, change);
                case DUPLICATE_COMMAND:
                    return replay(machine, store.find(taskId).orElse(current), Objects.requireNonNull(result.prior()));
                case NOT_FOUND:
                    return Refusals.notFound(machine, taskId, event);
                case VERSION_CONFLICT:
                default:
                    long expected = command.expectedVersionOrMinusOne();
                    if (expected >= 0 || attempt >= maxConflictRetries) {
                        return Refusals.conflict(current, Decider.stateOf(machine, current), event.name(), expected, attempt + 1);
                    }
            }
        }
    }

    /**
     * One command of {@link #fireEach}, with the runtime's record adjustment and, when the caller
     * holds it, the task as it last saw it ({@code known}): the command is decided on that record
     * instead of a fresh read. The write still requires the task at that record's version, and a
     * command refused on it is decided again on a fresh read, so a stale record changes nothing
     * but the cost.
     */
    /** The runtime's own move of a running task back to {@code to}, recorded as {@code event} (see {@link Decider#requeue}). */
    <S extends Enum<S>, E extends Enum<E>> Outcome<S> requeue(Machine<S, E> machine, long taskId, S to, String event, Command command,
                                                             Decider.@Nullable Adjust adjust) {
        for (int attempt = 0; ; attempt++) {
            TaskRecord current = store.find(taskId).orElse(null);
            if (current == null || !sameName(current.machine(), machine.name())) return Refusals.notFound(machine.name(), taskId, event);
            Decision<S> decision = Decider.requeue(machine, current, to, event, command, adjust, clock.now());
            if (decision instanceof Decision.Refuse<S> refuse) return refuse.refused();
            Change change = ((Decision.Write<S>) decision).change();
            ApplyResult result = store.apply(change);
            if (result.applied()) return applied(machine, change);
            if (result.status() == ApplyResult.Status.NOT_FOUND) return Refusals.notFound(machine.name(), taskId, event);
            long expected = command.expectedVersionOrMinusOne();
            if (expected >= 0 || attempt >= maxConflictRetries) {
                return Refusals.conflict(current, Decider.stateOf(machine, current), event, expected, attempt + 1);
            }
        }
    }

    record Request<S extends Enum<S>, E extends Enum<E>>(Machine<S, E> machine, long taskId, E event, Command command,
                                                         Decider.@Nullable Adjust adjust, @Nullable TaskRecord known) {
        Request {
            if (known != null && known.id() != taskId) {
                throw new IllegalArgumentException("the known record is of task " + known.id() + ", not " + taskId);
            }
        }
    }

    /**
     * Fires several commands at distinct tasks, each on its own (not atomically together), with one
     * read and one write round trip to the store for all of them where it can (none when every
     * request knows its record). A command whose write loses a race is decided again alone, exactly
     * as {@link #fire} would.
     */
    List<Outcome<?>> fireEach(List<Request<?, ?>> requests) {
        return batches.fireEach(requests);
    }

    /**
     * Fires several commands at distinct tasks atomically: all are applied or none is. A command
     * whose idempotency key was already applied to its task is replayed (not applied again) while
     * the others are applied.
     *
     * @throws IllegalArgumentException if {@code fires} is empty or names one task twice
     */
    public BatchOutcome fireAll(List<Fire<?, ?>> fires) {
        return batches.fireAll(fires);
    }

    /**
     * Asks the authorizer about a person's command; returns its refusal ({@link RefusalCode#FORBIDDEN}),
     * logged with the actor, or null when the command is the system's or allowed.
     */
    <S extends Enum<S>, E extends Enum<E>> Outcome.@Nullable Refused<S> forbidden(Machine<S, E> machine, TaskRecord current, E event,
                                                                              Command command) {
        if (command.source() != dev.statekit.store.TriggerSource.USER || authorizer == Authorizer.ALLOW_ALL) return null;
        Verdict v = Objects.requireNonNull(authorizer.authorize(new Authorizer.Request(command.actor(), machine.name(), current,
                event.name(), command)), "authorizer returned null");
        if (v.allowed()) return null;
        log.info("refused {} on task {} ({}) for {}: {} {}", event.name(), current.id(), machine.name(), command.actor(), v.code(), v.message());
        return new Outcome.Refused<>(RefusalCode.FORBIDDEN, Objects.requireNonNull(v.code()), v.message() + " (task " + current.id()
                + ", event " + event.name() + ", actor " + command.actor() + ")", current.id(), machine.state(current.state()), event.name());
    }

    /** Tells the listeners of a written change and returns its outcome. */
    <S extends Enum<S>, E extends Enum<E>> Outcome.Applied<S> applied(Machine<S, E> machine, Change change) {
        listeners.transitioned(machine.name(), change.next(), change.entry());
        return new Outcome.Applied<>(new Task<>(Decider.stateOf(machine, change.next()), change.next()), change.entry(), false);
    }

    static boolean sameName(String a, String b) {
        return a == b || a.equals(b);
    }

    static <S extends Enum<S>, E extends Enum<E>> Outcome.Applied<S> replay(
            Machine<S, E> machine, TaskRecord current, HistoryEntry prior) {
        return new Outcome.Applied<>(new Task<>(Decider.stateOf(machine, current), current), prior, true);
    }

    /** Tells listeners of a change a store applied on the engine's behalf (a claim), with the entry the store wrote. */
    void announce(String machine, TaskRecord task, HistoryEntry entry) {
        listeners.transitioned(machine, task, entry);
    }

    /** Returns whether listeners other than {@code own} are subscribed. */
    boolean hasListenersBesides(TransitionListener own) {
        return listeners.anyBesides(own);
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
