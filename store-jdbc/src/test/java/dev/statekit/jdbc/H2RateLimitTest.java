package dev.statekit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.HistoryEntry;
import dev.statekit.test.fixtures.Jobs;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * A rate limit on H2 under concurrent claimers: {@value #RUNTIMES} runtimes, each on a store over a
 * pool of its own on one H2 file database, with {@value #WORKERS} workers that succeed at once and
 * short polls, serve a queue limited to {@value #STARTS} starts per {@value #PERIOD_MILLIS} ms.
 * Every start is read back from the history (the claim's entry, at the claim's time): sorted, no
 * window of the period holds more than the limit. The claimers of the queue wait for each other, in
 * their runtime and on the queue's row lock, with their claim's time read before: claims come with
 * times that lag the queue's latest start by more than a period, which the store must still count
 * right ({@link dev.statekit.store.RateLimit#claimTime}).
 */
class H2RateLimitTest {
    static final int RUNTIMES = 3;
    static final int WORKERS = 4;
    static final int STARTS = 5;
    static final long PERIOD_MILLIS = 100;
    static final int TASKS = 300;
    static final String QUEUE = "rated";

    @Test
    void concurrentClaimersOnOneH2FileStartNoMoreThanTheLimitInAnyPeriod() throws Exception {
        String url = "jdbc:h2:file:" + Databases.buildDir().resolve("h2").resolve(Databases.uniquePrefix("rate"));
        Properties sa = new Properties();
        sa.setProperty("user", "sa");
        sa.setProperty("password", "");
        TestPool first = new TestPool(url, sa, 4);
        List<TestPool> pools = new ArrayList<>();
        List<TaskRuntime> runtimes = new ArrayList<>();
        try {
            JdbcStore store = JdbcStore.builder(first).createSchemaIfMissing(true).build();
            TransitionEngine engine = TransitionEngine.builder().store(store).build();
            store.pauseQueue(QUEUE, "filling");
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < TASKS; i++) ids.add(engine.create(Jobs.SIMPLE, TaskSpec.defaults().queue(QUEUE)).task().id());
            for (int r = 0; r < RUNTIMES; r++) {
                TestPool pool = new TestPool(url, sa, WORKERS + 2);
                pools.add(pool);
                TransitionEngine e = TransitionEngine.builder().store(JdbcStore.builder(pool).build()).build();
                TaskRuntime runtime = TaskRuntime.builder(e).owner("runtime-" + r).workers(WORKERS).pollInterval(Duration.ofMillis(5))
                        .register(Jobs.SIMPLE, QUEUE, ctx -> WorkResult.success(),
                                QueueOptions.defaults().rateLimit(STARTS, Duration.ofMillis(PERIOD_MILLIS)))
                        .build();
                runtimes.add(runtime);
                runtime.start();
            }
            store.resumeQueue(QUEUE);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (ids.stream().anyMatch(id -> engine.find(Jobs.SIMPLE, id).orElseThrow().state() != Jobs.State.DONE)) {
                if (System.nanoTime() > deadline) fail("tasks not done after 60 s");
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
            List<HistoryEntry> starts = new ArrayList<>();
            for (long id : ids) for (HistoryEntry e : engine.history(id)) if (e.to().equals(Jobs.State.RUNNING.name())) starts.add(e);
            starts.sort(Comparator.comparing(HistoryEntry::at));
            assertThat(starts).as("one start per task").hasSize(TASKS);
            int most = 0;
            for (int i = 0; i < starts.size(); i++) {
                int n = 0;
                for (int j = i; j < starts.size() && starts.get(j).at().isBefore(starts.get(i).at().plusMillis(PERIOD_MILLIS)); j++) n++;
                most = Math.max(most, n);
            }
            System.out.printf(Locale.ROOT, "h2 rate limit: %d starts, most in any %d ms window %d (limit %d)%n", TASKS, PERIOD_MILLIS, most, STARTS);
            assertThat(most).as("the most starts in any window of %d ms", PERIOD_MILLIS).isLessThanOrEqualTo(STARTS);
            for (int i = 0; i + STARTS < starts.size(); i++) {
                Instant a = starts.get(i).at();
                Instant b = starts.get(i + STARTS).at();
                assertThat(b).as("start %d at %s is within %d ms of start %d at %s", i + STARTS, b, PERIOD_MILLIS, i, a)
                        .isAfterOrEqualTo(a.plusMillis(PERIOD_MILLIS));
            }
        } finally {
            for (TaskRuntime r : runtimes) {
                r.stop(Duration.ofSeconds(5)).get(30, TimeUnit.SECONDS);
                r.close();
            }
            for (TestPool p : pools) p.close();
            first.close();
        }
    }
}
