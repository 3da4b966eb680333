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
import dev.statekit.test.fixtures.Jobs;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Rate limits across real processes: two JVMs ({@link RateNode}) run the statekit runtime on one
 * PostgreSQL database and serve a queue limited to {@value #STARTS} starts per {@value #PERIOD_MILLIS}
 * ms, and a queue limited as much for each of two models. Every start is read back from the
 * history (the entry of the claim, with the claim's time): sorted, no window of the period holds
 * more than the limit, for the queue and for each model, whichever process started them; both
 * processes started tasks. Fails on CI, and skips elsewhere, without PostgreSQL.
 */
class RateLimitAcrossProcessesTest {
    static final int STARTS = 5;
    static final long PERIOD_MILLIS = 1_000;
    static final int TASKS = 25;
    static final int KEYED_TASKS = 20;
    static final List<String> MODELS = List.of("model-a", "model-b");
    static final Duration DEADLINE = Duration.ofSeconds(60);

    @Test
    void twoProcessesTogetherStartNoMoreThanTheLimitInAnyPeriodForTheQueueAndForEachKey() throws Exception {
        Pg.require();
        String prefix = Pg.uniquePrefix("rate");
        TestPool pool = new TestPool(Pg.url(), Pg.withoutDiskWait(Pg.properties()), 4);
        Launcher launcher = new Launcher(RateNode.class, prefix, pool);
        NodeProcess[] nodes = new NodeProcess[2];
        try {
            JdbcStore store = JdbcStore.builder(pool).tablePrefix(prefix).dialect(Dialect.POSTGRESQL).createSchemaIfMissing(true).build();
            TransitionEngine engine = TransitionEngine.builder().store(store).build();
            List<Long> rated = new ArrayList<>();
            Map<Long, String> keyed = new HashMap<>();
            for (int i = 0; i < TASKS; i++) rated.add(engine.create(Jobs.SIMPLE, TaskSpec.defaults().queue(RateNode.PER_QUEUE)).task().id());
            for (int i = 0; i < KEYED_TASKS; i++) {
                String model = MODELS.get(i % MODELS.size());
                keyed.put(engine.create(Jobs.SIMPLE, TaskSpec.defaults().queue(RateNode.PER_KEY).attribute(RateNode.KEY, model)).task().id(), model);
            }
            for (int i = 0; i < nodes.length; i++) {
                nodes[i] = launcher.launch("rate-node-" + i, List.of("poll=50", "workers=4", "starts=" + STARTS, "period=" + PERIOD_MILLIS));
            }
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (true) {
                long done = doneCount(engine, rated, keyed);
                if (done == TASKS + KEYED_TASKS) break;
                if (System.nanoTime() > deadline) fail("only " + done + " of " + (TASKS + KEYED_TASKS) + " tasks done after " + DEADLINE + launcher.tails());
                for (NodeProcess n : nodes) if (!n.process().isAlive()) fail("node " + n.owner() + " exited by itself" + launcher.tails());
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
            for (NodeProcess n : nodes) Launcher.stop(n);

            Duration period = Duration.ofMillis(PERIOD_MILLIS);
            List<HistoryEntry> queueStarts = starts(engine, rated);
            assertThat(queueStarts).as("one start per task").hasSize(TASKS);
            withinLimit("queue " + RateNode.PER_QUEUE, queueStarts, period);
            assertThat(queueStarts.stream().map(HistoryEntry::actor).distinct()).as("both processes started tasks")
                    .containsExactlyInAnyOrder("rate-node-0", "rate-node-1");
            for (String model : MODELS) {
                List<Long> ofModel = keyed.entrySet().stream().filter(e -> e.getValue().equals(model)).map(Map.Entry::getKey).toList();
                List<HistoryEntry> modelStarts = starts(engine, ofModel);
                assertThat(modelStarts).hasSize(ofModel.size());
                withinLimit(model, modelStarts, period);
            }
            // the keys are limited apart: the two models' starts together exceed one key's limit in some period
            List<HistoryEntry> allKeyed = starts(engine, new ArrayList<>(keyed.keySet()));
            boolean together = false;
            for (int i = 0; i + STARTS < allKeyed.size(); i++) {
                together |= allKeyed.get(i + STARTS).at().isBefore(allKeyed.get(i).at().plus(period));
            }
            assertThat(together).as("the models' starts share no limit").isTrue();
        } finally {
            Launcher.destroy(nodes);
            try {
                Pg.drop(pool, prefix);
            } finally {
                pool.close();
            }
        }
    }

    private static long doneCount(TransitionEngine engine, List<Long> rated, Map<Long, String> keyed) {
        long done = 0;
        for (long id : rated) if (engine.find(Jobs.SIMPLE, id).orElseThrow().state() == Jobs.State.DONE) done++;
        for (long id : keyed.keySet()) if (engine.find(Jobs.SIMPLE, id).orElseThrow().state() == Jobs.State.DONE) done++;
        return done;
    }

    /** Returns the claims of {@code ids} (their entries into RUNNING), by time. */
    private static List<HistoryEntry> starts(TransitionEngine engine, List<Long> ids) {
        List<HistoryEntry> starts = new ArrayList<>();
        for (long id : ids) {
            for (HistoryEntry e : engine.history(id)) if (e.to().equals(Jobs.State.RUNNING.name())) starts.add(e);
        }
        starts.sort(Comparator.comparing(HistoryEntry::at));
        return starts;
    }

    /** Asserts that no window of {@code period} holds more than {@link #STARTS} of {@code starts} (sorted by time). */
    private static void withinLimit(String what, List<HistoryEntry> starts, Duration period) {
        for (int i = 0; i + STARTS < starts.size(); i++) {
            Instant first = starts.get(i).at();
            Instant later = starts.get(i + STARTS).at();
            assertThat(later).as("%s: start %d at %s is within %s of start %d at %s", what, i + STARTS, later, period, i, first)
                    .isAfterOrEqualTo(first.plus(period));
        }
    }
}
