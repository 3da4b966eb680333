package dev.statekit.core.runtime;

import dev.statekit.core.ops.CancelResult;
import dev.statekit.core.ops.TaskOperations;
import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.RetryPolicy;
import dev.statekit.core.RunPolicy;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.Transition;
import dev.statekit.core.TransitionEngine;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;

import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.WorkContext;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.TaskRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * A model of the runtime for {@link RuntimeProperties}: one store (seen through
 * {@link RuntimeModelStore}), one engine, a manual clock, a {@link RuntimeModelExecutor}, one or
 * two runtimes serving one queue, and workers whose result for each claim is scripted per task.
 * Actions drive it; {@link #check()} asserts the invariants after each of them, and
 * {@link #settle()} asserts that every task reaches an end once work is allowed to finish.
 */
final class RuntimeModel {

    enum State { QUEUED, RUNNING, RETRYING, INTERRUPTED, BLOCKED, DONE, FAILED, CANCELED }

    enum Event { START, COMPLETE, RETRYABLE, FAIL, BACKOFF_OVER, RELEASE, INTERRUPT, RECOVER, GIVE_UP, CANCEL, RETRY, BLOCK, UNBLOCK }

    /** How the machine recovers an expired lease. */
    enum Recovery { REQUEUE, FAIL, INTERRUPT_AUTO, INTERRUPT_MANUAL }

    /** What a worker does with one claim. */
    enum Kind { SUCCEED, RETRY, FATAL, SNOOZE, HANG }

    /** One scripted worker behaviour; {@code snooze} is used by {@link Kind#SNOOZE} only. */
    record Step(Kind kind, Duration snooze) {
        static final Step SUCCEED = new Step(Kind.SUCCEED, Duration.ZERO);

        @Override
        public String toString() {
            return kind == Kind.SNOOZE ? "SNOOZE " + snooze.toMillis() + "ms" : kind.name();
        }
    }

    /** The fixed parameters of one model; with {@code adaptive} the runtimes claim adaptive batches, else one task at a time. */
    record Config(int limit, int starvationLimit, int slots, Recovery recovery, boolean twoRuntimes, boolean adaptive) {
        /** A model whose runtimes claim one task at a time. */
        Config(int limit, int starvationLimit, int slots, Recovery recovery, boolean twoRuntimes) {
            this(limit, starvationLimit, slots, recovery, twoRuntimes, false);
        }

        /** The most tasks one slot holds at once. */
        int batch() {
            return adaptive ? RuntimeContext.ADAPTIVE_MAX : 1;
        }

        @Override
        public String toString() {
            return "limit " + limit + ", K " + starvationLimit + ", " + slots + " slots, recovery " + recovery
                    + ", " + (twoRuntimes ? "two runtimes" : "one runtime") + ", " + (adaptive ? "adaptive batches" : "batches of 1");
        }
    }

    /** How a crashed runtime is replaced. */
    enum Replacement { SAME_OWNER, NEW_OWNER, NONE }


    static final String QUEUE = "q";
    static final int HIGH = 2;
    static final int NORMAL = 1;
    static final int LOW = 0;
    static final Duration LEASE = Duration.ofSeconds(10);
    static final Duration POLL = Duration.ofSeconds(1);
    static final Duration GRACE = Duration.ofSeconds(15);
    static final RetryPolicy RETRY = RetryPolicy.exponential(2, Duration.ofSeconds(2), Duration.ofSeconds(8)).withJitter(0.25);
    private static final Map<Recovery, Machine<State, Event>> MACHINES = new EnumMap<>(Recovery.class);

    static {
        for (Recovery r : Recovery.values()) MACHINES.put(r, machine(r));
    }

    static Machine<State, Event> machine(Recovery recovery) {
        return Machine.builder("model-job", State.class, Event.class)
                .initial(State.QUEUED)
                .terminal(State.DONE, State.CANCELED)
                .transition(State.QUEUED, Event.START, State.RUNNING, SYSTEM)
                .transition(State.RUNNING, Event.COMPLETE, State.DONE, SYSTEM)
                .transition(State.RUNNING, Event.RETRYABLE, State.RETRYING, SYSTEM)
                .transition(State.RUNNING, Event.FAIL, State.FAILED, SYSTEM)
                .transition(State.RETRYING, Event.BACKOFF_OVER, State.QUEUED, SYSTEM)
                .transition(State.RUNNING, Event.RELEASE, State.QUEUED, SYSTEM)
                .transition(State.RUNNING, Event.INTERRUPT, State.INTERRUPTED, SYSTEM)
                .transition(State.INTERRUPTED, Event.RECOVER, State.QUEUED, SYSTEM)
                .transition(State.INTERRUPTED, Event.GIVE_UP, State.FAILED, SYSTEM)
                .transition(State.QUEUED, Event.CANCEL, State.CANCELED, USER)
                .transition(State.RUNNING, Event.CANCEL, State.CANCELED, USER, SYSTEM)
                .transition(State.RETRYING, Event.CANCEL, State.CANCELED, USER)
                .transition(State.BLOCKED, Event.CANCEL, State.CANCELED, USER)
                .transition(State.FAILED, Event.RETRY, State.QUEUED, USER)
                .transition(State.QUEUED, Event.BLOCK, State.BLOCKED, SYSTEM)
                .transition(State.BLOCKED, Event.UNBLOCK, State.QUEUED, SYSTEM)
                .run(r -> {
                    r.claim(State.QUEUED, Event.START).success(Event.COMPLETE).retryable(Event.RETRYABLE).fatal(Event.FAIL)
                            .release(Event.RELEASE).afterWait(State.RETRYING, Event.BACKOFF_OVER).cancel(Event.CANCEL)
                            .blocked(State.BLOCKED, Event.BLOCK, Event.UNBLOCK).retry(RETRY);
                    switch (recovery) {
                        case FAIL -> r.recoverByFailing();
                        case INTERRUPT_AUTO -> r.recoverByInterrupt(Event.INTERRUPT, Event.RECOVER, Event.GIVE_UP, true);
                        case INTERRUPT_MANUAL -> r.recoverByInterrupt(Event.INTERRUPT, Event.RECOVER, Event.GIVE_UP, false);
                        case REQUEUE -> r.recoverByRequeue();
                    }
                })
                .build();
    }

    /** A runtime of the model: its index (which tags its executor work) and owner name. */
    record Live(int index, String owner, TaskRuntime runtime) {
        @Override
        public String toString() {
            return owner + "#" + index;
        }
    }

    /** One call of a worker: the task and version it was claimed at, its lease, and the scripted step. */
    record Invocation(int runtime, long task, long version, long token, int retries, Step step) {}

    final Config config;
    final Machine<State, Event> machine;
    final RuntimeModelStore store = new RuntimeModelStore();
    final ManualClock clock = new ManualClock();
    final RuntimeModelExecutor executor = new RuntimeModelExecutor();
    final TransitionEngine engine;
    final List<Live> live = new ArrayList<>();
    final Set<String> deadOwners = new TreeSet<>();
    final List<Long> tasks = new ArrayList<>();
    final Map<Long, ArrayDeque<Step>> scripts = new HashMap<>();
    final List<Invocation> invocations = new ArrayList<>();
    final Set<Long> cancelled = new HashSet<>();
    final Map<Long, Long> cancelRequestVersions = new HashMap<>();
    private final Map<Long, Integer> snoozed = new HashMap<>();
    final List<String> violations = new ArrayList<>();
    private int runtimesStarted;
    private int ownerNames;
    private boolean settling;
    int settles;

    RuntimeModel(Config config) {
        this.config = config;
        this.machine = MACHINES.get(config.recovery());
        this.engine = TransitionEngine.builder().store(store).clock(clock).build();
        start(null);
        if (config.twoRuntimes()) start(null);
    }

    // --- actions ------------------------------------------------------------------------------

    void enqueue(int priority, List<Step> script) {
        long id = engine.create(machine, TaskSpec.defaults().queue(QUEUE).priority(priority)).task().id();
        tasks.add(id);
        scripts.put(id, new ArrayDeque<>(script));
    }

    void rescript(int task, List<Step> script) {
        if (tasks.isEmpty()) return;
        scripts.put(taskAt(task), new ArrayDeque<>(script));
    }

    void runOne(int index) {
        executor.runAt(index);
    }

    void runAll() {
        executor.runAll(100_000);
    }

    void advance(Duration d) {
        clock.advance(d);
    }

    /** Starts a runtime under {@code owner}, or under a new name when null. */
    void start(@Nullable String owner) {
        String name = owner != null ? owner : "runtime-" + ++ownerNames;
        int index = runtimesStarted++;
        QueueOptions options = QueueOptions.defaults().concurrency(config.limit()).starvationLimit(config.starvationLimit());
        TaskRuntimeBuilder b = TaskRuntime.builder(engine).owner(name).executor(executor.forRuntime(index))
                .workers(config.slots()).leaseDuration(LEASE).pollInterval(POLL).cancelGrace(GRACE).seed(index)
                .register(machine, QUEUE, (WorkContext<State> ctx) -> work(index, ctx), options);
        if (!config.adaptive()) b.batchSize(1);
        TaskRuntime runtime = b.build();
        deadOwners.remove(name);
        live.add(new Live(index, name, runtime));
        runtime.start();
    }

    /** Starts a runtime under a dead owner's name ({@code reuse} picks which), or a new one. */
    void startAnother(boolean reuseDeadOwner, int reuse) {
        if (live.size() >= 2) return;
        if (reuseDeadOwner && !deadOwners.isEmpty()) {
            List<String> dead = new ArrayList<>(deadOwners);
            start(dead.get(Math.floorMod(reuse, dead.size())));
        } else {
            start(null);
        }
    }

    /** Crashes runtime {@code which}: it halts and its executor work is gone; then it is replaced as told. */
    void crash(int which, Replacement replacement) {
        if (live.isEmpty()) return;
        Live victim = live.remove(Math.floorMod(which, live.size()));
        victim.runtime().halt();
        executor.discard(victim.index());
        deadOwners.add(victim.owner());
        switch (replacement) {
            case SAME_OWNER -> start(victim.owner());
            case NEW_OWNER -> start(null);
            case NONE -> {
                if (live.isEmpty()) start(null);
            }
        }
    }

    void pause(int which) {
        if (!live.isEmpty()) TaskOperations.of(engine).pause(QUEUE, Command.system());
    }

    void resume(int which) {
        if (!live.isEmpty()) TaskOperations.of(engine).resume(QUEUE, Command.system());
    }

    void cancel(int task, int which) {
        if (tasks.isEmpty() || live.isEmpty()) return;
        long id = taskAt(task);
        TaskRecord before = store.find(id).orElseThrow();
        CancelResult<State> r = runtime(which).cancel(machine, id, Command.user("ana").reason("no longer needed"));
        CancelResult.Status expected;
        if (before.lease() != null) {
            expected = CancelResult.Status.REQUESTED;
        } else {
            State s = State.valueOf(before.state());
            expected = s == State.QUEUED || s == State.RETRYING || s == State.BLOCKED
                    ? CancelResult.Status.CANCELLED : CancelResult.Status.REFUSED;
        }
        require(r.status() == expected, "cancelling task %s in %s returned %s, not %s", id, before, r, expected);
        if (r.status() != CancelResult.Status.REFUSED) cancelled.add(id);
        if (r.status() == CancelResult.Status.REQUESTED) cancelRequestVersions.putIfAbsent(id, before.version());
    }

    void moveToFront(int task, int which) {
        if (tasks.isEmpty() || live.isEmpty()) return;
        long id = taskAt(task);
        require(TaskOperations.of(engine).moveToFront(machine, id, Command.system()).isApplied(), "task %s could not be moved to the front", id);
        TaskRecord moved = store.find(id).orElseThrow();
        for (TaskRecord t : store.all()) {
            require(t.id() == id || t.priority() != moved.priority() || t.sequence() > moved.sequence(),
                    "task %s moved to the front of priority %s, but task %s still comes first: %s", id, moved.priority(), t.id(), t);
        }
    }

    /**
     * Lets everything finish: hung workers' runtimes are replaced, the queue is resumed, workers
     * no longer hang, and time passes; every task must then reach DONE, CANCELED or FAILED.
     */
    void settle() {
        settles++;
        settling = true;
        try {
            for (Live l : new ArrayList<>(live)) {
                if (executor.hasStuck(l.index())) crash(live.indexOf(l), Replacement.NEW_OWNER);
            }
            if (live.isEmpty()) start(null);
            TaskOperations.of(engine).resume(QUEUE, Command.system());
            runAll();
            check();
            for (int second = 0; second < 600 && !settled(); second++) {
                clock.advance(POLL);
                runAll();
                check();
                checkRecovered();
            }
            for (long id : tasks) {
                TaskRecord t = store.find(id).orElseThrow();
                State s = State.valueOf(t.state());
                require(s == State.DONE || s == State.CANCELED || s == State.FAILED,
                        "task %s never reached an end: %s; history %s", id, t, store.history(id));
            }
        } finally {
            settling = false;
        }
    }

    /** A lease of a crashed runtime is recovered at the first poll after it expired, once the runtimes may run. */
    private void checkRecovered() {
        Instant now = clock.now();
        for (long id : tasks) {
            Lease lease = store.find(id).orElseThrow().lease();
            require(lease == null || !deadOwners.contains(lease.owner()) || lease.expiresAt().plus(POLL).isAfter(now),
                    "task %s still holds the lease %s of a crashed runtime at %s", id, lease, now);
        }
    }

    private boolean settled() {
        for (long id : tasks) {
            State s = State.valueOf(store.find(id).orElseThrow().state());
            if (s != State.DONE && s != State.CANCELED && s != State.FAILED) return false;
        }
        return true;
    }

    // --- the worker ---------------------------------------------------------------------------

    private WorkResult work(int runtime, WorkContext<State> ctx) {
        long id = ctx.task().id();
        long version = ctx.task().version();
        TaskRecord claim = store.claimed(id, version);
        if (claim == null || claim.lease() == null || claim.lease().fencingToken() != ctx.fencingToken()
                || ctx.task().state() != State.RUNNING) {
            violations.add("worker of runtime " + runtime + " called for task " + id + " v" + version + " with lease "
                    + ctx.lease() + ", but the checked claim was " + claim);
        }
        ArrayDeque<Step> script = scripts.get(id);
        Step step = script == null || script.isEmpty() ? Step.SUCCEED : script.poll();
        if (settling && step.kind() == Kind.HANG) step = Step.SUCCEED;
        invocations.add(new Invocation(runtime, id, version, ctx.fencingToken(), ctx.task().record().retries(), step));
        return switch (step.kind()) {
            case SUCCEED -> WorkResult.success();
            case RETRY -> WorkResult.retryable("MODEL_RETRY", "scripted retryable failure");
            case FATAL -> WorkResult.fatal("MODEL_FATAL", "scripted fatal failure");
            case SNOOZE -> WorkResult.snooze(step.snooze());
            case HANG -> RuntimeModelExecutor.hang();
        };
    }

    // --- invariants ---------------------------------------------------------------------------

    void check() {
        require(violations.isEmpty(), "a worker call broke the model (%s in all): %s", violations.size(),
                violations.isEmpty() ? null : violations.get(0));
        require(store.violations.isEmpty(), "a claim broke the contract (%s in all): %s", store.violations.size(),
                store.violations.isEmpty() ? null : store.violations.get(0));
        Instant now = clock.now();
        Map<String, Live> byOwner = new HashMap<>();
        for (Live l : live) require(byOwner.put(l.owner(), l) == null, "two live runtimes named %s", l.owner());
        checkInvocations();
        int leased = 0;
        Map<String, Integer> executing = new HashMap<>();
        for (long id : tasks) {
            TaskRecord t = store.find(id).orElseThrow();
            List<HistoryEntry> history = store.history(id);
            checkHistory(t, history);
            State state = State.valueOf(t.state());
            Lease lease = t.lease();
            require((state == State.RUNNING) == (lease != null), "task %s is %s with lease %s", id, state, lease);
            require(state != State.INTERRUPTED && state != State.BLOCKED, "task %s rests in %s: %s", id, state, history);
            if (state == State.RETRYING) require(t.notBefore() != null, "task %s waits for a retry without a time", id);
            if (state == State.CANCELED) require(cancelled.contains(id), "task %s was cancelled without a request", id);
            if (lease != null) {
                leased++;
                Live holder = byOwner.get(lease.owner());
                if (holder != null) {
                    require(holder.runtime().runningTasks().contains(id),
                            "task %s is leased by live runtime %s, which does not run it (%s)", id, holder, holder.runtime().runningTasks());
                    require(lease.expiresAt().isAfter(now), "the lease of task %s held by live runtime %s expired: %s", id, holder, lease);
                    executing.merge(holder.owner(), 1, Integer::sum);
                } else {
                    require(deadOwners.contains(lease.owner()), "task %s is leased by unknown owner %s", id, lease.owner());
                }
            }
        }
        require(leased <= config.limit(), "%s tasks hold a lease, above the limit %s", leased, config.limit());
        require(store.leased(QUEUE) == leased, "the store counts %s leases on the queue, but %s tasks hold one", store.leased(QUEUE), leased);
        int workers = 0;
        for (Live l : live) {
            int running = l.runtime().runningTasks().size();
            require(running <= config.slots() * config.batch(), "runtime %s runs %s tasks in %s slots of up to %s", l, running,
                    config.slots(), config.batch());
            workers += executing.getOrDefault(l.owner(), 0);
        }
        require(workers <= config.limit(), "%s workers execute under a lease, above the limit %s", workers, config.limit());
    }

    private void checkHistory(TaskRecord t, List<HistoryEntry> history) {
        long id = t.id();
        require(t.version() == history.size(), "task %s is at version %s with %s history entries", id, t.version(), history.size());
        String state = State.QUEUED.name();
        Instant at = t.createdAt();
        int completes = 0;
        int retryables = 0;
        int starts = 0;
        for (int i = 0; i < history.size(); i++) {
            HistoryEntry e = history.get(i);
            require(e.taskId() == id && e.version() == i + 1, "entry %s of task %s is %s", i, id, e);
            require(e.from().equals(state), "entry %s of task %s leaves %s, but the task was in %s", i, id, e.from(), state);
            require(!e.at().isBefore(at), "entry %s of task %s goes back in time: %s", i, id, e);
            if (e.event().equals(TaskOperations.MOVE_TO_FRONT)) {      // an operator's new place: the state stays
                require(e.to().equals(e.from()), "entry %s of task %s moves it to the front and changes its state: %s", i, id, e);
                at = e.at();
                continue;
            }
            State from = State.valueOf(e.from());
            State to = State.valueOf(e.to());
            Event event = Event.valueOf(e.event());
            boolean row = false;
            for (Transition<State, Event> tr : machine.transitions(from, event)) row |= tr.to() == to && tr.allows(e.source());
            require(row, "entry %s of task %s is no row of the table: %s", i, id, e);
            if (event == Event.START) {
                TaskRecord claim = store.claimed(id, e.version());
                require(claim != null && claim.lease() != null && claim.updatedAt().equals(e.at())
                                && claim.lease().owner().equals(e.actor()),
                        "START of task %s at v%s matches no checked claim: %s", id, e.version(), claim);
            }
            if (event == Event.COMPLETE) completes++;
            if (event == Event.START) starts++;
            Long requestedAt = cancelRequestVersions.get(id);
            require(event != Event.START || requestedAt == null || e.version() <= requestedAt,
                    "task %s started again after its cancellation was requested at v%s: %s", id, requestedAt, history);
            if (event == Event.RELEASE && (e.reason() == null || !e.reason().startsWith("snoozed for"))) {
                retryables = 0;          // a release other than a snooze ends the processing: the next has a fresh retry budget
            }
            if (event == Event.RETRYABLE) {
                Duration base = RETRY.baseDelay(retryables);
                Duration least = base.minusNanos((long) (base.toNanos() * RETRY.jitter()));
                HistoryEntry next = nextStart(history, i + 1);
                require(next == null || !next.at().isBefore(e.at().plus(least)),
                        "task %s started again at %s, before retry %s's backoff of at least %s after %s", id,
                        next == null ? null : next.at(), retryables, least, e.at());
                retryables++;
            }
            state = e.to();
            at = e.at();
        }
        require(t.state().equals(state), "task %s is in %s, but its history ends in %s", id, t.state(), state);
        require(completes <= 1, "task %s completed %s times: %s", id, completes, history);
        int snoozes = snoozed.getOrDefault(id, 0);
        require(t.attempts() == starts - snoozes, "task %s counts %s attempts after %s starts and %s snoozes", id, t.attempts(),
                starts, snoozes);
        require((t.state().equals(State.DONE.name())) == (completes == 1), "task %s is %s after %s completions", id, t.state(), completes);
        require(retryables == t.retries() && t.retries() <= RETRY.maxRetries(),
                "task %s counts %s retries with %s retryable failures in its history since its last release (at most %s allowed)", id,
                t.retries(), retryables, RETRY.maxRetries());
        require(t.attempts() <= RunPolicy.DEFAULT_MAX_ATTEMPTS, "task %s counts %s attempts, more than %s", id, t.attempts(),
                RunPolicy.DEFAULT_MAX_ATTEMPTS);
    }

    private static @Nullable HistoryEntry nextStart(List<HistoryEntry> history, int from) {
        for (int i = from; i < history.size(); i++) if (history.get(i).event().equals(Event.START.name())) return history.get(i);
        return null;
    }

    /** Each worker result that returned was applied as the table says, or the task was cancelled meanwhile. */
    private void checkInvocations() {
        Map<Long, Integer> committed = new HashMap<>();
        snoozed.clear();
        for (Invocation inv : invocations) {
            if (inv.step().kind() == Kind.HANG) continue;
            List<HistoryEntry> history = store.history(inv.task());
            int at = (int) inv.version();          // the entry of version + 1, after any move to the front while it ran
            while (at < history.size() && history.get(at).event().equals(TaskOperations.MOVE_TO_FRONT)) at++;
            require(history.size() > at, "the result of %s was never recorded: %s", inv, history);
            HistoryEntry e = history.get(at);
            Event expected = switch (inv.step().kind()) {
                case SUCCEED -> Event.COMPLETE;
                case RETRY -> inv.retries() < RETRY.maxRetries() ? Event.RETRYABLE : Event.FAIL;
                case FATAL -> Event.FAIL;
                case SNOOZE -> Event.RELEASE;
                case HANG -> throw new IllegalStateException();
            };
            Event got = Event.valueOf(e.event());
            require(got == expected || (got == Event.CANCEL && cancelled.contains(inv.task())),
                    "the result of %s was recorded as %s, not %s", inv, e, expected);
            if (got == Event.COMPLETE) committed.merge(inv.task(), 1, Integer::sum);
            if (got == Event.RELEASE) {
                snoozed.merge(inv.task(), 1, Integer::sum);
                HistoryEntry next = nextStart(history, at + 1);
                require(next == null || !next.at().isBefore(e.at().plus(inv.step().snooze())),
                        "task %s snoozed at %s for %s but started again at %s", inv.task(), e.at(), inv.step().snooze(),
                        next == null ? null : next.at());
            }
        }
        committed.forEach((task, n) -> require(n <= 1, "task %s committed %s successes", task, n));
    }

    // --- helpers ------------------------------------------------------------------------------

    private long taskAt(int index) {
        return tasks.get(Math.floorMod(index, tasks.size()));
    }

    private TaskRuntime runtime(int which) {
        return live.get(Math.floorMod(which, live.size())).runtime();
    }

    static void require(boolean condition, String format, Object... args) {
        if (!condition) throw new AssertionError(String.format(java.util.Locale.ROOT, format, args));
    }

    @Override
    public String toString() {
        return "RuntimeModel[" + config + "; " + tasks.size() + " tasks, " + store.claimCalls + " claims of "
                + store.claimedTasks + " tasks, " + invocations.size() + " worker calls, live " + live + ", dead " + deadOwners
                + ", " + executor.pending() + " runnables waiting, " + executor.stuck() + " stuck, " + settles + " settles]";
    }
}
