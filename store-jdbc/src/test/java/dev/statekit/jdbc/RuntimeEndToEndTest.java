package dev.statekit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import dev.statekit.test.fixtures.Jobs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The runtime of core on the JDBC store, with real threads: two runtimes (each with its own store
 * and engine, as two processes would have them) share one queue limited to one running task.
 */
class RuntimeEndToEndTest {
    static final int TASKS = 500;
    static final String QUEUE = "single";

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void fiveHundredTasksOnAQueueLimitedToOneAreEachDoneExactlyOnce(Dialect dialect) throws Exception {
        try (Opened db = Opened.open(dialect)) {
            JdbcStore first = db.store();
            JdbcStore second = db.twin();
            TransitionEngine engineA = TransitionEngine.builder().store(first).build();
            TransitionEngine engineB = TransitionEngine.builder().store(second).build();

            AtomicInteger running = new AtomicInteger();
            AtomicInteger mostRunning = new AtomicInteger();
            Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
            CountDownLatch done = new CountDownLatch(TASKS);
            Worker<Jobs.State> worker = ctx -> {
                int now = running.incrementAndGet();
                mostRunning.accumulateAndGet(now, Math::max);
                runs.computeIfAbsent(ctx.task().id(), id -> new AtomicInteger()).incrementAndGet();
                running.decrementAndGet();
                done.countDown();
                return WorkResult.success();
            };
            QueueOptions one = QueueOptions.defaults().concurrency(1);
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < TASKS; i++) {
                TransitionEngine engine = i % 2 == 0 ? engineA : engineB;
                ids.add(engine.create(Jobs.SIMPLE, TaskSpec.defaults().queue(QUEUE)).task().id());
            }
            TaskRuntime a = TaskRuntime.builder(engineA).owner("a").workers(4).pollInterval(Duration.ofMillis(50))
                    .register(Jobs.SIMPLE, QUEUE, worker, one).build();
            TaskRuntime b = TaskRuntime.builder(engineB).owner("b").workers(4).pollInterval(Duration.ofMillis(50))
                    .register(Jobs.SIMPLE, QUEUE, worker, one).build();
            try {
                a.start();
                b.start();
                assertThat(done.await(180, TimeUnit.SECONDS)).as("every worker ran within the deadline (%s left)", done.getCount())
                        .isTrue();
            } finally {
                a.stop(Duration.ofSeconds(10)).get(60, TimeUnit.SECONDS);
                b.stop(Duration.ofSeconds(10)).get(60, TimeUnit.SECONDS);
            }

            assertThat(mostRunning.get()).as("workers running at once").isEqualTo(1);
            assertThat(runs).hasSize(TASKS);
            assertThat(runs.values()).allSatisfy(n -> assertThat(n.get()).as("runs of one task").isEqualTo(1));
            assertThat(first.leased(QUEUE)).isZero();
            List<TaskRecord> all = new ArrayList<>();
            Long after = 0L;
            while (after != null) {
                var page = first.query(TaskQuery.all().queue(QUEUE).after(after).limit(200));
                all.addAll(page.items());
                after = page.nextAfterId();
            }
            assertThat(all).hasSize(TASKS);
            assertThat(all).allSatisfy(t -> {
                assertThat(t.state()).isEqualTo("DONE");
                assertThat(t.attempts()).isEqualTo(1);
                assertThat(t.lease()).isNull();
                assertThat(t.version()).isEqualTo(2);
            });
            for (long id : ids) {
                assertThat(first.history(id)).extracting(HistoryEntry::event).containsExactly("START", "COMPLETE");
            }
        }
    }
}
