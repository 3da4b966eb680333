package dev.statekit.jdbc.multiprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.statekit.core.Command;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.jdbc.JdbcStore;
import dev.statekit.jdbc.TestPool;
import dev.statekit.jdbc.multiprocess.Batches.BatchEvent;
import dev.statekit.jdbc.multiprocess.Batches.BatchState;
import dev.statekit.jdbc.multiprocess.Launcher.NodeProcess;
import dev.statekit.store.GroupKind;
import dev.statekit.store.GroupRecord;
import dev.statekit.store.MemberState;
import java.io.IOException;
import java.sql.Connection;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Groups and dependencies across real processes: three JVMs run the statekit runtime on one
 * PostgreSQL database while one of them is killed with SIGKILL at random moments, four times, and
 * restarted (twice under the owner name it had, twice under a new one).
 *
 * <p>The workload: 200 batches of 20 pieces each, and one batch of 6,000 pieces; every batch has a
 * summary created depending on it ({@link Batches}). Half of the small batches are created before the
 * processes start, the rest while they run, each opened by {@code SPLIT} with its pieces in the same
 * write; half of their summaries are created before the split, half after it (which may come after the batch
 * has settled). The large batch's pieces are added 1,000 at a time while the processes run, into
 * its unsealed group; after the fourth kill, {@code SPLIT} adds the last 1,000 and seals the group, so
 * the run cannot end before every kill happened. One piece in 25 fails its first attempt with a
 * retryable error and is retried after a back-off, across the kills. Leases are short (2 s, renewed
 * every 500 ms, polls every 250 ms). The summaries record each attempt in a table of the test's own,
 * with the state of their batch at the start and start and end times from the database clock.
 *
 * <p>When every summary is done and no mark is left, the processes are stopped and the test checks
 * from the database: every piece is done once, and a flaky one was retried once; every batch settled
 * exactly once (one {@code PIECES_DONE} in its history, no failure); every summary exists once per
 * batch, was completed once, started once more than it was recovered, ran only once its batch had
 * settled, and no two of its attempts overlapped in database time (an attempt of a killed process
 * ends, at the latest, when the database saw the process gone); no group holds its members, waits or
 * has marks left; and every group's counts equal its members' actual states.
 */
class GroupsAcrossProcessesTest {
    static final int PARENTS = 200;
    static final int CHILDREN = 20;
    static final int EARLY_PARENTS = 100;
    static final int BIG = 6_000;
    static final int CHUNK = 1_000;
    static final int PIECES = PARENTS * CHILDREN + BIG;
    static final int FLAKY_EVERY = 25;
    static final int NODES = 3;
    static final int KILLS = 4;
    static final Duration LEASE = Duration.ofMillis(2_000);
    static final Duration HEARTBEAT = Duration.ofMillis(500);
    static final Duration POLL = Duration.ofMillis(250);
    static final Duration DEADLINE = Duration.ofMinutes(4);
    static final int WORKERS = 3;
    static final int BATCH = 8;
    static final int PIECE_WORK = 20;          // CPU units per piece (some ten microseconds each)
    static final int SUMMARY_WORK = 3_000;     // CPU units per summary attempt

    private Server server;
    private String prefix;
    private TestPool pool;
    private Launcher launcher;

    /** One killed process: who it was, when the database saw it gone, what it left, who replaced it. */
    private record Kill(int number, NodeProcess victim, String restartedAs, Instant gone, long heldPieces, long heldSummaries,
                        long retrying) {}

    @ParameterizedTest
    @EnumSource(Server.class)
    void twoHundredAndOneBatchesOnThreeProcessesKilledFourTimesSettleOnceAndRunTheirSummariesOnce(Server on) throws Exception {
        server = on;
        server.require();
        prefix = Pg.uniquePrefix("gmp");
        pool = new TestPool(server.url(), server.withoutDiskWait(server.properties()), 10);
        launcher = new Launcher(GroupNode.class, server, prefix, pool);
        NodeProcess[] nodes = new NodeProcess[NODES];
        ExecutorService creators = Executors.newFixedThreadPool(2);
        try {
            JdbcStore store = JdbcStore.builder(pool).tablePrefix(prefix).dialect(server.dialect)
                    .createSchemaIfMissing(true).build();
            TransitionEngine engine = TransitionEngine.builder().store(store).build();
            prepareTables();
            long seed = System.nanoTime();
            Random random = new Random(seed);

            long created = System.nanoTime();
            long big = engine.create(Batches.BATCH, TaskSpec.defaults().idempotencyKey("batch-big")).task().id();
            engine.create(Batches.SUMMARY, summarySpec(big, "summary-big"));
            List<Future<?>> early = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int first = t;
                early.add(creators.submit(() -> {
                    for (int i = first; i < EARLY_PARENTS; i += 2) createBatch(engine, i);
                    return null;
                }));
            }
            for (Future<?> f : early) f.get(3, TimeUnit.MINUTES);
            System.out.printf(Locale.ROOT, "groups across processes: created %d batches of %d pieces in %d ms%n", EARLY_PARENTS, CHILDREN,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - created));

            // Kills come at random points of the pieces' progress, at least two seconds apart.
            int beforeSeal = PIECES - CHUNK;
            double[] thresholds = new double[KILLS];
            for (int k = 0; k < KILLS; k++) thresholds[k] = (0.10 + 0.2 * k + 0.15 * random.nextDouble()) * beforeSeal;

            long started = System.nanoTime();
            for (int i = 0; i < NODES; i++) nodes[i] = launch("node-" + i);
            Future<?> late = creators.submit(() -> {
                for (int i = EARLY_PARENTS; i < PARENTS; i++) createBatch(engine, i);
                return null;
            });
            Future<?> chunks = creators.submit(() -> {
                for (int c = 0; c < BIG / CHUNK - 1; c++) engine.addChildren(Batches.BATCH, big, pieces(c * CHUNK, CHUNK));
                return null;
            });
            List<Kill> kills = new ArrayList<>();
            Map<String, Instant> deaths = new HashMap<>();
            int postponed = 0;
            long lastKill = started;
            boolean sealed = false;
            long deadline = started + DEADLINE.toNanos();
            while (true) {
                long summaries = scalar("select count(*) from " + prefix + "tasks where machine = 'summary' and state = 'DONE'");
                if (summaries == PARENTS + 1 && store.pendingMarks() == 0) break;
                if (System.nanoTime() > deadline) {
                    fail("only " + summaries + " of " + (PARENTS + 1) + " summaries done, " + store.pendingMarks() + " marks left after "
                            + DEADLINE + " (seed " + seed + ")" + launcher.tails());
                }
                for (NodeProcess n : nodes) {
                    if (!n.process().isAlive()) fail("node " + n.owner() + " exited by itself" + launcher.tails());
                }
                if (late.isDone()) late.get();
                if (chunks.isDone()) chunks.get();
                if (!sealed && kills.size() == KILLS && chunks.isDone()) {
                    engine.fireWithChildren(Batches.BATCH, big, BatchEvent.SPLIT, Command.user("test").idempotencyKey("split-big"),
                            pieces(BIG - CHUNK, CHUNK)).orElseThrow();
                    sealed = true;
                }
                long done = scalar("select count(*) from " + prefix + "tasks where machine = 'piece' and state = 'DONE'");
                if (kills.size() < KILLS && done >= thresholds[kills.size()] && System.nanoTime() - lastKill > 2_000_000_000L) {
                    // The second kill waits (up to 3 s) for a moment when a process holds a summary and kills that
                    // one; the others kill a random process among those holding tasks.
                    int victim = victim(nodes, kills.size() == 1 ? "summary" : null, random);
                    if (victim < 0 && ++postponed > 30) victim = victim(nodes, null, random);
                    if (victim >= 0) {
                        postponed = 0;
                        Kill k = kill(nodes, victim, kills.size() % 2 == 0, kills.size() + 1);
                        kills.add(k);
                        deaths.put(k.victim().app(), k.gone());
                        lastKill = System.nanoTime();
                    }
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            for (NodeProcess n : nodes) Launcher.stop(n);

            assertThat(kills).as("kills (seed %d)", seed).hasSize(KILLS);
            assertThat(store.pendingMarks()).as("marks left after the processes stopped").isZero();
            long retried = checkPiecesDoneOnce();
            checkBatchesSettledOnce();
            int recoveredSummaries = checkSummariesRanOnce(store, deaths);
            int groups = checkGroupsMatchTheirMembers(store, big);
            System.out.printf(Locale.ROOT, "groups across processes: %d pieces in %d batches and %d summaries on %d processes in %.1f s"
                            + " (%.0f pieces/s), %d kills (%s); %d pieces retried once, %d summaries started again after a kill;"
                            + " %d groups checked, seed %d%n",
                    PIECES, PARENTS + 1, PARENTS + 1, NODES, seconds, PIECES / seconds, kills.size(), describe(kills), retried,
                    recoveredSummaries, groups, seed);
        } finally {
            creators.shutdownNow();
            Launcher.destroy(nodes);
            try {
                server.drop(pool, prefix, "attempts");
            } finally {
                pool.close();
            }
        }
    }

    // --- setup ------------------------------------------------------------------------------

    private void prepareTables() throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("create table " + prefix + "attempts (task_id bigint not null, fencing_token bigint not null,"
                    + " node " + server.text() + " not null, batch_state " + server.text() + " not null, started_at " + server.clockColumn()
                    + " not null default " + server.clockNow() + ", ended_at " + server.clockColumn() + ", primary key (task_id, fencing_token))");
        }
    }

    /** Creates small batch {@code i}, split into its pieces, with its summary created before or after the split. */
    private static void createBatch(TransitionEngine engine, int i) {
        long batch = engine.create(Batches.BATCH, TaskSpec.defaults().idempotencyKey("batch-" + i)).task().id();
        if (i % 2 == 0) engine.create(Batches.SUMMARY, summarySpec(batch, "summary-" + i));
        engine.fireWithChildren(Batches.BATCH, batch, BatchEvent.SPLIT, Command.user("test").idempotencyKey("split-" + i),
                pieces(i * CHILDREN, CHILDREN)).orElseThrow();
        if (i % 2 == 1) engine.create(Batches.SUMMARY, summarySpec(batch, "summary-" + i));
    }

    private static TaskSpec summarySpec(long batch, String key) {
        return TaskSpec.defaults().queue(Batches.SUMMARIES).attribute(Batches.BATCH_ID, Long.toString(batch)).idempotencyKey(key)
                .dependsOn(batch);
    }

    /** The specs of {@code n} pieces numbered from {@code first}: one in {@link #FLAKY_EVERY} is flaky. */
    private static List<TaskSpec> pieces(int first, int n) {
        List<TaskSpec> specs = new ArrayList<>(n);
        for (int p = first; p < first + n; p++) {
            TaskSpec spec = TaskSpec.defaults().queue(Batches.PIECES);
            specs.add(p % FLAKY_EVERY == 0 ? spec.attribute(Batches.FLAKY, "yes") : spec);
        }
        return specs;
    }

    // --- processes --------------------------------------------------------------------------

    private NodeProcess launch(String owner) throws IOException {
        return launcher.launch(owner, List.of("lease=" + LEASE.toMillis(), "heartbeat=" + HEARTBEAT.toMillis(),
                "poll=" + POLL.toMillis(), "workers=" + WORKERS, "batch=" + BATCH, "pieceWork=" + PIECE_WORK,
                "summaryWork=" + SUMMARY_WORK));
    }

    /**
     * Returns the index of the process to kill: a random one among those holding tasks of
     * {@code machine} (of any machine when null) now; -1 when {@code machine} is given and no process
     * holds one of its tasks, else any process when none holds a task.
     */
    private int victim(NodeProcess[] nodes, String machine, Random random) throws SQLException {
        List<Integer> holders = new ArrayList<>();
        try (Connection c = pool.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select distinct lease_owner from " + prefix + "tasks where lease_token is not null"
                     + (machine != null ? " and machine = '" + machine + "'" : ""))) {
            while (rs.next()) {
                for (int i = 0; i < nodes.length; i++) if (nodes[i].owner().equals(rs.getString(1))) holders.add(i);
            }
        }
        if (!holders.isEmpty()) return holders.get(random.nextInt(holders.size()));
        return machine != null ? -1 : random.nextInt(nodes.length);
    }

    private Kill kill(NodeProcess[] nodes, int victim, boolean sameOwner, int number) throws Exception {
        NodeProcess n = nodes[victim];
        Instant gone = launcher.kill(n);
        long pieces = scalar("select count(*) from " + prefix + "tasks where lease_owner = '" + n.owner() + "' and lease_token is not null"
                + " and machine = 'piece'");
        long summaries = scalar("select count(*) from " + prefix + "tasks where lease_owner = '" + n.owner() + "' and lease_token is not null"
                + " and machine = 'summary'");
        long retrying = scalar("select count(*) from " + prefix + "tasks where state = 'RETRYING'");
        String owner = sameOwner ? n.owner() : "node-" + victim + "-r" + number;
        nodes[victim] = launch(owner);
        System.out.printf(Locale.ROOT, "groups across processes: kill %d of %s holding %d pieces and %d summaries (%d pieces waiting"
                + " to retry), restarted as %s%n", number, n.app(), pieces, summaries, retrying, owner);
        return new Kill(number, n, owner, gone, pieces, summaries, retrying);
    }

    // --- checks -----------------------------------------------------------------------------

    /** Checks that every piece is done once and that a flaky one failed once and was retried; returns how many were retried. */
    private long checkPiecesDoneOnce() throws SQLException {
        String pieces = prefix + "tasks t where t.machine = 'piece'";
        assertThat(scalar("select count(*) from " + pieces)).as("pieces").isEqualTo(PIECES);
        assertThat(scalar("select count(*) from " + pieces + " and t.state = 'DONE' and t.lease_token is null"))
                .as("pieces DONE without a lease").isEqualTo(PIECES);
        assertThat(scalar("select count(*) from " + pieces + " and (select count(*) from " + prefix + "history h"
                + " where h.task_id = t.id and h.event = 'COMPLETE') <> 1")).as("pieces without exactly one COMPLETE").isZero();
        long flaky = PIECES / FLAKY_EVERY;
        assertThat(scalar("select count(*) from " + pieces + " and t.attributes like '%" + Batches.FLAKY + "%'")).as("flaky pieces")
                .isEqualTo(flaky);
        assertThat(scalar("select count(*) from " + pieces + " and (select count(*) from " + prefix + "history h where h.task_id = t.id"
                + " and h.event = 'RETRYABLE') <> case when t.attributes like '%" + Batches.FLAKY + "%' then 1 else 0 end"))
                .as("pieces whose retryable failures are not one for a flaky piece and none for another").isZero();
        // every start ended in exactly one way: a result or a recovery
        assertThat(scalar("select count(*) from " + prefix + "history h join " + prefix + "tasks t on t.id = h.task_id"
                + " where t.machine = 'piece' and h.event = 'START'"))
                .as("starts of pieces, against their completions, retryable failures and recoveries")
                .isEqualTo(scalar("select count(*) from " + prefix + "history h join " + prefix + "tasks t on t.id = h.task_id"
                        + " where t.machine = 'piece' and h.event in ('COMPLETE', 'RETRYABLE', 'RELEASE', 'FAIL')"));
        return flaky;
    }

    /** Checks that every batch settled exactly once: one {@code PIECES_DONE} in its history, no failure. */
    private void checkBatchesSettledOnce() throws SQLException {
        String batches = prefix + "tasks t where t.machine = 'batch'";
        assertThat(scalar("select count(*) from " + batches)).as("batches").isEqualTo(PARENTS + 1);
        assertThat(scalar("select count(*) from " + batches + " and t.state = '" + BatchState.SETTLED + "'")).as("batches SETTLED")
                .isEqualTo(PARENTS + 1);
        assertThat(scalar("select count(*) from " + batches + " and (select count(*) from " + prefix + "history h"
                + " where h.task_id = t.id and h.event = '" + BatchEvent.PIECES_DONE + "') <> 1"))
                .as("batches without exactly one settling event").isZero();
        assertThat(scalar("select count(*) from " + prefix + "history h join " + prefix + "tasks t on t.id = h.task_id"
                + " where t.machine = 'batch' and h.event <> '" + BatchEvent.SPLIT + "' and h.event <> '" + BatchEvent.PIECES_DONE + "'"))
                .as("other events of batches").isZero();
    }

    /**
     * Checks that every batch has one summary, completed once and started once more than recovered,
     * whose attempts all began after its batch settled and never overlapped; returns how many
     * summaries were started more than once.
     */
    private int checkSummariesRanOnce(JdbcStore store, Map<String, Instant> deaths) throws SQLException {
        String summaries = prefix + "tasks t where t.machine = 'summary'";
        assertThat(scalar("select count(*) from " + summaries)).as("summaries").isEqualTo(PARENTS + 1);
        assertThat(scalar("select count(*) from " + summaries + " and t.state = 'DONE' and t.lease_token is null"))
                .as("summaries DONE without a lease").isEqualTo(PARENTS + 1);
        assertThat(scalar("select count(distinct member_id) from " + prefix + "dependencies")).as("batches depended on")
                .isEqualTo(PARENTS + 1);
        assertThat(scalar("select count(*) from " + prefix + "dependencies")).as("dependencies").isEqualTo(PARENTS + 1);
        assertThat(scalar("select count(*) from " + summaries + " and (select count(*) from " + prefix + "history h"
                + " where h.task_id = t.id and h.event = 'COMPLETE') <> 1")).as("summaries without exactly one COMPLETE").isZero();
        assertThat(scalar("select count(*) from " + summaries + " and (select count(*) from " + prefix + "history h"
                + " where h.task_id = t.id and h.event = 'START') <> 1 + (select count(*) from " + prefix + "history h"
                + " where h.task_id = t.id and h.event = 'RELEASE')")).as("summaries started other than once plus once per recovery")
                .isZero();
        assertThat(scalar("select count(*) from " + prefix + "attempts where batch_state <> '" + BatchState.SETTLED + "'"))
                .as("summary attempts begun before their batch settled").isZero();

        Map<Long, Long> committed = new HashMap<>();
        try (Connection c = pool.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select id from " + summaries)) {
            while (rs.next()) {
                long id = rs.getLong(1);
                String token = store.find(id).orElseThrow().attributes().get("token");
                assertThat(token).as("fencing token recorded by summary %d", id).isNotNull();
                committed.put(id, Long.parseLong(token));
            }
        }
        Map<Long, List<Object[]>> attempts = new HashMap<>();
        try (Connection c = pool.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select task_id, fencing_token, node, started_at, ended_at from " + prefix + "attempts"
                     + " order by task_id, started_at")) {
            while (rs.next()) {
                long id = rs.getLong(1);
                Instant ended = server.clock(rs, 5);
                Instant end = ended != null ? ended : deaths.get(rs.getString(3));
                if (end == null) fail("attempt " + rs.getLong(2) + " of summary " + id + " by " + rs.getString(3) + " never ended");
                attempts.computeIfAbsent(id, k -> new ArrayList<>())
                        .add(new Object[] {rs.getLong(2), server.clock(rs, 4), end, ended != null});
            }
        }
        assertThat(attempts.keySet()).as("summaries with attempts").isEqualTo(committed.keySet());
        int again = 0;
        for (Map.Entry<Long, List<Object[]>> e : attempts.entrySet()) {
            List<Object[]> list = e.getValue();
            if (list.size() > 1) again++;
            long token = committed.get(e.getKey());
            assertThat(list).as("the committed attempt of summary %d (token %d), finished", e.getKey(), token)
                    .anyMatch(a -> (boolean) a[3] && (long) a[0] == token);
            for (int i = 1; i < list.size(); i++) {
                Instant previousEnd = (Instant) list.get(i - 1)[2];
                assertThat((Instant) list.get(i)[1]).as("start of attempt %s of summary %d, after the end of attempt %s", list.get(i)[0],
                        e.getKey(), list.get(i - 1)[0]).isAfterOrEqualTo(previousEnd);
            }
        }
        return again;
    }

    /**
     * Checks that no group holds its members, waits or is open, and that every group's counts equal
     * its members' states now; returns how many groups it checked.
     */
    private int checkGroupsMatchTheirMembers(JdbcStore store, long big) throws SQLException {
        assertThat(scalar("select count(*) from " + prefix + "groups where hold or awaiting or resolution is null or not sealed"))
                .as("groups held, awaiting, open or unsealed").isZero();
        assertThat(scalar("select count(*) from " + prefix + "groups")).as("groups").isEqualTo(2L * (PARENTS + 1));
        Map<Long, Map<MemberState, Long>> actual = new HashMap<>();
        Map<Long, Long> owners = new HashMap<>();      // task -> machine kind: 1 batch, 2 summary
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("select parent_id, machine, state, count(*) from " + prefix + "tasks"
                    + " where parent_id is not null group by parent_id, machine, state")) {
                while (rs.next()) {
                    actual.computeIfAbsent(rs.getLong(1), k -> new HashMap<>()).put(new MemberState(rs.getString(2), rs.getString(3)),
                            rs.getLong(4));
                }
            }
            try (ResultSet rs = s.executeQuery("select d.owner_id, t.machine, t.state, count(*) from " + prefix + "dependencies d"
                    + " join " + prefix + "tasks t on t.id = d.member_id group by d.owner_id, t.machine, t.state")) {
                while (rs.next()) {
                    actual.computeIfAbsent(rs.getLong(1), k -> new HashMap<>()).put(new MemberState(rs.getString(2), rs.getString(3)),
                            rs.getLong(4));
                }
            }
            try (ResultSet rs = s.executeQuery("select id, machine from " + prefix + "tasks where machine in ('batch', 'summary')")) {
                while (rs.next()) owners.put(rs.getLong(1), "batch".equals(rs.getString(2)) ? 1L : 2L);
            }
        }
        assertThat(owners).hasSize(2 * (PARENTS + 1));
        int checked = 0;
        for (Map.Entry<Long, Long> o : owners.entrySet()) {
            long id = o.getKey();
            GroupRecord g = store.group(id).orElseThrow(() -> new AssertionError("no group of task " + id));
            Map<MemberState, Long> members = actual.getOrDefault(id, Map.of());
            long total = members.values().stream().mapToLong(Long::longValue).sum();
            boolean batch = o.getValue() == 1L;
            assertThat(g.kind()).as("kind of the group of task %d", id).isEqualTo(batch ? GroupKind.CHILDREN : GroupKind.DEPENDENCIES);
            assertThat(total).as("members of task %d", id).isEqualTo(batch ? (id == big ? BIG : CHILDREN) : 1);
            assertThat(g.total()).as("total of the group of task %d", id).isEqualTo(total);
            assertThat(g.counts()).as("counts of the group of task %d", id).isEqualTo(members);
            if (batch) assertThat(g.resolution()).as("resolution of the group of batch %d", id).isEqualTo(BatchEvent.PIECES_DONE.name());
            checked++;
        }
        return checked;
    }

    // --- helpers ----------------------------------------------------------------------------

    private long scalar(String query) throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String describe(List<Kill> kills) {
        List<String> parts = new ArrayList<>();
        for (Kill k : kills) {
            parts.add(k.victim().app() + (k.victim().owner().equals(k.restartedAs()) ? " restarted as itself" : " replaced by " + k.restartedAs())
                    + " holding " + k.heldPieces() + " pieces and " + k.heldSummaries() + " summaries, " + k.retrying()
                    + " pieces waiting to retry");
        }
        return String.join("; ", parts);
    }
}
