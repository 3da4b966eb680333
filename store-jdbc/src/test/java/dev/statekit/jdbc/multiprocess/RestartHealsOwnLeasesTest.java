package dev.statekit.jdbc.multiprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.jdbc.Dialect;
import dev.statekit.jdbc.JdbcStore;
import dev.statekit.jdbc.TestPool;
import dev.statekit.jdbc.multiprocess.Launcher.NodeProcess;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.TaskRecord;
import dev.statekit.test.fixtures.Jobs;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * A restart heals its own work at once, and only its own, across real processes: two JVMs
 * ({@link HealNode}) run the statekit runtime on one PostgreSQL database under the node names
 * {@code a} and {@code b}, each holding {@value #WORKERS} tasks with a {@value #LEASE_SECONDS} s lease
 * and workers that block. Process a is killed with SIGKILL while it holds its leases; nobody takes
 * them then (they have not expired). Process a is started again under the same node name: its start
 * takes back the leases its earlier run held, by the machine's recovery policy (interrupted, with
 * a history entry by {@code a} giving the restart as the reason, then queued again at the front, and
 * claimed again), well within {@value #HEAL_BOUND_SECONDS} s of the kill, long before the leases
 * would have expired. Process b's tasks are untouched meanwhile: still running under the same lease
 * owner and fencing token, no history entry added. Once released, every task ends normally, b's
 * with one start each. Everything is read from the database.
 */
class RestartHealsOwnLeasesTest {
    static final int WORKERS = 3;
    static final long LEASE_SECONDS = 60;
    static final long HEAL_BOUND_SECONDS = 20;
    static final Duration DEADLINE = Duration.ofSeconds(60);

    @Test
    void aProcessRestartedUnderItsNodeNameTakesBackItsOwnLeasesAtOnceAndNoOtherProcesss() throws Exception {
        Pg.require();
        String prefix = Pg.uniquePrefix("heal");
        TestPool pool = new TestPool(Pg.url(), Pg.withoutDiskWait(Pg.properties()), 4);
        Launcher launcher = new Launcher(HealNode.class, prefix, pool);
        NodeProcess[] nodes = new NodeProcess[3];
        try {
            JdbcStore store = JdbcStore.builder(pool).tablePrefix(prefix).dialect(Dialect.POSTGRESQL).createSchemaIfMissing(true).build();
            TransitionEngine engine = TransitionEngine.builder().store(store).build();
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 2 * WORKERS; i++) ids.add(engine.create(HealNode.MACHINE, TaskSpec.defaults().queue(HealNode.QUEUE)).task().id());
            List<String> settings = List.of("lease=" + LEASE_SECONDS * 1000, "heartbeat=" + LEASE_SECONDS * 1000 / 3, "poll=200",
                    "workers=" + WORKERS);

            // a takes as many tasks as it has workers, b the others; each holds its leases while its workers block
            nodes[0] = launcher.launch("a", settings);
            Map<Long, TaskRecord> heldByA = awaitHeld(engine, ids, "a", WORKERS, Map.of(), launcher);
            nodes[1] = launcher.launch("b", settings);
            Map<Long, TaskRecord> heldByB = awaitHeld(engine, ids, "b", WORKERS, Map.of(), launcher);
            Map<Long, List<HistoryEntry>> historyOfB = new HashMap<>();
            for (long id : heldByB.keySet()) historyOfB.put(id, engine.history(id));

            Instant killed = launcher.kill(nodes[0]);
            for (TaskRecord before : heldByA.values()) {
                TaskRecord now = task(engine, before.id());
                assertThat(now.state()).as("task %d of the killed process, before its restart", before.id()).isEqualTo("RUNNING");
                assertThat(now.lease()).as("lease of task %d of the killed process, before its restart", before.id()).isEqualTo(before.lease());
            }

            // a again, under the same node name: its start takes back what its earlier run held
            nodes[2] = launcher.launch("a", settings);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(HEAL_BOUND_SECONDS);
            Map<Long, HistoryEntry> interrupted = new HashMap<>();
            while (interrupted.size() < heldByA.size()) {
                for (long id : heldByA.keySet()) interruption(engine, id).ifPresent(e -> interrupted.put(id, e));
                if (System.nanoTime() > deadline) {
                    fail("the restarted process took back only " + interrupted.size() + " of its earlier " + heldByA.size() + " leases within "
                            + HEAL_BOUND_SECONDS + " s" + launcher.tails());
                }
                if (!nodes[2].process().isAlive()) fail("the restarted process exited by itself" + launcher.tails());
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
            Duration slowest = Duration.ZERO;
            for (Map.Entry<Long, HistoryEntry> e : interrupted.entrySet()) {
                HistoryEntry entry = e.getValue();
                Lease old = Objects.requireNonNull(heldByA.get(e.getKey()).lease());
                assertThat(entry.actor()).as("who interrupted task %d", e.getKey()).isEqualTo("a");
                assertThat(entry.reason()).as("why task %d was interrupted", e.getKey()).isEqualTo("restart of a");
                Duration after = Duration.between(killed, entry.at());
                assertThat(after).as("task %d taken back after the kill", e.getKey()).isLessThan(Duration.ofSeconds(HEAL_BOUND_SECONDS));
                assertThat(entry.at()).as("task %d taken back long before its lease of %s would expire", e.getKey(), old.expiresAt())
                        .isBefore(old.expiresAt().minusSeconds(LEASE_SECONDS / 2));
                if (after.compareTo(slowest) > 0) slowest = after;
            }
            // queued again at the front by the recovery policy, and claimed again by the restarted a under new leases
            Map<Long, TaskRecord> heldAgain = awaitHeld(engine, ids, "a", WORKERS, heldByA, launcher);
            assertThat(heldAgain.keySet()).as("the restarted process runs again what it held before").isEqualTo(heldByA.keySet());
            for (long id : heldByA.keySet()) {
                List<String> events = engine.history(id).stream().map(HistoryEntry::event).toList();
                assertThat(events).as("history of task %d", id).containsSubsequence("START", "INTERRUPT", "RECOVER", "START");
            }
            // b's tasks are untouched: same lease owner and fencing token, still running, no history entry added
            for (TaskRecord before : heldByB.values()) {
                TaskRecord now = task(engine, before.id());
                assertThat(now.state()).as("task %d of b", before.id()).isEqualTo("RUNNING");
                assertThat(Objects.requireNonNull(now.lease()).owner()).as("lease owner of task %d of b", before.id()).isEqualTo("b");
                assertThat(now.lease().fencingToken()).as("fencing token of task %d of b", before.id())
                        .isEqualTo(Objects.requireNonNull(before.lease()).fencingToken());
                assertThat(engine.history(before.id())).as("history of task %d of b", before.id()).isEqualTo(historyOfB.get(before.id()));
            }

            // released, every task ends normally; b's ran once
            Launcher.send(nodes[1], "release");
            Launcher.send(nodes[2], "release");
            long done = System.nanoTime() + DEADLINE.toNanos();
            while (ids.stream().anyMatch(id -> !task(engine, id).state().equals("DONE"))) {
                if (System.nanoTime() > done) fail("tasks not done after " + DEADLINE + launcher.tails());
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
            for (long id : heldByB.keySet()) {
                List<HistoryEntry> history = engine.history(id);
                assertThat(history.subList(0, historyOfB.get(id).size())).as("history of task %d of b", id).isEqualTo(historyOfB.get(id));
                assertThat(history.stream().map(HistoryEntry::event).filter(e -> !e.equals("COMPLETE")).toList())
                        .as("task %d of b: nothing but its completion added", id)
                        .isEqualTo(historyOfB.get(id).stream().map(HistoryEntry::event).toList());
                assertThat(history.get(history.size() - 1).actor()).as("who completed task %d of b", id).isEqualTo("b");
            }
            for (int i = 1; i < nodes.length; i++) {
                Launcher.stop(nodes[i]);
                assertThat(nodes[i].process().exitValue()).as("exit status of %s%s", nodes[i].app(), launcher.tails()).isZero();
            }
            System.out.printf(Locale.ROOT, "restart heals its own leases: %d leases of a (lease %d s) taken back at most %d ms after its kill;"
                    + " the %d leases of b untouched%n", heldByA.size(), LEASE_SECONDS, slowest.toMillis(), heldByB.size());
        } finally {
            Launcher.destroy(nodes);
            try {
                Pg.drop(pool, prefix);
            } finally {
                pool.close();
            }
        }
    }

    private static TaskRecord task(TransitionEngine engine, long id) {
        return engine.find(HealNode.MACHINE, id).orElseThrow().record();
    }

    /** The entry of the first interruption of task {@code id}, if it has one. */
    private static Optional<HistoryEntry> interruption(TransitionEngine engine, long id) {
        return engine.history(id).stream().filter(e -> e.event().equals("INTERRUPT")).findFirst();
    }

    /**
     * Waits until {@code owner} holds {@code count} running tasks of {@code ids} under leases other than
     * those of {@code earlier}; returns them by id.
     */
    private static Map<Long, TaskRecord> awaitHeld(TransitionEngine engine, List<Long> ids, String owner, int count,
                                                   Map<Long, TaskRecord> earlier, Launcher launcher) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (true) {
            Map<Long, TaskRecord> held = new HashMap<>();
            for (long id : ids) {
                TaskRecord t = task(engine, id);
                TaskRecord before = earlier.get(id);
                if (t.state().equals("RUNNING") && t.lease() != null && t.lease().owner().equals(owner)
                        && (before == null || !t.lease().equals(before.lease()))) {
                    held.put(id, t);
                }
            }
            if (held.size() == count) return held;
            assertThat(held.size()).as("running tasks held by %s", owner).isLessThanOrEqualTo(count);
            if (System.nanoTime() > deadline) fail(owner + " holds " + held.size() + " of " + count + " tasks after " + DEADLINE + launcher.tails());
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }
}
