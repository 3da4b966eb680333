package dev.statekit.core;

import dev.statekit.core.spi.Cancellable;
import dev.statekit.core.spi.Clock;
import dev.statekit.core.spi.ErrorClassifier;
import dev.statekit.core.spi.Precondition;
import dev.statekit.core.spi.TransitionListener;
import dev.statekit.core.spi.WorkContext;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.Claimed;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.RenewResult;
import dev.statekit.store.Store;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
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
 * {@link Clock}, so with a {@link dev.statekit.core.spi.ManualClock} and a
 * {@link dev.statekit.core.spi.ManualExecutor} the runtime is fully deterministic.
 *
 * <p>Thread-safe. Build with {@link #builder(TransitionEngine)}, then {@link #start()}; stop with
 * {@link #stop(Duration)} (graceful) or {@link #close()}.
 */
public final class TaskRuntime implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TaskRuntime.class);
    private static final int SCAN_BATCH = 200;

    /** Why a worker was asked to stop. */
    static final String CANCELLED = "CANCELLED";
    static final String SHUTDOWN = "SHUTDOWN";
    static final String LEASE_LOST = "LEASE_LOST";

    private enum Life { NEW, RUNNING, STOPPING, STOPPED }

    private final TransitionEngine engine;
    private final Store store;
    private final Clock clock;
    private final String owner;
    private final Executor executor;
    private final @Nullable ExecutorService ownedExecutor;
    private final int slots;
    private final int batchSize;
    private final Duration leaseDuration;
    private final Duration heartbeat;
    private final Duration pollInterval;
    private final Duration cancelGrace;
    private final boolean forceCancel;
    private final ErrorClassifier classifier;
    private final List<Registration<?, ?>> registrations;
    private final Map<String, List<Registration<?, ?>>> byMachine = new LinkedHashMap<>();
    private final SplittableRandom random;

    private final ConcurrentHashMap<Long, Run<?, ?>> running = new ConcurrentHashMap<>();
    private final AtomicInteger free;
    private final AtomicBoolean dispatchPending = new AtomicBoolean();
    /** One claim of a queue at a time from this runtime. */
    private final Map<String, ReentrantLock> claimTurns = new ConcurrentHashMap<>();
    private final AtomicBoolean housekeepingPending = new AtomicBoolean();
    private final AtomicInteger rotation = new AtomicInteger();
    private final AtomicLong completed = new AtomicLong();
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private volatile Life life = Life.NEW;
    private volatile boolean halted;
    /** Dispatch rounds and claims under way: a stop completes only when none is, so no store call outlives it. */
    private final AtomicInteger storeCalls = new AtomicInteger();
    private @Nullable Cancellable subscription;
    private volatile @Nullable TransitionListener wakeups;
    private volatile @Nullable AutoCloseable storeWatch;
    private @Nullable Cancellable heartbeatTimer;
    private @Nullable Cancellable pollTimer;
    private volatile @Nullable Instant nextWake;
    private volatile @Nullable Cancellable wakeTimer;

    private TaskRuntime(Builder b) {
        this.engine = b.engine;
        this.store = engine.store();
        this.clock = engine.clock();
        this.owner = b.owner;
        this.slots = b.workers;
        this.batchSize = b.batchSize;
        this.free = new AtomicInteger(b.workers);
        if (b.executor != null) {
            this.executor = b.executor;
            this.ownedExecutor = null;
        } else {
            AtomicInteger n = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(b.workers + 1, r -> {
                Thread t = new Thread(r, "statekit-" + owner + "-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
            this.executor = pool;
            this.ownedExecutor = pool;
        }
        this.leaseDuration = b.leaseDuration;
        this.heartbeat = b.heartbeat != null ? b.heartbeat : b.leaseDuration.dividedBy(3);
        this.pollInterval = b.pollInterval;
        this.cancelGrace = b.cancelGrace;
        this.forceCancel = b.forceCancel;
        this.classifier = b.classifier;
        this.registrations = List.copyOf(b.registrations);
        for (Registration<?, ?> r : registrations) byMachine.computeIfAbsent(r.machine.name(), k -> new ArrayList<>()).add(r);
        this.random = new SplittableRandom(b.seed);
    }

    /** Returns a builder over {@code engine}, whose store and clock the runtime uses. */
    public static Builder builder(TransitionEngine engine) {
        return new Builder(engine);
    }

    /** Returns the lease owner name of this runtime. */
    public String owner() {
        return owner;
    }

    /** Returns the ids of the tasks this runtime's workers hold now. */
    public Set<Long> runningTasks() {
        return Set.copyOf(running.keySet());
    }

    /** Returns how many results this runtime applied (or discarded) since it started. */
    public long completedCount() {
        return completed.get();
    }

    // --- lifecycle --------------------------------------------------------------------------

    /**
     * Starts the runtime: writes the configured queue limits, heals tasks whose lease this owner
     * held before a restart (by each machine's recovery policy), and begins claiming.
     *
     * @throws IllegalStateException if already started
     */
    public synchronized void start() {
        if (life != Life.NEW) throw new IllegalStateException("runtime " + owner + " was already started");
        for (Registration<?, ?> r : registrations) {
            if (r.options.concurrency() >= 0) store.setConcurrency(r.queue, r.options.concurrency());
        }
        life = Life.RUNNING;
        for (TaskRecord t : store.leasedBy(owner, Integer.MAX_VALUE)) {
            Registration<?, ?> r = registrationOf(t);
            if (r != null) {
                log.info("task {} was held by {} before a restart; recovering it", t.id(), owner);
                recover(r, t, "restart of " + owner);
            }
        }
        Wakeups w = new Wakeups();
        wakeups = w;
        subscription = engine.subscribe(w);
        storeWatch = store.watch(this::requestDispatch);
        heartbeatTimer = every(heartbeat, this::heartbeat);
        pollTimer = every(pollInterval, this::requestHousekeeping);
        log.info("runtime {} started: {} worker slots, lease {}, {} queue registrations", owner, slots, leaseDuration,
                registrations.size());
        requestHousekeeping();
    }

    /**
     * Stops gracefully: nothing new starts; running work may finish until {@code grace} has
     * passed on the clock, then it is asked to stop and its tasks are released by the release
     * event (or left to lease recovery when the machine has none). Nothing is lost.
     *
     * @return a future completed when no work of this runtime runs any more
     */
    public CompletableFuture<Void> stop(Duration grace) {
        Objects.requireNonNull(grace, "grace");
        synchronized (this) {
            if (life == Life.NEW) {
                life = Life.STOPPED;
                stopped.complete(null);
                return stopped;
            }
            if (life != Life.RUNNING) return stopped;
            life = Life.STOPPING;
        }
        cancelTimers();
        clock.schedule(clock.now().plus(grace), this::releaseRemaining);
        finishStopIfIdle();
        return stopped;
    }

    /** Stops gracefully with a grace of 30 seconds and waits for it; see {@link #stop(Duration)}. */
    @Override
    public void close() {
        try {
            stop(Duration.ofSeconds(30)).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            log.warn("runtime {} did not stop cleanly", owner, e.getCause());
        } finally {
            if (ownedExecutor != null) ownedExecutor.shutdownNow();
        }
    }

    /**
     * Stops at once as a crash would: releases nothing, commits nothing more. Tasks it held keep
     * their leases until they expire and are recovered (or until a runtime with the same owner
     * starts). Meant for tests and simulations.
     */
    public void halt() {
        halted = true;
        synchronized (this) {
            life = Life.STOPPED;
        }
        cancelTimers();
        for (Run<?, ?> run : running.values()) run.signal(SHUTDOWN);
        running.clear();
        stopped.complete(null);
        if (ownedExecutor != null) ownedExecutor.shutdownNow();
    }

    private void cancelTimers() {
        for (Cancellable c : new Cancellable[] {subscription, heartbeatTimer, pollTimer, wakeTimer}) {
            if (c != null) c.cancel();
        }
        AutoCloseable w = storeWatch;
        if (w != null) {
            try {
                w.close();
            } catch (Exception e) {
                log.debug("runtime {}: closing the store watch failed", owner, e);
            }
        }
    }

    private void releaseRemaining() {
        for (Run<?, ?> run : running.values()) {
            run.signal(SHUTDOWN);
            releaseForShutdown(run);
        }
        finishStopIfIdle();
    }

    private <S extends Enum<S>, E extends Enum<E>> void releaseForShutdown(Run<S, E> run) {
        E release = run.reg.policy.release;
        if (release == null) return;      // left to lease recovery
        Outcome<S> o = engine.fire(run.reg.machine, run.task.id(), release,
                Command.system().actor(owner).reason("runtime stopping"), null);
        log.debug("released task {} at shutdown: {}", run.task.id(), o.isApplied() ? "applied" : o);
        running.remove(run.task.id(), run);
    }

    private void finishStopIfIdle() {
        if (life == Life.STOPPING && running.isEmpty() && storeCalls.get() == 0) {
            synchronized (this) {
                if (life != Life.STOPPING) return;
                life = Life.STOPPED;
            }
            if (ownedExecutor != null) ownedExecutor.shutdown();
            stopped.complete(null);
            log.info("runtime {} stopped", owner);
        }
    }

    private Cancellable every(Duration period, Runnable action) {
        Object lock = new Object();
        Cancellable[] current = new Cancellable[1];
        boolean[] cancelled = {false};
        Runnable[] tick = new Runnable[1];
        tick[0] = () -> {
            synchronized (lock) {
                if (cancelled[0]) return;
                current[0] = clock.schedule(clock.now().plus(period), tick[0]);
            }
            try {
                action.run();
            } catch (RuntimeException e) {
                log.warn("runtime {}: periodic action failed; it runs again in {}", owner, period, e);
            }
        };
        synchronized (lock) {
            current[0] = clock.schedule(clock.now().plus(period), tick[0]);
        }
        return () -> {
            synchronized (lock) {
                cancelled[0] = true;
                return current[0].cancel();
            }
        };
    }

    // --- dispatch ---------------------------------------------------------------------------

    /** Asks for a dispatch round on the executor; rounds requested while one is pending coalesce. */
    void requestDispatch() {
        if (life != Life.RUNNING || halted) return;
        if (dispatchPending.compareAndSet(false, true)) {
            executor.execute(this::dispatch);
        }
    }

    /** Asks for a dispatch round that first recovers expired leases, fires due waits and re-checks blocked tasks. */
    private void requestHousekeeping() {
        housekeepingPending.set(true);
        requestDispatch();
    }

    private void dispatch() {
        dispatchPending.set(false);
        storeCalls.incrementAndGet();      // before looking at life: a stop that follows waits for this round
        try {
            if (life != Life.RUNNING || halted) return;
            if (housekeepingPending.getAndSet(false)) {
                housekeeping();
                scheduleNextWake();
            }
            claimAndStart();
        } catch (RuntimeException e) {
            log.warn("runtime {}: dispatch failed ({}); retrying after {}", owner, e.toString(), pollInterval, e);
        } finally {
            storeCalls.decrementAndGet();
            finishStopIfIdle();
        }
    }

    private void claimAndStart() {
        int n = registrations.size();
        boolean progress = true;
        while (progress && free.get() > 0 && life == Life.RUNNING && !halted) {
            progress = false;
            int start = Math.floorMod(rotation.getAndIncrement(), n);
            for (int i = 0; i < n && free.get() > 0; i++) {
                Registration<?, ?> r = registrations.get((start + i) % n);
                if (claimFor(r, free.get()) > 0) progress = true;
            }
        }
    }

    /**
     * Claims work for up to {@code slots} free slots of this runtime: each slot takes up to
     * {@code batchSize} tasks in one claim. Returns how many slots it filled.
     */
    private <S extends Enum<S>, E extends Enum<E>> int claimFor(Registration<S, E> r, int slots) {
        Instant now = clock.now();
        if (r.options.precondition() != null) blockUnready(r, now, slots * batchSize);
        int filled = 0;
        while (filled < slots) {
            if (!reserve(1)) return filled;
            List<Run<S, E>> batch;
            try {
                batch = claimBatch(r, now);
            } catch (RuntimeException e) {
                free.incrementAndGet();      // a failed claim (the store unavailable) must not take the slot with it
                throw e;
            }
            if (batch.isEmpty()) {
                free.incrementAndGet();
                return filled;
            }
            executor.execute(() -> runLoop(r, batch));
            filled++;
            if (batch.size() < batchSize) return filled;
        }
        return filled;
    }

    /** Claims up to {@code batchSize} tasks for a slot the caller holds; they are registered as running. */
    private <S extends Enum<S>, E extends Enum<E>> List<Run<S, E>> claimBatch(Registration<S, E> r, Instant now) {
        int max = r.options.precondition() != null ? 1 : batchSize;
        ClaimRequest request = new ClaimRequest(r.machine.name(), r.queue, r.rules, owner, now, leaseDuration, max,
                r.options.starvationLimit());
        // Claims of one queue are serialized by the store anyway; slots of this runtime take turns
        // here rather than wait inside the store (a database claimer that waits holds a snapshot,
        // which keeps the rows just claimed from being cleaned up).
        ReentrantLock turn = claimTurns.computeIfAbsent(r.queue, q -> new ReentrantLock());
        List<Claimed> claimed;
        turn.lock();
        try {
            claimed = store.claim(request);
        } finally {
            turn.unlock();
        }
        if (claimed.isEmpty()) return List.of();
        announce(r, claimed);
        List<Run<S, E>> runs = new ArrayList<>(claimed.size());
        for (Claimed c : claimed) {
            TaskRecord t = c.task();
            S state = Objects.requireNonNull(r.machine.state(t.state()), "claimed task in unknown state");
            Run<S, E> run = new Run<>(r, new Task<>(state, t), Objects.requireNonNull(t.lease()));
            running.put(t.id(), run);
            runs.add(run);
            log.debug("runtime {} started task {} ({} attempt {})", owner, t.id(), t.state(), t.attempts());
        }
        return runs;
    }

    /** Claims are written by the store, not the engine: tell the engine's listeners of them. */
    private void announce(Registration<?, ?> r, List<Claimed> claimed) {
        TransitionListener own = wakeups;
        if (claimed.isEmpty() || (own != null && !engine.hasListenersBesides(own))) return;
        for (Claimed c : claimed) engine.announce(r.machine.name(), c.task(), c.entry());
    }

    private boolean reserve(int n) {
        while (true) {
            int f = free.get();
            if (f < n) return false;
            if (free.compareAndSet(f, f - n)) return true;
        }
    }

    /**
     * Runs a batch on the slot the caller reserved, writes its results together, then keeps the
     * slot busy with further batches of the same registration while any are runnable, for one poll
     * interval at most when other registrations share the runtime: then the slot goes back to the
     * dispatcher, which turns to the other queues, so that a busy queue cannot starve them.
     */
    private <S extends Enum<S>, E extends Enum<E>> void runLoop(Registration<S, E> r, List<Run<S, E>> first) {
        // An error a worker throws past work() (a VM error, a thread stuck for good) leaves the slot
        // taken and the batch running, as a hung thread would: the slot is released only here.
        List<Run<S, E>> batch = first;
        Instant yieldAt = registrations.size() > 1 ? clock.now().plus(pollInterval) : null;
        while (!batch.isEmpty()) {
            List<Completion<S, E>> done = new ArrayList<>(batch.size());
            for (Run<S, E> run : batch) done.add(prepare(run, work(run)));
            finish(done);
            for (Run<S, E> run : batch) {
                running.remove(run.task.id(), run);
                completed.incrementAndGet();
            }
            batch = List.of();
            if (life == Life.RUNNING && !halted && (yieldAt == null || clock.now().isBefore(yieldAt))) {
                storeCalls.incrementAndGet();
                try {
                    // A stop between the test above and this claim waits for it; the tasks it claims run
                    // (or are released at the end of the grace) like the others.
                    if (life == Life.RUNNING && !halted) batch = claimBatch(r, clock.now());
                } catch (RuntimeException e) {
                    log.warn("runtime {}: claim on queue {} failed: {}", owner, r.queue, e.toString());
                } finally {
                    storeCalls.decrementAndGet();
                }
            }
        }
        free.incrementAndGet();
        requestDispatch();
        finishStopIfIdle();
    }

    private <S extends Enum<S>, E extends Enum<E>> WorkResult work(Run<S, E> run) {
        try {
            WorkResult result = run.reg.worker.work(run);
            return result != null ? result : WorkResult.fatal("NO_RESULT", "the worker returned no result");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return WorkResult.retryable("INTERRUPTED", "the worker was interrupted");
        } catch (Exception | LinkageError | AssertionError e) {
            return classify(run, e);
        } catch (StackOverflowError e) {
            return classify(run, e);
        }
    }

    /** The write a worker's result maps to, and what follows it. */
    private record Completion<S extends Enum<S>, E extends Enum<E>>(Run<S, E> run, E event, Command command,
            TransitionEngine.@Nullable Adjust adjust, @Nullable Instant wakeAt, Command base) {}

    /** Writes the results of a batch: alone for one, with one store round trip for several. */
    private <S extends Enum<S>, E extends Enum<E>> void finish(List<Completion<S, E>> done) {
        if (halted) return;
        try {
            if (done.size() == 1) {
                Completion<S, E> c = done.get(0);
                after(c, engine.fire(c.run.reg.machine, c.run.task.id(), c.event, c.command, c.adjust));
                return;
            }
            List<TransitionEngine.Request<?, ?>> requests = new ArrayList<>(done.size());
            for (Completion<S, E> c : done) {
                requests.add(new TransitionEngine.Request<>(c.run.reg.machine, c.run.task.id(), c.event, c.command, c.adjust,
                        c.run.task.record()));
            }
            List<Outcome<?>> outcomes = engine.fireEach(requests);
            for (int i = 0; i < done.size(); i++) {
                @SuppressWarnings("unchecked")
                Outcome<S> o = (Outcome<S>) outcomes.get(i);
                after(done.get(i), o);
            }
        } catch (RuntimeException e) {
            log.warn("runtime {}: could not record the results of {} task(s); their leases will be recovered", owner, done.size(), e);
        }
    }

    private <S extends Enum<S>, E extends Enum<E>> void after(Completion<S, E> c, Outcome<S> outcome) {
        if (outcome instanceof Outcome.Refused<S> refused) {
            if (refused.code() == RefusalCode.LEASE_LOST) {
                log.info("runtime {}: result of task {} discarded: {}", owner, c.run.task.id(), refused.message());
            } else {
                settleRefused(c.run, refused, c.base);
            }
        } else if (c.wakeAt != null) {
            wakeAt(c.wakeAt);
        }
    }

    private WorkResult classify(Run<?, ?> run, Throwable e) {
        WorkResult.Failure f;
        try {
            f = Objects.requireNonNull(classifier.classify(e));
        } catch (RuntimeException broken) {
            log.warn("error classifier failed on {}; treating it as fatal", e, broken);
            f = new WorkResult.Failure("WORKER_ERROR", String.valueOf(e), false, null);
        }
        log.debug("worker of task {} threw {}; classified {} {}", run.task.id(), e.toString(), f.code(), f.retryable() ? "retryable" : "fatal");
        return f;
    }

    // --- results ----------------------------------------------------------------------------

    /** Decides the write a worker's result maps to by the run policy. */
    private <S extends Enum<S>, E extends Enum<E>> Completion<S, E> prepare(Run<S, E> run, WorkResult result) {
        RunPolicy<S, E> p = run.reg.policy;
        Machine<S, E> m = run.reg.machine;
        long id = run.task.id();
        Command base = Command.system().actor(owner).underLease(run.lease.fencingToken());
        for (Map.Entry<String, String> e : run.progress.entrySet()) base = base.set(e.getKey(), e.getValue());
        boolean again = result instanceof WorkResult.Snooze || (result instanceof WorkResult.Failure f && f.retryable());
        if (again && run.cancelReason == null && p.cancel != null && store.cancelRequested(id)) {
            run.signal(CANCELLED);      // requested elsewhere after the last heartbeat: not to run again
        }
        if (CANCELLED.equals(run.cancelReason) && p.cancel != null) {
            Command c = run.cancelCommand != null ? run.cancelCommand.underLease(run.lease.fencingToken()) : base.reason("cancelled");
            return new Completion<>(run, p.cancel, c, null, null, base);
        }
        if (result instanceof WorkResult.Success s) {
            Command c = base;
            for (Map.Entry<String, @Nullable String> e : s.attributes().entrySet()) {
                c = e.getValue() == null ? c.remove(e.getKey()) : c.set(e.getKey(), e.getValue());
            }
            return new Completion<>(run, Objects.requireNonNull(p.success), c, (cur, next) -> next.notBefore(null), null, base);
        }
        if (result instanceof WorkResult.Failure f) {
            TaskError error = new TaskError(f.code(), f.message(), f.retryable(), f.step());
            int retries = run.task.record().retries();
            if (f.retryable() && p.retryable != null && retries < p.retry.maxRetries()) {
                Duration delay = p.retry.delay(retries, nextRandom());
                Instant notBefore = clock.now().plus(delay);
                return new Completion<>(run, p.retryable, base.reason(f.code() + ": " + f.message()).error(error),
                        (cur, next) -> next.retries(cur.retries() + 1).notBefore(notBefore), notBefore, base);
            }
            String why = f.retryable() ? f.code() + " after " + retries + " retries: " + f.message() : f.code() + ": " + f.message();
            return new Completion<>(run, Objects.requireNonNull(p.fatal), base.reason(why).error(error), null, null, base);
        }
        WorkResult.Snooze z = (WorkResult.Snooze) result;
        E release = p.release;
        if (release == null) {
            TaskError error = new TaskError("SNOOZE_UNSUPPORTED", "machine " + m.name() + " has no release event", false, null);
            return new Completion<>(run, Objects.requireNonNull(p.fatal), base.error(error), null, null, base);
        }
        Instant notBefore = clock.now().plus(z.delay());
        return new Completion<>(run, release, base.reason("snoozed for " + z.delay()),
                (cur, next) -> next.attempts(Math.max(0, cur.attempts() - 1)).notBefore(notBefore), notBefore, base);
    }

    /**
     * The machine refused the event a result maps to (a guard said no): the task must not stay in
     * its running state under a lease nobody renews, so it fails; if even that is refused, it is
     * released; if that is refused too, lease recovery takes it.
     */
    private <S extends Enum<S>, E extends Enum<E>> void settleRefused(Run<S, E> run, Outcome.Refused<S> refused, Command base) {
        RunPolicy<S, E> p = run.reg.policy;
        long id = run.task.id();
        log.warn("runtime {}: result of task {} was refused ({}); failing the task", owner, id, refused.message());
        TaskError error = new TaskError("RESULT_REFUSED", refused.reasonCode() + ": " + refused.message(), false, null);
        Outcome<S> failed = engine.fire(run.reg.machine, id, Objects.requireNonNull(p.fatal), base.reason("result refused").error(error), null);
        if (failed.isApplied()) return;
        E release = p.release;
        if (release != null && engine.fire(run.reg.machine, id, release, base.reason("result refused").error(error), null).isApplied()) return;
        log.warn("runtime {}: task {} could be neither failed nor released; lease recovery will take it", owner, id);
    }

    private double nextRandom() {
        synchronized (random) {
            return random.nextDouble();
        }
    }

    // --- housekeeping: leases, waits, blocked tasks ---------------------------------------------

    private void housekeeping() {
        Instant now = clock.now();
        for (TaskRecord t : store.expiredLeases(now, SCAN_BATCH)) {
            Registration<?, ?> r = registrationOf(t);
            if (r == null) continue;
            Run<?, ?> local = running.get(t.id());
            if (local != null) local.signal(LEASE_LOST);
            recover(r, t, "lease " + Objects.requireNonNull(t.lease()).fencingToken() + " of " + t.lease().owner()
                    + " expired at " + t.lease().expiresAt());
        }
        for (Map.Entry<String, List<Registration<?, ?>>> e : byMachine.entrySet()) {
            Registration<?, ?> r = e.getValue().get(0);
            fireWaits(r, now);
        }
        for (Registration<?, ?> r : registrations) {
            if (r.options.precondition() != null) unblockReady(r);
        }
    }

    private <S extends Enum<S>, E extends Enum<E>> void fireWaits(Registration<S, E> r, Instant now) {
        if (r.policy.waits.isEmpty()) return;
        for (TaskRecord t : store.due(r.machine.name(), r.waitStates, now, SCAN_BATCH)) {
            S state = r.machine.state(t.state());
            E event = state == null ? null : r.policy.waits.get(state);
            if (event == null) continue;
            engine.fire(r.machine, t.id(), event, Command.system().actor(owner).reason("wait over").expectVersion(t.version()), null);
        }
    }

    private <S extends Enum<S>, E extends Enum<E>> void recover(Registration<S, E> r, TaskRecord t, String why) {
        RunPolicy<S, E> p = r.policy;
        Command c = Command.system().actor(owner).reason(why).expectVersion(t.version());
        Outcome<S> o;
        if (p.cancel != null && store.cancelRequested(t.id())) {
            // Its cancellation was requested while it ran: the holder died before applying it.
            o = engine.fire(r.machine, t.id(), p.cancel, c.reason("cancellation requested; " + why), null);
            if (o.isApplied()) {
                log.info("runtime {}: cancelled task {} on recovery ({})", owner, t.id(), why);
                return;
            }
        }
        switch (p.recovery) {
            case FAIL: {
                TaskError error = new TaskError("LEASE_EXPIRED", why, true, null);
                o = engine.fire(r.machine, t.id(), Objects.requireNonNull(p.fatal), c.error(error), null);
                break;
            }
            case INTERRUPT: {
                o = engine.fire(r.machine, t.id(), Objects.requireNonNull(p.interrupt), c, null);
                if (o instanceof Outcome.Applied<S> a) afterInterrupt(r, a.task());
                break;
            }
            case REQUEUE:
            default:
                o = engine.fire(r.machine, t.id(), Objects.requireNonNull(p.release), c, null);
        }
        log.info("runtime {}: recovered task {} ({}): {}", owner, t.id(), why, o.isApplied() ? "applied" : o);
    }

    private <S extends Enum<S>, E extends Enum<E>> void afterInterrupt(Registration<S, E> r, Task<S> task) {
        RunPolicy<S, E> p = r.policy;
        int interruptions = Integer.parseInt(task.attributes().getOrDefault(ATTR_INTERRUPTIONS, "0"));
        Command c = Command.system().actor(owner).expectVersion(task.version());
        if (p.autoRecover && interruptions < 1) {
            Outcome<S> o = engine.fire(r.machine, task.id(), Objects.requireNonNull(p.interruptRequeue),
                    c.reason("automatic recovery after an interruption").set(ATTR_INTERRUPTIONS, Integer.toString(interruptions + 1)), null);
            if (o.isApplied()) store.reorder(task.id(), task.record().priority(), store.nextSequence(true));
        } else {
            engine.fire(r.machine, task.id(), Objects.requireNonNull(p.interruptFail),
                    c.reason(p.autoRecover ? "interrupted again after its automatic retry" : "interrupted; automatic recovery is off")
                            .error(new TaskError("INTERRUPTED", "the task was interrupted by a crash", true, null)), null);
        }
    }

    /** The attribute counting automatic recoveries after interruptions. */
    public static final String ATTR_INTERRUPTIONS = "interruptions";
    /** The attribute holding why a task is blocked. */
    public static final String ATTR_BLOCKED_REASON = "blocked_reason";

    private <S extends Enum<S>, E extends Enum<E>> void blockUnready(Registration<S, E> r, Instant now, int max) {
        Precondition check = Objects.requireNonNull(r.options.precondition());
        E block = r.policy.block;
        if (block == null) return;
        for (TaskRecord t : store.peek(new ClaimRequest(r.machine.name(), r.queue, r.rules, owner, now, leaseDuration, Math.max(1, max), 0))) {
            String reason = check.blockedReason(t);
            if (reason != null) {
                engine.fire(r.machine, t.id(), block, Command.system().actor(owner).reason(reason)
                        .set(ATTR_BLOCKED_REASON, reason).expectVersion(t.version()), null);
            }
        }
    }

    private <S extends Enum<S>, E extends Enum<E>> void unblockReady(Registration<S, E> r) {
        Precondition check = Objects.requireNonNull(r.options.precondition());
        S blocked = r.policy.blockedState;
        E unblock = r.policy.unblock;
        if (blocked == null || unblock == null) return;
        TaskQuery q = TaskQuery.all().machine(r.machine.name()).queue(r.queue).states(List.of(blocked.name())).limit(SCAN_BATCH);
        for (TaskRecord t : store.query(q).items()) {
            if (check.blockedReason(t) == null) {
                engine.fire(r.machine, t.id(), unblock, Command.system().actor(owner).reason("precondition holds")
                        .remove(ATTR_BLOCKED_REASON).expectVersion(t.version()), null);
            }
        }
    }

    // --- heartbeats and wake-ups ------------------------------------------------------------------

    private void heartbeat() {
        Instant now = clock.now();
        Instant until = now.plus(leaseDuration);
        for (Run<?, ?> run : running.values()) {
            RenewResult r;
            try {
                r = store.renew(run.task.id(), run.lease.fencingToken(), now, until);
            } catch (RuntimeException e) {
                log.warn("runtime {}: could not renew the lease of task {}: {}", owner, run.task.id(), e.toString());
                continue;
            }
            if (r == RenewResult.LOST) {
                log.info("runtime {}: lost the lease of task {}", owner, run.task.id());
                run.signal(LEASE_LOST);
            } else if (r == RenewResult.RENEWED_CANCEL_REQUESTED) {
                run.signal(CANCELLED);
            }
        }
    }

    private void wakeAt(Instant at) {
        Instant current = nextWake;
        if (current != null && !at.isBefore(current) && current.isAfter(clock.now())) return;
        synchronized (this) {
            current = nextWake;
            if (current != null && !at.isBefore(current) && current.isAfter(clock.now())) return;
            Cancellable old = wakeTimer;
            if (old != null) old.cancel();
            nextWake = at;
            wakeTimer = clock.schedule(at, () -> {
                synchronized (this) {
                    if (at.equals(nextWake)) nextWake = null;
                }
                requestHousekeeping();
            });
        }
    }

    private void scheduleNextWake() {
        Instant now = clock.now();
        Instant earliest = null;
        for (Registration<?, ?> r : registrations) {
            Instant due = store.nextDue(r.machine.name(), r.timedStates, now);
            if (due != null && (earliest == null || due.isBefore(earliest))) earliest = due;
        }
        if (earliest != null && earliest.isBefore(now.plus(pollInterval))) wakeAt(earliest);
    }

    /** Wakes the runtime when work may have become runnable in this process. */
    private final class Wakeups implements TransitionListener {
        @Override
        public void onTransition(String machine, TaskRecord task, @Nullable HistoryEntry entry) {
            List<Registration<?, ?>> regs = byMachine.get(machine);
            if (regs == null) return;
            for (Registration<?, ?> r : regs) {
                if (r.queue.equals(task.queue()) && r.claimStates.contains(task.state())) {
                    requestDispatch();
                    return;
                }
            }
        }

        @Override
        public void onCreated(String machine, TaskRecord task) {
            onTransition(machine, task, null);
        }
    }

    // --- control ----------------------------------------------------------------------------

    /** Pauses {@code queue} for every runtime on the store: running tasks finish, nothing new starts. */
    public void pause(String queue) {
        store.pauseQueue(queue, "PAUSED");
        log.info("queue {} paused", queue);
    }

    /**
     * Pauses {@code queue} once the tasks running now have finished: nothing new starts from now
     * on, and the queue reads {@code STOP_AFTER_CURRENT} until resumed.
     */
    public void stopAfterCurrent(String queue) {
        store.pauseQueue(queue, "STOP_AFTER_CURRENT");
        log.info("queue {} stops after the current tasks", queue);
    }

    /** Resumes {@code queue} and wakes the runtime. */
    public void resume(String queue) {
        store.resumeQueue(queue);
        log.info("queue {} resumed", queue);
        requestDispatch();
    }

    /**
     * Cancels task {@code taskId} with the machine's cancel event. A task that holds no lease is
     * cancelled at once (or refused by the table). A running task whose machine allows the
     * cancel event from its running state is cancelled cooperatively: its worker sees
     * {@link WorkContext#cancelled()}; when it returns, the cancel event is applied; if it has not
     * returned after the grace period, the task is cancelled anyway and the worker is fenced
     * (its result is discarded). A machine that does not allow cancelling a started task refuses.
     *
     * @throws IllegalArgumentException if the machine declares no cancel event
     */
    public <S extends Enum<S>, E extends Enum<E>> CancelResult<S> cancel(Machine<S, E> machine, long taskId, Command command) {
        RunPolicy<S, E> p = machine.runPolicy();
        E cancel = p == null ? null : p.cancel;
        if (cancel == null) throw new IllegalArgumentException("machine " + machine.name() + " declares no cancel event");
        Task<S> task = engine.find(machine, taskId).orElse(null);
        if (task == null || task.record().lease() == null || !machine.permits(task.state(), cancel)) {
            Outcome<S> o = engine.fire(machine, taskId, cancel, command, null);
            return new CancelResult<>(o.isApplied() ? CancelResult.Status.CANCELLED : CancelResult.Status.REFUSED, o);
        }
        Lease lease = Objects.requireNonNull(task.record().lease());
        @SuppressWarnings("unchecked")
        Run<S, E> local = (Run<S, E>) running.get(taskId);
        store.requestCancel(taskId);      // kept in the store, so a recovery of the lease cancels the task too
        if (local != null && local.lease.fencingToken() == lease.fencingToken()) {
            local.cancelCommand = command;
            local.signal(CANCELLED);
        }
        clock.schedule(clock.now().plus(cancelGrace), () -> forceCancel(machine, taskId, lease.fencingToken(), cancel, command));
        return new CancelResult<>(CancelResult.Status.REQUESTED, null);
    }

    private <S extends Enum<S>, E extends Enum<E>> void forceCancel(Machine<S, E> machine, long taskId, long token, E cancel, Command command) {
        Task<S> task = engine.find(machine, taskId).orElse(null);
        if (task == null) return;
        Lease lease = task.record().lease();
        if (lease == null || lease.fencingToken() != token) return;      // finished, or cancelled cooperatively
        if (!forceCancel) {
            log.warn("runtime {}: task {} did not stop within {} of its cancellation; it keeps running", owner, taskId, cancelGrace);
            return;
        }
        Outcome<S> o = engine.fire(machine, taskId, cancel, command.reason("cancelled after the grace period")
                .expectVersion(task.version()), null);
        log.info("runtime {}: task {} did not stop within {}; cancelled it: {}", owner, taskId, cancelGrace,
                o.isApplied() ? "applied" : o);
    }

    /**
     * Retries a failed task by firing {@code retryEvent}; the automatic retry count starts again
     * (the last error is kept). With {@code front}, the task goes to the front of its priority.
     */
    public <S extends Enum<S>, E extends Enum<E>> Outcome<S> retry(Machine<S, E> machine, long taskId, E retryEvent,
                                                                   boolean front, Command command) {
        long sequence = front ? store.nextSequence(true) : store.nextSequence(false);
        Outcome<S> o = engine.fire(machine, taskId, retryEvent, command, (cur, next) -> next.retries(0).notBefore(null));
        if (o instanceof Outcome.Applied<S> a) store.reorder(taskId, a.task().record().priority(), sequence);
        return o;
    }

    /**
     * Retries every task of {@code machine} in {@code state} (optionally only children of
     * {@code parentId}, or only on {@code queue}), in their FIFO order; with {@code front} they go
     * to the front of their priority in that same order.
     *
     * @return the outcomes, one per task found
     */
    public <S extends Enum<S>, E extends Enum<E>> List<Outcome<S>> retryAll(Machine<S, E> machine, S state, E retryEvent,
            @Nullable Long parentId, @Nullable String queue, boolean front, Command command) {
        List<TaskRecord> found = new ArrayList<>();
        TaskQuery q = TaskQuery.all().machine(machine.name()).states(List.of(state.name())).limit(TaskQuery.MAX_LIMIT);
        if (parentId != null) q = q.parent(parentId);
        if (queue != null) q = q.queue(queue);
        for (var page = store.query(q); ; page = store.query(q.after(Objects.requireNonNull(page.nextAfterId())))) {
            found.addAll(page.items());
            if (!page.hasNext()) break;
        }
        found.sort(java.util.Comparator.comparingInt(TaskRecord::priority).reversed().thenComparingLong(TaskRecord::sequence));
        List<Outcome<S>> outcomes = new ArrayList<>();
        long[] sequences = new long[found.size()];
        if (front) {
            for (int i = found.size() - 1; i >= 0; i--) sequences[i] = store.nextSequence(true);
        } else {
            for (int i = 0; i < found.size(); i++) sequences[i] = store.nextSequence(false);
        }
        for (int i = 0; i < found.size(); i++) {
            TaskRecord t = found.get(i);
            Outcome<S> o = engine.fire(machine, t.id(), retryEvent, command.expectVersion(t.version()),
                    (cur, next) -> next.retries(0).notBefore(null));
            if (o.isApplied()) store.reorder(t.id(), t.priority(), sequences[i]);
            outcomes.add(o);
        }
        return outcomes;
    }

    /** Moves task {@code taskId} to the front of its priority ("start now"). */
    public boolean moveToFront(long taskId) {
        TaskRecord t = store.find(taskId).orElse(null);
        if (t == null) return false;
        boolean moved = store.reorder(taskId, t.priority(), store.nextSequence(true));
        requestDispatch();
        return moved;
    }

    /** Changes the priority of task {@code taskId}, keeping its FIFO position among equals. */
    public boolean setPriority(long taskId, int priority) {
        TaskRecord t = store.find(taskId).orElse(null);
        if (t == null) return false;
        boolean changed = store.reorder(taskId, priority, t.sequence());
        requestDispatch();
        return changed;
    }

    /**
     * Moves task {@code taskId} directly before task {@code beforeId} within their priority,
     * renumbering the tasks in between with their own sequence numbers (their order is kept).
     *
     * @throws IllegalArgumentException if the tasks differ in machine, queue or priority
     */
    public boolean moveBefore(long taskId, long beforeId) {
        TaskRecord moved = store.find(taskId).orElse(null);
        TaskRecord before = store.find(beforeId).orElse(null);
        if (moved == null || before == null || taskId == beforeId) return false;
        if (!moved.machine().equals(before.machine()) || !moved.queue().equals(before.queue()) || moved.priority() != before.priority()) {
            throw new IllegalArgumentException("tasks " + taskId + " and " + beforeId + " are not in one machine, queue and priority");
        }
        List<TaskRecord> peers = new ArrayList<>();
        TaskQuery q = TaskQuery.all().machine(moved.machine()).queue(moved.queue()).limit(TaskQuery.MAX_LIMIT);
        for (var page = store.query(q); ; page = store.query(q.after(Objects.requireNonNull(page.nextAfterId())))) {
            for (TaskRecord t : page.items()) if (t.priority() == moved.priority() && t.lease() == null) peers.add(t);
            if (!page.hasNext()) break;
        }
        peers.sort(java.util.Comparator.comparingLong(TaskRecord::sequence));
        long lo = Math.min(moved.sequence(), before.sequence());
        long hi = Math.max(moved.sequence(), before.sequence());
        List<TaskRecord> span = new ArrayList<>();
        for (TaskRecord t : peers) if (t.sequence() >= lo && t.sequence() <= hi) span.add(t);
        List<Long> numbers = new ArrayList<>();
        for (TaskRecord t : span) numbers.add(t.sequence());
        span.removeIf(t -> t.id() == taskId);
        int at = 0;
        while (at < span.size() && span.get(at).id() != beforeId) at++;
        span.add(at, moved);
        for (int i = 0; i < span.size(); i++) {
            if (span.get(i).sequence() != numbers.get(i)) store.reorder(span.get(i).id(), span.get(i).priority(), numbers.get(i));
        }
        return true;
    }

    // --- registrations and runs --------------------------------------------------------------------

    private @Nullable Registration<?, ?> registrationOf(TaskRecord t) {
        List<Registration<?, ?>> regs = byMachine.get(t.machine());
        if (regs == null) return null;
        for (Registration<?, ?> r : regs) if (r.queue.equals(t.queue())) return r;
        return regs.get(0);
    }

    /** One machine served on one queue by one worker. */
    static final class Registration<S extends Enum<S>, E extends Enum<E>> {
        final Machine<S, E> machine;
        final RunPolicy<S, E> policy;
        final String queue;
        final Worker<S> worker;
        final QueueOptions options;
        final List<ClaimRule> rules;
        final Set<String> claimStates;
        final Set<String> waitStates;
        final Set<String> timedStates;

        Registration(Machine<S, E> machine, String queue, Worker<S> worker, QueueOptions options) {
            this.machine = machine;
            this.policy = Objects.requireNonNull(machine.runPolicy(), () -> "machine " + machine.name() + " declares no run policy");
            this.queue = queue;
            this.worker = worker;
            this.options = options;
            List<ClaimRule> rs = new ArrayList<>();
            Set<String> cs = new HashSet<>();
            policy.claims.forEach((from, event) -> {
                Transition<S, E> row = machine.transitions(from, event).get(0);
                Effect<S> effect = row.effect();
                ClaimRule.ClaimEffect claimEffect = effect == null ? null : before -> {
                    Map<String, @Nullable String> changes = new LinkedHashMap<>();
                    effect.apply(new Task<>(from, before), Command.system(), changes);
                    return before.attributes().with(changes);
                };
                rs.add(new ClaimRule(from.name(), event.name(), row.to().name(), claimEffect));
                cs.add(from.name());
            });
            this.rules = List.copyOf(rs);
            this.claimStates = Set.copyOf(cs);
            Set<String> ws = new HashSet<>();
            policy.waits.keySet().forEach(s -> ws.add(s.name()));
            this.waitStates = Set.copyOf(ws);
            Set<String> ts = new HashSet<>(cs);
            ts.addAll(ws);
            this.timedStates = Set.copyOf(ts);
            if (options.precondition() != null && policy.block == null) {
                throw new IllegalArgumentException("queue " + queue + " has a precondition but machine " + machine.name()
                        + " declares no blocked state in its run policy");
            }
        }
    }

    /** One task a worker of this runtime runs; the worker's view of it. */
    private final class Run<S extends Enum<S>, E extends Enum<E>> implements WorkContext<S> {
        final Registration<S, E> reg;
        final Task<S> task;
        final Lease lease;
        final Map<String, String> progress = new ConcurrentHashMap<>();
        private final List<Runnable> onCancel = new ArrayList<>();
        volatile @Nullable String cancelReason;
        volatile @Nullable Command cancelCommand;

        Run(Registration<S, E> reg, Task<S> task, Lease lease) {
            this.reg = reg;
            this.task = task;
            this.lease = lease;
        }

        void signal(String reason) {
            List<Runnable> actions;
            synchronized (this) {
                if (cancelReason != null) return;
                cancelReason = reason;
                actions = new ArrayList<>(onCancel);
                onCancel.clear();
            }
            for (Runnable a : actions) {
                try {
                    a.run();
                } catch (RuntimeException e) {
                    log.warn("cancel action of task {} failed", task.id(), e);
                }
            }
        }

        @Override
        public Task<S> task() {
            return task;
        }

        @Override
        public Lease lease() {
            return lease;
        }

        @Override
        public boolean cancelled() {
            return cancelReason != null;
        }

        @Override
        public @Nullable String cancelReason() {
            return cancelReason;
        }

        @Override
        public void onCancel(Runnable action) {
            Objects.requireNonNull(action, "action");
            synchronized (this) {
                if (cancelReason == null) {
                    onCancel.add(action);
                    return;
                }
            }
            action.run();
        }

        @Override
        public void progress(String key, String value) {
            progress.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
        }

        @Override
        public Clock clock() {
            return clock;
        }
    }

    /** Builds a {@link TaskRuntime}. Not thread-safe. */
    public static final class Builder {
        private final TransitionEngine engine;
        private String owner = "runtime-" + Long.toHexString(Double.doubleToLongBits(Math.random())).substring(0, 8);
        private @Nullable Executor executor;
        private int workers = Math.max(2, java.lang.Runtime.getRuntime().availableProcessors());
        private int batchSize = 1;
        private Duration leaseDuration = Duration.ofSeconds(30);
        private @Nullable Duration heartbeat;
        private Duration pollInterval = Duration.ofSeconds(1);
        private Duration cancelGrace = Duration.ofSeconds(30);
        private boolean forceCancel = true;
        private ErrorClassifier classifier = ErrorClassifier.defaults();
        private long seed = System.identityHashCode(this) * 0x9E3779B97F4A7C15L;
        private final List<Registration<?, ?>> registrations = new ArrayList<>();

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
         * {@code workers + 1} platform daemon threads; pass a virtual-thread executor to use virtual
         * threads, or a {@link dev.statekit.core.spi.ManualExecutor} in tests).
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
         * results it writes together (default 1). Larger batches cut store round trips for short
         * tasks (a JDBC store writes a batch's results in one transaction) at the price of holding
         * the batch's leases while its first tasks run; queues with a concurrency limit still never
         * exceed it.
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
            if (machine.runPolicy() == null) throw new IllegalArgumentException("machine " + machine.name() + " declares no run policy");
            for (Registration<?, ?> r : registrations) {
                if (r.machine.name().equals(machine.name()) && r.queue.equals(queue)) {
                    throw new IllegalArgumentException("machine " + machine.name() + " is already registered on queue " + queue);
                }
            }
            registrations.add(new Registration<>(machine, queue, worker, options));
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
