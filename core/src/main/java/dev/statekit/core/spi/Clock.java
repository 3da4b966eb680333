package dev.statekit.core.spi;

import dev.statekit.core.internal.SystemClock;
import java.time.Instant;

/**
 * The only source of time in statekit, and its timers.
 *
 * <p>Production hosts use {@link #system()}; tests and simulations use {@link ManualClock},
 * under which everything time-dependent happens deterministically, when the test advances it.
 * Implementations are thread-safe.
 */
public interface Clock {

    /** Returns the current instant. */
    Instant now();

    /**
     * Runs {@code action} once, at or after {@code at}. An action whose time has come already
     * runs as soon as the clock can run it, never on the calling thread inside this call.
     * Actions must be short; an action that throws is logged and does not disturb other timers.
     *
     * @return a handle to call the action off
     */
    Cancellable schedule(Instant at, Runnable action);

    /** Returns the shared system clock: UTC wall time, timers on one daemon thread. */
    static Clock system() {
        return SystemClock.INSTANCE;
    }
}
