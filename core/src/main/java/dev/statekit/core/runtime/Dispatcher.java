package dev.statekit.core.runtime;

import dev.statekit.core.Task;

import dev.statekit.core.spi.Precondition;
import dev.statekit.core.spi.TransitionListener;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.Claimed;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.StatekitException;
import dev.statekit.store.TaskRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands work to worker slots: dispatch rounds claim batches and start them on the executor.
 *
 * <h2>Design: who touches what</h2>
 *
 * <p>Threads: <em>callers</em> (application threads firing events, creating tasks, running
 * operator commands), the <em>clock's timer thread</em> (heartbeats, polls, wake-ups, the end of a
 * stop's grace) and the runtime's <em>executor</em>, which runs dispatch rounds and worker slots.
 *
 * <ul>
 *   <li><b>Dispatch rounds.</b> Anything that may have made work runnable calls
 *       {@link #requestDispatch()} (a listener on the engine, the store's watch, a finished batch, a
 *       resumed queue). Requests coalesce in {@code dispatchPending}: at most one round is queued on
 *       the executor, and a request during a round queues the next one. A poll tick or a wake-up
 *       calls {@link #requestHousekeeping()}, which makes the next round first run the
 *       housekeeping duty (lease recovery, due waits, blocked tasks) on the executor.</li>
 *   <li><b>Hand-offs.</b> On the runtime's own threads ({@link RuntimeContext#ownThreads}) a round
 *       runs the first batch it claimed itself once the round is over, so work that wakes an idle
 *       runtime costs one thread hand-off (caller to round), not two; the other batches go to the
 *       executor. The pool has a thread more than slots, so a round always finds a thread.</li>
 *   <li><b>Slots.</b> {@code free} counts the worker slots without a batch. A round takes a slot
 *       ({@code reserve}) before it claims and gives it back when the claim brings nothing or fails;
 *       a claimed batch keeps its slot until its {@link SlotLoop} ends, which gives it back and asks
 *       for a round. Nothing else changes {@code free}. A round that finds no slot free sets
 *       {@code slotMissed}: the slot may be held by a claim that read the store before the change
 *       this round was asked for, so when that claim brings nothing and gives its slot back, it
 *       asks for another round. Without it such a change would wait for the next poll.</li>
 *   <li><b>Claims.</b> Slots of this runtime claim one queue one at a time ({@code claimTurns}); the
 *       store serializes claims of a queue across processes anyway, and a claimer waiting inside a
 *       database holds a snapshot that keeps just-claimed rows from being cleaned. Claimed tasks
 *       enter {@link RuntimeContext#running} before their batch is handed to the executor; the
 *       engine's listeners hear of the claims with the entries the store returned.</li>
 *   <li><b>Stops.</b> A round and a claim are bracketed by {@link Lifecycle#enter()} /
 *       {@link Lifecycle#exit()}, and test {@link Lifecycle#running()} inside the bracket, so a stop
 *       completes only after them: no store call outlives a stop. A claim that returns after a
 *       stop began gives its tasks back at once: no work starts once a stop has begun.</li>
 * </ul>
 */
final class Dispatcher {
    private static final Logger log = LoggerFactory.getLogger(TaskRuntime.class);

    private final RuntimeContext ctx;
    private final Runnable housekeeping;
    private final GroupResolution groups;
    private final Preconditions preconditions;
    private final SlotLoop loop;
    private final Runnable onIdle;
    private final TransitionListener own;
    private final java.util.function.BiConsumer<Run<?, ?>, Settlement.Cause> giveBack;
    private final AtomicInteger free;
    private final AtomicBoolean dispatchPending = new AtomicBoolean();
    private final AtomicBoolean housekeepingPending = new AtomicBoolean();
    private final AtomicBoolean slotMissed = new AtomicBoolean();
    private final AtomicInteger rotation = new AtomicInteger();
    private final Map<String, ReentrantLock> claimTurns = new ConcurrentHashMap<>();
    /** How often a slot looks whether a queue's claim turn is free before it parks (about 60 microseconds). */
    private static final int TURN_SPINS = 2000;

    /**
     * @param housekeeping runs first in a round after {@link #requestHousekeeping()}
     * @param groups       resolution passes, run in a round after {@link GroupResolution#request()}
     * @param onIdle       called after a round or a slot ended, to let a stop under way complete
     * @param own          the runtime's own listener on the engine (claims need not be announced to it)
     * @param giveBack      gives back, for a cause, a task claimed before its work started: while a stop
     *                      began, or whose precondition does not hold
     */
    Dispatcher(RuntimeContext ctx, Runnable housekeeping, GroupResolution groups, Preconditions preconditions, ResultWriter writer,
               Runnable onIdle, TransitionListener own, java.util.function.BiConsumer<Run<?, ?>, Settlement.Cause> giveBack) {
        this.ctx = ctx;
        this.giveBack = giveBack;
        this.groups = groups;
        this.own = own;
        this.housekeeping = housekeeping;
        this.preconditions = preconditions;
        this.onIdle = onIdle;
        this.free = new AtomicInteger(ctx.slots);
        this.loop = new SlotLoop(ctx, this, writer);
    }

    /** Asks for a dispatch round on the executor; rounds requested while one is pending coalesce. */
    void requestDispatch() {
        if (!ctx.life.running()) return;
        if (!dispatchPending.compareAndSet(false, true)) return;
        try {
            ctx.executor.execute(this::dispatch);
        } catch (RejectedExecutionException e) {
            dispatchPending.set(false);
            // A stop completed since the test above (a slot's last request races the stop it lets
            // complete) and its pool refuses work: there is nothing left to dispatch.
            if (ctx.life.running()) throw e;
        }
    }

    /** Asks for a dispatch round that first runs the housekeeping duty. */
    void requestHousekeeping() {
        housekeepingPending.set(true);
        requestDispatch();
    }

    private void dispatch() {
        dispatchPending.set(false);
        @Nullable Runnable[] kept = {null};
        try {
            round(ctx.ownThreads ? kept : null);
        } finally {     // the slot a round kept runs here, on the round's thread, whatever the round did after claiming it
            Runnable slot = kept[0];
            if (slot != null) slot.run();
        }
    }

    /** One dispatch round; with {@code kept}, the first batch claimed is left in it for the caller to run. */
    private void round(@Nullable Runnable @Nullable [] kept) {
        ctx.life.enter();      // before looking at the life cycle: a stop that follows waits for this round
        try {
            if (!ctx.life.running()) return;
            if (housekeepingPending.getAndSet(false)) housekeeping.run();
            groups.runIfRequested();
            claimAndStart(kept);
        } catch (RuntimeException e) {
            log.warn("runtime {}: dispatch failed ({}); retrying after {}", ctx.owner, e.toString(), ctx.pollInterval, e);
        } finally {
            ctx.life.exit();
            onIdle.run();
        }
    }

    /** Claims for the free slots, turning over the registrations from a rotating start, while any claim brings work. */
    private void claimAndStart(@Nullable Runnable @Nullable [] kept) {
        List<Registration<?, ?>> regs = ctx.registrations.all();
        int n = regs.size();
        boolean progress = true;
        while (progress && anyFree() && ctx.life.running()) {
            progress = false;
            int start = Math.floorMod(rotation.getAndIncrement(), n);
            for (int i = 0; i < n && anyFree(); i++) {
                if (claimFor(regs.get((start + i) % n), free.get(), kept) > 0) progress = true;
                if (kept != null && kept[0] != null) {
                    // The batch this thread keeps starts now, not after more claims: another round
                    // fills the slots still free, on another thread.
                    if (free.get() > 0) requestDispatch();
                    return;
                }
            }
        }
    }

    /**
     * Claims a batch for each of up to {@code slots} free slots and starts it: hands it to the
     * executor, or leaves it in {@code kept} when that is given and empty. Returns how many slots it filled.
     */
    private <S extends Enum<S>, E extends Enum<E>> int claimFor(Registration<S, E> r, int slots, @Nullable Runnable @Nullable [] kept) {
        if (r.options.precondition() != null) preconditions.blockUnready(r, ctx.clock.now(), slots * ctx.batchSize);
        int filled = 0;
        while (filled < slots) {
            if (!ctx.life.running() || !reserve()) return filled;      // a stop begun meanwhile: nothing new starts
            int size = ctx.firstBatch();
            List<Run<S, E>> batch;
            try {
                batch = claimBatch(r, ctx.clock.now(), size);
            } catch (RuntimeException e) {
                releaseUnused();      // a failed claim (the store unavailable) must not take the slot with it
                throw e;
            }
            if (batch.isEmpty()) {
                releaseUnused();
                return filled;
            }
            Runnable slot = () -> loop.run(r, batch, size);
            filled++;
            if (kept != null && kept[0] == null) {
                kept[0] = slot;
                return filled;
            }
            ctx.executor.execute(slot);
            if (batch.size() < size) return filled;
        }
        return filled;
    }

    /**
     * Claims up to {@code size} tasks for a slot the caller holds; they are registered as running.
     * The claim is made at {@code now} or, when the clock is later once the queue's claim turn is
     * taken, at that time: a rate-limited answer holds its key under the turn, and a claim that
     * waited for it must see the hold.
     */
    <S extends Enum<S>, E extends Enum<E>> List<Run<S, E>> claimBatch(Registration<S, E> r, Instant asked, int size) {
        int max = r.options.precondition() != null ? 1 : size;
        ReentrantLock turn = claimTurns.computeIfAbsent(r.queue, q -> new ReentrantLock());
        List<Claimed> claimed;
        List<Run<S, E>> runs;
        Instant now;
        takeTurn(turn);
        try {
            Instant clock = ctx.clock.now();
            now = clock.isAfter(asked) ? clock : asked;
            ClaimRequest request = new ClaimRequest(r.machine.name(), r.queue, r.rules, ctx.owner, now, ctx.leaseDuration, max,
                    r.options.starvationLimit());
            try {
                claimed = ctx.store.claim(request);
            } catch (StatekitException e) {
                // The store may have committed the claim and lost only its answer: its tasks would be
                // leased here with no run, until their leases expire. The next housekeeping gives them back.
                if (e.code() == ErrorCode.STORE_UNAVAILABLE) ctx.unheldLeases.set(true);
                throw e;
            }
            if (claimed.isEmpty()) return List.of();
            // Registered before the turn is given back: under the turn, a task leased here is either
            // held by a run or by no one (LeaseRecovery#recoverUnheld).
            runs = new ArrayList<>(claimed.size());
            for (Claimed c : claimed) {
                TaskRecord t = c.task();
                S state = Objects.requireNonNull(r.machine.state(t.state()), "claimed task in unknown state");
                Run<S, E> run = new Run<>(r, new Task<>(state, t), Objects.requireNonNull(t.lease()), ctx.clock);
                ctx.running.put(t.id(), run);
                runs.add(run);
            }
        } finally {
            turn.unlock();
        }
        ctx.events.claimed(r, claimed, now);
        if (log.isDebugEnabled()) {
            for (Claimed c : claimed) {
                log.debug("runtime {} started task {} ({} attempt {})", ctx.owner, c.task().id(), c.task().state(), c.task().attempts());
            }
        }
        // The runtime's own listener has nothing to do with a task entering a running state.
        if (ctx.kernel.hasListenersBesides(own)) for (Claimed c : claimed) ctx.kernel.announce(r.machine.name(), c.task(), c.entry());
        if (!ctx.life.running()) {
            // A stop began while the store claimed: nothing starts once a stop has begun, so the
            // claimed tasks go back now (a halt leaves them to lease recovery, as a crash would).
            for (Run<S, E> run : runs) {
                try {
                    if (!ctx.life.halted()) giveBack.accept(run, new Settlement.Shutdown());
                } finally {
                    ctx.running.remove(run.id(), run);
                }
            }
            return List.of();
        }
        Precondition precondition = r.options.precondition();
        if (precondition == null) return runs;
        // The tasks were looked at before the claim; one that became runnable in between was not.
        // One whose precondition does not hold goes back before its work starts, and the next
        // round's look blocks it.
        List<Run<S, E>> ready = new ArrayList<>(runs.size());
        for (Run<S, E> run : runs) {
            String reason = precondition.blockedReason(run.task.record());
            if (reason == null) {
                ready.add(run);
                continue;
            }
            try {
                giveBack.accept(run, new Settlement.Unready(reason));
            } finally {
                ctx.running.remove(run.id(), run);
            }
        }
        if (ready.size() < runs.size()) requestDispatch();
        return ready;
    }

    /** Runs {@code action} holding {@code queue}'s claim turn: no claim of this runtime on the queue runs meanwhile. */
    void withClaimTurn(String queue, Runnable action) {
        ReentrantLock turn = claimTurns.computeIfAbsent(queue, q -> new ReentrantLock());
        takeTurn(turn);
        try {
            action.run();
        } finally {
            turn.unlock();
        }
    }

    /**
     * Takes a queue's claim turn. A claim of the in-memory store takes microseconds, so a slot that
     * finds the turn taken first spins for about as long as one claim takes before it parks: parking
     * and being woken costs more than the wait.
     */
    private static void takeTurn(ReentrantLock turn) {
        if (turn.tryLock()) return;
        for (int i = 0; i < TURN_SPINS; i++) {
            Thread.onSpinWait();
            if (!turn.isLocked() && turn.tryLock()) return;
        }
        turn.lock();
    }

    private boolean reserve() {
        while (true) {
            int f = free.get();
            if (f < 1) {
                if (anyFree()) continue;
                return false;
            }
            if (free.compareAndSet(f, f - 1)) return true;
        }
    }

    /**
     * Whether a slot is free. When none is, notes it in {@code slotMissed} before looking again, so
     * that a slot given back meanwhile by an empty claim either is seen here or sees the note.
     */
    private boolean anyFree() {
        if (free.get() > 0) return true;
        slotMissed.set(true);
        return free.get() > 0;
    }

    /** Gives back a slot whose claim brought nothing; asks for a round if one found no slot meanwhile. */
    private void releaseUnused() {
        release();
        if (slotMissed.getAndSet(false)) requestDispatch();
    }

    /** Gives a slot back. */
    void release() {
        free.incrementAndGet();
    }

    void idle() {
        onIdle.run();
    }
}
