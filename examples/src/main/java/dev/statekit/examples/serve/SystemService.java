package dev.statekit.examples.serve;

import dev.statekit.core.Machine;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.TransitionEngine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way a seed system is served: its host supplies the engine and the runtime, the service
 * names its machines and queues, declares its routes in {@link #routes}, and its options and
 * factory as {@code static final Service.Factory FACTORY = new SystemService.Factory(name, summary,
 * options, Service::new)}.
 *
 * <p>{@link #start()} starts the host (its restart heal, then its runtime), then the service's
 * periodic passes ({@link #every}); {@link #close()} stops the passes, lets the running work finish
 * within the grace, hands back the rest, and closes the host. Both happen once.
 */
public abstract class SystemService implements Service {
    private static final Logger log = LoggerFactory.getLogger(SystemService.class);

    /**
     * The factory of a seed system's service.
     *
     * @param name    the system's name on the command line
     * @param summary one line saying what the service is
     * @param options the service's own options
     * @param creator creates the service from its context
     */
    public record Factory(String name, String summary, Options options, Creator creator) implements Service.Factory {
        @Override
        public Service create(ServeContext context) throws Exception {
            return creator.create(context);
        }
    }

    /** Creates a service from its context: usually the service's constructor. */
    @FunctionalInterface
    public interface Creator {
        /** Creates the service; nothing runs before {@link Service#start()}. */
        Service create(ServeContext context) throws Exception;
    }

    /**
     * What a service runs on, from its host.
     *
     * @param engine  the engine every change goes through
     * @param runtime the runtime running the work
     * @param start   starts the host: its restart heal, then its runtime
     * @param close   closes the host after its runtime stopped
     */
    public record Host(TransitionEngine engine, TaskRuntime runtime, Runnable start, Runnable close) {}

    private record Pass(String thread, Duration every, Runnable pass) {}

    private final Host host;
    private final List<Machine<?, ?>> machines;
    private final List<String> queues;
    private final Duration grace;
    private final List<Pass> passes = new ArrayList<>();
    private final List<ScheduledExecutorService> running = new ArrayList<>();
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * Creates the service on {@code host}.
     *
     * @param machines the machines of its tasks, the top-level machine first
     * @param queues   the queues of its work
     * @param grace    how long {@link #close()} lets running work finish before handing it back
     */
    protected SystemService(Host host, List<Machine<?, ?>> machines, List<String> queues, Duration grace) {
        this.host = host;
        this.machines = List.copyOf(machines);
        this.queues = List.copyOf(queues);
        this.grace = grace;
    }

    /**
     * Runs {@code pass} every {@code every} (the first at once) on a daemon thread named
     * {@code thread} once the service started, until it closes; a pass that throws is logged and
     * the next one runs all the same. Call it from the constructor.
     */
    protected final void every(String thread, Duration every, Runnable pass) {
        passes.add(new Pass(thread, every, pass));
    }

    /** Runs once the host and the passes started: what a service does at start beyond them. Nothing by default. */
    protected void started() {}

    /** Returns whether {@link #close()} was called: a pass that fails while the service closes says nothing. */
    protected final boolean closing() {
        return closed.get();
    }

    @Override
    public final TransitionEngine engine() {
        return host.engine();
    }

    @Override
    public final TaskRuntime runtime() {
        return host.runtime();
    }

    @Override
    public final List<Machine<?, ?>> machines() {
        return machines;
    }

    @Override
    public final List<String> queues() {
        return queues;
    }

    @Override
    public final synchronized void start() {
        if (closed.get() || !started.compareAndSet(false, true)) return;
        host.start().run();
        for (Pass p : passes) {
            ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, p.thread());
                t.setDaemon(true);
                return t;
            });
            running.add(executor);
            executor.scheduleWithFixedDelay(() -> {
                try {
                    p.pass().run();
                } catch (RuntimeException e) {
                    log.warn("{} failed this time: {}", p.thread(), e.toString());
                }
            }, 0, p.every().toMillis(), TimeUnit.MILLISECONDS);
        }
        started();
    }

    /** Stops the passes, then the runtime: running work may finish within the grace, the rest is handed back; then closes the host. */
    @Override
    public final synchronized void close() {
        if (!closed.compareAndSet(false, true)) return;
        try {
            for (ScheduledExecutorService executor : running) executor.shutdownNow();
            for (ScheduledExecutorService executor : running) {
                if (!executor.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) log.warn("a pass of {} did not stop", getClass().getSimpleName());
            }
            host.runtime().stop(grace).get(grace.toSeconds() + 30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.warn("the runtime of {} did not stop cleanly: {}", getClass().getSimpleName(), e.toString());
        } finally {
            host.close().run();
        }
    }
}
