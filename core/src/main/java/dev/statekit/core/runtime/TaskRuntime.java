package dev.statekit.core.runtime;

import dev.statekit.core.*;
import dev.statekit.core.ops.CancelResult;
import dev.statekit.core.ops.TaskOperations;
import dev.statekit.store.QueueRecord;

import dev.statekit.core.spi.Cancellable;
import dev.statekit.core.spi.ErrorClassifier;
import dev.statekit.core.spi.RuntimeEvent;
import dev.statekit.core.spi.RuntimeListener;
import dev.statekit.core.spi.TransitionListener;
import dev.statekit.core.spi.WorkContext;
import dev.statekit.core.spi.Worker;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.TaskRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the work behind the states: claims runnable tasks from named queues under leases, runs
 * their {@link Worker}s on an executor, renews the leases while they run, applies the results
 * through the {@link TransitionEngine}, retries with capped exponential backoff, enforces queue
 * concurrency limits (in the store, so across processes), honours pause, stop-after-current and
 * cancellation, and recovers expired leases by each machine's {@link RunPolicy}.
 *
 * <p>Work starts without polling delay in one process: creating a task, finishing one and
 * resuming a queue wake the runtime at once. Changes made by other processes are seen at the
 * latest after the poll interval. Everything time-dependent goes through the engine's
 * {@link dev.statekit.core.spi.Clock}, so with a {@link dev.statekit.core.spi.ManualClock} and a
 * {@link dev.statekit.core.spi.ManualExecutor} the runtime is fully deterministic.
 *
 * <p>Nothing a runtime starts outlives it: once stopped (or halted) it has no timer scheduled and
 * its own threads (when it made its executor) end; they are daemon threads in any case.
 *
 * <p>Thread-safe. Build with {@link #builder(TransitionEngine)}, then {@link #start()}; stop with
 * {@link #stop(Duration)} (graceful) or {@link #close()}.
 */
public final class TaskRuntime implements AutoCloseable {
    // A façade: the work is done by package-private parts with one duty each, sharing one
    // RuntimeContext: Dispatcher (dispatch rounds, slots, claims; its header says which thread
    // touches what), SlotLoop, Settlement, ResultWriter, LeaseRecovery, Waits, Preconditions,
    // Heartbeats, Timers, Cancels, Lifecycle, RuntimeEvents (the last minute's counts and the
    // runtime listeners), MetricsReader and RetentionPasses (archive and deletion of finished tasks).

    private static final Logger log = LoggerFactory.getLogger(TaskRuntime.class);

    /** The attribute counting automatic recoveries after interruptions. */
    public static final String ATTR_INTERRUPTIONS = "interruptions";
    /** The attribute holding why a task is blocked. */
    public static final String ATTR_BLOCKED_REASON = "blocked_reason";
    /** The default number of trees a retention batch takes, {@value}. */
    public static final int DEFAULT_RETENTION_BATCH = 500;
    /** The default interval of retention passes: one minute. */
    public static final Duration DEFAULT_RETENTION_INTERVAL = Duration.ofMinutes(1);

    private final RuntimeContext ctx;
    private final @Nullable ExecutorService ownedExecutor;
    private final LeaseRecovery recovery;
    private final Waits waits;
    private final Preconditions preconditions;
    private final Dispatcher dispatcher;
    private final GroupResolution groups;
    private final RetentionPasses retention;
    private final Cancels cancels;
    private final MetricsReader metrics;
    private final List<Cancellable> subscriptions = new ArrayList<>();
    private final Wakeups wakeups = new Wakeups();
    private volatile @Nullable AutoCloseable storeWatch;

    private TaskRuntime(Builder b) {
        Executor executor = b.executor;
        if (executor == null) {
            AtomicInteger n = new AtomicInteger();
            String owner = b.owner;
            // a thread per worker slot, one for dispatch rounds, and one for retention passes when there are any
            ExecutorService pool = Executors.newFixedThreadPool(b.workers + 1 + (b.retained.isEmpty() ? 0 : 1), r -> {
                Thread t = new Thread(r, "statekit-" + owner + "-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
            executor = pool;
            this.ownedExecutor = pool;
        } else {
            this.ownedExecutor = null;
        }
        this.ctx = new RuntimeContext(b.engine, b.owner, executor, ownedExecutor != null, b.workers, b.batchSize, b.leaseDuration,
                b.heartbeat != null ? b.heartbeat : b.leaseDuration.dividedBy(3), b.pollInterval, b.cancelGrace, b.forceCancel,
                b.classifier, new Registrations(b.registrations), b.seed, b.listeners);
        this.recovery = new LeaseRecovery(ctx);
        this.waits = new Waits(ctx);
        this.preconditions = new Preconditions(ctx);
        ResultWriter writer = new ResultWriter(ctx.kernel, ctx.owner, this::wakeAt, ctx.events, ctx.store::cancelRequested, ctx::nextRandom);
        List<Machine<?, ?>> resolved = new ArrayList<>(b.resolves);
        for (Registration<?, ?> r : ctx.registrations.all()) if (!resolved.contains(r.machine)) resolved.add(r.machine);
        this.groups = new GroupResolution(ctx, resolved);
        this.dispatcher = new Dispatcher(ctx, this::housekeeping, groups, preconditions, writer, this::finishStopIfIdle, wakeups);
        this.cancels = new Cancels(ctx);
        this.metrics = new MetricsReader(ctx);
        List<Machine<?, ?>> known = new ArrayList<>(resolved);
        for (RetentionPasses.Rule r : b.retained) known.add(r.machine());
        this.retention = new RetentionPasses(ctx, b.retained, known, b.retentionBatch, b.retentionInterval, this::finishStopIfIdle);
    }

    /** Returns a builder over {@code engine}, whose store and clock the runtime uses. */
    public static Builder builder(TransitionEngine engine) {
        return new Builder(engine);
    }

    /** Returns the lease owner name of this runtime. */
    public String owner() {
        return ctx.owner;
    }

    /** Returns the ids of the tasks this runtime's workers hold now. */
    public Set<Long> runningTasks() {
        return Set.copyOf(ctx.running.keySet());
    }

    /** Returns how many results this runtime applied (or discarded) since it started. */
    public long completedCount() {
        return ctx.completed.get();
    }

    /**
     * Reads a snapshot per machine and queue: how many tasks are in each state, how many are
     * running, whether the queue is paused and its concurrency limit, how long the oldest runnable
     * task has waited, and what this runtime did over the last minute (started, succeeded, failed,
     * retried, timed out, recovered).
     *
     * <p>The state counts, running tasks and queue records are the whole store's, every process's
     * tasks; the last minute's counts are this runtime's own work, in this process, on the engine's
     * clock (deterministic under a {@link dev.statekit.core.spi.ManualClock}). Each call reads the
     * store: one {@link dev.statekit.store.Store#stateCounts} (a pass over the tasks, see its cost)
     * and one queue record per queue. Meant for a dashboard or a metrics scrape every few seconds.
     * Works whether the runtime runs or not.
     */
    public RuntimeMetrics metrics() {
        return metrics.read();
    }

    // --- lifecycle --------------------------------------------------------------------------

    /**
     * Starts the runtime: writes the configured queue limits, heals tasks whose lease this owner
     * held before a restart (by each machine's recovery policy), and begins claiming.
     *
     * @throws IllegalStateException if already started
     */
    public synchronized void start() {
        ctx.life.start(ctx.owner);
        for (Registration<?, ?> r : ctx.registrations.all()) {
            if (r.options.concurrency() >= 0) ctx.store.setConcurrency(r.queue, r.options.concurrency());
        }
        recovery.healRestart();
        subscriptions.add(ctx.engine.subscribe(wakeups));
        storeWatch = ctx.store.watch(() -> {           // another process changed something: maybe a group's member too
            groups.request();
            dispatcher.requestDispatch();
        });
        ctx.timers.every(ctx.heartbeat, new Heartbeats(ctx));      // until the stop completes: work in its grace keeps its leases
        subscriptions.add(ctx.timers.every(ctx.pollInterval, dispatcher::requestHousekeeping));
        if (retention.any()) subscriptions.add(retention.start());
        log.info("runtime {} started: {} worker slots, lease {}, {} queue registrations", ctx.owner, ctx.slots, ctx.leaseDuration,
                ctx.registrations.size());
        dispatcher.requestHousekeeping();
    }

    /**
     * Stops gracefully: nothing new starts; running work may finish until {@code grace} has
     * passed on the clock (its leases are renewed meanwhile), then it is asked to stop and its
     * tasks are released by the release event (or left to lease recovery when the machine has
     * none). Nothing is lost.
     *
     * @return a future completed when no work of this runtime runs any more
     */
    public CompletableFuture<Void> stop(Duration grace) {
        Objects.requireNonNull(grace, "grace");
        Lifecycle.Phase before = ctx.life.beginStop();
        if (before != Lifecycle.Phase.RUNNING) return ctx.life.stopped();
        stopListening();
        ctx.timers.once(ctx.clock.now().plus(grace), this::releaseRemaining);
        finishStopIfIdle();
        return ctx.life.stopped();
    }

    /** Stops gracefully with a grace of 30 seconds and waits for it; see {@link #stop(Duration)}. */
    @Override
    public void close() {
        try {
            stop(Duration.ofSeconds(30)).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            log.warn("runtime {} did not stop cleanly", ctx.owner, e.getCause());
        } finally {
            ctx.timers.cancelAll();
            if (ownedExecutor != null) ownedExecutor.shutdownNow();
        }
    }

    /**
     * Stops at once as a crash would: releases nothing, commits nothing more. Tasks it held keep
     * their leases until they expire and are recovered (or until a runtime with the same owner
     * starts). Meant for tests and simulations.
     */
    public void halt() {
        ctx.life.halt();
        stopListening();
        ctx.timers.cancelAll();
        for (Run<?, ?> run : ctx.running.values()) run.signal(Run.StopReason.SHUTDOWN);
        ctx.running.clear();
        if (ownedExecutor != null) ownedExecutor.shutdownNow();
    }

    private void stopListening() {
        synchronized (subscriptions) {
            for (Cancellable c : subscriptions) c.cancel();
            subscriptions.clear();
        }
        AutoCloseable w = storeWatch;
        if (w != null) {
            try {
                w.close();
            } catch (Exception e) {
                log.debug("runtime {}: closing the store watch failed", ctx.owner, e);
            }
        }
    }

    private void releaseRemaining() {
        for (Run<?, ?> run : ctx.running.values()) {
            run.signal(Run.StopReason.SHUTDOWN);
            releaseForShutdown(run);
        }
        finishStopIfIdle();
    }

    private <S extends Enum<S>, E extends Enum<E>> void releaseForShutdown(Run<S, E> run) {
        Settlement.Facts facts = new Settlement.Facts(run.task.record(), ctx.command(), ctx.clock.now(), ctx::nextRandom, () -> false);
        List<Settlement.Completion<S, E>> release = Settlement.settle(new Settlement.Shutdown(), run.reg.policy,
                run.reg.backTo(run.task.state()), facts);
        if (release.isEmpty()) return;      // left to lease recovery
        Outcome<S> o = ResultWriter.apply(ctx.kernel, run.reg.machine, run.id(), release.get(0), 0);
        for (int i = 1; i < release.size() && !o.isApplied(); i++) o = ResultWriter.apply(ctx.kernel, run.reg.machine, run.id(), release.get(i), 0);
        log.debug("released task {} at shutdown: {}", run.id(), o.isApplied() ? "applied" : o);
        ctx.running.remove(run.id(), run);
    }

    private void finishStopIfIdle() {
        ctx.life.finishIfIdle(ctx.running::isEmpty, () -> {
            ctx.timers.cancelAll();
            if (ownedExecutor != null) ownedExecutor.shutdown();
            log.info("runtime {} stopped", ctx.owner);
        });
    }

    // --- housekeeping and wake-ups -----------------------------------------------------------

    /** Recovers expired leases, fires due waits, unblocks ready tasks, and sets the next wake-up; runs in a dispatch round. */
    private void housekeeping() {
        Instant now = ctx.clock.now();
        recovery.recoverExpired(now);
        waits.fireDue(now);
        preconditions.unblockReady();
        groups.run();
        Instant due = waits.nextDue(ctx.clock.now());
        if (due != null && due.isBefore(ctx.clock.now().plus(ctx.pollInterval))) wakeAt(due);
    }

    private void wakeAt(Instant at) {
        ctx.timers.wakeAt(at, dispatcher::requestHousekeeping);
    }

    /** Wakes the runtime when work may have become runnable in this process. */
    private final class Wakeups implements TransitionListener {
        @Override
        public void onTransition(String machine, TaskRecord task, @Nullable HistoryEntry entry) {
            if (entry != null && ctx.events.listening) ctx.events.transitioned(machine, task, entry);     // a stage entered
            if (groups.concerns(machine, task)) {
                groups.request();
                dispatcher.requestDispatch();
            } else if (ctx.registrations.claimable(machine, task)) {
                dispatcher.requestDispatch();
            }
        }

        @Override
        public void onCreated(String machine, TaskRecord task) {
            onTransition(machine, task, null);
        }

        @Override
        public void onQueueChanged(QueueRecord queue, @Nullable String actor) {
            if (!queue.paused()) dispatcher.requestDispatch();      // resumed, or its limit changed: maybe room now
        }
    }

    // --- cancellation -------------------------------------------------------------------------

    /**
     * Cancels task {@code taskId} with the machine's cancel event, as {@link TaskOperations#cancel}
     * does, and, for a task this runtime runs, at once: its worker sees
     * {@link WorkContext#cancelled()}; when it returns, the cancel event is applied; if it has not
     * returned after the grace period, the task is cancelled anyway and the worker is fenced (its
     * result is discarded). A task another process runs is stopped by that process at its next
     * heartbeat. A machine that does not allow cancelling a started task refuses. Queue controls,
     * retries and a task's place in its queue are {@link TaskOperations}'.
     *
     * @throws IllegalArgumentException if the machine declares no cancel event
     */
    public <S extends Enum<S>, E extends Enum<E>> CancelResult<S> cancel(Machine<S, E> machine, long taskId, Command command) {
        return cancels.cancel(machine, taskId, command);
    }

    /** Builds a {@link TaskRuntime}. Not thread-safe. */
    public static final class Builder {
        private final TransitionEngine engine;
        private String owner = "runtime-" + Long.toHexString(Double.doubleToLongBits(Math.random())).substring(0, 8);
        private @Nullable Executor executor;
        private int workers = Math.max(2, java.lang.Runtime.getRuntime().availableProcessors());
        private int batchSize;      // 0: adaptive
        private Duration leaseDuration = Duration.ofSeconds(30);
        private @Nullable Duration heartbeat;
        private Duration pollInterval = Duration.ofSeconds(1);
        private Duration cancelGrace = Duration.ofSeconds(30);
        private boolean forceCancel = true;
        private ErrorClassifier classifier = ErrorClassifier.defaults();
        private long seed = System.identityHashCode(this) * 0x9E3779B97F4A7C15L;
        private final List<Registration<?, ?>> registrations = new ArrayList<>();
        private final List<Machine<?, ?>> resolves = new ArrayList<>();
        private final List<RuntimeListener> listeners = new ArrayList<>();
        private final List<RetentionPasses.Rule> retained = new ArrayList<>();
        private int retentionBatch = DEFAULT_RETENTION_BATCH;
        private Duration retentionInterval = DEFAULT_RETENTION_INTERVAL;

        private Builder(TransitionEngine engine) {
            this.engine = Objects.requireNonNull(engine, "engine");
        }

        /**
         * Sets the lease owner name (default: random). A runtime restarted under the same owner
         * recovers the tasks its predecessor held at once instead of waiting for their leases.
         */
        public Builder owner(String name) {
            Objects.requireNonNull(name, "owner");
            if (name.isBlank()) throw new IllegalArgumentException("owner must not be blank");
            this.owner = name;
            return this;
        }

        /**
         * Sets the executor that runs workers and dispatch rounds (default: a fixed pool of
         * {@code workers + 1} platform daemon threads, one more when a machine is {@link #retain retained};
         * pass a virtual-thread executor to use virtual threads, or a
         * {@link dev.statekit.core.spi.ManualExecutor} in tests).
         */
        public Builder executor(Executor value) {
            this.executor = Objects.requireNonNull(value, "executor");
            return this;
        }

        /** Sets how many tasks this runtime runs at once (default: the number of cores, at least 2). */
        public Builder workers(int count) {
            if (count < 1) throw new IllegalArgumentException("workers must be >= 1, was " + count);
            this.workers = count;
            return this;
        }

        /**
         * Sets how many tasks a worker slot claims at once, runs one after the other, and whose
         * results it writes together. Larger batches cut store round trips for short tasks (a JDBC
         * store writes a batch's results in one transaction) at the price of holding the batch's
         * leases while its first tasks run; queues with a concurrency limit still never exceed it.
         *
         * <p>Default: adaptive. A slot claims one task, doubles its claim (up to 256) after a full
         * batch that ran within 1 ms on the clock, and halves it after one that took longer: short
         * tasks run in batches, long ones one at a time. Set a size to claim exactly that many
         * ({@code batchSize(1)}: one task at a time, always).
         */
        public Builder batchSize(int size) {
            if (size < 1 || size > 1000) throw new IllegalArgumentException("batch size must be within 1..1000, was " + size);
            this.batchSize = size;
            return this;
        }

        /** Sets the lease duration (default 30 s); leases are renewed every third of it unless set otherwise. */
        public Builder leaseDuration(Duration value) {
            Objects.requireNonNull(value, "leaseDuration");
            if (value.isNegative() || value.isZero()) throw new IllegalArgumentException("lease must be positive, was " + value);
            this.leaseDuration = value;
            return this;
        }

        /** Sets the heartbeat (lease renewal) interval; must be shorter than the lease. */
        public Builder heartbeat(Duration value) {
            Objects.requireNonNull(value, "heartbeat");
            if (value.isNegative() || value.isZero()) throw new IllegalArgumentException("heartbeat must be positive, was " + value);
            this.heartbeat = value;
            return this;
        }

        /** Sets how often the store is polled for work made runnable elsewhere and for expired leases (default 1 s). */
        public Builder pollInterval(Duration value) {
            Objects.requireNonNull(value, "pollInterval");
            if (value.isNegative() || value.isZero()) throw new IllegalArgumentException("poll interval must be positive, was " + value);
            this.pollInterval = value;
            return this;
        }

        /** Sets how long a cooperative cancellation may take before the policy decides (default 30 s). */
        public Builder cancelGrace(Duration value) {
            this.cancelGrace = Objects.requireNonNull(value, "cancelGrace");
            return this;
        }

        /**
         * Sets what happens to a running task whose worker has not stopped within the cancel grace
         * period: {@code true} (the default) cancels it anyway and fences the worker (for work that
         * can be abandoned safely); {@code false} lets it run to its end, where the cancellation is
         * applied (for work that must not be cut, such as a compression that would leave a corrupt file).
         */
        public Builder forceCancelAfterGrace(boolean force) {
            this.forceCancel = force;
            return this;
        }

        /** Sets the classifier of worker exceptions (default {@link ErrorClassifier#defaults()}). */
        public Builder classifier(ErrorClassifier value) {
            this.classifier = Objects.requireNonNull(value, "classifier");
            return this;
        }

        /** Sets the seed of the retry jitter, for repeatable simulations. */
        public Builder seed(long value) {
            this.seed = value;
            return this;
        }

        /**
         * Adds a listener told of each claim, result, recovery, stage entered and group resolved of
         * this runtime, with durations, after the change was written ({@link RuntimeEvent}); several
         * may be added, and are called in the order added. Default: none, and then the runtime
         * makes no event at all (the last minute's counts of {@link TaskRuntime#metrics()} are kept anyway).
         */
        public Builder listener(RuntimeListener value) {
            listeners.add(Objects.requireNonNull(value, "listener"));
            return this;
        }

        /**
         * Has the runtime resolve the groups owned by tasks of {@code machines} (parents whose
         * children end, dependents whose dependencies end) although it runs no worker for them.
         * Machines registered with a worker are resolved without this.
         */
        public Builder resolves(Machine<?, ?>... machines) {
            for (Machine<?, ?> m : machines) resolves.add(Objects.requireNonNull(m, "machine"));
            return this;
        }

        /** Serves {@code machine}'s tasks on the queue named after the machine with {@code worker}. */
        public <S extends Enum<S>, E extends Enum<E>> Builder register(Machine<S, E> machine, Worker<S> worker) {
            return register(machine, machine.name(), worker, QueueOptions.defaults());
        }

        /**
         * Serves {@code machine}'s tasks on {@code queue} with {@code worker}.
         *
         * @throws IllegalArgumentException if the machine declares no run policy, or a precondition is given for a machine without a blocked state
         */
        public <S extends Enum<S>, E extends Enum<E>> Builder register(Machine<S, E> machine, String queue, Worker<S> worker,
                                                                      QueueOptions options) {
            Objects.requireNonNull(machine, "machine");
            Objects.requireNonNull(queue, "queue");
            Objects.requireNonNull(worker, "worker");
            Objects.requireNonNull(options, "options");
            return add(new Registration<>(machine, queue, worker, options));
        }

        /**
         * Serves one stage of {@code machine} with {@code worker}, on the stage's queue (its
         * {@link RunPolicy#queue()}, else the machine's name).
         *
         * @throws IllegalArgumentException if the machine declares no such stage
         */
        public <S extends Enum<S>, E extends Enum<E>> Builder registerStage(Machine<S, E> machine, String stage, Worker<S> worker) {
            return registerStage(machine, stage, worker, QueueOptions.defaults());
        }

        /** Serves one stage of {@code machine} with {@code worker} and queue options, on the stage's queue. */
        public <S extends Enum<S>, E extends Enum<E>> Builder registerStage(Machine<S, E> machine, String stage, Worker<S> worker,
                                                                           QueueOptions options) {
            Objects.requireNonNull(machine, "machine");
            RunPolicy<S, E> policy = machine.stages().get(Objects.requireNonNull(stage, "stage"));
            if (policy == null) {
                throw new IllegalArgumentException("machine " + machine.name() + " declares no stage " + stage + "; its stages: " + machine.stages().keySet());
            }
            String queue = policy.queue() != null ? policy.queue() : machine.name();
            return add(new Registration<>(machine, policy, queue, Objects.requireNonNull(worker, "worker"), Objects.requireNonNull(options, "options")));
        }

        private Builder add(Registration<?, ?> registration) {
            for (Registration<?, ?> r : registrations) {
                if (r.machine.name().equals(registration.machine.name()) && r.queue.equals(registration.queue)) {
                    throw new IllegalArgumentException("machine " + r.machine.name() + " is already registered on queue " + r.queue);
                }
            }
            registrations.add(registration);
            return this;
        }

        /**
         * Has the runtime take {@code machine}'s finished tasks out of the store's hot table as
         * {@code retention} says: passes every {@link #retentionInterval} on the clock archive or
         * delete, in batches of {@link #retentionBatch} trees per transaction, the tasks that have
         * been in a terminal state for the retention's time, and delete archived ones whose time in the
         * archive is up. A task with a parent goes with its root (under the root's machine's
         * retention) once the root and all its descendants are finished; a descendant of a machine
         * this runtime does not know (registered, resolved or retained, or the children's machine of
         * one of those) counts as unfinished. The machine need not be registered. Several runtimes,
         * in one process or many, may retain the same machine: the store keeps their passes apart.
         *
         * @throws IllegalArgumentException if the machine has no terminal state, or already has a retention here
         */
        public Builder retain(Machine<?, ?> machine, Retention retention) {
            Objects.requireNonNull(machine, "machine");
            Objects.requireNonNull(retention, "retention");
            if (machine.terminals().isEmpty()) {
                throw new IllegalArgumentException("machine " + machine.name() + " has no terminal state: none of its tasks ever finishes");
            }
            for (RetentionPasses.Rule r : retained) {
                if (r.machine().name().equals(machine.name())) {
                    throw new IllegalArgumentException("machine " + machine.name() + " already has a retention: " + r.retention());
                }
            }
            retained.add(new RetentionPasses.Rule(machine, retention));
            return this;
        }

        /**
         * Sets how many trees (a finished task with its descendants) one retention batch, one store
         * transaction, takes at most (default {@value TaskRuntime#DEFAULT_RETENTION_BATCH}); a pass
         * runs batch after batch while they come back full.
         *
         * @throws IllegalArgumentException if not within 1..10,000
         */
        public Builder retentionBatch(int trees) {
            if (trees < 1 || trees > 10_000) throw new IllegalArgumentException("retention batch must be within 1..10000, was " + trees);
            this.retentionBatch = trees;
            return this;
        }

        /**
         * Sets how often retention passes run, on the clock (default 1 minute); the first one runs
         * one interval after {@link TaskRuntime#start()}.
         *
         * @throws IllegalArgumentException if not positive
         */
        public Builder retentionInterval(Duration value) {
            Objects.requireNonNull(value, "retentionInterval");
            if (value.isNegative() || value.isZero()) throw new IllegalArgumentException("retention interval must be positive, was " + value);
            this.retentionInterval = value;
            return this;
        }

        /**
         * Builds the runtime (not yet started).
         *
         * @throws IllegalStateException if nothing is registered or the heartbeat is not shorter than the lease
         */
        public TaskRuntime build() {
            if (registrations.isEmpty()) throw new IllegalStateException("register at least one machine and worker");
            if (heartbeat != null && heartbeat.compareTo(leaseDuration) >= 0) {
                throw new IllegalStateException("heartbeat " + heartbeat + " must be shorter than the lease " + leaseDuration);
            }
            return new TaskRuntime(this);
        }
    }
}
