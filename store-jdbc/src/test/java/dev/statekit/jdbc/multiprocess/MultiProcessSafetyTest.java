package dev.statekit.jdbc.multiprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.jdbc.JdbcStore;
import dev.statekit.jdbc.TestPool;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import dev.statekit.test.fixtures.Jobs;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import dev.statekit.jdbc.multiprocess.Launcher.NodeProcess;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Promises 3, 4 and 5 across real processes: three JVMs run the statekit runtime on one PostgreSQL
 * or MariaDB database while one of them is killed with SIGKILL at random moments, four times, and restarted
 * (twice under the owner name it had, twice under a new one). The first two kills hit the process
 * holding the limited queue's task, at random points of that queue's progress.
 *
 * <p>8,000 tasks are created up front: 100 on a queue limited to one running task, the rest on
 * three unlimited queues. One of them, holding 2,000 tasks, stays paused until the fourth kill,
 * so that the run cannot end before every kill happened however fast the processes are. Leases are short (2 s, renewed every 500 ms, polls every 250 ms), so recovery
 * is fast. The workers record every attempt in a table of the test's own, keyed by task and
 * fencing token, with start and end times taken from the database clock. A trigger of the test
 * copies every history row into a side table as it is inserted, numbered in the order the
 * database saw the inserts.
 *
 * <p>When every task is done the test checks: every task is DONE with exactly one COMPLETE in its
 * history and none is missing; the limited queue's committed attempts never overlap in database
 * time, and, from the history in database order, no START on that queue happened while another
 * of its tasks was held (between a START and its COMPLETE or recovery RELEASE); after each kill,
 * every task the dead process held was started again within lease + poll + 5 s (a liveness bound
 * with room for a loaded machine: the delays measured are printed, typically under lease + poll + 1 s).
 */
class MultiProcessSafetyTest {
    static final int TASKS = 8_000;
    static final int LIMITED_TASKS = 100;
    static final List<String> BULK = List.of("bulk-a", "bulk-b");
    /** An unlimited queue paused until the last kill: the run outlasts the kills. */
    static final String RESERVE = "bulk-reserve";
    static final int RESERVE_TASKS = 2_000;
    static final int NODES = 3;
    static final int KILLS = 4;
    static final Duration LEASE = Duration.ofMillis(2_000);
    static final Duration HEARTBEAT = Duration.ofMillis(500);
    static final Duration POLL = Duration.ofMillis(250);
    static final Duration MARGIN = Duration.ofMillis(5_000);
    static final Duration DEADLINE = Duration.ofMinutes(4);
    static final int WORKERS = 3;
    static final int BATCH = 8;
    static final int LIMITED_WORK = 2_500;     // CPU units per task of the limited queue
    static final int BULK_WORK = 20;           // CPU units per task of the unlimited queues

    private Server server;
    private String prefix;
    private TestPool pool;
    private Launcher launcher;

    /** One killed process: who it was, when it died, what it held, who replaced it. */
    private record Kill(int number, String owner, String restartedAs, Instant at, Map<Long, Long> held, int heldLimited) {}

    @ParameterizedTest
    @EnumSource(Server.class)
    void eightThousandTasksOnThreeProcessesKilledFourTimesAreEachDoneOnceWithinTheLimit(Server on) throws Exception {
        server = on;
        server.require();
        prefix = Pg.uniquePrefix("mp");
        pool = new TestPool(server.url(), server.withoutDiskWait(server.properties()), 10);
        launcher = new Launcher(Node.class, server, prefix, pool);
        NodeProcess[] nodes = new NodeProcess[NODES];
        try {
            JdbcStore store = JdbcStore.builder(pool).tablePrefix(prefix).dialect(server.dialect)
                    .createSchemaIfMissing(true).build();
            prepareTables();
            long created = System.nanoTime();
            createTasks(store);
            System.out.printf(Locale.ROOT, "multi-process: created %d tasks in %d ms%n", TASKS, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - created));

            long seed = System.nanoTime();
            Random random = new Random(seed);
            // The first two kills come at random points of the limited queue's progress (so that it is
            // still running, however fast it is next to the rest); the last two at random points of
            // the progress of the tasks outside the reserve. Kills are at least two seconds apart.
            double[] thresholds = {
                (0.15 + 0.2 * random.nextDouble()) * LIMITED_TASKS,
                (0.50 + 0.2 * random.nextDouble()) * LIMITED_TASKS,
                (0.45 + 0.1 * random.nextDouble()) * (TASKS - RESERVE_TASKS),
                (0.70 + 0.1 * random.nextDouble()) * (TASKS - RESERVE_TASKS)};
            store.pauseQueue(RESERVE, "held back until the last kill");

            long started = System.nanoTime();
            Instant startedAt = Instant.now();
            for (int i = 0; i < NODES; i++) nodes[i] = launch("node-" + i);
            List<Kill> kills = new ArrayList<>();
            int postponed = 0;
            long lastKill = started;
            long deadline = started + DEADLINE.toNanos();
            while (true) {
                long done = scalar("select count(*) from " + prefix + "tasks where state = 'DONE'");
                if (done == TASKS) break;
                if (System.nanoTime() > deadline) {
                    fail("only " + done + " of " + TASKS + " tasks done after " + DEADLINE + " (seed " + seed + ")" + tails());
                }
                for (NodeProcess n : nodes) {
                    if (!n.process().isAlive()) fail("node " + n.owner() + " exited by itself" + tails());
                }
                long progress = kills.size() < 2
                        ? scalar("select count(*) from " + prefix + "tasks where state = 'DONE' and queue = '" + Node.LIMITED + "'")
                        : done;
                if (kills.size() < KILLS && progress >= thresholds[kills.size()] && System.nanoTime() - lastKill > 2_000_000_000L) {
                    // The first two kills wait (up to 3 s) for a moment when a process holds the limited queue's
                    // task and kill that one; the others kill a random process among those holding tasks.
                    int victim = victim(nodes, kills.size() < 2, random);
                    if (victim < 0 && ++postponed > 30) victim = victim(nodes, false, random);
                    if (victim >= 0) {
                        postponed = 0;
                        boolean sameOwner = kills.size() % 2 == 0;
                        kills.add(kill(nodes, victim, sameOwner, kills.size() + 1));
                        lastKill = System.nanoTime();
                        if (kills.size() == KILLS) store.resumeQueue(RESERVE);
                    }
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            for (NodeProcess n : nodes) Launcher.stop(n);

            assertThat(kills).as("kills (seed %d)", seed).hasSize(KILLS);
            assertThat(kills).as("kills of the limited queue's holder (seed %d)", seed).anyMatch(k -> k.heldLimited() > 0);
            checkEveryTaskDoneOnce();
            int limitedAttempts = checkLimitedIntervals(store);
            int limitedStarts = checkLimitedLeasesInDatabaseOrder();
            Duration maxRecovery = checkRecoveries(kills);
            long attempts = scalar("select count(*) from " + prefix + "effects");
            String limitedSpan = span("select min(started_at), max(ended_at) from " + prefix + "effects where queue = '" + Node.LIMITED + "'",
                    startedAt);
            System.out.printf(Locale.ROOT, "multi-process: %d tasks on %d processes in %.1f s (%.0f tasks/s), %d kills (%s), "
                            + "%d worker attempts for %d tasks, limited queue (busy %s): %d starts and %d committed attempts without overlap, "
                            + "max recovery delay %d ms (bound %d ms), seed %d%n",
                    TASKS, NODES, seconds, TASKS / seconds, kills.size(), describe(kills), attempts, TASKS, limitedSpan, limitedStarts,
                    limitedAttempts, maxRecovery.toMillis(), LEASE.plus(POLL).plus(MARGIN).toMillis(), seed);
        } finally {
            Launcher.destroy(nodes);
            try {
                server.drop(pool, prefix, "effects", "history_seen");
            } finally {
                pool.close();
            }
        }
    }

    // --- setup ------------------------------------------------------------------------------

    private void prepareTables() throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("create table " + prefix + "effects (task_id bigint not null, fencing_token bigint not null,"
                    + " node " + server.text() + " not null, queue " + server.text() + " not null, started_at " + server.clockColumn()
                    + " not null default " + server.clockNow() + ", ended_at " + server.clockColumn() + ", primary key (task_id, fencing_token))");
            server.recordHistoryInserts(s, prefix);
        }
    }

    private static void createTasks(JdbcStore store) throws Exception {
        TransitionEngine engine = TransitionEngine.builder().store(store).build();
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            int every = TASKS / LIMITED_TASKS;
            for (int t = 0; t < threads; t++) {
                int first = t;
                futures.add(pool.submit(() -> {
                    for (int i = first; i < TASKS; i += threads) {
                        // Every fifth task goes to the reserve (none of the limited queue's, at multiples of 100).
                        String queue = i % every == 0 && i / every < LIMITED_TASKS ? Node.LIMITED
                                : i % 5 == 4 ? RESERVE : BULK.get(i % BULK.size());
                        engine.create(Jobs.SIMPLE, TaskSpec.defaults().queue(queue));
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) f.get(3, TimeUnit.MINUTES);
        } finally {
            pool.shutdownNow();
        }
    }

    // --- processes --------------------------------------------------------------------------

    private NodeProcess launch(String owner) throws IOException {
        return launcher.launch(owner, List.of("lease=" + LEASE.toMillis(), "heartbeat=" + HEARTBEAT.toMillis(),
                "poll=" + POLL.toMillis(), "workers=" + WORKERS, "batch=" + BATCH, "limitedWork=" + LIMITED_WORK,
                "bulkWork=" + BULK_WORK, "queues=" + String.join(",", BULK) + "," + RESERVE));
    }

    /**
     * Returns the index of the process to kill: the holder of the limited queue's task when
     * {@code limited}, else a random one among the processes holding tasks now (any process when
     * none does); -1 when {@code limited} and no process holds the limited queue's task now.
     */
    private int victim(NodeProcess[] nodes, boolean limited, Random random) throws SQLException {
        List<Integer> holders = new ArrayList<>();
        try (Connection c = pool.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select distinct lease_owner from " + prefix + "tasks where lease_token is not null"
                     + (limited ? " and queue = '" + Node.LIMITED + "'" : ""))) {
            while (rs.next()) {
                for (int i = 0; i < nodes.length; i++) if (nodes[i].owner().equals(rs.getString(1))) holders.add(i);
            }
        }
        if (!holders.isEmpty()) return holders.get(random.nextInt(holders.size()));
        return limited ? -1 : random.nextInt(nodes.length);
    }

    private Kill kill(NodeProcess[] nodes, int victim, boolean sameOwner, int number) throws Exception {
        NodeProcess n = nodes[victim];
        Instant at = Instant.now();
        launcher.kill(n);
        Map<Long, Long> held = new HashMap<>();
        int heldLimited = 0;
        try (Connection c = pool.getConnection();
             PreparedStatement ps = c.prepareStatement("select id, version, queue from " + prefix + "tasks where lease_owner = ?"
                     + " and lease_token is not null")) {
            ps.setString(1, n.owner());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    held.put(rs.getLong(1), rs.getLong(2));
                    if (Node.LIMITED.equals(rs.getString(3))) heldLimited++;
                }
            }
        }
        String owner = sameOwner ? n.owner() : "node-" + victim + "-" + number;
        nodes[victim] = launch(owner);
        System.out.printf(Locale.ROOT, "multi-process: kill %d at %s of %s holding %d tasks (%d of the limited queue), restarted as %s%n",
                number, at, n.owner(), held.size(), heldLimited, owner);
        return new Kill(number, n.owner(), owner, at, held, heldLimited);
    }

    // --- checks -----------------------------------------------------------------------------

    private void checkEveryTaskDoneOnce() throws SQLException {
        assertThat(scalar("select count(*) from " + prefix + "tasks")).as("tasks").isEqualTo(TASKS);
        assertThat(scalar("select count(*) from " + prefix + "tasks where state = 'DONE' and lease_token is null"))
                .as("tasks DONE without a lease").isEqualTo(TASKS);
        assertThat(scalar("select count(*) from " + prefix + "history where event = 'COMPLETE'")).as("COMPLETE entries")
                .isEqualTo(TASKS);
        assertThat(scalar("select count(distinct task_id) from " + prefix + "history where event = 'COMPLETE'"))
                .as("tasks completed").isEqualTo(TASKS);
        assertThat(scalar("select count(*) from " + prefix + "history_seen")).as("history rows seen by the trigger")
                .isEqualTo(scalar("select count(*) from " + prefix + "history"));
    }

    /**
     * Checks that every task's committed attempt (the one whose fencing token the task recorded when
     * it completed) left a finished effect, and that those of the limited queue do not overlap in
     * database time. Returns how many limited attempts were compared.
     */
    private int checkLimitedIntervals(JdbcStore store) throws SQLException {
        Map<Long, Long> committedToken = new HashMap<>();
        Map<Long, String> queueOf = new HashMap<>();
        long after = 0;
        while (true) {
            var page = store.query(TaskQuery.all().after(after).limit(TaskQuery.MAX_LIMIT));
            for (TaskRecord t : page.items()) {
                String token = t.attributes().get("token");
                assertThat(token).as("fencing token recorded by task %d", t.id()).isNotNull();
                committedToken.put(t.id(), Long.parseLong(token));
                queueOf.put(t.id(), t.queue());
            }
            if (page.nextAfterId() == null) break;
            after = page.nextAfterId();
        }
        assertThat(committedToken).hasSize(TASKS);
        List<Instant[]> intervals = new ArrayList<>();
        int committed = 0;
        try (Connection c = pool.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select task_id, fencing_token, started_at, ended_at from " + prefix + "effects")) {
            while (rs.next()) {
                long id = rs.getLong(1);
                if (committedToken.get(id) == null || committedToken.get(id) != rs.getLong(2)) continue;
                Instant ended = server.clock(rs, 4);
                assertThat(ended).as("end of the committed attempt of task %d", id).isNotNull();
                committed++;
                if (Node.LIMITED.equals(queueOf.get(id))) {
                    intervals.add(new Instant[] {server.clock(rs, 3), ended, Instant.ofEpochSecond(id)});
                }
            }
        }
        assertThat(committed).as("tasks with a committed, finished effect").isEqualTo(TASKS);
        assertThat(intervals).as("committed attempts of the limited queue").hasSize(LIMITED_TASKS);
        intervals.sort((x, y) -> x[0].compareTo(y[0]));
        for (int i = 1; i < intervals.size(); i++) {
            Instant[] before = intervals.get(i - 1);
            Instant[] next = intervals.get(i);
            assertThat(next[0]).as("start of task %d's committed attempt, after the end of task %d's", next[2].getEpochSecond(),
                    before[2].getEpochSecond()).isAfterOrEqualTo(before[1]);
        }
        return intervals.size();
    }

    /**
     * Walks the limited queue's history in the order the database inserted it: a START may only
     * come when no task of the queue is held, and only the holder's COMPLETE (or another result)
     * or recovery RELEASE ends the hold. Returns how many STARTs it saw.
     */
    private int checkLimitedLeasesInDatabaseOrder() throws SQLException {
        Long holder = null;
        long holderVersion = 0;
        int starts = 0;
        try (Connection c = pool.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select h.seq, h.task_id, h.version, h.event, h.actor from " + prefix + "history_seen h"
                     + " join " + prefix + "tasks t on t.id = h.task_id where t.queue = '" + Node.LIMITED + "' order by h.seq")) {
            while (rs.next()) {
                long id = rs.getLong(2);
                long version = rs.getLong(3);
                String event = rs.getString(4);
                if ("START".equals(event)) {
                    if (holder != null) {
                        fail("task " + id + " of the limited queue started (version " + version + ", by " + rs.getString(5)
                                + ") while task " + holder + " was held since version " + holderVersion);
                    }
                    holder = id;
                    holderVersion = version;
                    starts++;
                } else if ("COMPLETE".equals(event) || "RELEASE".equals(event) || "RETRYABLE".equals(event) || "FAIL".equals(event)) {
                    if (holder == null || holder != id) fail(event + " of task " + id + " while task " + holder + " was held");
                    holder = null;
                }
            }
        }
        assertThat(holder).as("a limited task still held at the end").isNull();
        assertThat(starts).as("starts on the limited queue").isGreaterThanOrEqualTo(LIMITED_TASKS);
        return starts;
    }

    /** Checks that every task a killed process held was started again in time; returns the longest delay. */
    private Duration checkRecoveries(List<Kill> kills) throws SQLException {
        Duration bound = LEASE.plus(POLL).plus(MARGIN);
        Duration max = Duration.ZERO;
        try (Connection c = pool.getConnection();
             PreparedStatement ps = c.prepareStatement("select at from " + prefix + "history where task_id = ? and version > ?"
                     + " and event = 'START' order by version limit 1")) {
            for (Kill k : kills) {
                for (Map.Entry<Long, Long> held : k.held().entrySet()) {
                    ps.setLong(1, held.getKey());
                    ps.setLong(2, held.getValue());
                    try (ResultSet rs = ps.executeQuery()) {
                        if (!rs.next()) fail("task " + held.getKey() + " held by " + k.owner() + " at kill " + k.number() + " never started again");
                        Duration delay = Duration.between(k.at(), server.storeTime(rs, 1));
                        assertThat(delay).as("delay until task %d, held by %s at kill %d, started again", held.getKey(), k.owner(),
                                k.number()).isLessThanOrEqualTo(bound);
                        if (delay.compareTo(max) > 0) max = delay;
                    }
                }
            }
        }
        return max;
    }

    // --- helpers ----------------------------------------------------------------------------

    private long scalar(String query) throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private String span(String query, Instant origin) throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return String.format(Locale.ROOT, "from %.1f s to %.1f s of the run",
                    Duration.between(origin, server.clock(rs, 1)).toMillis() / 1e3,
                    Duration.between(origin, server.clock(rs, 2)).toMillis() / 1e3);
        }
    }

    private static String describe(List<Kill> kills) {
        List<String> parts = new ArrayList<>();
        for (Kill k : kills) {
            parts.add(k.owner() + (k.owner().equals(k.restartedAs()) ? " restarted as itself" : " replaced by " + k.restartedAs())
                    + " holding " + k.held().size() + (k.heldLimited() > 0 ? " with the limited task" : ""));
        }
        return String.join("; ", parts);
    }

    private String tails() {
        return launcher.tails();
    }
}
