package dev.statekit.core.runtime;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.RunPolicy;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.ops.CancelResult;
import dev.statekit.core.ops.TaskOperations;
import dev.statekit.store.QueueRecord;

import dev.statekit.core.spi.Cancellable;
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
    // Heartbeats, ProcessRecords (this process's record in the store), Timers, Cancels, Lifecycle, RuntimeEvents (the last minute's counts and the
    // runtime listeners), MetricsReader, RetentionPasses (archive and deletion of finished tasks) and SchedulePasses
    // (the occurrences of recurring schedules).

    private static final Logger log = LoggerFactory.getLogger(TaskRuntime.class);

    /** The attribute counting automatic recoveries after interruptions. */
    public static final String ATTR_INTERRUPTIONS = "interruptions";
    /** The attribute holding why a task is blocked. */
    public static final String ATTR_BLOCKED_REASON = "blocked_reason";
    /** The default number of trees a retention batch takes, {@value}. */
    public static final int DEFAULT_RETENTION_BATCH = 500;
    /** The default interval of retention passes: one minute. */
    public static final Duration DEFAULT_RETENTION_INTERVAL = Duration.ofMinutes(1);
    /** How long the records of stopped and gone processes are kept by default: one day. */
    public static final Duration DEFAULT_PROCESS_RETENTION = Duration.ofDays(1);

    private final RuntimeContext ctx;
    private final @Nullable ExecutorService ownedExecutor;
    private final LeaseRecovery recovery;
    private final ProcessRecords process;
    private final boolean soleOwner;
    private final Waits waits;
    private final Preconditions preconditions;
    private final Dispatcher dispatcher;
    private final GroupResolution groups;
    private final RetentionPasses retention;
    private final SchedulePasses schedules;
    private final Cancels cancels;
    private final MetricsReader metrics;
    private final List<Cancellable> subscriptions = new ArrayList<>();
    private final Wakeups wakeups = new Wakeups();
    private volatile @Nullable AutoCloseable storeWatch;

    TaskRuntime(TaskRuntimeBuilder b) {
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
        this.process = new ProcessRecords(ctx, b.processGoneAfter != null ? b.processGoneAfter : b.leaseDuration, b.processRetention);
        this.soleOwner = b.soleOwner;
        this.waits = new Waits(ctx);
        this.preconditions = new Preconditions(ctx);
        ResultWriter writer = new ResultWriter(ctx.kernel, ctx.owner, this::wakeAt, ctx.events, ctx.store::cancelRequested, ctx::nextRandom,
                ResultWriter.holdsIn(ctx.store));
        List<Machine<?, ?>> resolved = new ArrayList<>(b.resolves);
        for (Registration<?, ?> r : ctx.registrations.all()) if (!resolved.contains(r.machine)) resolved.add(r.machine);
        this.groups = new GroupResolution(ctx, resolved);
        this.dispatcher = new Dispatcher(ctx, this::housekeeping, groups, preconditions, writer, this::finishStopIfIdle, wakeups,
                (run, cause) -> giveBack(ctx, run, cause));
        this.cancels = new Cancels(ctx);
        this.metrics = new MetricsReader(ctx);
        List<Machine<?, ?>> known = new ArrayList<>(resolved);
        for (RetentionPasses.Rule r : b.retained) known.add(r.machine());
        this.retention = new RetentionPasses(ctx, b.retained, known, b.retentionBatch, b.retentionInterval, this::finishStopIfIdle);
        this.schedules = new SchedulePasses(ctx, b.schedules, resolved);
    }

    /** Returns a builder over {@code engine}, whose store and clock the runtime uses. */
    public static TaskRuntimeBuilder builder(TransitionEngine engine) {
        return new TaskRuntimeBuilder(engine);
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
        process.register();
        for (Registration<?, ?> r : ctx.registrations.all()) {
            if (r.options.concurrency() >= 0) ctx.store.setConcurrency(r.queue, r.options.concurrency());
            if (r.options.rateLimit() != null) ctx.store.setRateLimit(r.queue, r.options.rateLimit());
        }
        recovery.healRestart(soleOwner);
        schedules.declare();
        subscriptions.add(ctx.engine.subscribe(wakeups));
        storeWatch = ctx.store.watch(() -> {           // another process changed something: maybe a group's member too
            groups.request();
            dispatcher.requestDispatch();
        });
        ctx.timers.every(ctx.heartbeat, new Heartbeats(ctx, process));      // until the stop completes: work in its grace keeps its leases
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
            giveBack(ctx, run, new Settlement.Shutdown());
        }
        finishStopIfIdle();
    }

    /**
     * Gives {@code run}'s task back for {@code cause} (a stop, an unready precondition): by the
     * registration's release (or shutdown) rows, or leaves it to lease recovery when the machine has
     * none; it leaves the running map when released.
     */
    static <S extends Enum<S>, E extends Enum<E>> void giveBack(RuntimeContext ctx, Run<S, E> run, Settlement.Cause cause) {
        Settlement.Facts facts = new Settlement.Facts(run.task.record(), ctx.command(), ctx.clock.now(), ctx::nextRandom, () -> false);
        List<Settlement.Completion<S, E>> release = Settlement.settle(cause, run.reg.policy, run.reg.backTo(run.task.state()), facts);
        if (release.isEmpty()) return;      // left to lease recovery
        Outcome<S> o = ResultWriter.apply(ctx.kernel, run.reg.machine, run.id(), release.get(0), 0);
        for (int i = 1; i < release.size() && !o.isApplied(); i++) o = ResultWriter.apply(ctx.kernel, run.reg.machine, run.id(), release.get(i), 0);
        log.debug("gave back task {} ({}): {}", run.id(), cause, o.isApplied() ? "applied" : o);
        ctx.running.remove(run.id(), run);
    }

    private void finishStopIfIdle() {
        ctx.life.finishIfIdle(ctx.running::isEmpty, () -> {
            ctx.timers.cancelAll();
            process.stopped();
            if (ownedExecutor != null) ownedExecutor.shutdown();
            log.info("runtime {} stopped", ctx.owner);
        });
    }

    // --- housekeeping and wake-ups -----------------------------------------------------------

    /**
     * Recovers expired leases and gives back tasks leased here with no run holding them, fires due waits, unblocks ready tasks, creates the due occurrences of
     * schedules, and sets the next wake-up; runs in a dispatch round.
     */
    private void housekeeping() {
        Instant now = ctx.clock.now();
        recovery.recoverExpired(now);
        if (ctx.unheldLeases.getAndSet(false)) {
            boolean all = false;
            try {
                all = recovery.recoverUnheld(dispatcher::withClaimTurn);
            } finally {
                if (!all) ctx.unheldLeases.set(true);     // the store is still away: the next housekeeping looks again
            }
        }
        waits.fireDue(now);
        preconditions.unblockReady();
        groups.run();
        Instant scheduled = schedules.run(now);
        Instant due = waits.nextDue(ctx.clock.now());
        if (scheduled != null && (due == null || scheduled.isBefore(due))) due = scheduled;
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
}
