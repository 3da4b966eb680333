package dev.statekit.core.runtime;

import dev.statekit.core.spi.Cancellable;
import dev.statekit.core.spi.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timers of one runtime on its clock: periodic ones (heartbeat, poll), one-shot ones (the end
 * of a stop's grace, a forced cancellation) and one pending wake-up where the earliest wins. Every
 * timer a runtime starts is known here, so {@link #cancelAll()} leaves nothing scheduled behind a
 * stopped runtime (a clock's timer thread then has nothing to wait for). Thread-safe.
 */
final class Timers {
    private static final Logger log = LoggerFactory.getLogger(TaskRuntime.class);

    private final Clock clock;
    private final String owner;
    private final Set<Cancellable> live = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    private @Nullable Instant nextWake;
    private @Nullable Cancellable wakeTimer;

    Timers(Clock clock, String owner) {
        this.clock = clock;
        this.owner = owner;
    }

    /** Runs {@code action} every {@code period} until cancelled; a failing run is logged and the next one still comes. */
    Cancellable every(Duration period, Runnable action) {
        Periodic p = new Periodic(period, action);
        live.add(p);
        p.schedule();
        return p;
    }

    /** Runs {@code action} once at {@code at}, unless cancelled first. */
    Cancellable once(Instant at, Runnable action) {
        OneShot shot = new OneShot(action);
        live.add(shot);
        if (closed) {
            live.remove(shot);
            return () -> false;
        }
        shot.schedule(at);
        return shot;
    }

    /**
     * Asks for {@code action} at {@code at}: one wake-up is pending at a time, and an earlier request
     * replaces a later one (a later request than the pending one is dropped while that one is due).
     */
    void wakeAt(Instant at, Runnable action) {
        synchronized (this) {
            Instant current = nextWake;
            if (closed || (current != null && !at.isBefore(current) && current.isAfter(clock.now()))) return;
            Cancellable old = wakeTimer;
            if (old != null) old.cancel();
            nextWake = at;
            wakeTimer = once(at, () -> {
                synchronized (this) {
                    if (at.equals(nextWake)) nextWake = null;
                }
                action.run();
            });
        }
    }

    /** Cancels every timer and refuses new ones. */
    void cancelAll() {
        closed = true;
        for (Cancellable c : live.toArray(new Cancellable[0])) c.cancel();
        live.clear();
    }

    /** A one-shot timer, forgotten once it ran or was cancelled. */
    private final class OneShot implements Cancellable {
        private final Runnable action;
        private @Nullable Cancellable scheduled;
        private boolean cancelled;

        OneShot(Runnable action) {
            this.action = action;
        }

        synchronized void schedule(Instant at) {
            if (!cancelled) scheduled = clock.schedule(at, this::fire);
        }

        private void fire() {
            live.remove(this);
            synchronized (this) {
                if (cancelled) return;
            }
            action.run();
        }

        @Override
        public synchronized boolean cancel() {
            live.remove(this);
            if (cancelled) return false;
            cancelled = true;
            return scheduled != null && scheduled.cancel();
        }
    }

    /** A periodic timer: reschedules itself before each run, under a lock shared with its cancellation. */
    private final class Periodic implements Cancellable {
        private final Duration period;
        private final Runnable action;
        private boolean cancelled;
        private @Nullable Cancellable next;

        Periodic(Duration period, Runnable action) {
            this.period = period;
            this.action = action;
        }

        synchronized void schedule() {
            if (!cancelled) next = clock.schedule(clock.now().plus(period), this::tick);
        }

        private void tick() {
            synchronized (this) {
                if (cancelled) return;
            }
            schedule();
            try {
                action.run();
            } catch (RuntimeException e) {
                log.warn("runtime {}: periodic action failed; it runs again in {}", owner, period, e);
            }
        }

        @Override
        public synchronized boolean cancel() {
            cancelled = true;
            live.remove(this);
            return next != null && next.cancel();
        }
    }
}
