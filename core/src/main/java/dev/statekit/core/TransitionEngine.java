package dev.statekit.core;

import dev.statekit.core.internal.Kernel;
import dev.statekit.core.spi.Cancellable;
import dev.statekit.core.spi.Clock;
import dev.statekit.core.spi.TaskInterceptor;
import dev.statekit.core.spi.TransitionListener;
import dev.statekit.store.ArchivedTask;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.GroupWrite;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.NewTask;
import dev.statekit.store.Page;
import dev.statekit.store.StatekitException;
import dev.statekit.store.Store;
import dev.statekit.store.TaskQuery;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

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
    private final Store store;
    private final Clock clock;
    private final Listeners listeners;
    private final List<TaskInterceptor> interceptors;
    private final Commit commit;
    private final Groups groups;
    private final Awaits awaits;
    private final KernelAccess kernel;
    private final Records records;
    private final Authorizer authorizer;
    private final int maxConflictRetries;

    static {
        Kernel.Access.install(engine -> engine.kernel, KernelAccess.FACTS);
    }

    TransitionEngine(TransitionEngineBuilder b) {
        this(Objects.requireNonNull(b.store, "store"), b.clock, b.authorizer, b.maxConflictRetries, new Listeners(b.listeners, b.store),
                List.copyOf(b.interceptors), null, b.awaitRecheck);
    }

    /** A view of {@code base} over {@code other}: the same clock, authorizer, subscribers and waits. */
    private TransitionEngine(TransitionEngine base, Store other) {
        this(other, base.clock, base.authorizer, base.maxConflictRetries, base.listeners.on(other), base.interceptors, base.awaits, null);
    }

    private TransitionEngine(Store store, Clock clock, Authorizer authorizer, int maxConflictRetries, Listeners listeners,
                             List<TaskInterceptor> interceptors, @Nullable Awaits awaits, @Nullable Duration awaitRecheck) {
        this.store = store;
        this.clock = clock;
        this.authorizer = authorizer;
        this.maxConflictRetries = maxConflictRetries;
        this.listeners = listeners;
        this.interceptors = interceptors;
        this.commit = new Commit(store, clock, listeners, authorizer, maxConflictRetries);
        this.records = new Records(store, clock, listeners, interceptors);
        this.groups = new Groups(records, listeners, store, clock);
        this.awaits = awaits != null ? awaits : new Awaits(store, clock, Objects.requireNonNull(awaitRecheck), listeners::add);
        this.kernel = new KernelAccess(this, commit, listeners, groups, records, interceptors);
    }

    /** Returns a builder: a store is required; the clock defaults to {@link Clock#system()}. */
    public static TransitionEngineBuilder builder() {
        return new TransitionEngineBuilder();
    }

    /**
     * Returns this engine working through {@code transactional}, a view of the store whose writes
     * join a transaction of the application (for example {@code JdbcStore.enlist(connection).store()}
     * in {@code statekit-store-jdbc}): the same machines' tables, clock, authorizer and listeners,
     * every create and fire written in that transaction, so that it commits or rolls back with the
     * application's own data. Listeners, and so a runtime's wake-ups, hear of the changes through
     * {@link Store#afterCommit}: once the transaction has committed, never when it rolls back. One
     * history entry per change, idempotency keys and the table hold as on this engine. Waits
     * ({@link #await}) are this engine's. The view is cheap: make one per transaction.
     *
     * @param transactional the store of the transaction
     * @return an engine over {@code transactional}
     */
    public TransitionEngine within(Store transactional) {
        return new TransitionEngine(this, Objects.requireNonNull(transactional, "transactional"));
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
        return records.create(Objects.requireNonNull(machine, "machine"), Objects.requireNonNull(spec, "spec"));
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
     * to resolve (at most {@code maxPasses} passes of up to 200 groups). A {@link dev.statekit.core.runtime.TaskRuntime} does
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
        return commit.migrate(machine, max);
    }

    // --- waiting for a state ------------------------------------------------------------------

    /**
     * Returns a future that completes with task {@code id} once it is in one of {@code states}
     * (at once if it is already), or fails with {@link java.util.concurrent.TimeoutException}
     * after {@code timeout} on the engine's clock, or with {@link java.util.NoSuchElementException}
     * when there is no such task of {@code machine}. Changes written through this engine complete
     * it as they are written; changes of other processes as the store's watch tells of them
     * (PostgreSQL: LISTEN/NOTIFY); anything else at the next check of the waited tasks, every
     * {@link TransitionEngineBuilder#awaitRecheck} on the clock. Cancelling the future ends the wait.
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
        return records.find(machine, store.find(id));
    }

    /**
     * Returns the history of task {@code id}, oldest first, whether the task is in the store's hot
     * table or archived ({@link dev.statekit.core.runtime.Retention}); empty when it has none or does not exist.
     */
    public List<HistoryEntry> history(long id) {
        List<HistoryEntry> hot = store.history(id);
        if (!hot.isEmpty()) return hot;
        return store.findArchived(id).map(ArchivedTask::history).orElse(hot);
    }

    /**
     * Returns the history of task {@code id} of {@code machine}, oldest first, in the machine's
     * states and events, whether the task is in the store's hot table or archived
     * ({@link dev.statekit.core.runtime.Retention}); empty when no such task of {@code machine} is in either.
     *
     * @throws StatekitException {@code SCHEMA_DRIFT}, naming the task, when an
     *                                              entry names a state the machine does not know
     */
    public <S extends Enum<S>, E extends Enum<E>> List<HistoryStep<S, E>> history(Machine<S, E> machine, long id) {
        return records.history(machine, id);
    }

    /**
     * Returns task {@code id} of {@code machine} from the archive, where {@link dev.statekit.core.runtime.Retention} moved it
     * once it had finished, as it was when it moved; empty when no such task of {@code machine} is
     * archived (a task still in the hot table is read with {@link #find}). Its history:
     * {@link #history(Machine, long)}.
     *
     * @throws StatekitException {@code SCHEMA_DRIFT} when the archived state is unknown to the machine
     */
    public <S extends Enum<S>, E extends Enum<E>> Optional<Task<S>> findArchived(Machine<S, E> machine, long id) {
        return records.find(machine, store.findArchived(id).map(ArchivedTask::task));
    }

    /** Returns one page of {@code machine}'s tasks matching {@code query}. */
    public <S extends Enum<S>, E extends Enum<E>> Page<Task<S>> query(Machine<S, E> machine, TaskQuery query) {
        return records.query(machine, query);
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
        return commit.all(fires.stream().map(Commit.Request::of).toList());
    }
}
