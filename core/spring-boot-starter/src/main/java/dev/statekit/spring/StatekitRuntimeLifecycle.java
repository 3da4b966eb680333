package dev.statekit.spring;

import dev.statekit.core.runtime.TaskRuntime;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Starts a {@link TaskRuntime} with the application context and stops it gracefully when the
 * context closes: {@link TaskRuntime#stop(Duration)} with the shutdown grace, so nothing new starts,
 * running work may finish within the grace, and what still runs then is released to run again
 * elsewhere or after a restart. Spring waits for the stop up to
 * {@code spring.lifecycle.timeout-per-shutdown-phase} (30 s by default): keep the grace below it.
 *
 * <p>Its {@linkplain #PHASE phase} places the runtime before the embedded web server: the runtime
 * starts before the server takes requests, and stops after the server has stopped taking them (and
 * finished its own graceful shutdown), while the {@code DataSource} is still open. A runtime runs
 * once: after a stop it does not start again. Thread-safe.
 */
public final class StatekitRuntimeLifecycle implements SmartLifecycle {
    /**
     * The phase: {@code SmartLifecycle.DEFAULT_PHASE - 4096}, below the web server's graceful shutdown
     * ({@code DEFAULT_PHASE - 1024}) and its start and stop ({@code DEFAULT_PHASE - 2048}).
     */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private static final Logger log = LoggerFactory.getLogger(StatekitRuntimeLifecycle.class);

    private final TaskRuntime runtime;
    private final Duration grace;
    private volatile boolean running;
    private volatile boolean stopped;

    /**
     * Creates the lifecycle of {@code runtime}.
     *
     * @param runtime the runtime, not yet started
     * @param grace   how long running work may finish when the context closes
     */
    public StatekitRuntimeLifecycle(TaskRuntime runtime, Duration grace) {
        this.runtime = Objects.requireNonNull(runtime, "runtime");
        this.grace = Objects.requireNonNull(grace, "grace");
        if (grace.isNegative()) throw new IllegalArgumentException("shutdown grace must not be negative, was " + grace);
    }

    /** Returns the runtime. */
    public TaskRuntime runtime() {
        return runtime;
    }

    /** Returns the shutdown grace. */
    public Duration grace() {
        return grace;
    }

    /** Starts the runtime, once; does nothing after a stop. */
    @Override
    public synchronized void start() {
        if (running || stopped) return;
        runtime.start();
        running = true;
    }

    /** Stops the runtime gracefully and waits for it (at most the grace and then the release of what still ran). */
    @Override
    public void stop() {
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        stop(done::countDown);
        try {
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Begins the graceful stop and returns at once; {@code callback} runs once no work of the
     * runtime runs any more and its threads are shut down.
     */
    @Override
    public void stop(Runnable callback) {
        java.util.concurrent.CompletableFuture<Void> stopping;
        synchronized (this) {
            if (!running) {
                callback.run();
                return;
            }
            log.info("stopping runtime {}: running work may finish within {}", runtime.owner(), grace);
            // Not running only once the runtime has begun to stop: whoever sees it stopped and then
            // creates a task finds a runtime that no longer starts new work.
            stopping = runtime.stop(grace);
            running = false;
            stopped = true;
        }
        stopping.whenComplete((ignored, failure) -> {
            // close() on a thread of its own: it shuts down the runtime's executor, which may run this completion.
            Thread closer = new Thread(() -> {
                try {
                    if (failure != null) log.warn("runtime {} did not stop cleanly", runtime.owner(), failure);
                    runtime.close();
                } finally {
                    callback.run();
                }
            }, "statekit-stop-" + runtime.owner());
            closer.setDaemon(true);
            closer.start();
        });
    }

    /** Returns whether the runtime was started and is not stopping. */
    @Override
    public boolean isRunning() {
        return running;
    }

    /** Returns {@link #PHASE}. */
    @Override
    public int getPhase() {
        return PHASE;
    }
}
