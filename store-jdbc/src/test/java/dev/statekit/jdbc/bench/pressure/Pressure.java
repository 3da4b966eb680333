package dev.statekit.jdbc.bench.pressure;

import dev.statekit.jdbc.bench.Bench;

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
            tasks.add(new NewTask(Bench.NOOP.name(), Bench.NOOP.version(), Bench.NOOP.initial().name(), Bench.QUEUE, 0, null, Attributes.EMPTY, payload,
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

    /** A runtime serving {@link Bench#QUEUE} on threads of its own; closing it stops it and waits for its threads. */
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
                    .register(Bench.NOOP, Bench.QUEUE, ctx -> {
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
