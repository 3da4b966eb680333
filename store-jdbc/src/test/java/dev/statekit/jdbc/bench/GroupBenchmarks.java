package dev.statekit.jdbc.bench;

import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.jdbc.JdbcStore;
import dev.statekit.jdbc.TestPool;
import dev.statekit.jdbc.bench.JdbcBenchmark.Cpu;
import dev.statekit.jdbc.bench.JdbcBenchmark.Db;
import dev.statekit.store.Attributes;
import dev.statekit.store.CreateResult;
import dev.statekit.store.GroupWrite;
import dev.statekit.store.NewTask;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The group figures of the JDBC benchmark, measured in one run next to plain tasks:
 *
 * <ol>
 * <li>children of one parent ({@code --group-tasks}, 100,000): claimed and completed by a runtime,
 *     counted in their parent's group by the resolution passes, until the parent's settling
 *     transition is written; against the same number of plain no-op tasks;</li>
 * <li>many parents ({@code --parents} 10,000 × {@code --per-parent} 10) until every parent has
 *     settled, against as many plain tasks: the throughput ratio;</li>
 * <li>the delay from a group's last child's completion being written to its parent's settling
 *     transition being written, on an idle system, with groups of {@code --per-parent} children:
 *     across processes (the children served by one runtime, the passes run by another, in another
 *     JVM on PostgreSQL and in the same JVM with its own engine and pool on H2, polling every
 *     {@code --resolver-poll} ms), and within the runtime that ran the children.</li>
 * </ol>
 *
 * Both throughput modes run one process with {@code --group-workers} workers and batch size
 * {@code --group-batch}, polling every second; the children are created before the measurement on
 * a paused queue, and the marks of their creation are counted by passes before it starts.
 */
final class GroupBenchmarks {
    static final double GOAL_RATIO = 0.85;
    static final double GOAL_DELAY_P99_MS = 50;

    private final JdbcBenchmark bench;
    private final Db template;
    private final List<String> summary;
    private final int workers;
    private final int batch;

    /** The figures of one grouped run. */
    private record Run(double rate, double childrenRate, double tailMs, Cpu cpu, double setupMarksSeconds, long marks, long visits) {
        /** On PostgreSQL, the marks written and the groups' visits by passes during the run, per child and per parent. */
        String writes(int children, int parents) {
            if (marks < 0) return "";
            return String.format(Locale.ROOT, "; %.2f marks per child, %.1f visits of passes per parent", (double) marks / children,
                    (double) visits / parents);
        }
    }

    GroupBenchmarks(JdbcBenchmark bench, Db template, List<String> summary) {
        this.bench = bench;
        this.template = template;
        this.summary = summary;
        this.workers = bench.number("group-workers");
        this.batch = bench.number("group-batch");
    }

    void run() throws Exception {
        int tasks = bench.number("group-tasks");
        int parents = bench.number("parents");
        int perParent = bench.number("per-parent");
        int warmUp = bench.number("warm-up");
        System.out.printf(Locale.ROOT, "groups: 1 process, %d workers, batch %d, poll 1 s; a warm-up of %,d plain tasks and %,d children"
                + " in groups of %d first, not counted%n", workers, batch, warmUp, warmUp, perParent);
        bench.run(template, warmUp, 1, workers, batch);
        grouped(warmUp / perParent, perParent);

        String load = JdbcBenchmark.load();
        double plain = bench.run(template, tasks, 1, workers, batch);
        Cpu plainCpu = bench.lastCpu;
        Run one = grouped(1, tasks);
        System.out.printf(Locale.ROOT, "groups (a) %,d children of one parent: %,.0f tasks/s until the parent settled (children done at"
                        + " %,.0f/s, parent settled %.0f ms after the last child); %s. Plain tasks: %,.0f tasks/s; %s; ratio %.0f %%;"
                        + " (creation marks counted before: %.1f s); load average %s -> %s%n",
                tasks, one.rate(), one.childrenRate(), one.tailMs(), one.cpu().perTask(tasks, JdbcBenchmark.CORES) + one.writes(tasks, 1), plain,
                plainCpu.perTask(tasks, JdbcBenchmark.CORES), 100 * one.rate() / plain, one.setupMarksSeconds(), load, JdbcBenchmark.load());
        summary.add(String.format(Locale.ROOT, "%s: groups (a) %,d children of one parent %,.0f tasks/s until it settled, plain tasks"
                + " %,.0f tasks/s (%.0f %%)", template.name(), tasks, one.rate(), plain, 100 * one.rate() / plain));

        load = JdbcBenchmark.load();
        int many = parents * perParent;
        double plainMany = bench.run(template, many, 1, workers, batch);
        Cpu plainManyCpu = bench.lastCpu;
        Run manyRun = grouped(parents, perParent);
        double ratio = manyRun.rate() / plainMany;
        System.out.printf(Locale.ROOT, "groups (b) %,d parents x %d children: %,.0f tasks/s until every parent settled (children done at"
                        + " %,.0f/s, last parent %.0f ms after the last child); %s. Plain tasks: %,.0f tasks/s; %s; ratio %.0f %%;"
                        + " (creation marks counted before: %.1f s); load average %s -> %s%n",
                parents, perParent, manyRun.rate(), manyRun.childrenRate(), manyRun.tailMs(), manyRun.cpu().perTask(many, JdbcBenchmark.CORES) + manyRun.writes(many, parents),
                plainMany, plainManyCpu.perTask(many, JdbcBenchmark.CORES), 100 * ratio, manyRun.setupMarksSeconds(), load, JdbcBenchmark.load());
        summary.add(String.format(Locale.ROOT, "%s: groups (b) %,d parents x %d: %,.0f tasks/s against %,.0f plain — ratio %.0f %%, goal"
                        + " >= %.0f %%: %s", template.name(), parents, perParent, manyRun.rate(), plainMany, 100 * ratio, 100 * GOAL_RATIO,
                ratio >= GOAL_RATIO ? "met" : "short"));

        for (String poll : bench.list("resolver-poll")) delays(true, Long.parseLong(poll), perParent);
        delays(false, 1000, perParent);
    }

    // --- throughput -------------------------------------------------------------------------------

    /** Runs {@code parents} groups of {@code perParent} children until every parent has settled. */
    private Run grouped(int parents, int perParent) throws Exception {
        Db db = template.fresh();
        String prefix = JdbcBenchmark.prefix();
        TestPool pool = db.pool();
        int n = parents * perParent;
        try {
            JdbcStore store = Bench.store(pool, db.dialect(), prefix, true);
            store.pauseQueue(Bench.PIECES, "loading");
            List<Long> ids = createGroups(store, parents, perParent);
            if (db.postgres()) {
                for (String table : new String[] {"tasks", "marks", "groups"}) Bench.execute(pool, "analyze " + prefix + table);
            }
            TransitionEngine engine = Bench.engine(store);
            long m0 = System.nanoTime();
            while (store.pendingMarks() > 0) engine.resolveGroups(List.of(Bench.BATCH), 1_000);
            double marksSeconds = (System.nanoTime() - m0) / 1e9;

            AtomicLong settled = new AtomicLong();
            AtomicLong lastSettled = new AtomicLong();
            engine.subscribe((machine, task, entry) -> {
                if (machine.equals(Bench.BATCH.name()) && entry.event().equals(Bench.BatchEvent.PIECES_DONE.name())) {
                    lastSettled.set(System.nanoTime());
                    settled.incrementAndGet();
                }
            });
            Bench.Runner rt = Bench.groupRuntime(engine, "bench-groups", workers, batch, Duration.ofSeconds(1), true, true);
            rt.runtime().start();
            long[] writesBefore = writes(db, pool, prefix);
            Cpu before = Cpu.now(pool, null);
            long t0 = System.nanoTime();
            rt.resume(Bench.PIECES);
            long childrenDone = 0;
            long deadline = t0 + TimeUnit.MINUTES.toNanos(10);
            while (settled.get() < parents) {
                if (childrenDone == 0 && rt.completed() >= n) childrenDone = System.nanoTime();
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(settled.get() + " of " + parents + " parents settled within 10 minutes, "
                            + rt.completed() + " of " + n + " children done");
                }
                LockSupport.parkNanos(100_000);
            }
            long t1 = lastSettled.get();
            if (childrenDone == 0 || childrenDone > t1) childrenDone = t1;
            Cpu cpu = Cpu.now(pool, null).minus(before);
            rt.close();
            long[] writesAfter = writes(db, pool, prefix);
            check(pool, prefix, ids, parents, perParent);
            return new Run(n * 1e9 / (t1 - t0), n * 1e9 / (childrenDone - t0), (t1 - childrenDone) / 1e6, cpu, marksSeconds,
                    writesAfter[0] - writesBefore[0], writesAfter[1] - writesBefore[1]);
        } finally {
            JdbcBenchmark.cleanUp(db, pool, prefix);
        }
    }

    /**
     * Returns, on PostgreSQL, how many marks were ever written (the marks' identity sequence) and how
     * many times passes checked a group (the check sequence); {-1, -1} on H2.
     */
    private static long[] writes(Db db, TestPool pool, String prefix) throws Exception {
        if (!db.postgres()) return new long[] {-1, -1};
        return new long[] {
            Bench.count(pool, "select coalesce(pg_sequence_last_value(pg_get_serial_sequence('" + prefix + "marks', 'id')::regclass), 0)"),
            Bench.count(pool, "select coalesce(pg_sequence_last_value('" + prefix + "check_seq'::regclass), 0)")};
    }

    /** Creates the parents and their sealed groups of children, in writes of up to 1,000 children; returns the parents' ids. */
    private static List<Long> createGroups(JdbcStore store, int parents, int perParent) {
        Instant now = Instant.now();
        List<Long> ids = new ArrayList<>(parents);
        for (int done = 0; done < parents; done += 1000) {
            List<NewTask> batch = new ArrayList<>();
            for (int i = done; i < Math.min(parents, done + 1000); i++) {
                batch.add(new NewTask(Bench.BATCH.name(), Bench.BATCH.version(), Bench.BATCH.initial().name(), "batches", 0, null,
                        Attributes.EMPTY, null, null, null, now));
            }
            for (CreateResult r : store.createAll(batch)) ids.add(r.task().id());
        }
        if (perParent >= 1000) {
            for (long parent : ids) {
                for (int off = 0; off < perParent; off += 1000) {
                    List<NewTask> children = children(parent, Math.min(1000, perParent - off), now);
                    boolean last = off + 1000 >= perParent;
                    store.applyAll(List.of(), List.of(last ? GroupWrite.sealed(parent, children) : GroupWrite.open(parent, children)));
                }
            }
        } else {
            int perWrite = Math.max(1, 1000 / perParent);
            for (int i = 0; i < ids.size(); i += perWrite) {
                List<GroupWrite> writes = new ArrayList<>();
                for (long parent : ids.subList(i, Math.min(ids.size(), i + perWrite))) {
                    writes.add(GroupWrite.sealed(parent, children(parent, perParent, now)));
                }
                store.applyAll(List.of(), writes);
            }
        }
        return ids;
    }

    private static List<NewTask> children(long parent, int n, Instant now) {
        List<NewTask> children = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            children.add(new NewTask(Bench.PIECE.name(), Bench.PIECE.version(), Bench.PIECE.initial().name(), Bench.PIECES, 0, parent,
                    Attributes.EMPTY, null, null, null, now));
        }
        return children;
    }

    /** Checks that every child is done, every parent settled once, and every group counts all its children as done. */
    private static void check(TestPool pool, String prefix, List<Long> ids, int parents, int perParent) throws Exception {
        long done = Bench.count(pool, "select count(*) from " + prefix + "tasks where machine = '" + Bench.PIECE.name() + "' and state = 'DONE'");
        long settled = Bench.count(pool, "select count(*) from " + prefix + "tasks where machine = '" + Bench.BATCH.name()
                + "' and state = 'SETTLED'");
        long events = Bench.count(pool, "select count(*) from " + prefix + "history where event = 'PIECES_DONE'");
        long counted = Bench.count(pool, "select count(*) from " + prefix + "group_counts where machine = '" + Bench.PIECE.name()
                + "' and state = 'DONE' and n = " + perParent);
        long groups = Bench.count(pool, "select count(*) from " + prefix + "group_counts");
        if (done != (long) parents * perParent || settled != parents || events != parents || counted != parents || groups != parents
                || ids.size() != parents) {
            throw new IllegalStateException(done + " children done, " + settled + " parents settled with " + events + " settling events, "
                    + counted + " of " + groups + " group counts with all " + perParent + " children done; expected "
                    + (long) parents * perParent + " and " + parents);
        }
    }

    // --- delay ------------------------------------------------------------------------------------

    /**
     * Measures the delay from a group's last child's completion to its parent's settlement, one
     * group at a time on an idle system: across processes ({@code across}: the passes run by another
     * runtime, which polls every {@code pollMs}) or within the runtime that ran the children.
     */
    private void delays(boolean across, long pollMs, int perParent) throws Exception {
        int samples = bench.number("group-samples");
        Db db = template.fresh();
        String prefix = JdbcBenchmark.prefix();
        TestPool pool = db.pool();
        TestPool secondPool = null;
        List<Bench.Runner> runners = new ArrayList<>();
        JdbcBenchmark.Node remote = null;
        try {
            JdbcStore store = Bench.store(pool, db.dialect(), prefix, true);
            TransitionEngine creator = Bench.engine(store);
            BlockingQueue<String> events;
            String where;
            if (db.server()) {
                remote = bench.node(db);
                remote.start("groups " + prefix + " 2 " + (across ? "no" : "yes") + " 1000");
                events = remote.events;
                where = across ? "children run by a second JVM, passes by a runtime of this one polling every " + pollMs + " ms"
                        : "children and passes in the second JVM's runtime";
            } else {
                events = new LinkedBlockingQueue<>();
                secondPool = db.pool();
                TransitionEngine serving = Bench.engine(Bench.store(secondPool, db.dialect(), prefix, false));
                serving.subscribe(BenchNode.announcer(events::add));
                Bench.Runner server = Bench.groupRuntime(serving, "bench-pieces", 2, 1, Duration.ofSeconds(1), true, !across);
                runners.add(server);
                where = across ? "children run by one runtime, passes by another of the same JVM (own engine and pool) polling every "
                        + pollMs + " ms" : "children and passes in one runtime";
            }
            if (across) {
                TransitionEngine resolving = Bench.engine(store);
                resolving.subscribe(BenchNode.announcer(events::add));
                runners.add(Bench.groupRuntime(resolving, "bench-resolver", 1, 1, Duration.ofMillis(pollMs), false, true));
            }
            for (Bench.Runner r : runners) r.runtime().start();
            long[] micros = new long[samples];
            int warmUp = Math.min(20, samples);
            long pauseMicros = across ? pollMs * 1000 : 5_000;
            for (int i = -warmUp; i < samples; i++) {
                // a random pause first, so that the groups end at random points of the resolver's polling
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(ThreadLocalRandom.current().nextLong(pauseMicros)));
                long parent = creator.create(Bench.BATCH, TaskSpec.defaults().queue("batches")).task().id();
                List<TaskSpec> specs = new ArrayList<>(perParent);
                for (int c = 0; c < perParent; c++) specs.add(TaskSpec.defaults().queue(Bench.PIECES));
                creator.addChildren(Bench.BATCH, parent, specs, true);
                long delay = await(events, parent, perParent, pollMs);
                if (i >= 0) micros[i] = delay;
            }
            Arrays.sort(micros);
            double p50 = micros[samples / 2] / 1e3;
            double p99 = micros[Math.min(samples - 1, (int) (samples * 0.99))] / 1e3;
            System.out.printf(Locale.ROOT, "groups (c) last child -> parent's transition, %,d groups of %d on an idle system, %s: p50 %.2f ms,"
                            + " p99 %.2f ms, min %.2f ms, max %.2f ms; load average %s%n", samples, perParent, where, p50, p99, micros[0] / 1e3,
                    micros[samples - 1] / 1e3, JdbcBenchmark.load());
            summary.add(String.format(Locale.ROOT, "%s: groups (c) last child -> parent %s p50 %.2f ms, p99 %.2f ms — goal p99 < %.0f ms: %s",
                    template.name(), across ? "across processes (resolver polls every " + pollMs + " ms)" : "within the children's runtime",
                    p50, p99, GOAL_DELAY_P99_MS, p99 < GOAL_DELAY_P99_MS ? "met" : "short"));
        } finally {
            for (Bench.Runner r : runners) r.close();
            if (remote != null) remote.stop();
            if (secondPool != null) secondPool.close();
            JdbcBenchmark.cleanUp(db, pool, prefix);
        }
    }

    /**
     * Waits for the completions of {@code parent}'s {@code children} and its settlement; returns the
     * microseconds from the last completion to the settlement (each stamped after its write).
     */
    private static long await(BlockingQueue<String> events, long parent, int children, long pollMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(30_000 + 3 * pollMs);
        int done = 0;
        long lastChild = 0;
        long settled = 0;
        Set<Long> seen = new HashSet<>();
        while (done < children || settled == 0) {
            String line = events.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new IllegalStateException("group of task " + parent + ": " + done + " of " + children + " children done, "
                        + (settled == 0 ? "not settled" : "settled") + " after 30 s");
            }
            String[] w = line.split(" ");
            if (w[0].equals("done") && Long.parseLong(w[2]) == parent && seen.add(Long.parseLong(w[1]))) {
                done++;
                lastChild = Math.max(lastChild, Long.parseLong(w[3]));
            } else if (w[0].equals("settled") && Long.parseLong(w[1]) == parent) {
                settled = Long.parseLong(w[2]);
            }
        }
        return settled - lastChild;
    }
}
