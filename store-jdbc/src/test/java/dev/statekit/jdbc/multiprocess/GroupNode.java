package dev.statekit.jdbc.multiprocess;

import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import dev.statekit.jdbc.JdbcStore;
import dev.statekit.jdbc.TestPool;
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
 * One process of {@link GroupsAcrossProcessesTest}: a statekit runtime on the shared PostgreSQL
 * tables of a prefix, serving the pieces and the summaries of {@link Batches} and resolving the
 * batches' groups. A piece does a little CPU work and succeeds, except that a flaky piece's first
 * attempt fails with a retryable error. A summary records each attempt in the test's attempts table
 * (keyed by task and fencing token, with the state its batch had at the start and start and end
 * times from the database clock), does some CPU work and succeeds, recording its fencing token on
 * the task.
 *
 * <p>Arguments are {@code key=value}: url, user, password, prefix, owner, app (the connections'
 * application name), lease, heartbeat, poll (milliseconds), workers, batch, pieceWork and
 * summaryWork (CPU work units per task, see {@link Node#burn}). The process runs until its standard
 * input closes, then stops its runtime and exits.
 */
public final class GroupNode {
    private GroupNode() {
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
        String app = a.get("app");
        Server server = Server.valueOf(a.getOrDefault("server", Server.POSTGRESQL.name()));
        Properties properties = server.properties(a.get("user"), a.get("password"));
        server.name(properties, app);
        Properties attemptProperties = server.withoutDiskWait(server.properties(a.get("user"), a.get("password")));
        server.name(attemptProperties, app);
        try (TestPool pool = new TestPool(a.get("url"), properties, 12);
             TestPool attemptPool = new TestPool(a.get("url"), attemptProperties, 4)) {
            JdbcStore store = JdbcStore.builder(pool).tablePrefix(prefix).dialect(server.dialect).build();
            TransitionEngine engine = TransitionEngine.builder().store(store).build();
            int pieceWork = Integer.parseInt(a.get("pieceWork"));
            Worker<Batches.PieceState> pieces = ctx -> {
                // fails until it has failed once: a release by a killed node starts a fresh retry budget, the last error stays
                if (ctx.task().attributes().contains(Batches.FLAKY) && ctx.task().record().lastError() == null) {
                    return WorkResult.retryable("FLAKY", "piece " + ctx.task().id() + " fails its first attempt");
                }
                Node.burn(pieceWork);
                return WorkResult.success();
            };
            TaskRuntime runtime = TaskRuntime.builder(engine).owner(owner)
                    .workers(Integer.parseInt(a.get("workers")))
                    .batchSize(Integer.parseInt(a.get("batch")))
                    .leaseDuration(Duration.ofMillis(Long.parseLong(a.get("lease"))))
                    .heartbeat(Duration.ofMillis(Long.parseLong(a.get("heartbeat"))))
                    .pollInterval(Duration.ofMillis(Long.parseLong(a.get("poll"))))
                    .register(Batches.PIECE, Batches.PIECES, pieces, QueueOptions.defaults().concurrency(0))
                    .register(Batches.SUMMARY, Batches.SUMMARIES, summaries(server, attemptPool, prefix, app, Integer.parseInt(a.get("summaryWork"))),
                            QueueOptions.defaults().concurrency(0))
                    .resolves(Batches.BATCH)
                    .build();
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

    private static Worker<Batches.SummaryState> summaries(Server server, TestPool pool, String prefix, String app, int work) {
        String started = server.insertIgnoring(prefix + "attempts (task_id, fencing_token, node, batch_state)"
                + " select ?, ?, ?, state from " + prefix + "tasks where id = ?");
        String ended = "update " + prefix + "attempts set ended_at = " + server.clockNow()
                + " where task_id = ? and fencing_token = ? and ended_at is null";
        return ctx -> {
            long id = ctx.task().id();
            long token = ctx.fencingToken();
            long batch = Long.parseLong(ctx.task().attributes().getOrDefault(Batches.BATCH_ID, "0"));
            try (Connection c = pool.getConnection()) {
                try (PreparedStatement ps = c.prepareStatement(started)) {
                    ps.setLong(1, id);
                    ps.setLong(2, token);
                    ps.setString(3, app);
                    ps.setLong(4, batch);
                    if (ps.executeUpdate() != 1) return WorkResult.retryable("ATTEMPT_NOT_RECORDED", "batch " + batch + " not found");
                }
                Node.burn(work);
                try (PreparedStatement ps = c.prepareStatement(ended)) {
                    ps.setLong(1, id);
                    ps.setLong(2, token);
                    ps.executeUpdate();
                }
            } catch (SQLException e) {
                return WorkResult.retryable("ATTEMPT_NOT_RECORDED", e.toString());
            }
            return WorkResult.success(Map.of("token", Long.toString(token)));
        };
    }
}
