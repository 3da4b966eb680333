package dev.statekit.jdbc.multiprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.statekit.core.Command;
import dev.statekit.core.TransitionEngine;
import dev.statekit.jdbc.Dialect;
import dev.statekit.jdbc.JdbcStore;
import dev.statekit.jdbc.TestPool;
import dev.statekit.jdbc.multiprocess.Launcher.NodeProcess;
import dev.statekit.jdbc.multiprocess.UniqueNode.Event;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Unique keys under concurrent creation from two processes on one PostgreSQL database: two JVMs
 * ({@link UniqueNode}, started through {@link Launcher}), each an engine on a store of its own, with
 * {@value #THREADS_PER_PROCESS} threads each. For each of {@value #KEYS} keys the four threads create a
 * task with that unique key at the same instant (the test gives both processes a start instant and
 * a gap between keys; each thread waits for its key's instant on the one clock of the machine, so
 * the threads of both processes are released together as closely as two processes allow; how late
 * each began is recorded and printed): exactly one of the four creates it and the others get that
 * task back. While it runs (still in the unique states), four more concurrent creations create
 * nothing. Once it is done (out of the unique states), the next round creates a new task per key,
 * again exactly one; three rounds. The processes record every creation's result in a table of the
 * test; the test moves the tasks through its own engine. The database then holds one task per key
 * and round, and at no time two of one key in the unique states.
 */
class UniqueAcrossProcessesTest {
    static final int KEYS = 100;
    static final int ROUNDS = 3;
    static final int THREADS_PER_PROCESS = 2;
    static final int PROCESSES = 2;
    static final long GAP_MILLIS = 25;
    static final Duration DEADLINE = Duration.ofMinutes(2);

    @Test
    void concurrentCreationsFromTwoProcessesMakeOneTaskPerKeyUntilItLeavesTheUniqueStates() throws Exception {
        Pg.require();
        String prefix = Pg.uniquePrefix("ump");
        TestPool pool = new TestPool(Pg.url(), Pg.withoutDiskWait(Pg.properties()), 4);
        Launcher launcher = new Launcher(UniqueNode.class, prefix, pool);
        NodeProcess[] nodes = new NodeProcess[PROCESSES];
        try {
            JdbcStore store = JdbcStore.builder(pool).tablePrefix(prefix).dialect(Dialect.POSTGRESQL).createSchemaIfMissing(true).build();
            TransitionEngine engine = TransitionEngine.builder().store(store).build();
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                s.execute("create table " + prefix + "creations (round int not null, phase text not null, unique_key text not null,"
                        + " owner text not null, thread int not null, task_id bigint not null, created boolean not null, late_micros bigint not null)");
            }
            for (int i = 0; i < PROCESSES; i++) nodes[i] = launcher.launch("unique-" + i, List.of("threads=" + THREADS_PER_PROCESS));
            for (NodeProcess n : nodes) launcher.awaitLine(n, "READY", Duration.ofSeconds(60));
            int creators = PROCESSES * THREADS_PER_PROCESS;
            Set<Long> allTasks = new HashSet<>();
            long started = System.nanoTime();
            for (int round = 0; round < ROUNDS; round++) {
                Map<String, List<Creation>> created = createConcurrently(pool, prefix, launcher, nodes, round, "first");
                Map<String, Long> holders = new HashMap<>();
                for (int k = 0; k < KEYS; k++) {
                    List<Creation> results = created.get(UniqueNode.key(k));
                    assertThat(results).as("round %d, key %d: creations", round, k).hasSize(creators);
                    assertThat(results.stream().filter(Creation::created).count()).as("round %d, key %d: tasks created", round, k)
                            .isEqualTo(1);
                    Set<Long> ids = new HashSet<>();
                    for (Creation c : results) ids.add(c.taskId());
                    assertThat(ids).as("round %d, key %d: every creation returns the one task", round, k).hasSize(1);
                    long id = ids.iterator().next();
                    assertThat(allTasks.add(id)).as("round %d, key %d: a new task, not one of an earlier round", round, k).isTrue();
                    holders.put(UniqueNode.key(k), id);
                    engine.fire(UniqueNode.CONVERT, id, Event.START, Command.user("test")).orElseThrow();
                }
                Map<String, List<Creation>> whileRunning = createConcurrently(pool, prefix, launcher, nodes, round, "running");
                for (int k = 0; k < KEYS; k++) {
                    List<Creation> results = whileRunning.get(UniqueNode.key(k));
                    assertThat(results).as("round %d, key %d: creations while running", round, k).hasSize(creators);
                    for (Creation c : results) {
                        assertThat(c.created()).as("round %d, key %d: created while the holder runs", round, k).isFalse();
                        assertThat(c.taskId()).as("round %d, key %d: the running holder returned", round, k).isEqualTo(holders.get(UniqueNode.key(k)));
                    }
                }
                assertThat(maxHoldersOfOneKey(pool, prefix)).as("round %d: tasks of one key in the unique states", round).isEqualTo(1);
                for (long id : holders.values()) engine.fire(UniqueNode.CONVERT, id, Event.COMPLETE, Command.user("test")).orElseThrow();
                assertThat(maxHoldersOfOneKey(pool, prefix)).as("round %d: keys held once every task is done", round).isZero();
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            assertThat(count(pool, "select count(*) from " + prefix + "tasks where machine = 'convert'")).isEqualTo((long) KEYS * ROUNDS);
            assertThat(count(pool, "select count(*) from " + prefix + "tasks where machine = 'convert' and state = 'DONE'"))
                    .isEqualTo((long) KEYS * ROUNDS);
            for (NodeProcess n : nodes) {
                Launcher.stop(n);
                assertThat(n.process().exitValue()).as("exit status of %s%s", n.owner(), launcher.tails()).isZero();
            }
            System.out.printf(Locale.ROOT, "unique across processes: %d keys x %d rounds, %d concurrent creations from two processes each,"
                            + " %d creations in %.1f s: one task per key and round; tasks created by process: %s; start of the creations"
                            + " after their instant: median %d us, 99th percentile %d us%n",
                    KEYS, ROUNDS, creators, 2 * KEYS * ROUNDS * creators, seconds,
                    winners(pool, prefix), count(pool, "select percentile_disc(0.5) within group (order by late_micros) from " + prefix + "creations"),
                    count(pool, "select percentile_disc(0.99) within group (order by late_micros) from " + prefix + "creations"));
        } finally {
            Launcher.destroy(nodes);
            try {
                Pg.drop(pool, prefix, "creations");
            } finally {
                pool.close();
            }
        }
    }

    /** One creation's result, as a process recorded it. */
    private record Creation(String owner, int thread, long taskId, boolean created) {}

    /**
     * Has every thread of both processes create a task of each key, the threads released together
     * for each key at a common instant; returns the results by key, once both processes have
     * recorded them.
     */
    private static Map<String, List<Creation>> createConcurrently(TestPool pool, String prefix, Launcher launcher, NodeProcess[] nodes,
                                                                  int round, String phase) throws Exception {
        long start = System.currentTimeMillis() + 300;
        for (NodeProcess n : nodes) Launcher.send(n, "create " + round + " " + phase + " " + start + " " + GAP_MILLIS + " " + KEYS);
        long expected = (long) KEYS * nodes.length * THREADS_PER_PROCESS;
        String counted = "select count(*) from " + prefix + "creations where round = " + round + " and phase = '" + phase + "'";
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (count(pool, counted) < expected) {
            for (NodeProcess n : nodes) if (!n.process().isAlive()) fail("node " + n.owner() + " exited by itself" + launcher.tails());
            if (System.nanoTime() > deadline) fail("round " + round + ", " + phase + ": creations not recorded after " + DEADLINE + launcher.tails());
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
        Map<String, List<Creation>> results = new HashMap<>();
        try (Connection c = pool.getConnection();
             PreparedStatement ps = c.prepareStatement("select unique_key, owner, thread, task_id, created from " + prefix + "creations"
                     + " where round = ? and phase = ?")) {
            ps.setInt(1, round);
            ps.setString(2, phase);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    results.computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
                            .add(new Creation(rs.getString(2), rs.getInt(3), rs.getLong(4), rs.getBoolean(5)));
                }
            }
        }
        return results;
    }

    /** The number of tasks each process created (its creations that created the task). */
    private static Map<String, Long> winners(TestPool pool, String prefix) throws SQLException {
        Map<String, Long> byOwner = new HashMap<>();
        try (Connection c = pool.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select owner, count(*) from " + prefix + "creations where created group by owner")) {
            while (rs.next()) byOwner.put(rs.getString(1), rs.getLong(2));
        }
        return byOwner;
    }

    /** The largest number of tasks holding one unique key (0 when none holds one). */
    private static long maxHoldersOfOneKey(TestPool pool, String prefix) throws SQLException {
        return count(pool, "select coalesce(max(n), 0) from (select count(*) as n from " + prefix + "tasks"
                + " where machine = 'convert' and unique_key is not null group by unique_key) h");
    }

    private static long count(TestPool pool, String sql) throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
