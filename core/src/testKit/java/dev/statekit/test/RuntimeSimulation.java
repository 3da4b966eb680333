package dev.statekit.test;

import dev.statekit.core.ops.TaskOperations;
import dev.statekit.core.ops.CancelResult;
import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.RunPolicy;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.Transition;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.WorkContext;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.Lease;
import dev.statekit.store.Store;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;
import org.jspecify.annotations.Nullable;

/**
 * A deterministic simulation of a machine and its worker on the runtime: one store (in memory by
 * default), one engine on a {@link ManualClock}, and runtimes serving one queue on an executor that
 * runs nothing until told to. The test (or a jqwik {@link ActionChain} from
 * {@link Builder#chains(int)}) enqueues tasks, runs waiting work in any order, moves the clock,
 * crashes runtimes and starts new ones, lets leases expire, pauses and resumes the queue and
 * cancels tasks; every action is followed by {@link #check()}, which asserts the runtime's
 * invariants:
 *
 * <ul>
 *   <li>every task's version equals its history's length, and its history is an unbroken chain
 *       of rows of the table, each allowed for its trigger source, none leaving a terminal state,
 *       its times never going back;</li>
 *   <li>a task holds a lease exactly when it is in a state the run policy runs it in; a lease is
 *       held by a live runtime that runs the task and has not let it expire, or by a runtime that
 *       crashed;</li>
 *   <li>no more tasks hold a lease than the queue's concurrency limit allows;</li>
 *   <li>the worker is called only in a running state, and for a task whose stored lease is the
 *       caller's, with the fencing token it was given, unless the task moved on since the claim
 *       (its lease expired and it was recovered, cancelled or claimed again before the worker
 *       started: such a worker runs on a stale claim and its writes are fenced).</li>
 * </ul>
 *
 * <p>{@link #settle()} then lets everything finish (a live runtime, the queue resumed, time moving
 * from timer to timer) and asserts that every task comes to rest: in a terminal state or in one
 * only a person moves on (see {@link Builder#restingStates}).
 *
 * <p>Workers run on the test's thread, so a worker must return (it cannot hang). Not thread-safe.
 *
 * @param <S> the state type
 * @param <E> the event type
 */
public final class RuntimeSimulation<S extends Enum<S>, E extends Enum<E>> {

    /** Returns a builder of simulations of {@code machine}'s tasks worked by {@code worker}. */
    public static <S extends Enum<S>, E extends Enum<E>> Builder<S, E> of(Machine<S, E> machine, Worker<S> worker) {
        return new Builder<>(machine, worker);
    }

    /**
     * Settings of a simulation; {@link #build()} makes one, {@link #chains(int)} an arbitrary of
     * action chains over new ones. Not thread-safe.
     *
     * @param <S> the state type
     * @param <E> the event type
     */
    public static final class Builder<S extends Enum<S>, E extends Enum<E>> {
        private final Machine<S, E> machine;
        private final Worker<S> worker;
        private @Nullable String queue;
        private TaskSpec spec = TaskSpec.defaults();
        private int runtimes = 1;
        private int workers = 2;
        private int concurrency;
        private Duration lease = Duration.ofSeconds(10);
        private Duration poll = Duration.ofSeconds(1);
        private @Nullable Set<S> resting;
        private Supplier<Store> stores = InMemoryStore::new;
        private int settleSteps = 20_000;

        private Builder(Machine<S, E> machine, Worker<S> worker) {
            this.machine = Objects.requireNonNull(machine, "machine");
            this.worker = Objects.requireNonNull(worker, "worker");
            RunPolicy<S, E> policy = machine.runPolicy();
            if (policy == null) throw new IllegalArgumentException("machine " + machine.name() + " declares no run policy");
        }

        /** Serves queue {@code name} (default: the run policy's queue, else the machine's name). */
        public Builder<S, E> queue(String name) {
            queue = Objects.requireNonNull(name, "queue");
            return this;
        }

        /** Creates tasks with {@code value} (default {@link TaskSpec#defaults()}; the queue is set to the served one). */
        public Builder<S, E> spec(TaskSpec value) {
            spec = Objects.requireNonNull(value, "spec");
            return this;
        }

        /** Starts with {@code count} runtimes (default 1); chains keep at least one and at most this many live. */
        public Builder<S, E> runtimes(int count) {
            if (count < 1) throw new IllegalArgumentException("runtimes must be positive: " + count);
            runtimes = count;
            return this;
        }

        /** Gives each runtime {@code count} worker slots (default 2). */
        public Builder<S, E> workers(int count) {
            if (count < 1) throw new IllegalArgumentException("workers must be positive: " + count);
            workers = count;
            return this;
        }

        /** Limits the queue to {@code limit} tasks under lease across runtimes (default 0: no limit). */
        public Builder<S, E> concurrency(int limit) {
            if (limit < 0) throw new IllegalArgumentException("concurrency must not be negative: " + limit);
            concurrency = limit;
            return this;
        }

        /** Sets the runtimes' lease duration (default 10 s). */
        public Builder<S, E> leaseDuration(Duration value) {
            lease = Objects.requireNonNull(value, "lease");
            return this;
        }

        /** Sets the runtimes' poll interval (default 1 s). */
        public Builder<S, E> pollInterval(Duration value) {
            poll = Objects.requireNonNull(value, "poll");
            return this;
        }

        /**
         * Names the states a task may rest in once {@link #settle()} has let everything finish
         * (default: the terminal states, and those no row leaves by {@link TriggerSource#SYSTEM}
         * that the run policy neither claims nor runs).
         */
        @SafeVarargs
        public final Builder<S, E> restingStates(S first, S... more) {
            Set<S> states = EnumSet.of(first);
            for (S s : more) states.add(s);
            resting = states;
            return this;
        }

        /** Keeps tasks in a store {@code supplier} makes, one per simulation (default a new {@link InMemoryStore}). */
        public Builder<S, E> store(Supplier<Store> supplier) {
            stores = Objects.requireNonNull(supplier, "store");
            return this;
        }

        /** Lets {@link #settle()} move the clock at most {@code steps} times (default 20,000). */
        public Builder<S, E> settleSteps(int steps) {
            if (steps < 1) throw new IllegalArgumentException("settleSteps must be positive: " + steps);
            settleSteps = steps;
            return this;
        }

        /** Returns a new simulation with its runtimes started. */
        public RuntimeSimulation<S, E> build() {
            return new RuntimeSimulation<>(this);
        }

        /**
         * Returns an arbitrary of action chains of up to {@code maxSteps} actions over a new
         * simulation each: enqueue, run one waiting runnable, run all, move the clock, crash a
         * runtime (and start another under the same or a new owner), start a runtime, let leases
         * expire, pause or resume the queue, cancel a task. Every action ends with {@link #check()};
         * run a chain, then {@link #settle()} its end state.
         */
        public Arbitrary<ActionChain<RuntimeSimulation<S, E>>> chains(int maxSteps) {
            if (maxSteps < 1) throw new IllegalArgumentException("maxSteps must be positive: " + maxSteps);
            Builder<S, E> settings = this;
            Arbitrary<Duration> advances = Arbitraries.integers().between(1, 40).map(n -> poll.multipliedBy(n).dividedBy(4));
            return ActionChain.<RuntimeSimulation<S, E>>startWith(settings::build)
                    .withAction(4, independent(Arbitraries.integers().between(-1, 1).map(p ->
                            mutate("enqueue with priority " + p, s -> s.enqueue(p)))))
                    .withAction(6, dependent(s -> s.executor.pending() > 0, s -> Arbitraries.integers()
                            .between(0, s.executor.pending() - 1).map(i -> mutate("run waiting runnable " + i, x -> x.runOne(i)))))
                    .withAction(2, independent(Arbitraries.just(mutate("run all waiting runnables", RuntimeSimulation::runAll))))
                    .withAction(4, independent(advances.map(d ->
                            mutate("advance the clock by " + d.toMillis() + " ms", s -> s.advance(d)))))
                    .withAction(1, dependent(s -> !s.live.isEmpty(), s -> Combinators.combine(
                            Arbitraries.integers().between(0, s.live.size() - 1), Arbitraries.of(true, false)).as((which, same) ->
                            mutate("crash runtime " + which + (same ? " and restart it" : " and start a new one"), x -> {
                                String owner = x.crash(which);
                                x.start(same ? owner : null);
                            }))))
                    .withAction(1, dependent(s -> s.live.size() > 1, s -> Arbitraries.integers().between(0, s.live.size() - 1)
                            .map(which -> mutate("crash runtime " + which, x -> x.crash(which)))))
                    .withAction(1, dependent(s -> s.live.size() < settings.runtimes,
                            s -> Arbitraries.just(mutate("start a runtime", x -> x.start(null)))))
                    .withAction(1, independent(Arbitraries.just(mutate("let leases expire", RuntimeSimulation::expireLeases))))
                    .withAction(1, independent(Arbitraries.just(mutate("pause the queue", RuntimeSimulation::pause))))
                    .withAction(2, independent(Arbitraries.just(mutate("resume the queue", RuntimeSimulation::resume))))
                    .withAction(1, dependent(s -> !s.tasks.isEmpty() && s.cancellable(), s -> Arbitraries.integers()
                            .between(0, s.tasks.size() - 1).map(t -> mutate("cancel task #" + t, x -> x.cancel(t)))))
                    .withMaxTransformations(maxSteps);
        }
    }

    /** A transformer that runs {@code action} and then checks the invariants. */
    private static <S extends Enum<S>, E extends Enum<E>> Transformer<RuntimeSimulation<S, E>> mutate(
            String description, Consumer<RuntimeSimulation<S, E>> action) {
        return Transformer.mutate(description, s -> {
            action.accept(s);
            s.check();
        });
    }

    private static <T> Action.Independent<T> independent(Arbitrary<Transformer<T>> transformers) {
        return new Action.Independent<>() {
            @Override
            public Arbitrary<Transformer<T>> transformer() {
                return transformers;
            }
        };
    }

    private static <T> Action.Dependent<T> dependent(Predicate<T> precondition, Function<T, Arbitrary<Transformer<T>>> transformers) {
        return new Action.Dependent<>() {
            @Override
            public boolean precondition(T state) {
                return precondition.test(state);
            }

            @Override
            public Arbitrary<Transformer<T>> transformer(T state) {
                return transformers.apply(state);
            }
        };
    }

    /** A live runtime: its index (which tags its executor work) and owner. */
    private record Live(int index, String owner, TaskRuntime runtime) {
        @Override
        public String toString() {
            return owner + "#" + index;
        }
    }

    private final Machine<S, E> machine;
    private final Worker<S> worker;
    private final String queue;
    private final TaskSpec spec;
    private final int concurrency;
    private final int workers;
    private final Duration lease;
    private final Duration poll;
    private final int settleSteps;
    private final Set<S> running;
    private final Set<S> resting;
    private final Store store;
    private final ManualClock clock = new ManualClock();
    private final SimulationExecutor executor = new SimulationExecutor();
    private final TransitionEngine engine;
    private final List<Live> live = new ArrayList<>();
    private final Set<String> deadOwners = new TreeSet<>();
    private final List<Long> tasks = new ArrayList<>();
    private final Map<Long, String> createdIn = new HashMap<>();
    private final List<String> violations = Collections.synchronizedList(new ArrayList<>());
    private int runtimesStarted;
    private int workerCalls;

    private RuntimeSimulation(Builder<S, E> b) {
        this.machine = b.machine;
        this.worker = b.worker;
        RunPolicy<S, E> policy = Objects.requireNonNull(b.machine.runPolicy());
        this.queue = b.queue != null ? b.queue : policy.queue() != null ? policy.queue() : b.machine.name();
        this.spec = b.spec.queue(queue);
        this.concurrency = b.concurrency;
        this.workers = b.workers;
        this.lease = b.lease;
        this.poll = b.poll;
        this.settleSteps = b.settleSteps;
        this.running = EnumSet.noneOf(machine.stateType());
        running.addAll(policy.runningStates(machine));
        for (RunPolicy<S, E> stage : machine.stages().values()) running.addAll(stage.runningStates(machine));
        this.resting = b.resting != null ? b.resting : defaultResting(policy);
        this.store = b.stores.get();
        this.engine = TransitionEngine.builder().store(store).clock(clock).build();
        for (int i = 0; i < b.runtimes; i++) start(null);
    }

    private Set<S> defaultResting(RunPolicy<S, E> policy) {
        Set<S> states = EnumSet.noneOf(machine.stateType());
        for (S s : machine.states()) {
            if (machine.isTerminal(s)) {
                states.add(s);
            } else if (machine.allowedEvents(s, TriggerSource.SYSTEM).isEmpty() && !running.contains(s)
                    && !policy.claims().containsKey(s) && !policy.waits().containsKey(s)) {
                states.add(s);
            }
        }
        return states;
    }

    // --- what a test reads ------------------------------------------------------------------------

    /** Returns the simulation's clock. */
    public ManualClock clock() {
        return clock;
    }

    /** Returns the engine every runtime of the simulation uses. */
    public TransitionEngine engine() {
        return engine;
    }

    /** Returns the store. */
    public Store store() {
        return store;
    }

    /** Returns the ids of the tasks enqueued, in order. */
    public List<Long> tasks() {
        return List.copyOf(tasks);
    }

    /** Returns the task {@code id}'s record. */
    public TaskRecord task(long id) {
        return store.find(id).orElseThrow(() -> new AssertionError("task " + id + " is missing"));
    }

    /** Returns how many runtimes are live. */
    public int liveRuntimes() {
        return live.size();
    }

    /** Returns how many runnables wait on the executor. */
    public int pending() {
        return executor.pending();
    }

    /** Returns how many times the worker was called. */
    public int workerCalls() {
        return workerCalls;
    }

    // --- actions ----------------------------------------------------------------------------------

    /** Enqueues a task with the builder's spec; returns its id. */
    public long enqueue() {
        return enqueue(spec.priority());
    }

    /** Enqueues a task with the builder's spec at {@code priority}; returns its id. */
    public long enqueue(int priority) {
        TaskRecord t = engine.create(machine, spec.priority(priority)).task().record();
        tasks.add(t.id());
        createdIn.put(t.id(), t.state());
        return t.id();
    }

    /** Runs the waiting runnable at {@code index} (modulo the number waiting); returns whether one ran. */
    public boolean runOne(int index) {
        return executor.runAt(index);
    }

    /** Runs waiting runnables, oldest first, until none waits; returns how many ran. */
    public int runAll() {
        return executor.runAll(100_000);
    }

    /** Moves the clock by {@code d}, running the timers that fall due. */
    public void advance(Duration d) {
        clock.advance(d);
    }

    /** Moves the clock past the lease duration and a poll, so that leases of crashed runtimes expire and are recovered. */
    public void expireLeases() {
        clock.advance(lease.plus(poll).plus(poll));
    }

    /**
     * Crashes the live runtime {@code which} (modulo the number live): it halts, its waiting work
     * is gone and its leases stay until they expire. Returns its owner.
     */
    public String crash(int which) {
        if (live.isEmpty()) throw new IllegalStateException("no runtime is live");
        Live victim = live.remove(Math.floorMod(which, live.size()));
        victim.runtime().halt();
        executor.discard(victim.index());
        deadOwners.add(victim.owner());
        return victim.owner();
    }

    /** Starts a runtime under {@code owner} (a crashed one's name: it heals that runtime's tasks at once), or a new name when null. */
    public void start(@Nullable String owner) {
        int index = runtimesStarted++;
        String name = owner != null ? owner : "runtime-" + index;
        for (Live l : live) if (l.owner().equals(name)) throw new IllegalStateException("runtime " + name + " is live");
        QueueOptions options = QueueOptions.defaults().concurrency(concurrency);
        TaskRuntime runtime = TaskRuntime.builder(engine).owner(name).executor(executor.forRuntime(index)).workers(workers)
                .leaseDuration(lease).pollInterval(poll).seed(index)
                .register(machine, queue, (WorkContext<S> ctx) -> work(name, ctx), options).build();
        deadOwners.remove(name);
        live.add(new Live(index, name, runtime));
        runtime.start();
    }

    /** Pauses the queue through the operations of the engine (while a runtime lives). */
    public void pause() {
        if (!live.isEmpty()) TaskOperations.of(engine()).pause(queue, Command.system());
    }

    /** Resumes the queue through the operations of the engine, which wakes the live runtimes (while one lives). */
    public void resume() {
        if (!live.isEmpty()) TaskOperations.of(engine()).resume(queue, Command.system());
    }

    private boolean cancellable() {
        RunPolicy<S, E> policy = machine.runPolicy();
        return policy != null && policy.cancel() != null && !live.isEmpty();
    }

    /** Cancels the task enqueued {@code index}-th (modulo the number enqueued) as a person would; returns what the runtime did. */
    public CancelResult<S> cancel(int index) {
        long id = tasks.get(Math.floorMod(index, tasks.size()));
        return live.get(0).runtime().cancel(machine, id, Command.user("simulation").reason("cancelled by the simulation"));
    }

    /**
     * Lets everything finish: starts a runtime if none is live, resumes the queue, then runs the
     * waiting work and moves the clock from timer to timer, checking after each step, until every
     * task rests. Asserts that every task rests and that no lease is held.
     *
     * @throws AssertionError when a task does not come to rest within the settle steps, or an invariant breaks
     */
    public void settle() {
        if (live.isEmpty()) start(null);
        resume();
        for (int step = 0; step < settleSteps; step++) {
            runAll();
            check();
            if (settled()) return;
            Instant next = clock.nextTimer();
            if (next == null || next.isAfter(clock.now().plus(poll))) clock.advance(poll);
            else clock.advanceTo(next);
        }
        List<String> restless = new ArrayList<>();
        for (long id : tasks) {
            TaskRecord t = task(id);
            if (!resting(t)) restless.add(t + " after " + store.history(id));
        }
        throw new AssertionError("tasks did not come to rest in " + resting + " within " + settleSteps + " steps: " + restless);
    }

    private boolean resting(TaskRecord t) {
        S s = machine.state(t.state());
        return s != null && resting.contains(s) && t.lease() == null;
    }

    private boolean settled() {
        for (long id : tasks) if (!resting(task(id))) return false;
        return true;
    }

    // --- the worker ---------------------------------------------------------------------------------

    private WorkResult work(String owner, WorkContext<S> ctx) throws Exception {
        workerCalls++;
        long id = ctx.task().id();
        TaskRecord stored = store.find(id).orElse(null);
        Lease held = stored == null ? null : stored.lease();
        // A claim and the worker's start are two moments: between them the lease may expire and the
        // task move on (recovered, cancelled, claimed elsewhere). Such a worker runs on a stale claim
        // and its writes are fenced; what must never happen is a worker whose claim the store, at the
        // claim's own version, does not hold.
        boolean movedOn = stored != null && stored.version() > ctx.task().version();
        if (!running.contains(ctx.task().state())
                || (!movedOn && (held == null || !held.owner().equals(owner) || held.fencingToken() != ctx.fencingToken()))) {
            violations.add("the worker of runtime " + owner + " was called for task " + id + " in " + ctx.task().state()
                    + " with fencing token " + ctx.fencingToken() + ", but the store holds " + stored);
        }
        return worker.work(ctx);
    }

    // --- invariants ---------------------------------------------------------------------------------

    /**
     * Asserts the invariants (see the class documentation); every action of a chain ends with it.
     *
     * @throws AssertionError naming the first broken invariant
     */
    public void check() {
        require(violations.isEmpty(), "%s", violations.isEmpty() ? "" : violations.get(0));
        Instant now = clock.now();
        Map<String, Live> byOwner = new HashMap<>();
        for (Live l : live) byOwner.put(l.owner(), l);
        int leased = 0;
        for (long id : tasks) {
            TaskRecord t = task(id);
            checkHistory(t, store.history(id));
            S state = machine.state(t.state());
            require(state != null, "task %s is in %s, no state of %s", id, t.state(), machine.name());
            Lease l = t.lease();
            require(running.contains(state) == (l != null), "task %s is in %s with lease %s (running states: %s)", id, state, l, running);
            if (l == null) continue;
            if (t.queue().equals(queue)) leased++;
            Live holder = byOwner.get(l.owner());
            if (holder != null) {
                require(holder.runtime().runningTasks().contains(id), "task %s is leased by live runtime %s, which does not run it (%s)",
                        id, holder, holder.runtime().runningTasks());
                require(l.expiresAt().isAfter(now), "the lease of task %s held by live runtime %s expired at %s; now %s", id, holder,
                        l.expiresAt(), now);
            } else {
                require(deadOwners.contains(l.owner()), "task %s is leased by %s, no runtime of this simulation", id, l.owner());
            }
        }
        require(concurrency == 0 || leased <= concurrency, "%s tasks hold a lease on queue %s, above its limit %s", leased, queue,
                concurrency);
    }

    private void checkHistory(TaskRecord t, List<HistoryEntry> history) {
        long id = t.id();
        require(t.version() == history.size(), "task %s is at version %s with %s history entries", id, t.version(), history.size());
        String state = createdIn.get(id);
        Instant at = t.createdAt();
        for (int i = 0; i < history.size(); i++) {
            HistoryEntry e = history.get(i);
            require(e.taskId() == id && e.version() == i + 1, "entry %s of task %s is %s", i, id, e);
            require(e.from().equals(state), "entry %s of task %s leaves %s, but the task was in %s: %s", i, id, e.from(), state, history);
            require(!e.at().isBefore(at), "entry %s of task %s goes back in time: %s", i, id, e);
            S from = machine.state(e.from());
            S to = machine.state(e.to());
            E event = machine.event(e.event());
            require(from != null && to != null && event != null, "entry %s of task %s names no state or event of the machine: %s", i, id, e);
            require(!machine.isTerminal(from), "entry %s of task %s leaves the terminal state %s: %s", i, id, from, e);
            boolean row = false;
            for (Transition<S, E> tr : machine.transitions(from, event)) row |= tr.to() == to && tr.allows(e.source());
            require(row, "entry %s of task %s is no row of the table: %s", i, id, e);
            state = e.to();
            at = e.at();
        }
        require(t.state().equals(state), "task %s is in %s, but its history ends in %s", id, t.state(), state);
    }

    private static void require(boolean condition, String format, Object... args) {
        if (!condition) throw new AssertionError(String.format(Locale.ROOT, format, args));
    }

    @Override
    public String toString() {
        return "RuntimeSimulation[" + machine.name() + " on " + queue + " at " + clock.now() + "; " + tasks.size() + " tasks, "
                + workerCalls + " worker calls, live " + live + ", crashed " + deadOwners + ", " + executor.pending()
                + " runnables waiting]";
    }
}
