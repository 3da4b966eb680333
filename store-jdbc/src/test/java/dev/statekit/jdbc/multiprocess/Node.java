package dev.statekit.jdbc.multiprocess;

import dev.statekit.core.runtime.TaskRuntimeBuilder;
import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import dev.statekit.jdbc.JdbcStore;
import dev.statekit.jdbc.TestPool;
import dev.statekit.test.fixtures.Jobs;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * One process of {@link MultiProcessSafetyTest}: a statekit runtime on the shared PostgreSQL tables
 * of a prefix, serving the queue limited to one running task and the unlimited queues. Its worker
 * records each attempt in the test's effects table, idempotently (a re-run of the same attempt
 * is a no-op), does a little CPU work and succeeds, recording its fencing token on the task. The
 * effects go through connections of their own, whose commits do not wait for the disk; the store's
 * connections keep the server's settings.
 *
 * <p>Arguments are {@code key=value}: url, user, password, prefix, owner, app (the connections'
 * application name, so the test can tell when the database has let go of them), lease, heartbeat, poll
 * (milliseconds), workers, batch, limitedWork and bulkWork (CPU work units per task), queues (the
 * unlimited queues, comma-separated). The process runs until its standard input closes (the test
 * closes it, or the test's process died), then stops its runtime and exits.
 */
public final class Node {
    static final String LIMITED = "limited";

    private static volatile long sink;

    private Node() {
    }

    /** Runs one node; see the class comment for the arguments. */
    public static void main(String[] args) throws Exception {
        Map<String, String> a = new LinkedHashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq < 0) throw new IllegalArgumentException("expected key=value, was " + arg);
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        String owner = a.get("owner");
        String prefix = a.get("prefix");
        Server server = Server.valueOf(a.getOrDefault("server", Server.POSTGRESQL.name()));
        Properties properties = server.properties(a.get("user"), a.get("password"));
        server.name(properties, a.get("app"));
        Properties effectProperties = server.withoutDiskWait(server.properties(a.get("user"), a.get("password")));
        server.name(effectProperties, a.get("app"));
        try (TestPool pool = new TestPool(a.get("url"), properties, 12);
             TestPool effectPool = new TestPool(a.get("url"), effectProperties, 8)) {
            JdbcStore store = JdbcStore.builder(pool).tablePrefix(prefix).dialect(server.dialect).build();
            TransitionEngine engine = TransitionEngine.builder().store(store).build();
            String effects = server.insertIgnoring(prefix + "effects (task_id, fencing_token, node, queue) values (?, ?, ?, ?)");
            String ended = "update " + prefix + "effects set ended_at = " + server.clockNow()
                    + " where task_id = ? and fencing_token = ? and ended_at is null";
            TaskRuntimeBuilder b = TaskRuntime.builder(engine).owner(owner)
                    .workers(Integer.parseInt(a.get("workers")))
                    .batchSize(Integer.parseInt(a.get("batch")))
                    .leaseDuration(Duration.ofMillis(Long.parseLong(a.get("lease"))))
                    .heartbeat(Duration.ofMillis(Long.parseLong(a.get("heartbeat"))))
                    .pollInterval(Duration.ofMillis(Long.parseLong(a.get("poll"))));
            b.register(Jobs.SIMPLE, LIMITED, worker(effectPool, effects, ended, owner, LIMITED, Integer.parseInt(a.get("limitedWork"))),
                    QueueOptions.defaults().concurrency(1));
            for (String queue : a.get("queues").split(",")) {
                b.register(Jobs.SIMPLE, queue, worker(effectPool, effects, ended, owner, queue, Integer.parseInt(a.get("bulkWork"))),
                        QueueOptions.defaults().concurrency(0));
            }
            TaskRuntime runtime = b.build();
            runtime.start();
            out.println("READY " + owner);
            try {
                while (System.in.read() >= 0) {
                    // the test never writes: the end of input is the signal to stop
                }
            } catch (IOException e) {
                out.println("standard input failed: " + e);
            }
            out.println("STOPPING " + owner);
            runtime.stop(Duration.ofSeconds(5)).get(30, TimeUnit.SECONDS);
            runtime.close();
            out.println("STOPPED " + owner + " after " + runtime.completedCount() + " results");
        }
        System.exit(0);
    }

    private static Worker<Jobs.State> worker(TestPool pool, String effects, String ended, String owner, String queue, int work) {
        return ctx -> {
            long id = ctx.task().id();
            long token = ctx.fencingToken();
            try (Connection c = pool.getConnection()) {
                try (PreparedStatement ps = c.prepareStatement(effects)) {
                    ps.setLong(1, id);
                    ps.setLong(2, token);
                    ps.setString(3, owner);
                    ps.setString(4, queue);
                    ps.executeUpdate();
                }
                burn(work);
                try (PreparedStatement ps = c.prepareStatement(ended)) {
                    ps.setLong(1, id);
                    ps.setLong(2, token);
                    ps.executeUpdate();
                }
            } catch (SQLException e) {
                return WorkResult.retryable("EFFECT_NOT_RECORDED", e.toString());
            }
            return WorkResult.success(Map.of("token", Long.toString(token)));
        };
    }

    /** Does {@code units} units of CPU work (each some ten microseconds), without sleeping. */
    static void burn(int units) {
        long x = sink;
        for (int u = 0; u < units; u++) {
            for (int i = 0; i < 2_000; i++) x = x * 6364136223846793005L + 1442695040888963407L ^ (x >>> 29);
        }
        sink = x;
    }
}
