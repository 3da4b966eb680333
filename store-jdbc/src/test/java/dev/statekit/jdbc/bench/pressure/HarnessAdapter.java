package dev.statekit.jdbc.bench.pressure;

import dev.statekit.jdbc.JdbcStore;
import dev.statekit.jdbc.TestPool;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Runs statekit as a long-horizon adapter of the PostgreSQL job queue benchmark harness
 * (github.com/hardbyte/postgresql-job-queue-benchmarking): one long-running process whose settings
 * come from the environment, which produces no-op tasks, serves them with a runtime and writes its
 * telemetry as JSON lines on standard output (logs go to standard error).
 *
 * <p>The environment: {@code DATABASE_URL} ({@code postgres://user:password@host:port/db}, or a
 * JDBC URL), {@code SCENARIO} ({@code long_horizon}), {@code PRODUCER_MODE} ({@code fixed} or
 * {@code depth-target}), {@code PRODUCER_RATE}, {@code PRODUCER_BATCH_MAX}, {@code PRODUCER_BATCH_MS},
 * {@code PRODUCER_PACING} ({@code harness}: one {@code Store.createAll} of N tasks per
 * {@code ENQUEUE N} line read on standard input; {@code adapter}: the adapter paces itself, reading
 * the rate from {@code PRODUCER_RATE_CONTROL_FILE} when set), {@code TARGET_DEPTH},
 * {@code WORKER_COUNT}, {@code JOB_PAYLOAD_BYTES}, {@code JOB_WORK_MS}, {@code SAMPLE_EVERY_S},
 * {@code BENCH_INSTANCE_ID}, {@code PRODUCER_ONLY_INSTANCE_ZERO}; and statekit's own
 * {@code STATEKIT_TABLE_PREFIX} (default {@code statekit_}) and {@code STATEKIT_CLAIM_BATCH}
 * (default: the worker count, at most 256).
 *
 * <p>The output: one descriptor line at the start, then every {@code SAMPLE_EVERY_S} (aligned to the
 * wall clock) one line per metric: {@code claim_p50_ms}, {@code claim_p95_ms}, {@code claim_p99_ms}
 * (creation to worker start over the last 30 s), {@code enqueue_rate}, {@code completion_rate}, and
 * from instance 0 only {@code queue_depth} (queued tasks no one holds), {@code total_backlog} (tasks
 * not done) and {@code producer_target_rate}. SIGTERM stops it within about five seconds with exit
 * status 0.
 */
public final class HarnessAdapter {
    /** The system name the adapter reports. */
    static final String SYSTEM = "statekit";
    /** The window of the claim latency percentiles, in seconds. */
    static final int LATENCY_WINDOW_SECONDS = 30;

    private HarnessAdapter() {}

    /** The adapter's settings, read from the environment by {@link #from(Map)}. */
    record Settings(String jdbcUrl, String user, String password, String dbName, String scenario, String producerMode,
                    double producerRate, int batchMax, int batchMillis, String pacing, long targetDepth, int workers,
                    int payloadBytes, int workMillis, int sampleEverySeconds, int instanceId, boolean producerOnlyInstanceZero,
                    @Nullable Path rateControlFile, String prefix, int claimBatch) {

        /** Reads the settings from {@code env}, with the harness's defaults; refuses a missing database URL or a bad value. */
        static Settings from(Map<String, String> env) {
            String url = env.get("DATABASE_URL");
            if (url == null || url.isBlank()) throw new IllegalArgumentException("DATABASE_URL must be set");
            String[] jdbc = jdbc(url.trim());
            String scenario = text(env, "SCENARIO", "long_horizon");
            String mode = text(env, "PRODUCER_MODE", "fixed");
            if (!mode.equals("fixed") && !mode.equals("depth-target")) {
                throw new IllegalArgumentException("PRODUCER_MODE must be fixed or depth-target, was " + mode);
            }
            String pacing = text(env, "PRODUCER_PACING", "adapter");
            if (!pacing.equals("harness") && !pacing.equals("adapter")) {
                throw new IllegalArgumentException("PRODUCER_PACING must be harness or adapter, was " + pacing);
            }
            int workers = positive(env, "WORKER_COUNT", 32);
            String control = env.get("PRODUCER_RATE_CONTROL_FILE");
            String prefix = text(env, "STATEKIT_TABLE_PREFIX", "statekit_");
            return new Settings(jdbc[0], jdbc[1], jdbc[2], jdbc[3], scenario, mode, decimal(env, "PRODUCER_RATE", 800),
                    positive(env, "PRODUCER_BATCH_MAX", 128), positive(env, "PRODUCER_BATCH_MS", 25), pacing,
                    (long) decimal(env, "TARGET_DEPTH", 1000), workers, (int) decimal(env, "JOB_PAYLOAD_BYTES", 256),
                    (int) decimal(env, "JOB_WORK_MS", 1), positive(env, "SAMPLE_EVERY_S", 5), (int) decimal(env, "BENCH_INSTANCE_ID", 0),
                    decimal(env, "PRODUCER_ONLY_INSTANCE_ZERO", 0) != 0, control == null || control.isBlank() ? null : Paths.get(control),
                    prefix, positive(env, "STATEKIT_CLAIM_BATCH", Math.min(256, workers)));
        }

        /** Whether this instance reports the metrics of the whole system (queue depth, backlog, target rate). */
        boolean observer() {
            return instanceId == 0;
        }

        /** Whether this instance creates tasks. */
        boolean produces() {
            return !producerOnlyInstanceZero || instanceId == 0;
        }

        /** Whether the harness paces creation with ENQUEUE lines. */
        boolean harnessPaced() {
            return pacing.equals("harness") && producerMode.equals("fixed");
        }

        /** The tables the harness watches, schema-qualified. */
        List<String> eventTables() {
            return List.of("public." + prefix + "tasks", "public." + prefix + "history");
        }

        private static String text(Map<String, String> env, String key, String fallback) {
            String v = env.get(key);
            return v == null || v.isBlank() ? fallback : v.trim();
        }

        private static double decimal(Map<String, String> env, String key, double fallback) {
            String v = env.get(key);
            if (v == null || v.isBlank()) return fallback;
            try {
                double d = Double.parseDouble(v.trim());
                if (d < 0 || Double.isNaN(d) || Double.isInfinite(d)) throw new NumberFormatException("negative");
                return d;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(key + " must be a number of zero or more, was " + v, e);
            }
        }

        private static int positive(Map<String, String> env, String key, int fallback) {
            double d = decimal(env, key, fallback);
            if (d < 1) throw new IllegalArgumentException(key + " must be 1 or more, was " + env.get(key));
            return (int) d;
        }
    }

    /**
     * Turns a {@code postgres://} or {@code postgresql://} URL into a JDBC URL, user, password and
     * database name (user and password percent-decoded, the query kept); a {@code jdbc:postgresql:}
     * URL is kept as it is, with user and password from its {@code user} and {@code password} parameters.
     */
    static String[] jdbc(String url) {
        if (url.startsWith("jdbc:postgresql:")) {
            URI u = URI.create(url.substring("jdbc:".length()));
            String db = u.getPath() == null ? "" : u.getPath().replaceFirst("^/", "");
            return new String[] {url, parameter(u.getRawQuery(), "user"), parameter(u.getRawQuery(), "password"), db};
        }
        if (!url.startsWith("postgres://") && !url.startsWith("postgresql://")) {
            throw new IllegalArgumentException("DATABASE_URL must start with postgres://, postgresql:// or jdbc:postgresql:, was " + url);
        }
        URI u = URI.create(url);
        String info = u.getRawUserInfo() == null ? "" : u.getRawUserInfo();
        int colon = info.indexOf(':');
        String user = decode(colon < 0 ? info : info.substring(0, colon));
        String password = colon < 0 ? "" : decode(info.substring(colon + 1));
        String host = u.getHost() == null ? "localhost" : u.getHost();
        String db = u.getRawPath() == null ? "" : decode(u.getRawPath().replaceFirst("^/", ""));
        String jdbc = "jdbc:postgresql://" + host + (u.getPort() > 0 ? ":" + u.getPort() : "") + "/" + db
                + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery());
        return new String[] {jdbc, user, password, db};
    }

    private static String parameter(@Nullable String query, String name) {
        if (query == null) return "";
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0 && pair.substring(0, eq).equals(name)) return decode(pair.substring(eq + 1));
        }
        return "";
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    /** The number of tasks an {@code ENQUEUE N} line asks for, or -1 for any other line. */
    static int enqueueToken(String line) {
        String l = line.trim();
        if (!l.startsWith("ENQUEUE ")) return -1;
        try {
            int n = Integer.parseInt(l.substring("ENQUEUE ".length()).trim());
            return n > 0 ? n : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The rate in the control file, or {@code fallback} when there is none or it cannot be read. */
    static double controlRate(@Nullable Path file, double fallback) {
        if (file == null) return fallback;
        try {
            String text = Files.readString(file).trim();
            int eq = text.indexOf('=');      // "PRODUCER_TARGET_RATE=N" as well as "N"
            double rate = Double.parseDouble(eq >= 0 ? text.substring(eq + 1).trim() : text);
            return rate >= 0 ? rate : fallback;
        } catch (IOException | RuntimeException e) {
            return fallback;
        }
    }

    /** Milliseconds from {@code epochMillis} to the next multiple of {@code everySeconds} of the wall clock. */
    static long untilBoundary(long epochMillis, int everySeconds) {
        long period = everySeconds * 1000L;
        return period - Math.floorMod(epochMillis, period);
    }

    /** The time as the harness writes it: ISO 8601 in UTC with milliseconds. */
    static String iso(Instant t) {
        String s = t.truncatedTo(ChronoUnit.MILLIS).toString();
        if (s.length() == 20) s = s.substring(0, 19) + ".000Z";       // a whole second prints without its fraction
        return s;
    }

    /** The descriptor line written at the start. */
    static String descriptor(Settings s, String version, Instant startedAt) {
        return "{\"kind\":\"descriptor\",\"system\":" + json(SYSTEM) + ",\"instance_id\":" + s.instanceId() + ",\"event_tables\":["
                + s.eventTables().stream().map(HarnessAdapter::json).collect(Collectors.joining(",")) + "],\"event_indexes\":[]"
                + ",\"extensions\":[],\"version\":" + json(version) + ",\"schema_version\":" + json("current") + ",\"db_name\":"
                + json(s.dbName()) + ",\"started_at\":" + json(iso(startedAt)) + "}";
    }

    /** One sample line of {@code metric}. */
    static String sample(Instant t, int instanceId, String metric, double value, double windowSeconds) {
        return "{\"t\":" + json(iso(t)) + ",\"system\":" + json(SYSTEM) + ",\"kind\":\"adapter\",\"subject_kind\":\"adapter\","
                + "\"subject\":\"\",\"metric\":" + json(metric) + ",\"value\":" + number(value) + ",\"window_s\":"
                + number(windowSeconds) + ",\"instance_id\":" + instanceId + "}";
    }

    private static String number(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) return "0.0";
        if (v == Math.rint(v) && Math.abs(v) < 1e15) return String.format(Locale.ROOT, "%.1f", v);
        return String.format(Locale.ROOT, "%.3f", v);
    }

    /** {@code s} as a JSON string. */
    static String json(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    else b.append(c);
                }
            }
        }
        return b.append('"').toString();
    }

    /** Pickup latencies over a sliding window: one histogram per sample period, the oldest dropped once the window is full. */
    static final class Rolling {
        private final int periods;
        private final ArrayDeque<Histogram> done = new ArrayDeque<>();
        private final Pressure.Latencies current = new Pressure.Latencies();

        Rolling(int windowSeconds, int everySeconds) {
            this.periods = Math.max(1, (windowSeconds + everySeconds - 1) / everySeconds);
        }

        void record(long micros) {
            current.record(micros);
        }

        /** Closes the current period; returns p50, p95 and p99 over the window in milliseconds (0 without values). */
        synchronized double[] roll() {
            done.addLast(current.take());
            while (done.size() > periods) done.removeFirst();
            Histogram merged = new Histogram();
            for (Histogram h : done) merged.add(h);
            double[] q = {merged.quantileMillis(0.5), merged.quantileMillis(0.95), merged.quantileMillis(0.99)};
            for (int i = 0; i < q.length; i++) if (Double.isNaN(q[i])) q[i] = 0;
            return q;
        }
    }

    /**
     * Runs the adapter until SIGTERM.
     *
     * @param args none: the settings come from the environment
     * @throws Exception when the database cannot be reached at the start
     */
    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        PrintStream log = System.err;
        Settings s;
        try {
            s = Settings.from(System.getenv());
        } catch (IllegalArgumentException e) {
            log.println("[statekit] " + e.getMessage());
            System.exit(2);
            return;
        }
        if (!s.scenario().equals("long_horizon")) {
            log.println("[statekit] SCENARIO " + s.scenario() + " is not supported; this adapter runs long_horizon");
            System.exit(2);
            return;
        }
        new Adapter(s, out, log).run();
    }

    /** The running adapter. */
    private static final class Adapter {
        final Settings s;
        final PrintStream out;
        final PrintStream log;
        final TestPool pool;
        final TestPool side;
        final Tables tables;
        final Rolling latencies;
        final AtomicLong queued = new AtomicLong();
        final AtomicLong backlog = new AtomicLong();
        volatile double target;
        volatile boolean running = true;
        Pressure.@Nullable Served served;
        @Nullable Producer producer;

        Adapter(Settings s, PrintStream out, PrintStream log) {
            this.s = s;
            this.out = out;
            this.log = log;
            this.pool = Pressure.pool(s.jdbcUrl(), s.user(), s.password(), "statekit-harness");
            this.side = Pressure.pool(s.jdbcUrl(), s.user(), s.password(), "statekit-harness-observer");
            this.tables = new Tables(side, s.prefix());
            this.latencies = new Rolling(LATENCY_WINDOW_SECONDS, s.sampleEverySeconds());
            this.target = s.producerMode().equals("fixed") ? s.producerRate() : 0;
        }

        void run() throws Exception {
            JdbcStore store = Pressure.store(pool, s.prefix(), true);
            String version = java.util.Objects.requireNonNullElse(JdbcStore.class.getPackage().getImplementationVersion(), "unreleased");
            out.println(descriptor(s, version, Instant.now()));
            served = new Pressure.Served(store, "statekit-harness-" + s.instanceId() + "-" + ProcessHandle.current().pid(), s.workers(),
                    s.claimBatch(), Duration.ofSeconds(30), latencies::record, s.workMillis());
            String payload = s.payloadBytes() > 0 ? "x".repeat(s.payloadBytes()) : null;
            Producer p = new Producer(store, s.producerMode().equals("fixed") && !s.harnessPaced() && s.produces()
                    ? HarnessAdapter.controlRate(s.rateControlFile(), s.producerRate()) : 0, s.batchMillis(), s.batchMax(), payload, log);
            producer = p;
            Runtime.getRuntime().addShutdownHook(new Thread(this::shutdown, "statekit-harness-shutdown"));
            daemon("statekit-harness-depth", this::observe);
            if (s.produces()) {
                if (s.harnessPaced()) daemon("statekit-harness-tokens", () -> tokens(p));
                else if (s.producerMode().equals("fixed")) {
                    p.start();
                    daemon("statekit-harness-rate", () -> {
                        while (running) {
                            double rate = HarnessAdapter.controlRate(s.rateControlFile(), s.producerRate());
                            target = rate;
                            p.rate(rate);
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(250));
                        }
                    });
                } else daemon("statekit-harness-depth-target", () -> depthTarget(p));
            }
            sample();
        }

        private void daemon(String name, Runnable body) {
            Thread t = new Thread(body, name);
            t.setDaemon(true);
            t.start();
        }

        private void tokens(Producer p) {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while (running && (line = in.readLine()) != null) {
                    int n = enqueueToken(line);
                    if (n > 0) {
                        target = s.producerRate();
                        for (int done = 0; done < n; done += s.batchMax()) p.create(Math.min(s.batchMax(), n - done));
                    }
                }
            } catch (IOException e) {
                log.println("[statekit] standard input: " + e);
            }
        }

        private void depthTarget(Producer p) {
            while (running) {
                long missing = s.targetDepth() - queued.get();
                if (missing > 0) {
                    int n = (int) Math.min(s.batchMax(), missing);
                    if (p.create(n)) queued.addAndGet(n);
                } else {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
                }
            }
        }

        private void observe() {
            while (running) {
                try {
                    queued.set(tables.queued());
                    if (s.observer()) backlog.set(tables.notDone());
                } catch (SQLException e) {
                    // the last values stand until the database answers again
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(s.producerMode().equals("depth-target") ? 100 : 1000));
            }
        }

        private void sample() {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(untilBoundary(System.currentTimeMillis(), s.sampleEverySeconds())));
            Producer p = java.util.Objects.requireNonNull(producer);
            Pressure.Served sv = java.util.Objects.requireNonNull(served);
            long lastCreated = p.created();
            long lastCompleted = sv.completed();
            long last = System.nanoTime();
            long next = last;
            while (running) {
                next += TimeUnit.SECONDS.toNanos(s.sampleEverySeconds());
                for (long wait; running && (wait = next - System.nanoTime()) > 0; ) LockSupport.parkNanos(Math.min(wait, 100_000_000L));
                if (!running) return;
                long now = System.nanoTime();
                double dt = Math.max(1e-3, (now - last) / 1e9);
                last = now;
                long created = p.created();
                long completed = sv.completed();
                double[] q = latencies.roll();
                Instant t = Instant.now();
                int id = s.instanceId();
                int every = s.sampleEverySeconds();
                StringBuilder lines = new StringBuilder();
                lines.append(HarnessAdapter.sample(t, id, "claim_p50_ms", q[0], LATENCY_WINDOW_SECONDS)).append('\n');
                lines.append(HarnessAdapter.sample(t, id, "claim_p95_ms", q[1], LATENCY_WINDOW_SECONDS)).append('\n');
                lines.append(HarnessAdapter.sample(t, id, "claim_p99_ms", q[2], LATENCY_WINDOW_SECONDS)).append('\n');
                lines.append(HarnessAdapter.sample(t, id, "enqueue_rate", (created - lastCreated) / dt, every)).append('\n');
                lines.append(HarnessAdapter.sample(t, id, "completion_rate", (completed - lastCompleted) / dt, every)).append('\n');
                if (s.observer()) {
                    lines.append(HarnessAdapter.sample(t, id, "queue_depth", queued.get(), 0)).append('\n');
                    lines.append(HarnessAdapter.sample(t, id, "total_backlog", backlog.get(), 0)).append('\n');
                    lines.append(HarnessAdapter.sample(t, id, "producer_target_rate", target, 0)).append('\n');
                }
                synchronized (out) {
                    out.print(lines);
                    out.flush();
                }
                lastCreated = created;
                lastCompleted = completed;
            }
        }

        /** On SIGTERM: stops creating and serving within about four seconds, then ends the process with status 0. */
        private void shutdown() {
            running = false;
            Thread stopper = new Thread(() -> {
                try {
                    Producer p = producer;
                    if (p != null) p.close();
                    Pressure.Served sv = served;
                    if (sv != null) sv.runtime.stop(Duration.ofSeconds(3)).get(4, TimeUnit.SECONDS);
                } catch (Exception e) {
                    log.println("[statekit] stopping: " + e);
                }
            }, "statekit-harness-stop");
            stopper.setDaemon(true);
            stopper.start();
            try {
                stopper.join(4_500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            synchronized (out) {
                out.flush();
            }
            log.println("[statekit] long_horizon: shutdown signal received");
            Runtime.getRuntime().halt(0);
        }
    }
}
