package dev.statekit.jdbc.multiprocess;

import dev.statekit.core.Machine;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.jdbc.Dialect;
import dev.statekit.jdbc.JdbcStore;
import dev.statekit.jdbc.TestPool;
import dev.statekit.test.fixtures.Jobs;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One process of {@link RestartHealsOwnLeasesTest}: a statekit runtime on the shared PostgreSQL
 * tables of a prefix, under a node name (its lease owner name) that stays the same across its
 * restarts, serving the queue {@value #QUEUE} of the machine {@link #MACHINE}, whose recovery policy
 * interrupts a run whose holder is gone and queues it again at the front once. Its workers block
 * until the test says {@code release} on the process's standard input, then succeed; a worker whose
 * run is cancelled returns at once.
 *
 * <p>Arguments are {@code key=value}: url, user, password, prefix, owner (the node name), app (the
 * connections' application name), lease, heartbeat and poll (milliseconds), workers. The process
 * writes {@code READY} once its runtime started, and runs until its standard input closes, then
 * stops its runtime and exits.
 */
public final class HealNode {
    static final String QUEUE = "held";
    static final Machine<Jobs.State, Jobs.Event> MACHINE = Jobs.machine("heal-job", true, true);

    private HealNode() {
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
        Properties properties = Pg.properties(a.get("user"), a.get("password"));
        properties.setProperty("ApplicationName", a.get("app"));
        CountDownLatch release = new CountDownLatch(1);
        try (TestPool pool = new TestPool(a.get("url"), properties, 6)) {
            JdbcStore store = JdbcStore.builder(pool).tablePrefix(a.get("prefix")).dialect(Dialect.POSTGRESQL).build();
            TransitionEngine engine = TransitionEngine.builder().store(store).build();
            TaskRuntime runtime = TaskRuntime.builder(engine).owner(owner)
                    .workers(Integer.parseInt(a.get("workers")))
                    .leaseDuration(Duration.ofMillis(Long.parseLong(a.get("lease"))))
                    .heartbeat(Duration.ofMillis(Long.parseLong(a.get("heartbeat"))))
                    .pollInterval(Duration.ofMillis(Long.parseLong(a.get("poll"))))
                    .register(MACHINE, QUEUE, ctx -> {
                        out.println("RUNNING task " + ctx.task().id() + " with lease " + ctx.fencingToken());
                        while (!release.await(50, TimeUnit.MILLISECONDS)) {
                            if (ctx.cancelled()) return WorkResult.retryable("STOPPED", "the run was stopped before its release");
                        }
                        return WorkResult.success();
                    }, QueueOptions.defaults())
                    .build();
            runtime.start();
            out.println("READY " + owner);
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            try {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    if (line.trim().equals("release")) release.countDown();
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
