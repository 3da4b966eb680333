package dev.statekit.jdbc.multiprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.schedule.Occurrence;
import dev.statekit.core.schedule.Recurrence;
import dev.statekit.store.HistoryEntry;
import dev.statekit.core.spi.TransitionListener;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.jdbc.Dialect;
import dev.statekit.jdbc.JdbcStore;
import dev.statekit.jdbc.TestPool;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import dev.statekit.test.fixtures.Jobs;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * A recurring schedule run by two runtimes on one PostgreSQL database. The two runtimes run in this
 * JVM, each on a {@link JdbcStore} of its own over a connection pool of its own and with an engine
 * of its own, so they share nothing but the database, as two processes do (they share no listener:
 * each learns only of the tasks its own passes create). Both declare the same schedule, every 200 ms
 * from an anchor two seconds ahead, and serve its machine.
 *
 * <p>Once the occurrences of the first three seconds have fallen due, the test checks from the
 * database that each occurrence's task (its idempotency key {@link Occurrence#key()}, its
 * {@code scheduled_at} attribute) exists exactly once, that none in the window is missing and none
 * lies off the schedule, and that the two runtimes together announced each task once. Then one
 * runtime stops, and the other must go on creating every occurrence, each once, for two more seconds.
 * The waits poll the database with a deadline.
 */
class SchedulesAcrossProcessesTest {
    static final Duration EVERY = Duration.ofMillis(200);
    static final Duration POLL = Duration.ofMillis(100);
    static final Duration DEADLINE = Duration.ofSeconds(30);
    static final String NAME = "tick";

    @Test
    void twoRuntimesCreateEachOccurrenceOnceAndTheSurvivorLosesNoneAfterTheOtherStops() throws Exception {
        Pg.require();
        String prefix = Pg.uniquePrefix("smp");
        TestPool poolA = new TestPool(Pg.url(), Pg.properties(), 6);
        TestPool poolB = new TestPool(Pg.url(), Pg.properties(), 6);
        TaskRuntime a = null;
        TaskRuntime b = null;
        try {
            JdbcStore storeA = JdbcStore.builder(poolA).tablePrefix(prefix).dialect(Dialect.POSTGRESQL).createSchemaIfMissing(true).build();
            JdbcStore storeB = JdbcStore.builder(poolB).tablePrefix(prefix).dialect(Dialect.POSTGRESQL).build();
            Map<String, AtomicInteger> announcedA = new ConcurrentHashMap<>();
            Map<String, AtomicInteger> announcedB = new ConcurrentHashMap<>();
            TransitionEngine engineA = TransitionEngine.builder().store(storeA).listener(counting(announcedA)).build();
            TransitionEngine engineB = TransitionEngine.builder().store(storeB).listener(counting(announcedB)).build();

            Instant anchor = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(2);
            Recurrence tick = Recurrence.builder(NAME).every(EVERY).anchor(anchor).build();
            a = runtime(engineA, "a", tick);
            b = runtime(engineB, "b", tick);
            a.start();
            b.start();

            Instant firstEnd = anchor.plusSeconds(3);
            Map<String, Integer> first = awaitEveryOccurrence(storeA, anchor, firstEnd, announcedA, announcedB);
            checkOnce(first, anchor, firstEnd, announcedA, announcedB);
            int byA = announcedA.size();
            int byB = announcedB.size();

            a.stop(Duration.ofSeconds(5)).get(30, TimeUnit.SECONDS);
            a.close();
            a = null;
            Instant stopped = Instant.now();
            Map<String, AtomicInteger> afterStop = new HashMap<>(announcedA);
            Instant secondEnd = stopped.plusSeconds(2);
            Map<String, Integer> all = awaitEveryOccurrence(storeB, anchor, secondEnd, announcedA, announcedB);
            checkOnce(all, anchor, secondEnd, announcedA, announcedB);
            assertThat(announcedA).as("the stopped runtime created nothing more").isEqualTo(afterStop);
            long afterStopCount = all.keySet().stream().filter(k -> !first.containsKey(k)).count();
            System.out.printf(Locale.ROOT, "schedules across processes: %d occurrences every %d ms in the first 3 s (%d created by a,"
                            + " %d by b); after a stopped, b created the %d of the next %.1f s, each once%n",
                    first.size(), EVERY.toMillis(), byA, byB, afterStopCount, Duration.between(firstEnd, secondEnd).toMillis() / 1e3);
        } finally {
            if (a != null) a.close();
            if (b != null) {
                b.stop(Duration.ofSeconds(5)).get(30, TimeUnit.SECONDS);
                b.close();
            }
            try {
                Pg.drop(poolA, prefix);
            } finally {
                poolA.close();
                poolB.close();
            }
        }
    }

    private static TaskRuntime runtime(TransitionEngine engine, String owner, Recurrence tick) {
        return TaskRuntime.builder(engine).owner(owner).workers(2).pollInterval(POLL)
                .register(Jobs.MACHINE, "ticks", ctx -> WorkResult.success(), QueueOptions.defaults())
                .schedule(Jobs.MACHINE, tick, TaskSpec.defaults().queue("ticks"))
                .build();
    }

    /** Counts, by idempotency key, the tasks of the schedule an engine's runtime announced as created. */
    private static TransitionListener counting(Map<String, AtomicInteger> announced) {
        return new TransitionListener() {
            @Override
            public void onTransition(String machine, TaskRecord task, HistoryEntry entry) {
                // only creations are counted
            }

            @Override
            public void onCreated(String machine, TaskRecord task) {
                if (task.idempotencyKey() != null) announced.computeIfAbsent(task.idempotencyKey(), k -> new AtomicInteger()).incrementAndGet();
            }
        };
    }

    /** The occurrences of the schedule from {@code anchor} to {@code end}, both included. */
    private static List<Occurrence> expected(Instant anchor, Instant end) {
        List<Occurrence> out = new ArrayList<>();
        for (Instant t = anchor; !t.isAfter(end); t = t.plus(EVERY)) out.add(new Occurrence(NAME, t, false));
        return out;
    }

    /**
     * Waits until the task of every occurrence up to {@code end} exists and a runtime has announced
     * it (failing after {@link #DEADLINE}); returns the number of tasks by idempotency key, every task
     * of the schedule.
     */
    private static Map<String, Integer> awaitEveryOccurrence(JdbcStore store, Instant anchor, Instant end,
                                                             Map<String, AtomicInteger> announcedA, Map<String, AtomicInteger> announcedB) {
        List<Occurrence> expected = expected(anchor, end);
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (true) {
            Map<String, Integer> byKey = tasksByKey(store);
            long missing = expected.stream()
                    .filter(o -> !byKey.containsKey(o.key()) || !(announcedA.containsKey(o.key()) || announcedB.containsKey(o.key())))
                    .count();
            if (missing == 0) return byKey;
            if (System.nanoTime() > deadline) {
                fail(missing + " of " + expected.size() + " occurrences up to " + end + " not yet created and announced after " + DEADLINE + ": "
                        + expected.stream().map(Occurrence::key).filter(k -> !byKey.containsKey(k)).toList());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    private static Map<String, Integer> tasksByKey(JdbcStore store) {
        Map<String, Integer> byKey = new TreeMap<>();
        for (TaskRecord t : store.query(TaskQuery.all().machine(Jobs.MACHINE.name()).limit(TaskQuery.MAX_LIMIT)).items()) {
            String key = t.idempotencyKey();
            assertThat(key).as("task %d of the schedule has an idempotency key", t.id()).isNotNull();
            Instant at = Instant.parse(t.attributes().getOrDefault("scheduled_at", "missing"));
            assertThat(key).as("task %d: key and scheduled_at agree", t.id()).isEqualTo(new Occurrence(NAME, at, false).key());
            assertThat(t.attributes().get("schedule")).isEqualTo(NAME);
            byKey.merge(key, 1, Integer::sum);
        }
        return byKey;
    }

    /** Every occurrence to {@code end} created once, none off the schedule, each announced once by one runtime. */
    private static void checkOnce(Map<String, Integer> byKey, Instant anchor, Instant end, Map<String, AtomicInteger> announcedA,
                                  Map<String, AtomicInteger> announcedB) {
        List<String> grid = expected(anchor, end.plusSeconds(60)).stream().map(Occurrence::key).toList();
        for (Map.Entry<String, Integer> e : byKey.entrySet()) {
            assertThat(e.getValue()).as("tasks of occurrence %s", e.getKey()).isEqualTo(1);
            assertThat(grid).as("occurrence %s lies on the schedule", e.getKey()).contains(e.getKey());
        }
        for (Occurrence o : expected(anchor, end)) {
            assertThat(byKey).as("occurrence %s created", o.key()).containsKey(o.key());
            int a = announcedA.getOrDefault(o.key(), new AtomicInteger()).get();
            int b = announcedB.getOrDefault(o.key(), new AtomicInteger()).get();
            assertThat(a + b).as("announcements of %s (a %d, b %d)", o.key(), a, b).isEqualTo(1);
        }
    }
}
