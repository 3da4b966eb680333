package dev.statekit.core;

import dev.statekit.core.spi.Cancellable;
import dev.statekit.core.spi.Clock;
import dev.statekit.core.spi.TransitionListener;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.StatekitException;
import dev.statekit.store.Store;
import dev.statekit.store.TaskRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The waits for tasks to reach a state ({@link TransitionEngine#await}). A wait is completed by
 * whatever shows its task in one of its states first: a change written through the engine (its
 * listener), the store's watch (another process's change, through PostgreSQL's LISTEN/NOTIFY),
 * or a check of every waited task on the clock every {@code recheck} (for changes the engine and
 * the store's watch do not tell of, such as another engine's on an in-memory store). The watch is
 * opened by the first pending wait and closed once none has been pending for {@code recheck}
 * (waits one after another keep one watch, not a connection each); the check runs only while waits
 * are pending. Nothing polls on the caller's thread. Thread-safe.
 */
final class Awaits implements TransitionListener {
    private static final Logger log = LoggerFactory.getLogger(Awaits.class);

    /** One pending wait. */
    private final class Wait<S extends Enum<S>, E extends Enum<E>> {
        final Machine<S, E> machine;
        final long id;
        final Set<S> states;
        final CompletableFuture<Task<S>> future = new CompletableFuture<>();
        volatile @Nullable Cancellable timeout;

        Wait(Machine<S, E> machine, long id, Set<S> states) {
            this.machine = machine;
            this.id = id;
            this.states = states;
        }

        /** Completes the wait if {@code record} shows its task in one of its states; returns whether it is done. */
        boolean offer(@Nullable TaskRecord record) {
            if (future.isDone()) return true;
            if (record == null || !record.machine().equals(machine.name())) {
                return future.completeExceptionally(new NoSuchElementException("task " + id + " is not a task of machine "
                        + machine.name() + (record == null ? " (there is no such task)" : "")));
            }
            S state;
            try {
                state = Decider.stateOf(machine, record);
            } catch (StatekitException e) {
                return future.completeExceptionally(e);
            }
            return states.contains(state) && future.complete(new Task<>(state, record));
        }
    }

    private final Store store;
    private final Clock clock;
    private final Duration recheck;
    private final Function<TransitionListener, Cancellable> subscribe;
    private @Nullable Cancellable subscription;
    private final Map<Long, List<Wait<?, ?>>> waits = new ConcurrentHashMap<>();
    private final Object lock = new Object();
    private int pending;
    private @Nullable AutoCloseable watch;
    private @Nullable Cancellable recheckTimer;
    private @Nullable Cancellable lingerTimer;

    /** @param subscribe subscribes a listener to the engine's changes (while waits are pending) */
    Awaits(Store store, Clock clock, Duration recheck, Function<TransitionListener, Cancellable> subscribe) {
        this.store = store;
        this.clock = clock;
        this.recheck = recheck;
        this.subscribe = subscribe;
    }

    <S extends Enum<S>, E extends Enum<E>> CompletableFuture<Task<S>> await(Machine<S, E> machine, long id, Set<S> states,
                                                                         Duration timeout) {
        if (states.isEmpty()) throw new IllegalArgumentException("no states to wait for");
        if (timeout.isNegative()) throw new IllegalArgumentException("timeout must not be negative, was " + timeout);
        Wait<S, E> wait = new Wait<>(machine, id, states);
        // Registered before the first read: a change between the read and the registration is not missed.
        synchronized (lock) {
            waits.computeIfAbsent(id, k -> new ArrayList<>()).add(wait);
            if (pending++ == 0) {
                Cancellable linger = lingerTimer;
                lingerTimer = null;
                if (linger != null) linger.cancel();
                if (subscription == null) open();
                else scheduleRecheck();
            }
        }
        wait.future.whenComplete((task, failure) -> remove(wait));
        wait.timeout = clock.schedule(clock.now().plus(timeout), () -> wait.future.completeExceptionally(new TimeoutException(
                "task " + id + " did not reach " + states + " within " + timeout)));
        if (wait.future.isDone()) cancelTimeout(wait);
        try {
            wait.offer(store.find(id).orElse(null));
        } catch (RuntimeException e) {
            wait.future.completeExceptionally(e);
        }
        return wait.future;
    }

    private void remove(Wait<?, ?> wait) {
        cancelTimeout(wait);
        synchronized (lock) {
            List<Wait<?, ?>> list = waits.get(wait.id);
            if (list == null || !list.remove(wait)) return;
            if (list.isEmpty()) waits.remove(wait.id);
            if (--pending == 0) {
                Cancellable t = recheckTimer;
                recheckTimer = null;
                if (t != null) t.cancel();
                lingerTimer = clock.schedule(clock.now().plus(recheck), this::closeIfIdle);
            }
        }
    }

    private static void cancelTimeout(Wait<?, ?> wait) {
        Cancellable t = wait.timeout;
        if (t != null) t.cancel();
    }

    /** Holding the lock: the first wait opens the store's watch and starts the checks. */
    private void open() {
        subscription = subscribe.apply(this);
        try {
            watch = store.watch(this::checkAll);
        } catch (RuntimeException e) {
            log.warn("cannot watch the store for waits ({}); they are checked every {}", e.toString(), recheck);
        }
        scheduleRecheck();
    }

    private void closeIfIdle() {
        synchronized (lock) {
            if (pending == 0 && lingerTimer != null) {
                lingerTimer = null;
                close();
            }
        }
    }

    /** Holding the lock: no wait pending for a while, the watch is closed and the engine no longer listened to. */
    private void close() {
        Cancellable s = subscription;
        subscription = null;
        if (s != null) s.cancel();
        AutoCloseable w = watch;
        watch = null;
        if (w != null) {
            try {
                w.close();
            } catch (Exception e) {
                log.debug("closing the store watch of the waits failed", e);
            }
        }
    }

    private void scheduleRecheck() {
        recheckTimer = clock.schedule(clock.now().plus(recheck), () -> {
            checkAll();
            synchronized (lock) {
                if (pending > 0) scheduleRecheck();
            }
        });
    }

    /** Reads every waited task and completes the waits it satisfies. */
    void checkAll() {
        List<Long> ids = new ArrayList<>(waits.keySet());
        if (ids.isEmpty()) return;
        Map<Long, TaskRecord> found;
        try {
            found = store.findAll(ids);
        } catch (RuntimeException e) {
            log.debug("checking waited tasks failed; the next check tries again", e);
            return;
        }
        for (Long id : ids) offer(id, found.get(id));
    }

    private void offer(long id, @Nullable TaskRecord record) {
        List<Wait<?, ?>> list = waits.get(id);
        if (list == null) return;
        List<Wait<?, ?>> copy;
        synchronized (lock) {
            copy = new ArrayList<>(list);
        }
        for (Wait<?, ?> w : copy) w.offer(record);
    }

    /** A change written through the engine: its record tells, no read needed. */
    @Override
    public void onTransition(String machine, TaskRecord task, HistoryEntry entry) {
        if (waits.containsKey(task.id())) offer(task.id(), task);
    }
}
