package dev.statekit.jdbc.bench;

import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.jdbc.JdbcStore;
import dev.statekit.jdbc.TestPool;
import dev.statekit.jdbc.bench.JdbcBenchmark.Db;
import dev.statekit.jdbc.bench.JdbcBenchmark.Node;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The rate-limit figure of the JDBC benchmark ({@code --only ratelimit}): {@code --rate-tasks}
 * no-op tasks on a queue limited to {@code --rate-starts} starts per {@code --rate-period-ms}, served
 * by two runtimes at once (on PostgreSQL the second in another JVM, a {@link BenchNode}; on H2 in
 * this JVM with a pool of its own). Every start is read back from the history (the claim's entry,
 * with the claim's time). It reports the precision of the limit: the most starts in any window of
 * the period (the limit holds when it is at most the limit), the starts per period over the run
 * against the limit (how much of the allowed rate the claims used), and how the starts split
 * between the processes.
 */
final class RateLimitBenchmark {
    private final JdbcBenchmark bench;
    private final Db template;
    private final List<String> summary;

    RateLimitBenchmark(JdbcBenchmark bench, Db template, List<String> summary) {
        this.bench = bench;
        this.template = template;
        this.summary = summary;
    }

    void run() throws Exception {
        int tasks = bench.number("rate-tasks");
        int starts = bench.number("rate-starts");
        Duration period = Duration.ofMillis(bench.number("rate-period-ms"));
        int workers = bench.number("rate-workers");
        Db db = template.fresh();
        String prefix = JdbcBenchmark.prefix();
        TestPool pool = db.pool();
        TestPool secondPool = null;
        try {
            JdbcStore store = Bench.store(pool, db.dialect(), prefix, true);
            store.pauseQueue(Bench.QUEUE, "loading");
            Instant now = Instant.now();
            for (int done = 0; done < tasks; done += 1000) store.createAll(JdbcBenchmark.newTasks(Math.min(1000, tasks - done), now));
            QueueOptions limited = QueueOptions.defaults().rateLimit(starts, period);
            Bench.Runner first = Bench.runtime(Bench.engine(store), "bench-1", workers, 1, Duration.ofMillis(100),
                    ctx -> WorkResult.success(), limited);
            Bench.Runner second = null;
            Node remote = null;
            String who;
            if (db.server()) {
                remote = bench.node(db);
                remote.start("ratelimit " + prefix + " " + workers + " " + starts + " " + period.toMillis());
                who = "2 processes";
            } else {
                secondPool = db.pool();
                second = Bench.runtime(Bench.engine(Bench.store(secondPool, db.dialect(), prefix, false)), "bench-2", workers, 1,
                        Duration.ofMillis(100), ctx -> WorkResult.success(), limited);
                second.runtime().start();
                who = "2 runtimes in one process";
            }
            first.runtime().start();
            first.resume(Bench.QUEUE);
            long deadline = System.nanoTime() + period.multipliedBy(tasks / starts + 30).toNanos();
            while (first.completed() + (second != null ? second.completed() : remote.completed) < tasks) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("the rate-limited tasks did not finish in time");
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
            first.close();
            if (second != null) second.close();
            if (remote != null) remote.stop();

            List<Instant> at = new ArrayList<>();
            Map<String, Integer> byOwner = new TreeMap<>();
            try (Connection c = pool.getConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("select at, actor from " + prefix + "history where to_state = 'RUNNING' order by at")) {
                while (rs.next()) {
                    at.add(rs.getTimestamp(1).toInstant());
                    byOwner.merge(String.valueOf(rs.getString(2)), 1, Integer::sum);
                }
            }
            int most = 0;
            for (int i = 0, j = 0; i < at.size(); i++) {
                while (!at.get(j).plus(period).isAfter(at.get(i))) j++;
                most = Math.max(most, i - j + 1);
            }
            double seconds = Duration.between(at.get(0), at.get(at.size() - 1)).toNanos() / 1e9;
            double perPeriod = (at.size() - 1) / seconds * (period.toNanos() / 1e9);
            String line = String.format(Locale.ROOT, "%s, %s: rate limit %d starts per %d ms, %,d starts over %.1f s: at most %d in any"
                            + " window of the period (limit %s), %.1f per period on average (%.0f %% of the limit); starts by process %s",
                    db.name(), who, starts, period.toMillis(), at.size(), seconds, most, most <= starts ? "held" : "EXCEEDED", perPeriod,
                    100 * perPeriod / starts, byOwner.values());
            System.out.println("  " + line);
            summary.add(line);
        } finally {
            if (secondPool != null) secondPool.close();
            JdbcBenchmark.cleanUp(db, pool, prefix);
        }
    }

}
