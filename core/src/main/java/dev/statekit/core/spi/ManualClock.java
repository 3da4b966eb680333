package dev.statekit.core.spi;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A clock that moves only when told to, for deterministic tests and simulations.
 *
 * <p>{@link #advance(Duration)} moves time forward and runs every timer that falls due, in
 * order of due time (timers due at the same instant run in the order they were scheduled).
 * Before each timer runs, {@link #now()} reads that timer's due time; timers scheduled by a
 * running timer run in the same advance if they fall due within it. Timers run on the thread
 * that advances the clock, so a test decides exactly when everything happens.
 *
 * <p>Thread-safe: any thread may read the time or schedule timers while one advances it.
 */
public final class ManualClock implements Clock {
    private static final Logger log = LoggerFactory.getLogger(ManualClock.class);

    private final Object lock = new Object();
    private final PriorityQueue<Timer> timers = new PriorityQueue<>();
    private Instant now;
    private long scheduled;

    /** Creates a clock reading {@code start}. */
    public ManualClock(Instant start) {
        this.now = Objects.requireNonNull(start, "start");
    }

    /** Creates a clock reading 2030-01-01T00:00:00Z. */
    public ManualClock() {
        this(Instant.parse("2030-01-01T00:00:00Z"));
    }

    private final class Timer implements Comparable<Timer>, Cancellable {
        final Instant at;
        final long order;
        final Runnable action;
        boolean cancelled;

        Timer(Instant at, long order, Runnable action) {
            this.at = at;
            this.order = order;
            this.action = action;
        }

        @Override
        public int compareTo(Timer o) {
            int c = at.compareTo(o.at);
            return c != 0 ? c : Long.compare(order, o.order);
        }

        @Override
        public boolean cancel() {
            synchronized (lock) {
                if (cancelled || !timers.remove(this)) return false;
                cancelled = true;
                return true;
            }
        }
    }

    @Override
    public Instant now() {
        synchronized (lock) {
            return now;
        }
    }

    /**
     * Schedules {@code action} at {@code at}. An action already due runs at the next
     * {@link #advance} (possibly by zero), never inside this call.
     */
    @Override
    public Cancellable schedule(Instant at, Runnable action) {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(action, "action");
        synchronized (lock) {
            Timer t = new Timer(at.isBefore(now) ? now : at, scheduled++, action);
            timers.add(t);
            return t;
        }
    }

    /**
     * Moves the clock forward by {@code delta}, running every timer that falls due.
     *
     * @throws IllegalArgumentException if {@code delta} is negative
     */
    public void advance(Duration delta) {
        Objects.requireNonNull(delta, "delta");
        if (delta.isNegative()) throw new IllegalArgumentException("cannot move a clock backwards: " + delta);
        Instant target;
        synchronized (lock) {
            target = now.plus(delta);
        }
        advanceTo(target);
    }

    /**
     * Moves the clock forward to {@code target}, running every timer due until then.
     *
     * @throws IllegalArgumentException if {@code target} is before the current time
     */
    public void advanceTo(Instant target) {
        Objects.requireNonNull(target, "target");
        synchronized (lock) {
            if (target.isBefore(now)) {
                throw new IllegalArgumentException("cannot move the clock from " + now + " back to " + target);
            }
        }
        while (true) {
            Timer next;
            synchronized (lock) {
                next = timers.peek();
                if (next == null || next.at.isAfter(target)) {
                    now = target;
                    return;
                }
                timers.poll();
                next.cancelled = true;
                if (next.at.isAfter(now)) now = next.at;
            }
            try {
                next.action.run();
            } catch (RuntimeException e) {
                log.warn("timer action failed at {}", next.at, e);
            }
        }
    }

    /** Runs the timers that are due now, without moving the clock. */
    public void runDue() {
        advance(Duration.ZERO);
    }

    /** Returns the due times of the pending timers, earliest first. */
    public List<Instant> pendingTimers() {
        synchronized (lock) {
            List<Timer> copy = new ArrayList<>(timers);
            copy.sort(null);
            List<Instant> times = new ArrayList<>(copy.size());
            for (Timer t : copy) times.add(t.at);
            return times;
        }
    }

    /** Returns the due time of the earliest pending timer, or null when none is pending. */
    public @org.jspecify.annotations.Nullable Instant nextTimer() {
        synchronized (lock) {
            Timer t = timers.peek();
            return t == null ? null : t.at;
        }
    }
}
