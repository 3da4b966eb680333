package dev.statekit.core.runtime;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * The life of a runtime: NEW → RUNNING → STOPPING → STOPPED, or halted (a simulated crash) at
 * any point. A stop completes only when no run is held and no dispatch round or claim is under
 * way ({@link #enter()} / {@link #exit()} bracket every such store call), so no store call of the
 * runtime outlives its stop. Thread-safe: the phase is volatile and changes under this object's monitor.
 */
final class Lifecycle {
    enum Phase { NEW, RUNNING, STOPPING, STOPPED }

    private volatile Phase phase = Phase.NEW;
    private volatile boolean halted;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();

    /** @throws IllegalStateException if the runtime was started before */
    synchronized void start(String owner) {
        if (phase != Phase.NEW) throw new IllegalStateException("runtime " + owner + " was already started");
        phase = Phase.RUNNING;
    }

    /** Returns whether the runtime runs: started, neither stopping nor halted. */
    boolean running() {
        return phase == Phase.RUNNING && !halted;
    }

    boolean halted() {
        return halted;
    }

    /**
     * Begins a stop. Returns the phase before it: NEW (the stop completed at once), RUNNING (this
     * call began it), or STOPPING/STOPPED (an earlier call did).
     */
    synchronized Phase beginStop() {
        Phase before = phase;
        if (before == Phase.NEW) {
            phase = Phase.STOPPED;
            stopped.complete(null);
        } else if (before == Phase.RUNNING) {
            phase = Phase.STOPPING;
        }
        return before;
    }

    /** Stops at once, as a crash would. */
    void halt() {
        halted = true;
        synchronized (this) {
            phase = Phase.STOPPED;
        }
        stopped.complete(null);
    }

    /** A dispatch round or a claim begins: a stop that follows waits for it. */
    void enter() {
        inFlight.incrementAndGet();
    }

    void exit() {
        inFlight.decrementAndGet();
    }

    /**
     * Completes a stop under way when {@code idle} says no run is held and no store call is under
     * way; runs {@code onStopped} once, by the caller that completes it.
     */
    void finishIfIdle(BooleanSupplier idle, Runnable onStopped) {
        if (phase != Phase.STOPPING || inFlight.get() != 0 || !idle.getAsBoolean()) return;
        synchronized (this) {
            if (phase != Phase.STOPPING) return;
            phase = Phase.STOPPED;
        }
        try {
            onStopped.run();
        } finally {
            stopped.complete(null);
        }
    }

    CompletableFuture<Void> stopped() {
        return stopped;
    }
}
