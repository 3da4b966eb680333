package dev.statekit.jdbc.bench;

import static dev.statekit.store.TriggerSource.SYSTEM;

import dev.statekit.core.Machine;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.internal.ScheduleRecords;
import dev.statekit.core.schedule.Misfire;
import dev.statekit.core.schedule.Recurrence;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.jdbc.JdbcStore;
import dev.statekit.jdbc.TestPool;
import dev.statekit.jdbc.bench.Bench.Event;
import dev.statekit.jdbc.bench.Bench.State;
import dev.statekit.jdbc.bench.JdbcBenchmark.Db;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The schedule and unique-key figures of the JDBC benchmark:
 *
 * <ol>
 * <li>{@code --only schedules}: {@code --schedules} (10,000) interval schedules of the no-op machine,
 *     all due at once (each declared with its progress a second before its first occurrence, hourly
 *     after that); the time from a runtime's start until its schedule passes have created every
 *     occurrence's task, on a paused queue so that no worker competes: occurrences per second, by one
 *     runtime and by two (two runtimes in this JVM, each on a store with a pool of its own);</li>
 * <li>{@code --only unique}: {@code --unique-tasks} (20,000) creations through the engine by
 *     {@code --unique-threads} threads (1 and 4), of plain tasks, of tasks with a new unique key each,
 *     and of duplicates of a key a task holds (answered with that task): tasks per second of each, in
 *     the same run, on one machine with unique states.</li>
 * </ol>
 */
final class ScheduleUniqueBenchmarks {
    /** The no-op machine with unique states: a task holds its key until it is done. */
    static final Machine<State, Event> UNIQUE = Machine.builder("bench-unique", State.class, Event.class)
            .initial(State.QUEUED)
            .terminal(State.DONE)
            .transition(State.QUEUED, Event.START, State.RUNNING, SYSTEM)
            .transition(State.RUNNING, Event.COMPLETE, State.DONE, SYSTEM)
            .transition(State.RUNNING, Event.FAIL, State.FAILED, SYSTEM)
            .transition(State.RUNNING, Event.RELEASE, State.QUEUED, SYSTEM)
            .transition(State.FAILED, Event.RELEASE, State.QUEUED, SYSTEM)
            .run(r -> r.claim(State.QUEUED, Event.START).success(Event.COMPLETE).fatal(Event.FAIL).release(Event.RELEASE))
            .unique(State.QUEUED, State.RUNNING, State.FAILED)
            .build();

    private final JdbcBenchmark bench;
    private final Db template;
    private final List<String> summary;

    ScheduleUniqueBenchmarks(JdbcBenchmark bench, Db template, List<String> summary) {
        this.bench = bench;
        this.template = template;
        this.summary = summary;
    }

    // --- schedules ----------------------------------------------------------------------------

    void schedules() throws Exception {
        int n = bench.number("schedules");
        System.out.printf(Locale.ROOT, "schedules: %,d interval schedules due at once, created by the passes of runtimes polling every"
                + " second, on a paused queue; a warm-up of %,d first, not counted%n", n, n / 10);
        firing(n / 10, 1);
        for (int runtimes = 1; runtimes <= 2; runtimes++) {
            String load = JdbcBenchmark.load();
            double rate = firing(n, runtimes);
            String who = runtimes == 1 ? "1 runtime" : "2 runtimes in one JVM, each with its own store and pool";
            String line = String.format(Locale.ROOT, "%s: schedules, %,d due at once, %s: %,.0f occurrences created/s; load average %s -> %s",
                    template.name(), n, who, rate, load, JdbcBenchmark.load());
            System.out.println("  " + line);
            summary.add(line);
        }
    }

    /** Declares {@code n} schedules due now and returns the occurrences created per second by {@code runtimes} runtimes. */
    private double firing(int n, int runtimes) throws Exception {
        Db db = template.fresh();
        String prefix = JdbcBenchmark.prefix();
        TestPool pool = db.pool();
        TestPool secondPool = null;
        List<Bench.Runner> runners = new ArrayList<>();
        ExecutorService declarers = Executors.newFixedThreadPool(4);
        try {
            JdbcStore store = Bench.store(pool, db.dialect(), prefix, true);
            store.pauseQueue(Bench.QUEUE, "schedules only");
            Instant first = Instant.now().truncatedTo(ChronoUnit.SECONDS);
            long d0 = System.nanoTime();
            List<Future<?>> declared = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int from = t;
                declared.add(declarers.submit(() -> {
                    for (int i = from; i < n; i += 4) {
                        Recurrence r = Recurrence.builder("s-" + i).every(Duration.ofHours(1)).anchor(first).misfire(Misfire.runOnce()).build();
                        store.upsertSchedule(ScheduleRecords.declare(Bench.NOOP, r, TaskSpec.defaults().queue(Bench.QUEUE), first.minusSeconds(1)));
                    }
                    return null;
                }));
            }
            for (Future<?> f : declared) f.get(10, TimeUnit.MINUTES);
            double declareSeconds = (System.nanoTime() - d0) / 1e9;
            if (db.postgres()) Bench.execute(pool, "analyze " + prefix + "schedules");
            runners.add(Bench.runtime(Bench.engine(store), "sched-1", 2, 64, Duration.ofSeconds(1), ctx -> WorkResult.success()));
            if (runtimes == 2) {
                secondPool = db.pool();
                runners.add(Bench.runtime(Bench.engine(Bench.store(secondPool, db.dialect(), prefix, false)), "sched-2", 2, 64,
                        Duration.ofSeconds(1), ctx -> WorkResult.success()));
            }
            long t0 = System.nanoTime();
            for (Bench.Runner r : runners) r.runtime().start();
            long deadline = t0 + TimeUnit.MINUTES.toNanos(10);
            String tasks = prefix + "tasks";
            while (Bench.count(pool, "select count(*) from " + tasks) < n) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("occurrences not created within 10 minutes");
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
            long t1 = System.nanoTime();
            for (Bench.Runner r : runners) r.close();
            runners.clear();
            long keys = Bench.count(pool, "select count(distinct idempotency_key) from " + tasks);
            long all = Bench.count(pool, "select count(*) from " + tasks);
            if (keys != n || all != n) throw new IllegalStateException(all + " tasks with " + keys + " keys, expected " + n);
            System.out.printf(Locale.ROOT, "    %,d schedules declared in %.1f s (%,.0f/s, 4 threads); %d runtime(s) created their %,d occurrences"
                    + " in %.2f s%n", n, declareSeconds, n / declareSeconds, runtimes, n, (t1 - t0) / 1e9);
            return n * 1e9 / (t1 - t0);
        } finally {
            declarers.shutdownNow();
            for (Bench.Runner r : runners) r.close();
            if (secondPool != null) secondPool.close();
            JdbcBenchmark.cleanUp(db, pool, prefix);
        }
    }

    // --- unique keys --------------------------------------------------------------------------

    void unique() throws Exception {
        int n = bench.number("unique-tasks");
        System.out.printf(Locale.ROOT, "unique keys: %,d creations through the engine per mode, plain, with a new unique key each, and"
                + " duplicates of a held key; a warm-up of %,d per mode first, not counted%n", n, n / 10);
        for (int threads : bench.list("unique-threads").stream().mapToInt(Integer::parseInt).toArray()) {
            Db db = template.fresh();
            String prefix = JdbcBenchmark.prefix();
            TestPool pool = db.pool();
            try {
                TransitionEngine engine = Bench.engine(Bench.store(pool, db.dialect(), prefix, true));
                AtomicLong counter = new AtomicLong();
                TaskSpec held = TaskSpec.defaults().queue(Bench.QUEUE).uniqueKey("held");
                engine.create(UNIQUE, held);
                for (int round = 0; round < 2; round++) {      // the first round warms up
                    int count = round == 0 ? n / 10 : n;
                    String load = JdbcBenchmark.load();
                    double plain = creations(engine, threads, count, () -> TaskSpec.defaults().queue(Bench.QUEUE));
                    double unique = creations(engine, threads, count,
                            () -> TaskSpec.defaults().queue(Bench.QUEUE).uniqueKey("k-" + counter.incrementAndGet()));
                    double duplicate = creations(engine, threads, count, () -> held);
                    if (round == 0) continue;
                    String line = String.format(Locale.ROOT, "%s: unique keys, %d thread(s): plain create %,.0f tasks/s, create with a new"
                                    + " unique key %,.0f tasks/s (%.0f %% of plain), duplicate of a held key %,.0f calls/s; load average %s -> %s",
                            template.name(), threads, plain, unique, 100 * unique / plain, duplicate, load, JdbcBenchmark.load());
                    System.out.println("  " + line);
                    summary.add(line);
                }
                long held1 = Bench.count(pool, "select count(*) from " + prefix + "tasks where unique_key = 'held'");
                if (held1 != 1) throw new IllegalStateException(held1 + " tasks hold the key 'held', expected 1");
            } finally {
                JdbcBenchmark.cleanUp(db, pool, prefix);
            }
        }
    }

    /** Creates {@code n} tasks of {@link #UNIQUE} from {@code threads} threads; returns creations per second. */
    private static double creations(TransitionEngine engine, int threads, int n, java.util.function.Supplier<TaskSpec> spec) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            AtomicLong left = new AtomicLong(n);
            List<Future<?>> futures = new ArrayList<>();
            long t0 = System.nanoTime();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    while (left.getAndDecrement() > 0) engine.create(UNIQUE, spec.get());
                    return null;
                }));
            }
            for (Future<?> f : futures) f.get(10, TimeUnit.MINUTES);
            return n * 1e9 / (System.nanoTime() - t0);
        } finally {
            pool.shutdownNow();
        }
    }
}
