package dev.statekit.jdbc.multiprocess;

import dev.statekit.core.TransitionEngine;
import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.jdbc.Dialect;
import dev.statekit.jdbc.JdbcStore;
import dev.statekit.jdbc.TestPool;
import dev.statekit.test.fixtures.Jobs;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One process of {@link RateLimitAcrossProcessesTest}: a statekit runtime on the shared PostgreSQL
 * tables of a prefix, serving the queue {@value #PER_QUEUE} limited to {@code starts} per
 * {@code period} and the queue {@value #PER_KEY} limited as much for each value of the task
 * attribute {@value #KEY}. Its worker succeeds at once, so the limits alone pace the starts.
 *
 * <p>Arguments are {@code key=value}: url, user, password, prefix, owner, app (the connections'
 * application name), poll (milliseconds), workers, starts and period (milliseconds). The process
 * runs until its standard input closes, then stops its runtime and exits.
 */
public final class RateNode {
    static final String PER_QUEUE = "rated";
    static final String PER_KEY = "keyed";
    static final String KEY = "model";

    private RateNode() {
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
        int starts = Integer.parseInt(a.get("starts"));
        Duration period = Duration.ofMillis(Long.parseLong(a.get("period")));
        java.util.Properties properties = Pg.properties(a.get("user"), a.get("password"));
        properties.setProperty("ApplicationName", a.get("app"));
        try (TestPool pool = new TestPool(a.get("url"), properties, 6)) {
            JdbcStore store = JdbcStore.builder(pool).tablePrefix(a.get("prefix")).dialect(Dialect.POSTGRESQL).build();
            TransitionEngine engine = TransitionEngine.builder().store(store).build();
            TaskRuntime runtime = TaskRuntime.builder(engine).owner(owner)
                    .workers(Integer.parseInt(a.get("workers")))
                    .pollInterval(Duration.ofMillis(Long.parseLong(a.get("poll"))))
                    .register(Jobs.SIMPLE, PER_QUEUE, ctx -> WorkResult.success(), QueueOptions.defaults().rateLimit(starts, period))
                    .register(Jobs.SIMPLE, PER_KEY, ctx -> WorkResult.success(), QueueOptions.defaults().rateLimitPerKey(starts, period, KEY))
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
}
