package dev.statekit.jdbc.multiprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.statekit.core.schedule.Occurrence;
import dev.statekit.jdbc.Dialect;
import dev.statekit.jdbc.JdbcStore;
import dev.statekit.jdbc.TestPool;
import dev.statekit.jdbc.multiprocess.Launcher.NodeProcess;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import dev.statekit.test.fixtures.Jobs;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * A recurring schedule run by two processes on one PostgreSQL database: two JVMs
 * ({@link ScheduleNode}, started through {@link Launcher}) each run a statekit runtime on the same
 * tables, declare the same schedule, every {@value #EVERY_MILLIS} ms, and serve its machine. The
 * test chooses the schedule's anchor once both processes are connected (twelve seconds ahead, room for
 * both to start their runtimes on a busy machine) and sends it to both. Each process records in a table of the
 * test every task its own engine announced as created (only the tasks its own schedule passes made).
 *
 * <p>Once the occurrences of the first three seconds have fallen due, the test checks from the
 * database that each occurrence's task (its idempotency key {@link Occurrence#key()}, its
 * {@code scheduled_at} attribute) exists exactly once, that none in the window is missing and none
 * lies off the schedule, and that the two processes together announced each task once. Then process
 * a is killed with SIGKILL, and process b must go on creating every occurrence, each once, for two
 * more seconds: every occurrence due after the kill is created once and announced by b, none is
 * missing or off the schedule, a announced nothing due after its death, and no occurrence was
 * announced twice (one that a created in its last moments may have died unannounced with it).
 * The waits poll the database with a deadline.
 */
class SchedulesAcrossProcessesTest {
    static final long EVERY_MILLIS = 200;
    static final Duration EVERY = Duration.ofMillis(EVERY_MILLIS);
    static final Duration POLL = Duration.ofMillis(100);
    static final Duration DEADLINE = Duration.ofSeconds(30);
    static final Duration START = Duration.ofSeconds(60);

    @Test
    void twoProcessesCreateEachOccurrenceOnceAndTheSurvivorLosesNoneAfterTheOtherIsKilled() throws Exception {
        Pg.require();
        String prefix = Pg.uniquePrefix("smp");
        TestPool pool = new TestPool(Pg.url(), Pg.withoutDiskWait(Pg.properties()), 4);
        Launcher launcher = new Launcher(ScheduleNode.class, prefix, pool);
        NodeProcess[] nodes = new NodeProcess[2];
        try {
            JdbcStore store = JdbcStore.builder(pool).tablePrefix(prefix).dialect(Dialect.POSTGRESQL).createSchemaIfMissing(true).build();
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                s.execute("create table " + prefix + "announced (idempotency_key text not null, owner text not null)");
            }
            List<String> settings = List.of("poll=" + POLL.toMillis(), "every=" + EVERY_MILLIS);
            nodes[0] = launcher.launch("a", settings);
            nodes[1] = launcher.launch("b", settings);
            for (NodeProcess n : nodes) launcher.awaitLine(n, "CONNECTED", START);
            // far enough ahead for two JVMs to start their runtimes on a busy machine (each took 3 s under a full test run)
            Instant anchor = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(12);
            for (NodeProcess n : nodes) Launcher.send(n, anchor.toString());
            for (NodeProcess n : nodes) launcher.awaitLine(n, "READY", START);
            assertThat(Instant.now()).as("both runtimes started before the anchor" + launcher.tails()).isBefore(anchor);

            Instant firstEnd = anchor.plusSeconds(3);
            Predicate<Occurrence> everyOne = o -> true;
            Map<String, Integer> first = awaitEveryOccurrence(store, pool, prefix, anchor, firstEnd, everyOne, launcher);
            Map<String, Map<String, Integer>> firstAnnounced = announced(pool, prefix);
            checkOnce(first, anchor, firstEnd, firstAnnounced, everyOne);
            int byA = firstAnnounced.getOrDefault("a", Map.of()).size();
            int byB = firstAnnounced.getOrDefault("b", Map.of()).size();

            Instant killed = launcher.kill(nodes[0]);
            Instant secondEnd = killed.plusSeconds(2);
            Predicate<Occurrence> firstOrAfterKill = o -> !o.at().isAfter(firstEnd) || o.at().isAfter(killed);
            Map<String, Integer> all = awaitEveryOccurrence(store, pool, prefix, anchor, secondEnd, firstOrAfterKill, launcher);
            Map<String, Map<String, Integer>> announced = announced(pool, prefix);
            checkOnce(all, anchor, secondEnd, announced, firstOrAfterKill);
            for (String key : announced.getOrDefault("a", Map.of()).keySet()) {
                assertThat(at(key)).as("the killed process announced %s, due after its death at %s", key, killed).isBeforeOrEqualTo(killed);
            }
            long afterKill = 0;
            for (Occurrence o : expected(anchor, secondEnd)) {
                if (!o.at().isAfter(killed)) continue;
                afterKill++;
                assertThat(announced.getOrDefault("b", Map.of())).as("the survivor announced %s, due after the kill", o.key())
                        .containsEntry(o.key(), 1);
            }
            long lost = expected(anchor, secondEnd).stream().filter(o -> announcements(announced, o.key()) == 0).count();
            System.out.printf(Locale.ROOT, "schedules across processes: %d occurrences every %d ms in the first 3 s (%d created by a,"
                            + " %d by b); after a was killed, b created the %d due in the next %.1f s, each once (%d created by a"
                            + " before its death went unannounced)%n",
                    first.size(), EVERY.toMillis(), byA, byB, afterKill, Duration.between(killed, secondEnd).toMillis() / 1e3, lost);
            Launcher.stop(nodes[1]);
            assertThat(nodes[1].process().exitValue()).as("exit status of b" + launcher.tails()).isZero();
        } finally {
            Launcher.destroy(nodes);
            try {
                Pg.drop(pool, prefix, "announced");
            } finally {
                pool.close();
            }
        }
    }

    /** The occurrences of the schedule from {@code anchor} to {@code end}, both included. */
    private static List<Occurrence> expected(Instant anchor, Instant end) {
        List<Occurrence> out = new ArrayList<>();
        for (Instant t = anchor; !t.isAfter(end); t = t.plus(EVERY)) out.add(new Occurrence(ScheduleNode.NAME, t, false));
        return out;
    }

    /** The instant of the occurrence of idempotency key {@code key} (as made by {@link Occurrence#key()}). */
    private static Instant at(String key) {
        return Instant.parse(key.substring(key.indexOf('@') + 1));
    }

    /**
     * Waits until the task of every occurrence up to {@code end} exists, and a process has announced
     * those that {@code mustBeAnnounced} (failing after {@link #DEADLINE}); returns the number of
     * tasks by idempotency key, every task of the schedule.
     */
    private static Map<String, Integer> awaitEveryOccurrence(JdbcStore store, TestPool pool, String prefix, Instant anchor, Instant end,
                                                             Predicate<Occurrence> mustBeAnnounced, Launcher launcher) throws SQLException {
        List<Occurrence> expected = expected(anchor, end);
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (true) {
            Map<String, Integer> byKey = tasksByKey(store);
            Map<String, Map<String, Integer>> announced = announced(pool, prefix);
            long missing = expected.stream()
                    .filter(o -> !byKey.containsKey(o.key()) || mustBeAnnounced.test(o) && announcements(announced, o.key()) == 0)
                    .count();
            if (missing == 0) return byKey;
            if (System.nanoTime() > deadline) {
                fail(missing + " of " + expected.size() + " occurrences up to " + end + " not yet created and announced after " + DEADLINE + ": "
                        + expected.stream().map(Occurrence::key).filter(k -> !byKey.containsKey(k)).toList() + launcher.tails());
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
            assertThat(key).as("task %d: key and scheduled_at agree", t.id()).isEqualTo(new Occurrence(ScheduleNode.NAME, at, false).key());
            assertThat(t.attributes().get("schedule")).isEqualTo(ScheduleNode.NAME);
            byKey.merge(key, 1, Integer::sum);
        }
        return byKey;
    }

    /** The announcements recorded by the processes: by owner, the number of each idempotency key. */
    private static Map<String, Map<String, Integer>> announced(TestPool pool, String prefix) throws SQLException {
        Map<String, Map<String, Integer>> byOwner = new HashMap<>();
        try (Connection c = pool.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select owner, idempotency_key from " + prefix + "announced")) {
            while (rs.next()) byOwner.computeIfAbsent(rs.getString(1), o -> new HashMap<>()).merge(rs.getString(2), 1, Integer::sum);
        }
        return byOwner;
    }

    private static int announcements(Map<String, Map<String, Integer>> announced, String key) {
        int n = 0;
        for (Map<String, Integer> byKey : announced.values()) n += byKey.getOrDefault(key, 0);
        return n;
    }

    /**
     * Every occurrence to {@code end} created once, none off the schedule; each announced at most once,
     * by one process, and exactly once when {@code mustBeAnnounced}.
     */
    private static void checkOnce(Map<String, Integer> byKey, Instant anchor, Instant end, Map<String, Map<String, Integer>> announced,
                                  Predicate<Occurrence> mustBeAnnounced) {
        List<String> grid = expected(anchor, end.plusSeconds(60)).stream().map(Occurrence::key).toList();
        for (Map.Entry<String, Integer> e : byKey.entrySet()) {
            assertThat(e.getValue()).as("tasks of occurrence %s", e.getKey()).isEqualTo(1);
            assertThat(grid).as("occurrence %s lies on the schedule", e.getKey()).contains(e.getKey());
        }
        for (Map<String, Integer> byOwner : announced.values()) {
            for (String key : byOwner.keySet()) assertThat(byKey).as("announced occurrence %s exists", key).containsKey(key);
        }
        for (Occurrence o : expected(anchor, end)) {
            assertThat(byKey).as("occurrence %s created", o.key()).containsKey(o.key());
            int a = announced.getOrDefault("a", Map.of()).getOrDefault(o.key(), 0);
            int b = announced.getOrDefault("b", Map.of()).getOrDefault(o.key(), 0);
            if (mustBeAnnounced.test(o)) {
                assertThat(a + b).as("announcements of %s (a %d, b %d)", o.key(), a, b).isEqualTo(1);
            } else {
                assertThat(a + b).as("announcements of %s (a %d, b %d)", o.key(), a, b).isLessThanOrEqualTo(1);
            }
        }
    }
}
