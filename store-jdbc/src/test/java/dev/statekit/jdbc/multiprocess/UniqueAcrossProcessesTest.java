package dev.statekit.jdbc.multiprocess;

import static dev.statekit.store.TriggerSource.USER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.Command;
import dev.statekit.core.Created;
import dev.statekit.core.Machine;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.jdbc.Dialect;
import dev.statekit.jdbc.JdbcStore;
import dev.statekit.jdbc.TestPool;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Unique keys under concurrent creation from two stores on one PostgreSQL database. The two stores
 * live in this JVM, each a {@link JdbcStore} over a connection pool of its own with an engine of its
 * own, so they share nothing but the database, as two processes do. Four threads, two on each store,
 * create a task with the same unique key at the same moment (a barrier releases them together), for
 * each of 100 keys: exactly one of the four creates it and the others get that task back. While it
 * runs (still in the unique states), four more concurrent creations create nothing. Once it is done
 * (out of the unique states), the next round creates a new task per key, again exactly one; three
 * rounds. The database then holds one task per key and round, and at no time two of one key in the
 * unique states.
 */
class UniqueAcrossProcessesTest {
    static final int KEYS = 100;
    static final int ROUNDS = 3;
    static final int THREADS_PER_STORE = 2;

    enum State { QUEUED, RUNNING, DONE }

    enum Event { START, COMPLETE }

    static final Machine<State, Event> CONVERT = Machine.builder("convert", State.class, Event.class)
            .initial(State.QUEUED)
            .terminal(State.DONE)
            .transition(State.QUEUED, Event.START, State.RUNNING, USER)
            .transition(State.RUNNING, Event.COMPLETE, State.DONE, USER)
            .unique(State.QUEUED, State.RUNNING)
            .build();

    @Test
    void concurrentCreationsFromTwoStoresMakeOneTaskPerKeyUntilItLeavesTheUniqueStates() throws Exception {
        Pg.require();
        String prefix = Pg.uniquePrefix("ump");
        TestPool poolA = new TestPool(Pg.url(), Pg.properties(), THREADS_PER_STORE + 1);
        TestPool poolB = new TestPool(Pg.url(), Pg.properties(), THREADS_PER_STORE + 1);
        ExecutorService threads = Executors.newFixedThreadPool(2 * THREADS_PER_STORE);
        try {
            JdbcStore storeA = JdbcStore.builder(poolA).tablePrefix(prefix).dialect(Dialect.POSTGRESQL).createSchemaIfMissing(true).build();
            JdbcStore storeB = JdbcStore.builder(poolB).tablePrefix(prefix).dialect(Dialect.POSTGRESQL).build();
            TransitionEngine a = TransitionEngine.builder().store(storeA).build();
            TransitionEngine b = TransitionEngine.builder().store(storeB).build();
            List<TransitionEngine> engines = new ArrayList<>();
            for (int t = 0; t < THREADS_PER_STORE; t++) {
                engines.add(a);
                engines.add(b);
            }
            Set<Long> allTasks = new HashSet<>();
            long started = System.nanoTime();
            for (int round = 0; round < ROUNDS; round++) {
                Map<String, List<Created<State>>> created = createConcurrently(threads, engines, round);
                Map<String, Long> holders = new ConcurrentHashMap<>();
                for (int k = 0; k < KEYS; k++) {
                    List<Created<State>> results = created.get(key(k));
                    assertThat(results).as("round %d, key %d: creations", round, k).hasSize(engines.size());
                    assertThat(results.stream().filter(Created::created).count()).as("round %d, key %d: tasks created", round, k)
                            .isEqualTo(1);
                    Set<Long> ids = new HashSet<>();
                    for (Created<State> c : results) ids.add(c.task().id());
                    assertThat(ids).as("round %d, key %d: every creation returns the one task", round, k).hasSize(1);
                    long id = ids.iterator().next();
                    assertThat(allTasks.add(id)).as("round %d, key %d: a new task, not one of an earlier round", round, k).isTrue();
                    holders.put(key(k), id);
                    a.fire(CONVERT, id, Event.START, Command.user("test")).orElseThrow();
                }
                Map<String, List<Created<State>>> whileRunning = createConcurrently(threads, engines, round);
                for (int k = 0; k < KEYS; k++) {
                    for (Created<State> c : whileRunning.get(key(k))) {
                        assertThat(c.created()).as("round %d, key %d: created while the holder runs", round, k).isFalse();
                        assertThat(c.task().id()).as("round %d, key %d: the running holder returned", round, k).isEqualTo(holders.get(key(k)));
                    }
                }
                assertThat(maxHoldersOfOneKey(poolA, prefix)).as("round %d: tasks of one key in the unique states", round).isEqualTo(1);
                for (long id : holders.values()) b.fire(CONVERT, id, Event.COMPLETE, Command.user("test")).orElseThrow();
                assertThat(maxHoldersOfOneKey(poolA, prefix)).as("round %d: keys held once every task is done", round).isZero();
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            assertThat(count(poolA, "select count(*) from " + prefix + "tasks where machine = 'convert'")).isEqualTo((long) KEYS * ROUNDS);
            assertThat(count(poolA, "select count(*) from " + prefix + "tasks where machine = 'convert' and state = 'DONE'"))
                    .isEqualTo((long) KEYS * ROUNDS);
            System.out.printf(Locale.ROOT, "unique across processes: %d keys x %d rounds, %d concurrent creations from two stores each,"
                    + " %d creations in %.1f s: one task per key and round%n", KEYS, ROUNDS, engines.size(), 2 * KEYS * ROUNDS * engines.size(),
                    seconds);
        } finally {
            threads.shutdownNow();
            try {
                Pg.drop(poolA, prefix);
            } finally {
                poolA.close();
                poolB.close();
            }
        }
    }

    private static String key(int k) {
        return "in-" + k + ".txt -> out-" + k + ".gz";
    }

    /**
     * Every engine of {@code engines} (one thread each) creates a task of each key, all threads
     * released together for each key; returns the results by key.
     */
    private static Map<String, List<Created<State>>> createConcurrently(ExecutorService threads, List<TransitionEngine> engines,
                                                                        int round) throws Exception {
        Map<String, List<Created<State>>> results = new ConcurrentHashMap<>();
        CyclicBarrier together = new CyclicBarrier(engines.size());
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < engines.size(); t++) {
            TransitionEngine engine = engines.get(t);
            String who = "thread-" + t;
            futures.add(threads.submit(() -> {
                for (int k = 0; k < KEYS; k++) {
                    together.await(30, TimeUnit.SECONDS);
                    TaskSpec spec = TaskSpec.defaults().uniqueKey(key(k)).attribute("round", Integer.toString(round)).attribute("by", who);
                    Created<State> c = engine.create(CONVERT, spec);
                    results.computeIfAbsent(key(k), x -> new CopyOnWriteArrayList<>()).add(c);
                }
                return null;
            }));
        }
        for (Future<?> f : futures) f.get(2, TimeUnit.MINUTES);
        return results;
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
