package dev.statekit.jdbc.multiprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import dev.statekit.jdbc.Dialect;
import dev.statekit.jdbc.JdbcStore;
import dev.statekit.jdbc.TestPool;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.StatekitException;
import dev.statekit.store.Store;
import dev.statekit.test.fixtures.Jobs;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The database goes away for 10 s in the middle of a run and comes back: the runtime logs, backs
 * off and resumes; nothing is lost and nothing is done twice.
 *
 * <p>The store reaches PostgreSQL through a {@link LoopbackProxy}; cutting the proxy breaks every
 * connection mid-query and refuses new ones, as a stopped server would, without needing the
 * rights to stop the server. The runtime runs in this process on a pool that discards broken
 * connections; a wrapper around its store counts the {@link ErrorCode#STORE_UNAVAILABLE} errors
 * the runtime met. Setup and checks go to the server directly.
 */
class DatabaseOutageTest {
    static final int TASKS = 3_000;
    static final String QUEUE = "work";
    static final Duration OUTAGE = Duration.ofSeconds(10);
    static final Duration LEASE = Duration.ofSeconds(3);
    static final Duration HEARTBEAT = Duration.ofSeconds(1);
    static final Duration POLL = Duration.ofMillis(250);
    static final Duration DEADLINE = Duration.ofMinutes(2);
    static final int WORK = 150;      // CPU units per task

    @Test
    void theDatabaseGoneForTenSecondsMidRunLosesNothingAndDoesNothingTwice() throws Exception {
        Pg.require();
        String prefix = Pg.uniquePrefix("out");
        String[] target = Pg.hostAndPort(Pg.url());
        try (TestPool direct = new TestPool(Pg.url(), Pg.withoutDiskWait(Pg.properties()), 6);
             LoopbackProxy proxy = new LoopbackProxy(target[0], Integer.parseInt(target[1]));
             TestPool viaProxy = new TestPool(Pg.throughPort(Pg.url(), proxy.port()), Pg.properties(), 12)) {
            try {
                run(prefix, direct, proxy, viaProxy);
            } finally {
                Pg.drop(direct, prefix);
            }
        }
    }

    private static void run(String prefix, TestPool direct, LoopbackProxy proxy, TestPool viaProxy) throws Exception {
        JdbcStore setup = JdbcStore.builder(direct).tablePrefix(prefix).dialect(Dialect.POSTGRESQL).createSchemaIfMissing(true).build();
        createTasks(TransitionEngine.builder().store(setup).build());

        JdbcStore store = JdbcStore.builder(viaProxy).tablePrefix(prefix).dialect(Dialect.POSTGRESQL).build();
        Counting errors = new Counting();
        TransitionEngine engine = TransitionEngine.builder().store(errors.around(store)).build();
        Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
        Worker<Jobs.State> worker = ctx -> {
            runs.computeIfAbsent(ctx.task().id(), id -> new AtomicInteger()).incrementAndGet();
            Node.burn(WORK);
            return WorkResult.success();
        };
        TaskRuntime runtime = TaskRuntime.builder(engine).owner("outage").workers(4).batchSize(4)
                .leaseDuration(LEASE).heartbeat(HEARTBEAT).pollInterval(POLL)
                .register(Jobs.SIMPLE, QUEUE, worker, QueueOptions.defaults().concurrency(0)).build();
        long started = System.nanoTime();
        long deadline = started + DEADLINE.toNanos();
        long doneAtCut;
        long doneAtRestore;
        long unavailableDuring;
        long completedAtRestore;
        long firstAfterRestoreNanos = -1;
        long restoredAt;
        try {
            runtime.start();
            doneAtCut = awaitDone(direct, prefix, TASKS / 3, deadline);
            long unavailableBefore = errors.unavailable.get();
            proxy.cut();
            long cutAt = System.nanoTime();
            while (System.nanoTime() - cutAt < OUTAGE.toNanos()) {
                LockSupport.parkNanos(Math.min(TimeUnit.MILLISECONDS.toNanos(100), OUTAGE.toNanos() - (System.nanoTime() - cutAt)));
            }
            unavailableDuring = errors.unavailable.get() - unavailableBefore;
            doneAtRestore = done(direct, prefix);
            completedAtRestore = runtime.completedCount();
            proxy.restore();
            restoredAt = System.nanoTime();
            while (true) {
                long done = done(direct, prefix);
                if (firstAfterRestoreNanos < 0 && done > doneAtRestore) firstAfterRestoreNanos = System.nanoTime() - restoredAt;
                if (done == TASKS) break;
                if (System.nanoTime() > deadline) {
                    fail("only " + done + " of " + TASKS + " tasks done " + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - restoredAt)
                            + " s after the database came back (" + doneAtRestore + " when it did); the runtime is stuck");
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
            assertThat(runtime.completedCount()).as("results the runtime applied after the outage").isGreaterThan(completedAtRestore);
        } finally {
            runtime.stop(Duration.ofSeconds(5)).get(30, TimeUnit.SECONDS);
            runtime.close();
        }
        double seconds = (System.nanoTime() - started) / 1e9;

        assertThat(unavailableDuring).as("STORE_UNAVAILABLE errors the runtime met during the outage").isPositive();
        assertThat(errors.other).as("other store errors").isEmpty();
        assertThat(doneAtCut).isLessThan(TASKS);
        assertThat(doneAtRestore).as("tasks done when the database came back").isLessThan(TASKS);
        assertThat(scalar(direct, "select count(*) from " + prefix + "tasks")).as("tasks").isEqualTo(TASKS);
        assertThat(scalar(direct, "select count(*) from " + prefix + "tasks where state = 'DONE' and lease_token is null"))
                .as("tasks DONE without a lease").isEqualTo(TASKS);
        assertThat(scalar(direct, "select count(*) from " + prefix + "history where event = 'COMPLETE'")).as("COMPLETE entries")
                .isEqualTo(TASKS);
        assertThat(scalar(direct, "select count(distinct task_id) from " + prefix + "history where event = 'COMPLETE'"))
                .as("tasks completed").isEqualTo(TASKS);
        assertThat(runs).as("tasks whose worker ran").hasSize(TASKS);
        long again = runs.values().stream().filter(n -> n.get() > 1).count();
        long released = scalar(direct, "select count(*) from " + prefix + "history where event = 'RELEASE'");
        System.out.printf(Locale.ROOT, "database outage: %d tasks in %.1f s; cut for %d s at %d done, %d done when restored; %d STORE_UNAVAILABLE"
                        + " errors during the outage, %d connections refused, %d broken connections discarded; first task done %d ms"
                        + " after the restore; %d tasks released by lease recovery (their claims or results were lost with the"
                        + " connection), %d worker runs repeated, every task completed exactly once%n",
                TASKS, seconds, OUTAGE.toSeconds(), doneAtCut, doneAtRestore, unavailableDuring, proxy.refused(), viaProxy.discarded(),
                TimeUnit.NANOSECONDS.toMillis(firstAfterRestoreNanos), released, again);
    }

    private static void createTasks(TransitionEngine engine) throws Exception {
        int threads = 6;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int first = t;
                futures.add(pool.submit(() -> {
                    for (int i = first; i < TASKS; i += threads) engine.create(Jobs.SIMPLE, TaskSpec.defaults().queue(QUEUE));
                    return null;
                }));
            }
            for (Future<?> f : futures) f.get(2, TimeUnit.MINUTES);
        } finally {
            pool.shutdownNow();
        }
    }

    private static long awaitDone(DataSource ds, String prefix, long atLeast, long deadline) throws SQLException {
        while (true) {
            long done = done(ds, prefix);
            if (done >= atLeast) return done;
            if (System.nanoTime() > deadline) fail("only " + done + " tasks done before the outage");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    private static long done(DataSource ds, String prefix) throws SQLException {
        return scalar(ds, "select count(*) from " + prefix + "tasks where state = 'DONE'");
    }

    private static long scalar(DataSource ds, String query) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Counts the errors a store throws, by code, passing everything through. */
    private static final class Counting {
        final AtomicLong unavailable = new AtomicLong();
        final List<String> other = new java.util.concurrent.CopyOnWriteArrayList<>();

        Store around(Store store) {
            return (Store) Proxy.newProxyInstance(Store.class.getClassLoader(), new Class<?>[] {Store.class}, (proxy, method, args) -> {
                try {
                    return method.invoke(store, args);
                } catch (InvocationTargetException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof StatekitException s && s.code() == ErrorCode.STORE_UNAVAILABLE) {
                        unavailable.incrementAndGet();
                    } else {
                        other.add(method.getName() + ": " + cause);
                    }
                    throw cause;
                }
            });
        }
    }
}
