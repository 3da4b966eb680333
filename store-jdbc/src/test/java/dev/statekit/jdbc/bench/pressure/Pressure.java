package dev.statekit.jdbc.bench.pressure;

import static dev.statekit.store.TriggerSource.SYSTEM;

import dev.statekit.core.Machine;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.spi.Clock;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.jdbc.Dialect;
import dev.statekit.jdbc.JdbcStore;
import dev.statekit.jdbc.TestPool;
import dev.statekit.store.Attributes;
import dev.statekit.store.NewTask;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/** What the pressure benchmark, its second process and the harness adapter share: the machine, pools, stores and runtimes. */
final class Pressure {
    enum State { QUEUED, RUNNING, DONE, FAILED }

    enum Event { START, COMPLETE, FAIL, RELEASE }

    /** The queue every task goes to. */
    static final String QUEUE = "noop";

    /**
     * The JDBC benchmark's no-op machine ({@code Bench.NOOP}, declared again here because that class
     * is private to its package): claimed from QUEUED into RUNNING, completed into DONE, and put
     * back into QUEUED when its lease is lost.
     */
    static final Machine<State, Event> NOOP = Machine.builder("bench-noop", State.class, Event.class)
            .initial(State.QUEUED)
            .terminal(State.DONE)
            .transition(State.QUEUED, Event.START, State.RUNNING, SYSTEM)
            .transition(State.RUNNING, Event.COMPLETE, State.DONE, SYSTEM)
            .transition(State.RUNNING, Event.FAIL, State.FAILED, SYSTEM)
            .transition(State.RUNNING, Event.RELEASE, State.QUEUED, SYSTEM)
            .transition(State.FAILED, Event.RELEASE, State.QUEUED, SYSTEM)
            .run(r -> r.claim(State.QUEUED, Event.START).success(Event.COMPLETE).fatal(Event.FAIL).release(Event.RELEASE))
            .build();

    /** The application name of the connections statekit uses (the ones the terminate scenario ends). */
    static final String APPLICATION = "statekit-pressure";
    /** The application name of the benchmark's own connections: sampling, faults, checks. */
    static final String SIDE_APPLICATION = "statekit-pressure-side";

    private Pressure() {}

    /** A pool of connections named {@code application} on PostgreSQL. */
    static TestPool pool(String url, String user, String password, String application) {
        return new TestPool(url, properties(user, password, application));
    }

    static Properties properties(String user, String password, String application) {
        Properties p = new Properties();
        p.setProperty("user", user);
        p.setProperty("password", password);
        p.setProperty("ApplicationName", application);
        return p;
    }

    /** A store on {@code prefix}, creating its tables when asked. */
    static JdbcStore store(TestPool pool, String prefix, boolean create) {
        return JdbcStore.builder(pool).dialect(Dialect.POSTGRESQL).tablePrefix(prefix).createSchemaIfMissing(create).build();
    }

    /** {@code n} new no-op tasks created at {@code now}, each with {@code payload}. */
    static List<NewTask> newTasks(int n, Instant now, @Nullable String payload) {
        List<NewTask> tasks = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            tasks.add(new NewTask(NOOP.name(), NOOP.version(), NOOP.initial().name(), QUEUE, 0, null, Attributes.EMPTY, payload,
                    null, null, now));
        }
        return tasks;
    }

    /** Microseconds since the epoch: comparable between the processes of one machine. */
    static long micros(Instant t) {
        return t.getEpochSecond() * 1_000_000L + t.getNano() / 1_000;
    }

    /** Pickup latencies (creation to worker start, microseconds) of the tasks started since the last {@link #take()}. */
    static final class Latencies {
        private final AtomicReference<Histogram> window = new AtomicReference<>(new Histogram());

        void record(long micros) {
            window.get().record(micros);
        }

        /** Returns the latencies recorded since the last call, and starts a new window. */
        Histogram take() {
            return window.getAndSet(new Histogram());
        }
    }

    /** A runtime serving {@link #QUEUE} on threads of its own; closing it stops it and waits for its threads. */
    static final class Served {
        final TaskRuntime runtime;
        final TransitionEngine engine;
        private final ExecutorService threads;

        /**
         * Starts a runtime named {@code owner} of {@code workers} workers claiming up to {@code batch}
         * tasks at once, each worker recording its task's pickup latency into {@code latencies} and
         * then sleeping {@code workMillis} (none for 0).
         */
        Served(JdbcStore store, String owner, int workers, int batch, Duration lease, LongConsumer latencies, int workMillis) {
            engine = TransitionEngine.builder().store(store).clock(Clock.system()).build();
            AtomicInteger n = new AtomicInteger();
            threads = Executors.newFixedThreadPool(workers + 1, r -> {
                Thread t = new Thread(r, owner + "-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
            runtime = TaskRuntime.builder(engine).owner(owner).workers(workers).batchSize(batch).leaseDuration(lease)
                    .pollInterval(Duration.ofSeconds(1)).executor(threads)
                    .register(NOOP, QUEUE, ctx -> {
                        latencies.accept(micros(Instant.now()) - micros(ctx.task().record().createdAt()));
                        if (workMillis > 0) {
                            try {
                                Thread.sleep(workMillis);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                        return WorkResult.success();
                    }, QueueOptions.defaults())
                    .build();
            runtime.start();
        }

        long completed() {
            return runtime.completedCount();
        }

        void close() throws InterruptedException {
            runtime.close();
            threads.shutdown();
            if (!threads.awaitTermination(1, TimeUnit.MINUTES)) throw new IllegalStateException("runtime threads still running");
        }
    }
}
