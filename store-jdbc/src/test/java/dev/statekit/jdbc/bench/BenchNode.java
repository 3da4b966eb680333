package dev.statekit.jdbc.bench;

import dev.statekit.jdbc.TestPool;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.spi.TransitionListener;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.jdbc.Dialect;
import dev.statekit.jdbc.JdbcStore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The second process of the JDBC benchmark: a runtime on the same PostgreSQL tables as the first.
 * It reads commands from its standard input and answers on its standard output:
 *
 * <pre>
 * run PREFIX WORKERS BATCH   starts a runtime of no-op workers; answers "ready", then "completed N" as N grows
 * latency PREFIX WORKERS     starts a runtime whose workers print "started ID EPOCH_MICROS NOTIFIED_MICROS" (when a
 *                            listener of the node's own last heard a notification); answers as run does
 * groups PREFIX WORKERS RESOLVE POLL_MS
 *                            starts a runtime serving the pieces of Bench.BATCH's groups (resolving their groups
 *                            too when RESOLVE is "yes", polling every POLL_MS); prints "done ID PARENT EPOCH_MICROS"
 *                            after a piece's completion was written and "settled ID EPOCH_MICROS" after a batch's
 *                            settling transition was written; answers as run does
 * ratelimit PREFIX WORKERS STARTS PERIOD_MS
 *                            starts a runtime of no-op workers on a queue limited to STARTS per PERIOD_MS;
 *                            answers as run does
 * stop                       stops the runtime; answers "stopped"
 * exit                       ends the process
 * </pre>
 *
 * Arguments: JDBC URL, user, password, and the dialect (PostgreSQL when left out).
 */
public final class BenchNode {
    private BenchNode() {}

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
        TestPool pool = BenchPool.open(args[0], args[1], args[2]);
        Dialect dialect = args.length > 3 ? Dialect.valueOf(args[3]) : Dialect.POSTGRESQL;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        ScheduledExecutorService reporter = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "bench-reporter");
            t.setDaemon(true);
            return t;
        });
        Bench.Runner runtime = null;
        AutoCloseable watch = null;
        java.util.concurrent.ScheduledFuture<?> reporting = null;
        String line;
        while ((line = in.readLine()) != null) {
            String[] w = line.trim().split(" ");
            switch (w[0]) {
                case "run" -> {
                    JdbcStore store = Bench.store(pool, dialect, w[1], false);
                    Bench.Runner rt = Bench.runtime(Bench.engine(store), "node-" + ProcessHandle.current().pid(),
                            Integer.parseInt(w[2]), Integer.parseInt(w[3]), Duration.ofSeconds(1), ctx -> WorkResult.success());
                    rt.runtime().start();
                    runtime = rt;
                    reporting = report(reporter, rt, out);
                    out.println("ready");
                }
                case "latency" -> {
                    JdbcStore store = Bench.store(pool, dialect, w[1], false);
                    // a listener of its own, on a connection of its own, as the runtime's: when a notification arrives here
                    java.util.concurrent.atomic.AtomicLong notified = new java.util.concurrent.atomic.AtomicLong();
                    watch = store.watch(() -> notified.set(Bench.micros(Instant.now())));
                    Bench.Runner rt = Bench.runtime(Bench.engine(store), "node-" + ProcessHandle.current().pid(),
                            Integer.parseInt(w[2]), 1, Duration.ofSeconds(30), ctx -> {
                                long at = Bench.micros(Instant.now());
                                out.println("started " + ctx.task().id() + " " + at + " " + notified.get());
                                return WorkResult.success();
                            });
                    rt.runtime().start();
                    runtime = rt;
                    reporting = report(reporter, rt, out);
                    out.println("ready");
                }
                case "groups" -> {
                    JdbcStore store = Bench.store(pool, dialect, w[1], false);
                    TransitionEngine engine = Bench.engine(store);
                    engine.subscribe(announcer(out::println));
                    Bench.Runner rt = Bench.groupRuntime(engine, "node-" + ProcessHandle.current().pid(), Integer.parseInt(w[2]), 1,
                            Duration.ofMillis(Long.parseLong(w[4])), true, w[3].equals("yes"));
                    rt.runtime().start();
                    runtime = rt;
                    reporting = report(reporter, rt, out);
                    out.println("ready");
                }
                case "ratelimit" -> {
                    JdbcStore store = Bench.store(pool, dialect, w[1], false);
                    Bench.Runner rt = Bench.runtime(Bench.engine(store), "node-" + ProcessHandle.current().pid(),
                            Integer.parseInt(w[2]), 1, Duration.ofMillis(100), ctx -> WorkResult.success(),
                            QueueOptions.defaults().rateLimit(Integer.parseInt(w[3]), Duration.ofMillis(Long.parseLong(w[4]))));
                    rt.runtime().start();
                    runtime = rt;
                    reporting = report(reporter, rt, out);
                    out.println("ready");
                }
                case "stop" -> {
                    if (reporting != null) {
                        reporting.cancel(false);
                        reporter.submit(() -> { }).get();      // a report under way is printed before the answer
                    }
                    reporting = null;
                    if (runtime != null) runtime.close();
                    runtime = null;
                    if (watch != null) watch.close();
                    watch = null;
                    out.println("stopped");
                }
                case "exit" -> {
                    if (runtime != null) runtime.close();
                    pool.close();
                    reporter.shutdownNow();
                    return;
                }
                default -> out.println("unknown command: " + line);
            }
        }
    }

    /** Tells {@code out} of the pieces' completions and the batches' settlements an engine wrote, as they are written. */
    static TransitionListener announcer(java.util.function.Consumer<String> out) {
        return (machine, task, entry) -> {
            long at = Bench.micros(Instant.now());
            if (machine.equals(Bench.PIECE.name()) && entry.event().equals(Bench.Event.COMPLETE.name())) {
                out.accept("done " + task.id() + " " + task.parentId() + " " + at);
            } else if (machine.equals(Bench.BATCH.name()) && entry.event().equals(Bench.BatchEvent.PIECES_DONE.name())) {
                out.accept("settled " + task.id() + " " + at);
            }
        };
    }

    /** Prints "completed N" whenever the runtime's count of written results grows. */
    private static java.util.concurrent.ScheduledFuture<?> report(ScheduledExecutorService reporter, Bench.Runner rt, PrintStream out) {
        long[] last = {-1};
        return reporter.scheduleAtFixedRate(() -> {
            long n = rt.completed();
            if (n != last[0]) {
                last[0] = n;
                out.println("completed " + n);
            }
        }, 1, 1, TimeUnit.MILLISECONDS);
    }
}
