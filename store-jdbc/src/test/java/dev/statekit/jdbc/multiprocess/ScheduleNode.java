package dev.statekit.jdbc.multiprocess;

import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.schedule.Recurrence;
import dev.statekit.core.spi.TransitionListener;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.jdbc.Dialect;
import dev.statekit.jdbc.JdbcStore;
import dev.statekit.jdbc.TestPool;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.TaskRecord;
import dev.statekit.test.fixtures.Jobs;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * One process of {@link SchedulesAcrossProcessesTest}: a statekit runtime on the shared PostgreSQL
 * tables of a prefix that declares the recurring schedule {@value #NAME}, every {@code every}
 * milliseconds from the instant {@code anchor}, and serves its machine ({@link Jobs#MACHINE}, queue
 * {@value #QUEUE}, a worker that succeeds at once). Every task of the schedule that its engine
 * announces as created (the engine's listener, told only of the tasks this process's schedule passes
 * create) is recorded as a row (idempotency key, owner) of the test's table {@code announced},
 * through a connection of its own.
 *
 * <p>Arguments are {@code key=value}: url, user, password, prefix, owner, app (the connections'
 * application name), poll and every (milliseconds). Once connected it writes {@code CONNECTED} and
 * reads the schedule's anchor (an ISO instant) as the first line of its standard input, so that the
 * test can choose it once both processes are up; then it starts its runtime, writes {@code READY},
 * and runs until its standard input closes, when it stops its runtime and exits.
 */
public final class ScheduleNode {
    static final String NAME = "tick";
    static final String QUEUE = "ticks";

    private ScheduleNode() {
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
        Properties properties = Pg.properties(a.get("user"), a.get("password"));
        properties.setProperty("ApplicationName", a.get("app"));
        Properties recordProperties = Pg.withoutDiskWait(Pg.properties(a.get("user"), a.get("password")));
        recordProperties.setProperty("ApplicationName", a.get("app"));
        try (TestPool pool = new TestPool(a.get("url"), properties, 6);
             TestPool recordPool = new TestPool(a.get("url"), recordProperties, 2)) {
            JdbcStore store = JdbcStore.builder(pool).tablePrefix(prefix).dialect(Dialect.POSTGRESQL).build();
            String announced = "insert into " + prefix + "announced (idempotency_key, owner) values (?, ?)";
            TransitionEngine engine = TransitionEngine.builder().store(store).listener(new TransitionListener() {
                @Override
                public void onTransition(String machine, TaskRecord task, HistoryEntry entry) {
                    // only creations are recorded
                }

                @Override
                public void onCreated(String machine, TaskRecord task) {
                    if (task.idempotencyKey() == null) return;
                    try (Connection c = recordPool.getConnection(); PreparedStatement ps = c.prepareStatement(announced)) {
                        ps.setString(1, task.idempotencyKey());
                        ps.setString(2, owner);
                        ps.executeUpdate();
                    } catch (SQLException e) {
                        out.println("announcement of " + task.idempotencyKey() + " not recorded: " + e);
                    }
                }
            }).build();
            out.println("CONNECTED " + owner);
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String anchor = in.readLine();        // the test sends the schedule's anchor once both processes are up
            if (anchor == null) System.exit(0);
            Recurrence tick = Recurrence.builder(NAME).every(Duration.ofMillis(Long.parseLong(a.get("every"))))
                    .anchor(Instant.parse(anchor.trim())).build();
            TaskRuntime runtime = TaskRuntime.builder(engine).owner(owner).workers(2)
                    .pollInterval(Duration.ofMillis(Long.parseLong(a.get("poll"))))
                    .register(Jobs.MACHINE, QUEUE, ctx -> WorkResult.success(), QueueOptions.defaults())
                    .schedule(Jobs.MACHINE, tick, TaskSpec.defaults().queue(QUEUE))
                    .build();
            runtime.start();
            out.println("READY " + owner);
            try {
                while (in.readLine() != null) {
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
}
