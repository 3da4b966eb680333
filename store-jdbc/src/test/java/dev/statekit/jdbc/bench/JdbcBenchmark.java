package dev.statekit.jdbc.bench;

import dev.statekit.jdbc.TestPool;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.jdbc.Dialect;
import dev.statekit.jdbc.JdbcStore;
import dev.statekit.store.Attributes;
import dev.statekit.store.NewTask;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Throughput and latency of the runtime on the JDBC store, on PostgreSQL (loopback, durable
 * commits) and on H2 (a file):
 *
 * <ol>
 * <li>end to end: 100,000 no-op tasks enqueued on a paused queue in batches, then claimed, started
 *     and completed with history until all are done, by one process and by two (on PostgreSQL the
 *     second is another JVM started with {@link ProcessBuilder} running {@link BenchNode}; H2 is
 *     embedded, so there the second runtime runs in the same JVM with a pool of its own). Worker
 *     counts and batch sizes are swept on fewer tasks first; the best setting runs the full count;</li>
 * <li>enqueue: {@code Store.createAll} in batches of 1,000, and single {@code create}s from several
 *     threads;</li>
 * <li>enqueue → worker start latency on an idle queue: created by this process, started by a runtime
 *     in the second process (woken by LISTEN/NOTIFY), from the creating side's
 *     {@link Instant#now()} before the create to the worker's at its start (microseconds of one
 *     machine's clock). On H2, within one process;</li>
 * <li>groups ({@link GroupBenchmarks}): children of one parent and of many parents against plain
 *     tasks, and the delay from a group's last child to its parent's transition;</li>
 * <li>retention ({@link RetentionBenchmark}, only when {@code --only} names it): claim throughput on
 *     fresh tables and after a million tasks passed through, with retention and without;</li>
 * <li>schedules and unique keys ({@link ScheduleUniqueBenchmarks}, only when {@code --only} names
 *     {@code schedules} or {@code unique}): occurrences created per second with 10,000 schedules due
 *     at once, by one runtime and by two; creations with a unique key against plain ones.</li>
 * <li>rate limits ({@link RateLimitBenchmark}, only when {@code --only} names it): the most starts in
 *     any window of the period, and the starts per period, against a queue's limit, with two
 *     processes.</li>
 * </ol>
 *
 * Run with {@code gradle -q :store-jdbc:bench}; options through {@code -PbenchArgs="..."}:
 * {@code --db pg,h2 --tasks 100000 --sweep-tasks 20000 --warm-up 50000 --workers 2,4,8 --batch 1,64,256,512
 * --processes 1,2 --samples 1000 --only run,enqueue,latency,groups --group-tasks 100000 --parents 10000
 * --per-parent 10 --group-workers 2 --group-batch 512 --group-samples 200 --resolver-poll 1000
 * --retention-tasks 1000000 --retention-claims 20000 --retention-rounds 3 --claim-batch 100 --retention-batch 500
 * --retention-interval 1000 --schedules 10000 --unique-tasks 20000 --unique-threads 1,4 --rate-tasks 1000 --rate-starts 100
 * --rate-period-ms 1000 --rate-workers 4 --pg-url URL --pg-user U --pg-password P --mariadb-url URL --mariadb-user U
 * --mariadb-password P} ({@code --db} takes {@code pg}, {@code mariadb} and {@code h2}; {@code --only retention},
 * {@code --only schedules}, {@code --only unique} and {@code --only ratelimit} run those modes).
 */
public final class JdbcBenchmark {
    static final double GOAL_RUN = 26_000;
    static final double GOAL_ENQUEUE = 80_000;
    static final double GOAL_P99_MS = 20;
    static final int CORES = Runtime.getRuntime().availableProcessors();

    private static final AtomicLong COUNTER = new AtomicLong();
    private static final String RUN = Long.toString(ProcessHandle.current().pid(), 36);

    private final Map<String, String> options;
    /** The CPU time the last end-to-end run took, from the queue's resumption until every result was written. */
    Cpu lastCpu = new Cpu(0, 0, 0);
    private final List<String> summary = new ArrayList<>();
    private Node node;

    private JdbcBenchmark(Map<String, String> options) {
        this.options = options;
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        Map<String, String> options = new LinkedHashMap<>();
        options.put("db", "pg,h2");
        options.put("tasks", "100000");
        options.put("sweep-tasks", "20000");
        options.put("warm-up", "50000");
        options.put("workers", "2,4,8");
        options.put("batch", "1,64,256,512");
        options.put("processes", "1,2");
        options.put("samples", "1000");
        options.put("only", "run,enqueue,latency,groups");
        options.put("group-tasks", "100000");
        options.put("parents", "10000");
        options.put("per-parent", "10");
        options.put("group-workers", "2");
        options.put("group-batch", "512");
        options.put("group-samples", "200");
        options.put("resolver-poll", "1000");
        options.put("retention-tasks", "1000000");
        options.put("retention-claims", "20000");
        options.put("retention-rounds", "3");
        options.put("claim-batch", "100");
        options.put("retention-batch", "500");
        options.put("retention-interval", "1000");
        options.put("schedules", "10000");
        options.put("unique-tasks", "20000");
        options.put("unique-threads", "1,4");
        options.put("rate-tasks", "1000");
        options.put("rate-starts", "100");
        options.put("rate-period-ms", "1000");
        options.put("rate-workers", "4");
        options.put("pg-url", setting("statekit.pg.url", "STATEKIT_PG_URL", "jdbc:postgresql://127.0.0.1:5432/statekit"));
        options.put("pg-user", setting("statekit.pg.user", "STATEKIT_PG_USER", "statekit"));
        options.put("pg-password", setting("statekit.pg.password", "STATEKIT_PG_PASSWORD", "statekit"));
        options.put("mariadb-url", setting("statekit.mariadb.url", "STATEKIT_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/statekit"));
        options.put("mariadb-user", setting("statekit.mariadb.user", "STATEKIT_MARIADB_USER", "statekit"));
        options.put("mariadb-password", setting("statekit.mariadb.password", "STATEKIT_MARIADB_PASSWORD", "statekit"));
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--") || !options.containsKey(args[i].substring(2))) {
                throw new IllegalArgumentException("unknown option " + args[i] + "; options: " + options.keySet());
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        if (args.length % 2 != 0) throw new IllegalArgumentException("option " + args[args.length - 1] + " has no value");
        JdbcBenchmark bench = new JdbcBenchmark(options);
        try {
            bench.runAll();
        } finally {
            if (bench.node != null) bench.node.close();
        }
    }

    private static String setting(String property, String variable, String fallback) {
        String v = System.getProperty(property);
        if (v == null || v.isBlank()) v = System.getenv(variable);
        return v == null || v.isBlank() ? fallback : v;
    }

    List<String> list(String key) {
        return Arrays.asList(options.get(key).split(","));
    }

    private int[] ints(String key) {
        return list(key).stream().mapToInt(Integer::parseInt).toArray();
    }

    int number(String key) {
        return Integer.parseInt(options.get(key));
    }

    private void runAll() throws Exception {
        System.out.println("statekit JDBC store benchmark, " + Runtime.getRuntime().availableProcessors() + " cores, "
                + System.getProperty("java.vm.name") + " " + System.getProperty("java.version") + ", JVM options "
                + java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments());
        List<String> only = list("only");
        for (String name : list("db")) {
            Db db = db(name);
            System.out.println();
            System.out.println("== " + db.describe());
            if (only.contains("enqueue")) enqueue(db);
            if (only.contains("run")) {
                for (int processes : ints("processes")) throughput(db, processes);
            }
            if (only.contains("latency")) latency(db);
            if (only.contains("groups")) new GroupBenchmarks(this, db, summary).run();
            if (only.contains("retention")) new RetentionBenchmark(this, db, summary).run();
            if (only.contains("schedules")) new ScheduleUniqueBenchmarks(this, db, summary).schedules();
            if (only.contains("unique")) new ScheduleUniqueBenchmarks(this, db, summary).unique();
            if (only.contains("ratelimit")) new RateLimitBenchmark(this, db, summary).run();
        }
        System.out.println();
        System.out.println("== summary (goals: end to end >= 26,000 tasks/s, batched enqueue >= 80,000 tasks/s,"
                + " cross-process enqueue -> start p99 < 20 ms; groups: many parents >= 85 % of plain tasks' throughput,"
                + " last child -> parent's transition p99 < 50 ms; retention: claims after the flow >= 90 % of fresh tables)");
        for (String line : summary) System.out.println(line);
    }

    // --- databases ------------------------------------------------------------------------------

    /** A database to measure; {@link #fresh()} returns the one a measurement uses. */
    record Db(String name, Dialect dialect, String url, String user, String password, String settings) {
        TestPool pool() {
            return BenchPool.open(url, user, password);
        }

        boolean postgres() {
            return dialect == Dialect.POSTGRESQL;
        }

        /** Whether the database is a server that a second JVM reaches (PostgreSQL, MariaDB), not an embedded one. */
        boolean server() {
            return dialect != Dialect.H2;
        }

        /** A server: the same database (each run has its own prefix); H2: a new file. */
        Db fresh() {
            if (server()) return this;
            return new Db(name, dialect, h2Url(), user, password, settings);
        }

        String describe() {
            return name + " (" + settings + ")";
        }
    }

    private static Path h2Dir() {
        String dir = System.getProperty("statekit.buildDir");
        return (dir != null ? Paths.get(dir) : Paths.get("build")).toAbsolutePath().resolve("bench-h2");
    }

    private static String h2Url() {
        return "jdbc:h2:file:" + h2Dir().resolve("db-" + RUN + "-" + COUNTER.incrementAndGet());
    }

    private Db db(String name) throws SQLException {
        if (name.equals("h2")) {
            Db probe = new Db("H2", Dialect.H2, h2Url(), "sa", "", "");
            TestPool pool = probe.pool();
            String version;
            try (Connection c = pool.getConnection()) {
                version = c.getMetaData().getDatabaseProductVersion();
            } finally {
                cleanUp(probe, pool, "none_");
            }
            return new Db("H2", Dialect.H2, h2Url(), "sa", "", "H2 " + version + ", embedded, a new file per run under "
                    + h2Dir() + "; a commit does not force the file to disk");
        }
        if (name.equals("mariadb")) return mariaDb();
        if (!name.equals("pg")) throw new IllegalArgumentException("unknown database " + name + " (pg, mariadb or h2)");
        String url = options.get("pg-url");
        StringBuilder settings = new StringBuilder("PostgreSQL at ").append(url);
        TestPool pool = BenchPool.open(url, options.get("pg-user"), options.get("pg-password"));
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("show server_version")) {
                rs.next();
                settings.append(", server ").append(rs.getString(1));
            }
            for (String setting : new String[] {"fsync", "synchronous_commit", "wal_sync_method", "shared_buffers", "max_connections"}) {
                try (ResultSet rs = s.executeQuery("show " + setting)) {
                    rs.next();
                    settings.append(", ").append(setting).append('=').append(rs.getString(1));
                }
            }
        } finally {
            pool.close();
        }
        return new Db("PostgreSQL", Dialect.POSTGRESQL, url, options.get("pg-user"), options.get("pg-password"), settings.toString());
    }

    private Db mariaDb() throws SQLException {
        String url = options.get("mariadb-url");
        StringBuilder settings = new StringBuilder("MariaDB at ").append(url);
        TestPool pool = BenchPool.open(url, options.get("mariadb-user"), options.get("mariadb-password"));
        try (Connection c = pool.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select version(), @@innodb_flush_log_at_trx_commit, @@sync_binlog, @@log_bin,"
                     + " @@innodb_buffer_pool_size, @@max_connections, @@tx_isolation")) {
            rs.next();
            settings.append(", server ").append(rs.getString(1)).append(", innodb_flush_log_at_trx_commit=").append(rs.getString(2))
                    .append(", sync_binlog=").append(rs.getString(3)).append(", log_bin=").append(rs.getString(4))
                    .append(", innodb_buffer_pool_size=").append(rs.getLong(5) >> 20).append("MB, max_connections=").append(rs.getString(6))
                    .append(", server's isolation ").append(rs.getString(7)).append(" (the store reads committed)");
        } finally {
            pool.close();
        }
        return new Db("MariaDB", Dialect.MARIADB, url, options.get("mariadb-user"), options.get("mariadb-password"), settings.toString());
    }

    static String prefix() {
        return "bench" + RUN + "_" + COUNTER.incrementAndGet() + "_";
    }

    static void cleanUp(Db db, TestPool pool, String prefix) {
        try {
            if (db.server()) Bench.drop(pool, prefix);
        } catch (SQLException e) {
            System.out.println("  (could not drop the tables of " + prefix + ": " + e.getMessage() + ")");
        } finally {
            pool.close();
        }
        if (!db.server()) {
            String file = db.url().substring("jdbc:h2:file:".length());
            for (String suffix : new String[] {".mv.db", ".trace.db"}) {
                try {
                    Files.deleteIfExists(Paths.get(file + suffix));
                } catch (IOException e) {
                    System.out.println("  (could not delete " + file + suffix + ")");
                }
            }
        }
    }

    static List<NewTask> newTasks(int n, Instant now) {
        List<NewTask> tasks = new ArrayList<>(n);
        for (int i = 0; i < n; i++) tasks.add(newTask(now));
        return tasks;
    }

    private static NewTask newTask(Instant now) {
        return new NewTask(Bench.NOOP.name(), Bench.NOOP.version(), Bench.NOOP.initial().name(), Bench.QUEUE, 0, null,
                Attributes.EMPTY, null, null, null, now);
    }

    // --- (a) end to end ---------------------------------------------------------------------------

    private void throughput(Db db, int processes) throws Exception {
        int sweepTasks = number("sweep-tasks");
        int tasks = number("tasks");
        String who = processes == 1 ? "1 process"
                : db.server() ? "2 processes (a second JVM)" : "2 runtimes in one JVM, each with its own pool (H2 is embedded)";
        System.out.printf(Locale.ROOT, "(a) end to end, %s: sweep over %,d tasks per setting (workers per process x batch size)%n",
                who, sweepTasks);
        // The first runs of a JVM pay for its compiler: an unmeasured run at the largest setting warms
        // this JVM (and the second one, which serves every run).
        int warmUp = number("warm-up");
        run(db, warmUp, processes, java.util.Arrays.stream(ints("workers")).max().orElseThrow(),
                java.util.Arrays.stream(ints("batch")).max().orElseThrow());
        System.out.printf(Locale.ROOT, "    (a warm-up run of %,d tasks first, not counted)%n", warmUp);
        double best = -1;
        int bestWorkers = 0;
        int bestBatch = 0;
        for (int batch : ints("batch")) {
            for (int workers : ints("workers")) {
                String loadBefore = load();
                double rate = run(db, sweepTasks, processes, workers, batch);
                System.out.printf(Locale.ROOT, "    workers %2d, batch %3d: %,8.0f tasks/s; %s; load average %s -> %s%n", workers, batch, rate,
                        lastCpu.perTask(sweepTasks, CORES), loadBefore, load());
                if (rate > best) {
                    best = rate;
                    bestWorkers = workers;
                    bestBatch = batch;
                }
            }
        }
        String loadBefore = load();
        runStats = List.of();
        double full = run(db, tasks, processes, bestWorkers, bestBatch, db.postgres());
        String line = String.format(Locale.ROOT, "%s, %s: end to end %,.0f tasks/s (%,d no-op tasks; best setting: %d workers per"
                + " process, batch size %d) — goal >= %,.0f: %s; %s; load average %s -> %s", db.name(), who, full, tasks, bestWorkers,
                bestBatch, GOAL_RUN, full >= GOAL_RUN ? "met" : "short", lastCpu.perTask(tasks, CORES), loadBefore, load());
        System.out.println("  " + line);
        for (String l : runStats) System.out.println("    " + l);
        summary.add(line);
    }

    /** What PostgreSQL spent on the last run that asked for it ({@link PgStats}), a line each. */
    private List<String> runStats = List.of();

    /** One end-to-end run; returns tasks per second from the queue's resumption until every result is written. */
    double run(Db template, int n, int processes, int workers, int batch) throws Exception {
        return run(template, n, processes, workers, batch, false);
    }

    /** One end-to-end run, and with {@code stats} what PostgreSQL spent on it, into {@link #runStats}. */
    double run(Db template, int n, int processes, int workers, int batch, boolean stats) throws Exception {
        Db db = template.fresh();
        String prefix = prefix();
        TestPool pool = db.pool();
        TestPool secondPool = null;
        try {
            JdbcStore store = Bench.store(pool, db.dialect(), prefix, true);
            store.pauseQueue(Bench.QUEUE, "loading");
            PgStats statsBefore = stats ? PgStats.settled(pool, prefix) : null;
            Instant now = Instant.now();
            for (int done = 0; done < n; done += 1000) store.createAll(newTasks(Math.min(1000, n - done), now));
            // Fresh statistics, as autovacuum would have them within a minute: planned on the empty table's,
            // the claim query sorts every queued task instead of reading the claim index.
            if (db.server()) Bench.execute(pool, (db.postgres() ? "analyze " : "analyze table ") + prefix + "tasks");
            Bench.Runner first = Bench.runtime(Bench.engine(store), "bench-1", workers, batch, Duration.ofSeconds(1),
                    ctx -> WorkResult.success());
            Bench.Runner second = null;
            Node remote = null;
            if (processes >= 2) {
                if (db.server()) {
                    remote = node(db);
                    remote.start("run " + prefix + " " + workers + " " + batch);
                } else {
                    secondPool = db.pool();
                    second = Bench.runtime(Bench.engine(Bench.store(secondPool, db.dialect(), prefix, false)), "bench-2",
                            workers, batch, Duration.ofSeconds(1), ctx -> WorkResult.success());
                    second.runtime().start();
                }
            }
            first.runtime().start();
            Cpu before = Cpu.now(pool, remote);
            long t0 = System.nanoTime();
            first.resume(Bench.QUEUE);
            if (second != null) second.resume(Bench.QUEUE);      // wakes it too: it shares no engine with the first
            long deadline = t0 + TimeUnit.MINUTES.toNanos(10);
            while (first.completed() + (second != null ? second.completed() : 0) + (remote != null ? remote.completed : 0) < n) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("tasks did not finish within 10 minutes");
                LockSupport.parkNanos(200_000);
            }
            long t1 = System.nanoTime();
            lastCpu = Cpu.now(pool, remote).minus(before);
            first.close();
            if (second != null) second.close();
            if (remote != null) remote.stop();
            String tasks = prefix + "tasks";
            long done = Bench.count(pool, "select count(*) from " + tasks + " where state = 'DONE'");
            long history = Bench.count(pool, "select count(*) from " + prefix + "history");
            if (done != n || history != 2L * n) {
                throw new IllegalStateException(done + " tasks done and " + history + " history entries, expected " + n + " and " + 2 * n);
            }
            if (statsBefore != null) runStats = PgStats.settled(pool, prefix).report(statsBefore, n, prefix);
            return n * 1e9 / (t1 - t0);
        } finally {
            if (secondPool != null) secondPool.close();
            cleanUp(db, pool, prefix);
        }
    }

    /**
     * CPU time, in nanoseconds, of this JVM, of the second JVM and of every process of the
     * PostgreSQL server (read from {@code /proc}, so only where the server runs on this machine, as
     * on loopback; the server should serve nothing else meanwhile).
     */
    record Cpu(long self, long second, long database) {
        static Cpu now(TestPool pool, @org.jspecify.annotations.Nullable Node remote) throws SQLException {
            long self = ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                    .getProcessCpuTime();
            long second = remote != null ? procCpu(remote.process.pid(), false) : 0;
            long database = 0;
            if (pool.postgres()) {
                // Every process of the server: the backends alive now, the background processes (WAL
                // writer, checkpointer, autovacuum), and through the postmaster's children's times
                // those that ended, so that a backend closing between two readings keeps its time.
                long postmaster = 0;
                try (Connection c = pool.getConnection(); Statement s = c.createStatement();
                     ResultSet rs = s.executeQuery("select pid from pg_stat_activity")) {
                    while (rs.next()) {
                        long pid = rs.getLong(1);
                        database += procCpu(pid, false);
                        if (postmaster == 0) postmaster = parent(pid);
                    }
                }
                if (postmaster > 0) database += procCpu(postmaster, false) + procCpu(postmaster, true);
            } else if (pool.mariaDb()) {
                // One process with a thread per connection: the server's process on this machine.
                database = ProcessHandle.allProcesses().filter(p -> p.info().command().map(c -> c.endsWith("/mariadbd")).orElse(false))
                        .mapToLong(p -> procCpu(p.pid(), false)).sum();
            }
            return new Cpu(self, second, database);
        }

        Cpu minus(Cpu before) {
            return new Cpu(self - before.self, second - before.second, database - before.database);
        }

        long total() {
            return self + second + database;
        }

        /**
         * Returns user + system time of a process of this machine from {@code /proc} (with
         * {@code children}, that of its children it has waited for), or 0 when it cannot be read.
         */
        static long procCpu(long pid, boolean children) {
            try {
                String[] f = stat(pid);
                int first = children ? 13 : 11;      // cutime, cstime or utime, stime (fields 16, 17 or 14, 15)
                return (Long.parseLong(f[first]) + Long.parseLong(f[first + 1])) * (1_000_000_000L / CLOCK_TICKS);
            } catch (IOException | RuntimeException e) {
                return 0;
            }
        }

        /** Returns the parent of a process of this machine, or 0 when it cannot be read. */
        static long parent(long pid) {
            try {
                return Long.parseLong(stat(pid)[1]);
            } catch (IOException | RuntimeException e) {
                return 0;
            }
        }

        /** The fields of {@code /proc/PID/stat} after the command name: [0] is the state (field 3). */
        private static String[] stat(long pid) throws IOException {
            String stat = Files.readString(Paths.get("/proc", Long.toString(pid), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        }

        /** Linux's USER_HZ, the unit of {@code /proc/PID/stat} times. */
        static final long CLOCK_TICKS = 100;

        String perTask(int n, int cores) {
            double us = total() / 1e3 / n;
            return String.format(Locale.ROOT, "CPU per task %.0f µs (this JVM %.0f, second JVM %.0f, the database %.0f): at most %,.0f tasks/s"
                    + " on %d idle cores", us, self / 1e3 / n, second / 1e3 / n, database / 1e3 / n, cores * 1e6 / us, cores);
        }
    }

    static String load() {
        return String.format(Locale.ROOT, "%.1f", java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    // --- (b) enqueue ------------------------------------------------------------------------------

    private void enqueue(Db template) throws Exception {
        int n = number("tasks");
        double batched = 0;
        for (int threads : new int[] {1, 2}) {
            for (int round = 0; round < 2; round++) {      // the first round warms up
                double rate = createAll(template, n, threads);
                if (round == 1) {
                    System.out.printf(Locale.ROOT, "(b) enqueue: %,d tasks with Store.createAll in batches of 1,000, %d thread(s): %,.0f tasks/s;"
                            + " load average %s%n", n, threads, rate, load());
                    batched = Math.max(batched, rate);
                }
            }
        }
        int singles = Math.min(n, 20_000);
        double single = createOneByOne(template, singles, 8);
        System.out.printf(Locale.ROOT, "(b) enqueue: %,d tasks with single Store.create calls from 8 threads: %,.0f tasks/s; load average %s%n",
                singles, single, load());
        String line = String.format(Locale.ROOT, "%s: batched enqueue %,.0f tasks/s (Store.createAll, batches of 1,000) — goal >= %,.0f: %s;"
                + " single creates from 8 threads %,.0f tasks/s", template.name(), batched, GOAL_ENQUEUE, batched >= GOAL_ENQUEUE ? "met" : "short",
                single);
        summary.add(line);
    }

    private double createAll(Db template, int n, int threads) throws Exception {
        Db db = template.fresh();
        String prefix = prefix();
        TestPool pool = db.pool();
        try {
            JdbcStore store = Bench.store(pool, db.dialect(), prefix, true);
            Instant now = Instant.now();
            List<List<NewTask>> batches = new ArrayList<>();
            for (int done = 0; done < n; done += 1000) batches.add(newTasks(Math.min(1000, n - done), now));
            AtomicLong next = new AtomicLong();
            long t0 = System.nanoTime();
            inThreads(threads, () -> {
                for (long i; (i = next.getAndIncrement()) < batches.size(); ) store.createAll(batches.get((int) i));
            });
            long t1 = System.nanoTime();
            long count = Bench.count(pool, "select count(*) from " + prefix + "tasks");
            if (count != n) throw new IllegalStateException(count + " tasks created, expected " + n);
            return n * 1e9 / (t1 - t0);
        } finally {
            cleanUp(db, pool, prefix);
        }
    }

    private double createOneByOne(Db template, int n, int threads) throws Exception {
        Db db = template.fresh();
        String prefix = prefix();
        TestPool pool = db.pool();
        try {
            JdbcStore store = Bench.store(pool, db.dialect(), prefix, true);
            AtomicLong next = new AtomicLong();
            long t0 = System.nanoTime();
            inThreads(threads, () -> {
                while (next.getAndIncrement() < n) store.create(newTask(Instant.now()));
            });
            long t1 = System.nanoTime();
            return n * 1e9 / (t1 - t0);
        } finally {
            cleanUp(db, pool, prefix);
        }
    }

    private static void inThreads(int threads, Runnable body) throws InterruptedException {
        List<Thread> all = new ArrayList<>();
        Throwable[] failure = new Throwable[1];
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(body, "bench-enqueue-" + i);
            t.setUncaughtExceptionHandler((th, e) -> failure[0] = e);
            all.add(t);
            t.start();
        }
        for (Thread t : all) t.join();
        if (failure[0] != null) throw new IllegalStateException("an enqueue thread failed", failure[0]);
    }

    // --- (c) latency ------------------------------------------------------------------------------

    private void latency(Db template) throws Exception {
        int samples = number("samples");
        Db db = template.fresh();
        String prefix = prefix();
        TestPool pool = db.pool();
        try {
            JdbcStore store = Bench.store(pool, db.dialect(), prefix, true);
            long[] micros = new long[samples];
            long[] createMicros = new long[samples];
            long[] notifyMicros = new long[samples];     // from the create's commit to the second process hearing of it
            long[] claimMicros = new long[samples];      // from there to the worker's start
            String where;
            if (db.server()) {
                where = "created by this process, started by a runtime in a second JVM (2 workers, woken by "
                        + (db.postgres() ? "LISTEN/NOTIFY" : "the wake-ups table, read every 50 ms") + ", poll every 30 s)";
                Node remote = node(db);
                remote.start("latency " + prefix + " 2");
                int warmUp = Math.min(200, samples);
                for (int i = -warmUp; i < samples; i++) {
                    long before = remote.completed;
                    Instant t0 = Instant.now();
                    long id = store.create(newTask(t0)).task().id();
                    long created = Bench.micros(Instant.now());
                    long[] started = remote.started.poll(30, TimeUnit.SECONDS);
                    if (started == null) throw new IllegalStateException("task " + id + " did not start within 30 s");
                    if (started[0] != id) throw new IllegalStateException("task " + started[0] + " started, expected " + id);
                    if (i >= 0) {
                        micros[i] = started[1] - Bench.micros(t0);
                        createMicros[i] = created - Bench.micros(t0);
                        notifyMicros[i] = started.length > 2 ? started[2] - created : 0;
                        claimMicros[i] = started.length > 2 ? started[1] - started[2] : 0;
                    }
                    while (remote.completed == before) LockSupport.parkNanos(50_000);     // idle again before the next sample
                }
                remote.stop();
            } else {
                where = "created and started in one process (H2 is embedded: the runtime is woken in memory)";
                TransitionEngine engine = Bench.engine(store);
                AtomicLong startedAt = new AtomicLong();
                Bench.Runner rt = Bench.runtime(engine, "bench-latency", 2, 1, Duration.ofSeconds(30), ctx -> {
                    startedAt.set(Bench.micros(Instant.now()));
                    return WorkResult.success();
                });
                rt.runtime().start();
                int warmUp = Math.min(200, samples);
                for (int i = -warmUp; i < samples; i++) {
                    long before = rt.completed();
                    startedAt.set(0);
                    Instant t0 = Instant.now();
                    engine.create(Bench.NOOP, TaskSpec.defaults().queue(Bench.QUEUE));
                    long created = Bench.micros(Instant.now());
                    long s;
                    while ((s = startedAt.get()) == 0) LockSupport.parkNanos(10_000);
                    if (i >= 0) {
                        micros[i] = s - Bench.micros(t0);
                        createMicros[i] = created - Bench.micros(t0);
                    }
                    while (rt.completed() == before) LockSupport.parkNanos(10_000);
                }
                rt.close();
            }
            Arrays.sort(micros);
            Arrays.sort(createMicros);
            Arrays.sort(notifyMicros);
            Arrays.sort(claimMicros);
            double p50 = micros[samples / 2] / 1e3;
            double p99 = micros[Math.min(samples - 1, (int) (samples * 0.99))] / 1e3;
            System.out.printf(Locale.ROOT, "(c) enqueue -> worker start, %,d single tasks on an idle queue, %s: p50 %.2f ms, p99 %.2f ms,"
                    + " max %.2f ms (the create's own commit: p50 %.2f ms); load average %s%n", samples, where, p50, p99,
                    micros[samples - 1] / 1e3, createMicros[samples / 2] / 1e3, load());
            if (db.server()) {
                System.out.printf(Locale.ROOT, "    of which: the create's commit p50 %.2f ms; from its return to a listener in the second process"
                        + " hearing of it p50 %.2f ms; from there to the worker's start p50 %.2f ms%n", createMicros[samples / 2] / 1e3,
                        notifyMicros[samples / 2] / 1e3, claimMicros[samples / 2] / 1e3);
            }
            summary.add(String.format(Locale.ROOT, "%s: enqueue -> start %s p50 %.2f ms, p99 %.2f ms — goal p99 < %.0f ms: %s",
                    db.name(), db.server() ? "across processes" : "in one process", p50, p99, GOAL_P99_MS, p99 < GOAL_P99_MS ? "met" : "short"));
        } finally {
            cleanUp(db, pool, prefix);
        }
    }

    // --- the second process -------------------------------------------------------------------------

    /** Returns the second JVM on {@code db}'s database, started on first use and again for another database. */
    Node node(Db db) throws IOException, InterruptedException {
        if (node != null && !node.url.equals(db.url())) {
            node.close();
            node = null;
        }
        if (node == null) node = new Node(db);
        return node;
    }

    /** A {@link BenchNode} in a JVM of its own, driven through its standard input and output. */
    static final class Node {
        final Process process;
        final Writer in;
        final BlockingQueue<String> control = new LinkedBlockingQueue<>();
        final BlockingQueue<long[]> started = new LinkedBlockingQueue<>();
        /** Lines about group members and owners ("done CHILD PARENT MICROS", "settled PARENT MICROS"). */
        final BlockingQueue<String> events = new LinkedBlockingQueue<>();
        volatile long completed;

        /** The database it works on. */
        final String url;

        Node(Db db) throws IOException {
            this.url = db.url();
            String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
            List<String> command = new ArrayList<>(List.of(java, "-Xms1g", "-Xmx1g", "-XX:+UseParallelGC",
                    "-cp", System.getProperty("java.class.path"), BenchNode.class.getName(), db.url(), db.user(), db.password(),
                    db.dialect().name()));
            process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            Thread reader = new Thread(this::read, "bench-node-reader");
            reader.setDaemon(true);
            reader.start();
        }

        private void read() {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    if (line.startsWith("completed ")) {
                        completed = Long.parseLong(line.substring("completed ".length()));
                    } else if (line.startsWith("done ") || line.startsWith("settled ")) {
                        events.add(line);
                    } else if (line.startsWith("started ")) {
                        String[] w = line.split(" ");
                        started.add(w.length > 3 ? new long[] {Long.parseLong(w[1]), Long.parseLong(w[2]), Long.parseLong(w[3])}
                                : new long[] {Long.parseLong(w[1]), Long.parseLong(w[2])});
                    } else {
                        control.add(line);
                    }
                }
            } catch (IOException e) {
                control.add("failed: " + e);
            }
            control.add("ended");
        }

        private void send(String command, String answer) throws IOException, InterruptedException {
            in.write(command + "\n");
            in.flush();
            String got = control.poll(60, TimeUnit.SECONDS);
            if (!answer.equals(got)) throw new IllegalStateException("the second process answered " + got + " to " + command);
        }

        void start(String command) throws IOException, InterruptedException {
            completed = 0;
            started.clear();
            events.clear();
            send(command, "ready");
        }

        void stop() throws IOException, InterruptedException {
            send("stop", "stopped");
        }

        void close() throws InterruptedException {
            try {
                in.write("exit\n");
                in.flush();
            } catch (IOException e) {
                // already gone
            }
            if (!process.waitFor(30, TimeUnit.SECONDS)) process.destroyForcibly();
        }
    }
}
