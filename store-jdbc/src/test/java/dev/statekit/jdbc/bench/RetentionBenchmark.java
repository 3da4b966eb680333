package dev.statekit.jdbc.bench;

import dev.statekit.core.TransitionEngine;
import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.runtime.Retention;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.jdbc.JdbcStore;
import dev.statekit.jdbc.TestPool;
import dev.statekit.jdbc.bench.JdbcBenchmark.Db;
import dev.statekit.store.ApplyResult;
import dev.statekit.store.Attributes;
import dev.statekit.store.Change;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.Claimed;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.NewTask;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Claim throughput on a tasks table that a steady flow of tasks has gone through, with retention
 * and without ({@code --only retention}), after an unmeasured warm-up ({@code --warm-up} tasks of
 * flow and a claim round on tables of their own):
 *
 * <ol>
 * <li>on fresh tables, {@code --retention-rounds} rounds (3) of {@code --retention-claims} tasks
 *     (20,000) created on the queue, then claimed by {@code Store.claim} calls of
 *     {@code --claim-batch} (100) tasks from one thread, timed from the first claim to the last
 *     (each round's tasks are then completed, untimed): the median round, in tasks per second;</li>
 * <li>then {@code --retention-tasks} tasks (1,000,000) pass through, 1,000 at a time: created,
 *     claimed and completed with their history, as a runtime would write them, through the store;</li>
 * <li>then the same claim measurement again.</li>
 * </ol>
 *
 * With retention, a runtime (on a queue nothing is put on) retains the no-op machine with
 * {@code Retention.archive(0)}, passes every {@code --retention-interval} ms (1,000) in batches of
 * {@code --retention-batch} (500), from before the first measurement to after the last; after the
 * flow, the measurement waits until retention has moved every finished task. Without retention, the
 * finished tasks stay. Before each measurement the tasks table is analyzed, as autovacuum would have
 * done by then. Prints both figures, their ratio, how many finished tasks the hot table held at most
 * during the flow, and the tables' sizes.
 */
final class RetentionBenchmark {
    static final double GOAL_RATIO = 0.90;
    private static final ClaimRule START = new ClaimRule("QUEUED", "START", "RUNNING");

    private final JdbcBenchmark bench;
    private final Db template;
    private final List<String> summary;

    RetentionBenchmark(JdbcBenchmark bench, Db template, List<String> summary) {
        this.bench = bench;
        this.template = template;
        this.summary = summary;
    }

    void run() throws Exception {
        int flow = bench.number("retention-tasks");
        System.out.printf(Locale.ROOT, "(r) retention: claim throughput on fresh tables and after %,d tasks passed through%n", flow);
        warmUp();
        Figures with = measure(true);
        Figures without = measure(false);
        for (Figures f : List.of(with, without)) {
            String line = String.format(Locale.ROOT, "%s, %s: claims %,.0f tasks/s on fresh tables, %,.0f after %,d tasks passed"
                    + " through: %.1f %%%s", template.name(), f.retention() ? "with retention (archive)" : "without retention",
                    f.fresh(), f.after(), flow, 100 * f.after() / f.fresh(),
                    f.retention() ? String.format(Locale.ROOT, " — goal >= %.0f %%: %s", 100 * GOAL_RATIO,
                            f.after() >= GOAL_RATIO * f.fresh() ? "met" : "short") : "");
            System.out.println("  " + line);
            System.out.println("    " + f.detail());
            summary.add(line);
        }
    }

    /** Runs a claim round and {@code --warm-up} tasks of flow on tables of their own, unmeasured: a cold JVM spends its first seconds compiling. */
    private void warmUp() throws Exception {
        Db db = template.fresh();
        String prefix = JdbcBenchmark.prefix();
        TestPool pool = db.pool();
        try {
            JdbcStore store = Bench.store(pool, db.dialect(), prefix, true);
            int tasks = bench.number("warm-up");
            for (int done = 0; done < tasks; done += 1000) flowBatch(store, done, 1000);
            claims(db, pool, store, prefix, "warm-up (not counted)");
        } finally {
            JdbcBenchmark.cleanUp(db, pool, prefix);
        }
    }

    /** The figures of one variant. */
    private record Figures(boolean retention, double fresh, double after, String detail) {}

    private Figures measure(boolean retention) throws Exception {
        Db db = template.fresh();
        String prefix = JdbcBenchmark.prefix();
        TestPool pool = db.pool();
        Bench.Runner runner = null;
        try {
            JdbcStore store = Bench.store(pool, db.dialect(), prefix, true);
            if (retention) {
                runner = retainer(store);
                runner.runtime().start();
            }
            String who = retention ? "with retention" : "without retention";
            double fresh = claims(db, pool, store, prefix, who + ", fresh tables");
            long t0 = System.nanoTime();
            long maxFinished = flow(db, pool, store, prefix);
            double flowRate = bench.number("retention-tasks") * 1e9 / (System.nanoTime() - t0);
            double drainSeconds = 0;
            if (retention) {
                long d0 = System.nanoTime();
                waitUntilNoneFinished(pool, prefix);
                drainSeconds = (System.nanoTime() - d0) / 1e9;
            }
            double after = claims(db, pool, store, prefix, who + ", after the flow");
            String detail = String.format(Locale.ROOT, "flow %,.0f tasks/s; finished tasks in the hot table during the flow: at most %,d;"
                    + " retention finished %.1f s after the flow; then %,d tasks and %,d history rows hot, %,d tasks archived; %s;"
                    + " load average %s", flowRate, maxFinished, drainSeconds,
                    Bench.count(pool, "select count(*) from " + prefix + "tasks"),
                    Bench.count(pool, "select count(*) from " + prefix + "history"),
                    Bench.count(pool, "select count(*) from " + prefix + "archived_tasks"), sizes(db, pool, prefix), JdbcBenchmark.load());
            return new Figures(retention, fresh, after, detail);
        } finally {
            if (runner != null) runner.close();
            JdbcBenchmark.cleanUp(db, pool, prefix);
        }
    }

    /** A runtime that only retains: it serves the no-op machine on a queue nothing is put on. */
    private Bench.Runner retainer(JdbcStore store) {
        ExecutorService threads = Executors.newFixedThreadPool(3, r -> {
            Thread t = new Thread(r, "bench-retention");
            t.setDaemon(true);
            return t;
        });
        TransitionEngine engine = Bench.engine(store);
        TaskRuntime rt = TaskRuntime.builder(engine).owner("bench-retention").workers(1).executor(threads)
                .pollInterval(Duration.ofSeconds(1)).register(Bench.NOOP, "unused", ctx -> WorkResult.success(), QueueOptions.defaults())
                .retain(Bench.NOOP, Retention.archive(Duration.ZERO))
                .retentionBatch(bench.number("retention-batch"))
                .retentionInterval(Duration.ofMillis(bench.number("retention-interval")))
                .build();
        return new Bench.Runner(rt, engine, threads);
    }

    /** The median of the claim rounds, in tasks per second. */
    private double claims(Db db, TestPool pool, JdbcStore store, String prefix, String what) throws Exception {
        int n = bench.number("retention-claims");
        int batch = bench.number("claim-batch");
        int rounds = bench.number("retention-rounds");
        double[] rates = new double[rounds];
        for (int round = 0; round < rounds; round++) {
            for (int done = 0; done < n; done += 1000) store.createAll(newTasks(Math.min(1000, n - done)));
            if (db.postgres()) Bench.execute(pool, "analyze " + prefix + "tasks");
            List<TaskRecord> claimed = new ArrayList<>(n);
            long t0 = System.nanoTime();
            while (claimed.size() < n) {
                List<Claimed> got = store.claim(new ClaimRequest(Bench.NOOP.name(), Bench.QUEUE, List.of(START), "bench", Instant.now(),
                        Duration.ofMinutes(5), batch, 0));
                if (got.isEmpty()) throw new IllegalStateException("nothing claimed after " + claimed.size() + " of " + n);
                for (Claimed c : got) claimed.add(c.task());
            }
            rates[round] = n * 1e9 / (System.nanoTime() - t0);
            for (int from = 0; from < claimed.size(); from += 1000) finish(store, claimed.subList(from, Math.min(claimed.size(), from + 1000)));
        }
        double[] sorted = rates.clone();
        Arrays.sort(sorted);
        double median = sorted[rounds / 2];
        System.out.printf(Locale.ROOT, "    %s: %,d tasks claimed %d at a time, %d rounds: %s tasks/s, median %,.0f%n", what, n, batch,
                rounds, Arrays.stream(rates).mapToObj(r -> String.format(Locale.ROOT, "%,.0f", r)).toList(), median);
        return median;
    }

    /** Passes the flow's tasks through, 1,000 at a time; returns the most finished tasks the hot table held at a sample. */
    private long flow(Db db, TestPool pool, JdbcStore store, String prefix) throws Exception {
        int n = bench.number("retention-tasks");
        long maxFinished = 0;
        for (int done = 0; done < n; done += 1000) {
            int k = Math.min(1000, n - done);
            flowBatch(store, done, k);
            if ((done / 1000) % 50 == 49) {
                maxFinished = Math.max(maxFinished, Bench.count(pool, "select count(*) from " + prefix + "tasks where state = 'DONE'"));
                if ((done / 1000) % 250 == 249) {
                    System.out.printf(Locale.ROOT, "      %,d tasks through; finished tasks in the hot table: %,d%n", done + k,
                            Bench.count(pool, "select count(*) from " + prefix + "tasks where state = 'DONE'"));
                }
            }
        }
        return maxFinished;
    }

    /** Creates {@code k} tasks, claims and completes them; {@code done} tasks went through before. */
    private static void flowBatch(JdbcStore store, int done, int k) {
        store.createAll(newTasks(k));
        List<TaskRecord> claimed = new ArrayList<>(k);
        while (claimed.size() < k) {
            List<Claimed> got = store.claim(new ClaimRequest(Bench.NOOP.name(), Bench.QUEUE, List.of(START), "bench", Instant.now(),
                    Duration.ofMinutes(5), k - claimed.size(), 0));
            if (got.isEmpty()) throw new IllegalStateException("nothing claimed in the flow after " + (done + claimed.size()));
            for (Claimed c : got) claimed.add(c.task());
        }
        finish(store, claimed);
    }

    /** Completes claimed tasks as a runtime writes results: each moves to DONE with its history entry, its lease released. */
    private static void finish(JdbcStore store, List<TaskRecord> claimed) {
        Instant now = Instant.now();
        List<Change> changes = new ArrayList<>(claimed.size());
        for (TaskRecord t : claimed) {
            Instant at = t.updatedAt().isAfter(now) ? t.updatedAt() : now;
            TaskRecord next = t.toBuilder().state("DONE").lease(null).version(t.version() + 1).updatedAt(at).build();
            changes.add(new Change(t.version(), next, new HistoryEntry(t.id(), next.version(), t.state(), "DONE", "COMPLETE",
                    TriggerSource.SYSTEM, "bench", null, at, null)));
        }
        for (ApplyResult r : store.applyEach(changes)) {
            if (!r.applied()) throw new IllegalStateException("a result was not written: " + r);
        }
    }

    private static void waitUntilNoneFinished(TestPool pool, String prefix) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        while (Bench.count(pool, "select count(*) from " + prefix + "tasks where state = 'DONE'") > 0) {
            if (System.nanoTime() > deadline) throw new IllegalStateException("retention did not catch up within 10 minutes");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
    }

    private static String sizes(Db db, TestPool pool, String prefix) throws Exception {
        if (!db.postgres()) return "table sizes: PostgreSQL only";
        return String.format(Locale.ROOT, "tasks table with indexes %,d kB, history %,d kB, archived tasks %,d kB",
                Bench.count(pool, "select pg_total_relation_size('" + prefix + "tasks') / 1024"),
                Bench.count(pool, "select pg_total_relation_size('" + prefix + "history') / 1024"),
                Bench.count(pool, "select pg_total_relation_size('" + prefix + "archived_tasks') / 1024"));
    }

    private static List<NewTask> newTasks(int n) {
        Instant now = Instant.now();
        List<NewTask> tasks = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            tasks.add(new NewTask(Bench.NOOP.name(), Bench.NOOP.version(), Bench.NOOP.initial().name(), Bench.QUEUE, 0, null,
                    Attributes.EMPTY, null, null, null, now));
        }
        return tasks;
    }
}
