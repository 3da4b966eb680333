package dev.statekit.jdbc.bench.pressure;

import dev.statekit.jdbc.JdbcStore;
import dev.statekit.jdbc.TestPool;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Pressure and chaos on the JDBC store on PostgreSQL: no-op tasks offered at a fixed rate
 * ({@code --rate}) by a producer thread that creates them in batches with {@code Store.createAll}
 * every {@code --producer-ms}, served by a runtime of {@code --workers} workers claiming up to
 * {@code --batch} at once, while each scenario puts one pressure on the database:
 *
 * <ol>
 * <li>{@code clean}: the offered rate, nothing else;</li>
 * <li>{@code xmin}: a second connection holds a transaction that took a transaction id open
 *     ({@code --xmin-minutes}), then commits;</li>
 * <li>{@code readers}: {@code --readers} REPEATABLE READ connections scan the tasks and history
 *     tables in a loop, each keeping its snapshot for {@code --reader-snapshot-seconds};</li>
 * <li>{@code overload}: {@code --overload-factor} times the rate for {@code --overload-minutes},
 *     then the rate again (the drain of the backlog is timed);</li>
 * <li>{@code sigkill}: a second JVM ({@link PressureNode}) serves the same tables; a backlog of
 *     {@code --backlog-seconds} of the rate is created at once, the second JVM is killed with
 *     SIGKILL, and the time until every task it held is done (its leases expired and taken over) is
 *     measured;</li>
 * <li>{@code pg-restart}: the server is restarted with {@code --restart-command} (spaces or commas
 *     between its words);</li>
 * <li>{@code terminate}: a side connection terminates the runtime's and producer's backends
 *     {@code --terminate-per-second} times a second for {@code --terminate-minutes};</li>
 * <li>{@code idle-connections}: {@code --idle-connections} idle connections are held for
 *     {@code --idle-minutes}.</li>
 * </ol>
 *
 * A fault comes after {@code --baseline-minutes} at the rate and is followed by
 * {@code --after-minutes}; every duration is multiplied by {@code --minutes-scale}. Every
 * {@code --sample-seconds} a sample is printed: completions per second, pickup latency (creation
 * to worker start) p50 and p99 of the tasks started in the window, the backlog, and dead tuples and
 * size of every table (pg_stat_user_tables). After the last phase the producer stops and the
 * backlog drains; then tasks lost (not done) and run twice (from the history) are counted. Per
 * scenario a summary line, a CSV file and a PNG plot go to {@code --out}.
 *
 * <p>Run with {@code gradle -q :store-jdbc:pressure -PbenchArgs="..."}; PostgreSQL from
 * {@code --pg-url --pg-user --pg-password} (default: database, user and password {@code bench}
 * on 127.0.0.1:5432).
 */
public final class PressureBenchmark {
    /** Every scenario, in the order they run. */
    static final List<String> SCENARIOS = List.of("clean", "xmin", "readers", "overload", "sigkill", "pg-restart", "terminate",
            "idle-connections");

    private static final String RUN = Long.toString(ProcessHandle.current().pid(), 36);
    private static final PrintStream OUT = System.out;

    private final Map<String, String> options;
    private final Faults.Target target;
    private final Path out;
    private double cleanP99 = Double.NaN;
    private final List<String> summary = new ArrayList<>();

    PressureBenchmark(Map<String, String> options) {
        this.options = options;
        this.target = new Faults.Target(options.get("pg-url"), options.get("pg-user"), options.get("pg-password"));
        this.out = Paths.get(options.get("out"));
    }

    /** The options and their defaults. */
    static Map<String, String> defaults() {
        Map<String, String> o = new LinkedHashMap<>();
        o.put("scenarios", String.join(",", SCENARIOS));
        o.put("rate", "500");
        o.put("minutes-scale", "1");
        o.put("sample-seconds", "5");
        o.put("workers", "4");
        o.put("batch", "64");
        o.put("producer-ms", "50");
        o.put("producer-batch", "1000");
        o.put("lease-seconds", "30");
        o.put("clean-minutes", "5");
        o.put("baseline-minutes", "1");
        o.put("after-minutes", "2");
        o.put("xmin-minutes", "10");
        o.put("readers-minutes", "10");
        o.put("readers", "4");
        o.put("reader-snapshot-seconds", "45");
        o.put("overload-minutes", "5");
        o.put("overload-factor", "1.5");
        o.put("backlog-seconds", "10");
        o.put("restart-command", "pg_ctlcluster 15 main restart");
        o.put("terminate-minutes", "3");
        o.put("terminate-per-second", "4");
        o.put("idle-minutes", "5");
        o.put("idle-connections", "300");
        o.put("drain-seconds", "120");
        o.put("keep-tables", "false");
        o.put("backlog-from", "database");
        o.put("print-classpath", "false");
        o.put("log-level", "error");
        String build = System.getProperty("statekit.buildDir");
        o.put("out", (build != null ? Paths.get(build) : Paths.get("build")).resolve("pressure").toString());
        o.put("pg-url", setting("statekit.pressure.url", "jdbc:postgresql://127.0.0.1:5432/bench"));
        o.put("pg-user", setting("statekit.pressure.user", "bench"));
        o.put("pg-password", setting("statekit.pressure.password", "bench"));
        return o;
    }

    private static String setting(String property, String fallback) {
        String v = System.getProperty(property);
        return v == null || v.isBlank() ? fallback : v;
    }

    /** Reads {@code --name value} pairs over the defaults; an unknown name or a name without a value is refused. */
    static Map<String, String> parse(String[] args) {
        Map<String, String> options = defaults();
        if (args.length % 2 != 0) throw new IllegalArgumentException("option " + args[args.length - 1] + " has no value");
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || !options.containsKey(args[i].substring(2))) {
                throw new IllegalArgumentException("unknown option " + args[i] + "; options: " + options.keySet());
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        for (String s : options.get("scenarios").split(",")) {
            if (!SCENARIOS.contains(s)) throw new IllegalArgumentException("unknown scenario " + s + "; scenarios: " + SCENARIOS);
        }
        return options;
    }

    /**
     * Runs the scenarios {@code --scenarios} names.
     *
     * @param args {@code --name value} options (see the class comment)
     * @throws Exception when a scenario cannot run
     */
    public static void main(String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        Map<String, String> options = parse(args);
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", options.get("log-level"));
        if (Boolean.parseBoolean(options.get("print-classpath"))) {
            OUT.println(System.getProperty("java.class.path"));      // the class path of the harness adapter too
            return;
        }
        new PressureBenchmark(options).runAll();
    }

    private double number(String key) {
        return Double.parseDouble(options.get(key));
    }

    private int integer(String key) {
        return Integer.parseInt(options.get(key));
    }

    /** A duration option in minutes, scaled, in seconds. */
    private double minutes(String key) {
        return number(key) * number("minutes-scale") * 60;
    }

    private void runAll() throws Exception {
        OUT.println("statekit pressure benchmark, " + Runtime.getRuntime().availableProcessors() + " cores, "
                + System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        OUT.println(describeServer());
        OUT.printf(Locale.ROOT, "offered rate %s tasks/s, %s workers, claim batch %s, lease %s s, producer every %s ms, samples every %s s,"
                        + " minutes scaled by %s; output to %s%n", options.get("rate"), options.get("workers"), options.get("batch"),
                options.get("lease-seconds"), options.get("producer-ms"), options.get("sample-seconds"), options.get("minutes-scale"),
                out.toAbsolutePath());
        Files.createDirectories(out);
        for (String scenario : options.get("scenarios").split(",")) {
            OUT.println();
            OUT.println("== " + scenario);
            new Scenario(scenario).run();
        }
        OUT.println();
        OUT.println("== summary");
        for (String line : summary) OUT.println(line);
    }

    private String describeServer() throws SQLException {
        StringBuilder b = new StringBuilder("PostgreSQL at ").append(target.url());
        try (Connection c = target.connect(Pressure.SIDE_APPLICATION); Statement s = c.createStatement()) {
            for (String setting : new String[] {"server_version", "max_connections", "shared_buffers", "synchronous_commit",
                    "autovacuum_naptime", "autovacuum_vacuum_scale_factor"}) {
                try (ResultSet rs = s.executeQuery("show " + setting)) {
                    rs.next();
                    b.append(", ").append(setting).append('=').append(rs.getString(1));
                }
            }
        }
        return b.toString();
    }

    /** One count at one time: seconds since the scenario's start, tasks created, tasks completed. */
    private record Tick(double seconds, long created, long completed) {}

    /** One scenario's run: its tables, runtime, producer, second process, samples and faults. */
    private final class Scenario {
        final String name;
        final String prefix;
        final double rate = number("rate");
        final TestPool pool;
        final TestPool side;
        final Tables tables;
        final JdbcStore store;
        final Pressure.Latencies latencies = new Pressure.Latencies();
        final Histogram all = new Histogram();
        final List<Sample> samples = new ArrayList<>();
        final List<Tick> ticks = new ArrayList<>();
        final List<Plot.Span> spans = new ArrayList<>();
        final List<String> notes = new ArrayList<>();
        final long t0 = System.nanoTime();
        volatile String phase = "start";
        volatile double targetRate = 0;
        @Nullable Producer producer;
        Pressure.@Nullable Served served;
        @Nullable Child child;
        double faultEnd = Double.NaN;
        double overloadEnd = Double.NaN;
        long createdAtStop;
        long completedAtStop;
        private double lastSample;
        private long lastCreated;
        private long lastCompleted;
        private boolean headerPrinted;

        Scenario(String name) {
            this.name = name;
            this.prefix = "pressure_" + RUN + "_" + name.replace("-", "") + "_";
            this.pool = Pressure.pool(target.url(), target.user(), target.password(), Pressure.APPLICATION);
            this.side = Pressure.pool(target.url(), target.user(), target.password(), Pressure.SIDE_APPLICATION);
            this.tables = new Tables(side, prefix);
            this.store = Pressure.store(pool, prefix, true);
        }

        double now() {
            return (System.nanoTime() - t0) / 1e9;
        }

        long created() {
            Producer p = producer;
            return p == null ? 0 : p.created();
        }

        long completed() {
            Pressure.Served s = served;
            Child c = child;
            return (s == null ? 0 : s.completed()) + (c == null ? 0 : c.completed.get());
        }

        void run() throws Exception {
            ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "pressure-sampler");
                t.setDaemon(true);
                return t;
            });
            try {
                served = new Pressure.Served(store, "pressure-main-" + ProcessHandle.current().pid(), integer("workers"),
                        integer("batch"), Duration.ofSeconds(integer("lease-seconds")), latencies::record, 0);
                if (name.equals("sigkill")) child = new Child(prefix, latencies::record);
                targetRate = rate;
                producer = new Producer(store, rate, integer("producer-ms"), integer("producer-batch"), null, OUT).start();
                int every = integer("sample-seconds");
                long[] n = {0};
                sampler.scheduleAtFixedRate(() -> {
                    try {
                        tick();
                        if (++n[0] % every == 0) sample();
                    } catch (RuntimeException e) {
                        OUT.println("  (sampling failed: " + e + ")");
                    }
                }, 1, 1, TimeUnit.SECONDS);
                scenario();
                phase = "drain";
                createdAtStop = created();
                completedAtStop = completed();
                targetRate = 0;
                Producer p = producer;
                if (p != null) p.close();
                drain();
                sampler.shutdown();
                if (!sampler.awaitTermination(1, TimeUnit.MINUTES)) throw new IllegalStateException("sampler still running");
                sample();
                finish();
            } finally {
                sampler.shutdownNow();
                Producer p = producer;
                if (p != null) p.close();
                Pressure.Served s = served;
                if (s != null) s.close();
                Child c = child;
                if (c != null) c.close();
                pool.close();
                if (!Boolean.parseBoolean(options.get("keep-tables"))) {
                    try {
                        tables.drop();
                    } catch (SQLException e) {
                        OUT.println("  (could not drop the tables of " + prefix + ": " + e.getMessage() + ")");
                    }
                }
                side.close();
            }
        }

        private void scenario() throws Exception {
            double baseline = minutes("baseline-minutes");
            double after = minutes("after-minutes");
            switch (name) {
                case "clean" -> hold("clean", minutes("clean-minutes"));
                case "xmin" -> {
                    hold("baseline", baseline);
                    double from = now();
                    try (Faults.Fault f = Faults.xmin(target)) {
                        hold("xmin held", minutes("xmin-minutes"));
                        notes.add(f.describe());
                    }
                    fault(from, "transaction held");
                    hold("after", Math.max(after, 60 * Math.min(1, number("minutes-scale"))));
                }
                case "readers" -> {
                    hold("baseline", baseline);
                    double from = now();
                    try (Faults.Fault f = Faults.readers(target, integer("readers"), List.of(prefix + "tasks", prefix + "history"),
                            number("reader-snapshot-seconds"))) {
                        hold("readers", minutes("readers-minutes"));
                        notes.add(f.describe());
                    }
                    fault(from, "readers");
                    hold("after", after);
                }
                case "overload" -> {
                    hold("baseline", baseline);
                    double from = now();
                    double factor = number("overload-factor");
                    setRate(rate * factor);
                    hold("overload", minutes("overload-minutes"));
                    setRate(rate);
                    fault(from, factor + "x rate");
                    overloadEnd = faultEnd;
                    hold("after", after);
                }
                case "sigkill" -> sigkill(baseline, after);
                case "pg-restart" -> {
                    hold("baseline", baseline);
                    phase = "restart";
                    double from = now();
                    Faults.Restart r = Faults.restart(target, options.get("restart-command").replace(',', ' '));
                    fault(from, "restart");
                    double back = awaitCompletion(from);
                    notes.add(String.format(Locale.ROOT, "restart command %.1f s (exit %d%s), server unreachable until %.1f s after its start,"
                                    + " tasks completing again %s", r.commandSeconds(), r.exitCode(),
                            r.output().isEmpty() ? "" : ": " + r.output().replace('\n', ' '), r.outageSeconds(),
                            Double.isNaN(back) ? "not within 5 minutes" : String.format(Locale.ROOT, "%.1f s after its start", back)));
                    hold("after", after);
                }
                case "terminate" -> {
                    hold("baseline", baseline);
                    double from = now();
                    try (Faults.Fault f = Faults.terminator(target, Pressure.APPLICATION, number("terminate-per-second"), OUT)) {
                        hold("terminate", minutes("terminate-minutes"));
                        notes.add(f.describe());
                    }
                    fault(from, "pg_terminate_backend");
                    hold("after", after);
                }
                case "idle-connections" -> {
                    hold("baseline", baseline);
                    double from = now();
                    try (Faults.Fault f = Faults.idleConnections(target, integer("idle-connections"), OUT)) {
                        hold("idle conns", minutes("idle-minutes"));
                        notes.add(f.describe());
                    }
                    fault(from, "idle connections");
                    hold("after", after);
                }
                default -> throw new IllegalArgumentException("unknown scenario " + name);
            }
        }

        private void sigkill(double baseline, double after) throws Exception {
            hold("baseline", baseline);
            Child c = java.util.Objects.requireNonNull(child);
            phase = "backlog";
            int backlog = (int) (rate * number("backlog-seconds"));
            Producer p = java.util.Objects.requireNonNull(producer);
            for (int done = 0; done < backlog; done += 1000) p.create(Math.min(1000, backlog - done));
            // The kill comes when the second process holds leases (a no-op task is held only from its claim to its result).
            long seenUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() < seenUntil && tables.leasedBy(c.owner).length == 0) LockSupport.parkNanos(1_000_000);
            double killedAt = now();
            long completedBefore = c.completed.get();
            c.kill();
            fault(killedAt, "SIGKILL");
            phase = "killed";
            long[] held = tables.leasedBy(c.owner);
            double lease = integer("lease-seconds");
            double wait = Math.max(after, 2 * lease + 10);
            CompletableFuture<Double> takeover = CompletableFuture.supplyAsync(() -> {
                while (now() < killedAt + wait + 60) {
                    try {
                        if (tables.doneOf(held) == held.length) return now() - killedAt;
                    } catch (SQLException e) {
                        // asked again
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
                }
                return Double.NaN;
            });
            hold("after kill", wait);
            double took = takeover.get();
            notes.add(String.format(Locale.ROOT, "backlog of %,d tasks created at once; the killed process had completed %,d tasks and"
                            + " held %d leases (lease %.0f s); %s", backlog, completedBefore, held.length, lease,
                    held.length == 0 ? "nothing to take over"
                            : Double.isNaN(took) ? "its tasks were not all done within " + (int) (wait + 60) + " s"
                            : String.format(Locale.ROOT, "all of them done again %.1f s after the kill", took)));
        }

        private void setRate(double r) {
            targetRate = r;
            Producer p = producer;
            if (p != null) p.rate(r);
        }

        private void fault(double from, String label) {
            faultEnd = now();
            spans.add(new Plot.Span(from, faultEnd, label));
        }

        private void hold(String label, double seconds) {
            phase = label;
            long until = System.nanoTime() + (long) (seconds * 1e9);
            for (long left; (left = until - System.nanoTime()) > 0; ) LockSupport.parkNanos(Math.min(left, 100_000_000L));
        }

        /** Waits until a task completes after the fault's end; returns when, in seconds since {@code from}, or NaN. */
        private double awaitCompletion(double from) {
            long before = completed();
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            while (System.nanoTime() < deadline) {
                if (completed() > before) return now() - from;
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
            return Double.NaN;
        }

        /** Whether the backlog drained within the drain window: only then is a task not done a task lost. */
        private boolean drained = true;

        private void drain() {
            double limit = Math.max(number("drain-seconds"), 3 * integer("lease-seconds"));
            long deadline = System.nanoTime() + (long) (limit * 1e9);
            while (System.nanoTime() < deadline) {
                try {
                    if (tables.notDone() == 0) return;
                } catch (SQLException e) {
                    // asked again
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(250));
            }
            notes.add("the backlog did not drain within " + (int) limit + " s");
            drained = false;
        }

        private synchronized void tick() {
            ticks.add(new Tick(now(), created(), completed()));
        }

        private synchronized void sample() {
            double t = now();
            long created = created();
            long completed = completed();
            double dt = Math.max(1e-3, t - lastSample);
            Histogram window = latencies.take();
            all.add(window);
            Map<String, Tables.Stat> stats;
            try {
                stats = tables.stats();
            } catch (SQLException e) {
                stats = Map.of();
            }
            long backlog = created - completed;
            boolean counted = true;
            if (!"counters".equals(options.get("backlog-from"))) {
                // Read through the claim and lease indexes: while vacuum is held back, that passes every
                // entry claims left since, a load of its own on the database (--backlog-from counters).
                try {
                    backlog = tables.notDone();
                    counted = false;
                } catch (SQLException e) {
                    // the benchmark's own count stands
                }
            }
            Sample s = new Sample(t, phase, targetRate, (created - lastCreated) / dt, (completed - lastCompleted) / dt,
                    window.quantileMillis(0.5), window.quantileMillis(0.99), backlog, counted, stats);
            lastSample = t;
            lastCreated = created;
            lastCompleted = completed;
            samples.add(s);
            if (!headerPrinted) {
                headerPrinted = true;
                OUT.printf(Locale.ROOT, "  %6s  %-11s %8s %9s %9s %8s %8s %9s %10s %10s %9s %8s %8s %8s%n", "time s", "phase", "target/s",
                        "created/s", "done/s", "p50 ms", "p99 ms", "backlog", "dead tasks", "dead hist", "dead oth", "MB tasks",
                        "MB hist", "MB oth");
            }
            OUT.printf(Locale.ROOT, "  %6.0f  %-11s %8.0f %9.0f %9.0f %8s %8s %9s %10s %10s %9s %8s %8s %8s%n", s.seconds(), s.phase(),
                    s.target(), s.created(), s.completed(), millis(s.p50()), millis(s.p99()), (counted ? "~" : "") + s.backlog(),
                    count(s.dead("tasks")), count(s.dead("history")), count(s.deadOther()), mb(s.bytes("tasks")),
                    mb(s.bytes("history")), mb(s.bytesOther()));
        }

        private void finish() throws Exception {
            long lost = -1;
            long rows = -1;
            Tables.Twice twice = null;
            for (int attempt = 0; attempt < 20 && twice == null; attempt++) {
                try {
                    lost = tables.notDoneScan();
                    rows = tables.rows();
                    twice = tables.twice();
                } catch (SQLException e) {
                    LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
                }
            }
            if (twice == null) throw new IllegalStateException("could not read the tables of " + prefix + " after the run");
            Producer p = java.util.Objects.requireNonNull(producer);
            if (rows != p.created()) {
                notes.add(String.format(Locale.ROOT, "%,d tasks in the table, %,d creations acknowledged (%,d failed: a creation whose"
                        + " answer was lost may have committed)", rows, p.created(), p.failed()));
            } else if (p.failed() > 0) {
                notes.add(String.format(Locale.ROOT, "%,d creations failed (not created)", p.failed()));
            }
            double p99 = all.quantileMillis(0.99);
            if (name.equals("clean")) cleanP99 = p99;
            long maxDeadTasks = samples.stream().mapToLong(s -> s.dead("tasks")).max().orElse(-1);
            long maxDeadHistory = samples.stream().mapToLong(s -> s.dead("history")).max().orElse(-1);
            double offered = createdAtStop == 0 ? Double.NaN : 100.0 * completedAtStop / createdAtStop;
            String recovery = recovery();
            String drain = "";
            if (!Double.isNaN(overloadEnd)) drain = "; backlog drained " + drained(overloadEnd) + " after the overload";
            String line = String.format(Locale.ROOT, "%s: completions %.1f %% of offered (%,d of %,d); pickup p50 %s ms, p99 %s ms%s;"
                            + " max dead tuples tasks %s, history %s; %s; twice %,d (re-runs after a release %,d); recovery %s%s",
                    name, offered, completedAtStop, createdAtStop, millis(all.quantileMillis(0.5)), millis(p99),
                    name.equals("clean") || Double.isNaN(cleanP99) ? ""
                            : String.format(Locale.ROOT, " (clean %s ms, %.1fx)", millis(cleanP99), p99 / cleanP99),
                    count(maxDeadTasks), count(maxDeadHistory),
                    drained ? String.format(Locale.ROOT, "lost %,d", lost)
                            : String.format(Locale.ROOT, "not done when the drain ended %,d (lost: not known)", lost),
                    twice.total(), twice.startedAgain(), recovery, drain);
            OUT.println("  " + line);
            for (String note : notes) OUT.println("    " + note);
            summary.add(line);
            for (String note : notes) summary.add("    " + note);
            writeCsv();
            writePlot();
        }

        /** The time from the fault's end until the completion rate is within 10 % of the offered rate with a falling or small backlog. */
        private String recovery() {
            if (Double.isNaN(faultEnd)) return "-";
            double small = Math.max(50, rate);
            List<Tick> list;
            synchronized (this) {
                list = new ArrayList<>(ticks);
            }
            for (int i = 3; i < list.size(); i++) {
                Tick now = list.get(i);
                Tick before = list.get(i - 3);
                if (now.seconds() < faultEnd) continue;
                double completions = (now.completed() - before.completed()) / (now.seconds() - before.seconds());
                long backlog = now.created() - now.completed();
                long backlogBefore = before.created() - before.completed();
                if (completions >= 0.9 * rate && (backlog <= small || backlog < backlogBefore)) {
                    boolean first = list.get(i - 1).seconds() < faultEnd;
                    return first ? "at once (the first second after the fault)"
                            : String.format(Locale.ROOT, "%.0f s", now.seconds() - faultEnd);
                }
            }
            return "not within the run";
        }

        private String drained(double from) {
            double small = Math.max(50, rate);
            synchronized (this) {
                for (Tick t : ticks) {
                    if (t.seconds() >= from && t.created() - t.completed() <= small) {
                        return String.format(Locale.ROOT, "%.0f s", t.seconds() - from);
                    }
                }
            }
            return "not within the run";
        }

        private void writeCsv() throws IOException {
            TreeSet<String> names = new TreeSet<>();
            for (Sample s : samples) names.addAll(s.tables().keySet());
            StringBuilder b = new StringBuilder("seconds,phase,target_per_s,created_per_s,completed_per_s,pickup_p50_ms,pickup_p99_ms,backlog");
            for (String n : names) b.append(",dead_").append(n);
            for (String n : names) b.append(",bytes_").append(n);
            b.append('\n');
            for (Sample s : samples) {
                b.append(String.format(Locale.ROOT, "%.1f,%s,%.1f,%.1f,%.1f,%s,%s,%d", s.seconds(), s.phase(), s.target(), s.created(),
                        s.completed(), Double.isNaN(s.p50()) ? "" : String.format(Locale.ROOT, "%.3f", s.p50()),
                        Double.isNaN(s.p99()) ? "" : String.format(Locale.ROOT, "%.3f", s.p99()), s.backlog()));
                for (String n : names) b.append(',').append(s.tables().containsKey(n) ? Long.toString(s.dead(n)) : "");
                for (String n : names) b.append(',').append(s.tables().containsKey(n) ? Long.toString(s.bytes(n)) : "");
                b.append('\n');
            }
            Files.writeString(out.resolve(name + ".csv"), b.toString());
        }

        private void writePlot() throws IOException {
            int n = samples.size();
            double[] t = new double[n];
            double[][] v = new double[10][n];
            for (int i = 0; i < n; i++) {
                Sample s = samples.get(i);
                t[i] = s.seconds();
                v[0][i] = s.target();
                v[1][i] = s.created();
                v[2][i] = s.completed();
                v[3][i] = s.p50();
                v[4][i] = s.p99();
                v[5][i] = s.backlog();
                v[6][i] = s.dead("tasks") < 0 ? Double.NaN : s.dead("tasks");
                v[7][i] = s.dead("history") < 0 ? Double.NaN : s.dead("history");
                v[8][i] = s.deadOther() < 0 ? Double.NaN : s.deadOther();
            }
            Plot.write(out.resolve(name + ".png"), "statekit pressure: " + name + " (" + (long) rate + " tasks/s offered)", t, List.of(
                    new Plot.Panel("tasks per second", List.of(new Plot.Series("target", v[0], Plot.COLORS[7]),
                            new Plot.Series("created", v[1], Plot.COLORS[0]), new Plot.Series("completed", v[2], Plot.COLORS[2]))),
                    new Plot.Panel("pickup latency, ms (created -> worker start)", List.of(new Plot.Series("p50", v[3], Plot.COLORS[0]),
                            new Plot.Series("p99", v[4], Plot.COLORS[1]))),
                    new Plot.Panel("backlog, tasks (created, not done)", List.of(new Plot.Series("backlog", v[5], Plot.COLORS[3]))),
                    new Plot.Panel("dead tuples (pg_stat_user_tables)", List.of(new Plot.Series("tasks", v[6], Plot.COLORS[1]),
                            new Plot.Series("history", v[7], Plot.COLORS[4]), new Plot.Series("other tables", v[8], Plot.COLORS[5])))),
                    spans);
        }
    }

    private static String millis(double ms) {
        return Double.isNaN(ms) ? "-" : ms >= 100 ? String.format(Locale.ROOT, "%.0f", ms) : String.format(Locale.ROOT, "%.1f", ms);
    }

    private static String count(long n) {
        return n < 0 ? "-" : Long.toString(n);
    }

    private static String mb(long bytes) {
        return bytes < 0 ? "-" : String.format(Locale.ROOT, "%.1f", bytes / 1048576.0);
    }

    /** A {@link PressureNode} in a JVM of its own on the scenario's tables. */
    private final class Child {
        final Process process;
        final Writer in;
        final AtomicLong completed = new AtomicLong();
        final CompletableFuture<String> ready = new CompletableFuture<>();
        final String owner;
        /** Where the pickup latencies the second process reports go. */
        final java.util.function.LongConsumer latencies;

        Child(String prefix, java.util.function.LongConsumer latencies) throws Exception {
            this.latencies = latencies;
            String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
            List<String> command = new ArrayList<>(Arrays.asList(java, "-Xms256m", "-Xmx512m", "-XX:+UseParallelGC",
                    "-cp", System.getProperty("java.class.path"), PressureNode.class.getName(), target.url(), target.user(),
                    target.password(), prefix, options.get("workers"), options.get("batch"), options.get("lease-seconds")));
            process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            Thread reader = new Thread(this::read, "pressure-node-reader");
            reader.setDaemon(true);
            reader.start();
            owner = ready.get(60, TimeUnit.SECONDS);
        }

        private void read() {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.startsWith("started ")) {
                        latencies.accept(Long.parseLong(line.substring("started ".length())));
                    } else if (line.startsWith("completed ")) {
                        completed.set(Long.parseLong(line.substring("completed ".length())));
                    } else if (line.startsWith("ready ")) {
                        ready.complete(line.substring("ready ".length()));
                    }
                }
            } catch (IOException | RuntimeException e) {
                ready.completeExceptionally(e);
            }
            ready.completeExceptionally(new IllegalStateException("the second process ended before it was ready"));
        }

        void kill() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }

        void close() throws InterruptedException {
            if (process.isAlive()) {
                try {
                    in.write("exit\n");
                    in.flush();
                } catch (IOException e) {
                    // already gone
                }
                if (!process.waitFor(60, TimeUnit.SECONDS)) process.destroyForcibly();
            }
        }
    }

}
