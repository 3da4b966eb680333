package dev.statekit.core.runtime;

import dev.statekit.core.ops.TaskOperations;
import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.RetryPolicy;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.NewTask;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link TaskRuntime#metrics()} under a manual clock: the store's counts by state per machine and
 * queue, the running tasks, the queue's record, the age of the oldest runnable task, and the last
 * minute of this runtime's own work.
 */
class RuntimeMetricsTest {
    enum S { QUEUED, RUNNING, DONE, FAILED }

    enum E { START, COMPLETE, FAIL }

    static final Machine<S, E> JOB = Machine.builder("job", S.class, E.class)
            .initial(S.QUEUED)
            .terminal(S.DONE, S.FAILED)
            .transition(S.QUEUED, E.START, S.RUNNING, SYSTEM)
            .transition(S.RUNNING, E.COMPLETE, S.DONE, SYSTEM)
            .transition(S.RUNNING, E.FAIL, S.FAILED, SYSTEM)
            .run(r -> r.claim(S.QUEUED, E.START).success(E.COMPLETE).fatal(E.FAIL).timeout(Duration.ofMinutes(1))
                    .retry(RetryPolicy.exponential(1, Duration.ofSeconds(10), Duration.ofSeconds(10))))
            .build();

    final Instant t0 = Instant.parse("2031-04-05T13:30:00Z");
    final ManualClock clock = new ManualClock(t0);
    final InMemoryStore store = new InMemoryStore();
    final TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock).build();
    final ManualExecutor executor = new ManualExecutor();

    TaskRuntime runtime(Worker<S> worker) {
        return TaskRuntime.builder(engine).owner("r").executor(executor).workers(1).leaseDuration(Duration.ofSeconds(30))
                .pollInterval(Duration.ofSeconds(1)).seed(1).register(JOB, "jobs", worker, QueueOptions.defaults().concurrency(3))
                .build();
    }

    long create(String does) {
        return engine.create(JOB, TaskSpec.defaults().queue("jobs").attribute("do", does)).task().id();
    }

    /** Succeeds, fails, fails retryably once, or runs past the timeout once, as the task's attribute says. */
    final Worker<S> worker = ctx -> {
        String does = ctx.task().attribute("do");
        boolean first = ctx.task().record().retries() == 0;
        if ("fatal".equals(does)) return WorkResult.fatal("BROKEN", "cannot be done");
        if ("flaky".equals(does) && first) return WorkResult.retryable("BUSY", "try later");
        if ("slow".equals(does) && first) clock.advance(Duration.ofSeconds(70));
        return WorkResult.success();
    };

    @Test
    void theLastMinuteCountsThisRuntimesWorkOnTheClock() {
        for (int i = 0; i < 3; i++) create("ok");
        create("fatal");
        create("flaky");
        TaskRuntime rt = runtime(worker);
        rt.start();
        executor.runAll();
        QueueMetrics m = rt.metrics().of("job", "jobs").orElseThrow();
        assertThat(m.lastMinute()).isEqualTo(new LastMinute(5, 3, 1, 1, 0, 0));
        assertThat(m.states()).containsExactly(Map.entry("DONE", 3L), Map.entry("FAILED", 1L), Map.entry("QUEUED", 1L));
        assertThat(m.total()).isEqualTo(5);
        assertThat(m.running()).isZero();
        assertThat(m.oldestReadyAge()).as("the retried task waits for its back-off").isNull();
        assertThat(m.waiting()).as("the retried task waits, its back-off ahead").isEqualTo(1);

        clock.advance(Duration.ofSeconds(10));
        executor.runAll();
        assertThat(rt.metrics().of("job", "jobs").orElseThrow().lastMinute()).isEqualTo(new LastMinute(6, 4, 1, 1, 0, 0));

        clock.advance(Duration.ofSeconds(50));      // the first second has left the window
        assertThat(rt.metrics().of("job", "jobs").orElseThrow().lastMinute()).isEqualTo(new LastMinute(1, 1, 0, 0, 0, 0));
        clock.advance(Duration.ofSeconds(10));
        QueueMetrics later = rt.metrics().of("job", "jobs").orElseThrow();
        assertThat(later.lastMinute()).isEqualTo(LastMinute.NONE);
        assertThat(later.count("DONE")).as("the store's counts do not age").isEqualTo(4);
        rt.halt();
    }

    @Test
    void timeoutsAndRecoveriesAreCounted() {
        long slow = create("slow");
        store.claim(new ClaimRequest("job", "jobs", List.of(new ClaimRule("QUEUED", "START", "RUNNING")), "dead", t0,
                Duration.ofSeconds(30), 1, 0));        // its holder is gone
        List<LastMinute> seen = new ArrayList<>();
        TaskRuntime[] rt = {null};
        rt[0] = runtime(ctx -> {
            seen.add(rt[0].metrics().of("job", "jobs").orElseThrow().lastMinute());
            return worker.work(ctx);
        });
        rt[0].start();
        executor.runAll();
        clock.advance(Duration.ofSeconds(31));
        executor.runAll();                             // recovers the task and runs it past its timeout
        assertThat(seen).as("recovered and started at 31 s").containsExactly(new LastMinute(1, 0, 0, 0, 0, 1));
        assertThat(rt[0].metrics().of("job", "jobs").orElseThrow().lastMinute())
                .as("70 s later, timed out and retried; the recovery and start have left the window")
                .isEqualTo(new LastMinute(0, 0, 0, 1, 1, 0));
        assertThat(store.find(slow).orElseThrow().lastError().code()).isEqualTo("TIMEOUT");
        rt[0].halt();
    }

    @Test
    void stateCountsRunningQueueRecordAndOldestRunnableAgeAreTheStoresWhole() {
        create("ok");
        clock.advance(Duration.ofSeconds(20));
        create("ok");
        engine.create(JOB, TaskSpec.defaults().queue("jobs").notBefore(t0.plus(Duration.ofHours(1))));      // not yet runnable
        store.claim(new ClaimRequest("job", "jobs", List.of(new ClaimRule("QUEUED", "START", "RUNNING")), "elsewhere",
                clock.now(), Duration.ofSeconds(30), 1, 0));   // another process runs the first
        store.create(new NewTask("report", 1, "WAITING", "reports", 0, null, dev.statekit.store.Attributes.EMPTY, null, null, null,
                t0, List.of()));                        // a machine this runtime does not serve
        TaskRuntime rt = runtime(worker);
        TaskOperations.of(engine).pause("jobs", Command.system());
        rt.start();                                     // writes the queue's limit; claims nothing while paused
        executor.runAll();
        clock.advance(Duration.ofSeconds(10));

        RuntimeMetrics metrics = rt.metrics();
        assertThat(metrics.at()).isEqualTo(t0.plusSeconds(30));
        assertThat(metrics.queues()).extracting(QueueMetrics::machine, QueueMetrics::queue)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("job", "jobs"), org.assertj.core.groups.Tuple.tuple("report", "reports"));
        QueueMetrics jobs = metrics.of("job", "jobs").orElseThrow();
        assertThat(jobs.states()).containsExactly(Map.entry("QUEUED", 2L), Map.entry("RUNNING", 1L));
        assertThat(jobs.running()).isEqualTo(1);
        assertThat(jobs.waiting()).as("the second and the one not yet runnable; the claimed one runs").isEqualTo(2);
        assertThat(jobs.paused()).isTrue();
        assertThat(jobs.concurrency()).isEqualTo(3);
        assertThat(jobs.oldestReadyAge()).as("created 10 s ago and kept back by the pause").isEqualTo(Duration.ofSeconds(10));
        assertThat(jobs.lastMinute()).as("another process's claim is not this runtime's work").isEqualTo(LastMinute.NONE);
        QueueMetrics reports = metrics.of("report", "reports").orElseThrow();
        assertThat(reports.states()).containsExactly(Map.entry("WAITING", 1L));
        assertThat(reports.oldestReadyAge()).as("which states are runnable is not known for a machine not served").isNull();
        assertThat(reports.waiting()).as("nor which of its tasks wait").isZero();
        assertThat(reports.paused()).isFalse();
        assertThat(reports.concurrency()).isZero();
        assertThat(metrics.of("job", "other")).isEmpty();
        rt.halt();
    }

    @Test
    void aRuntimeReadsItsMetricsWhileItsWorkersRun() {
        List<QueueMetrics> seen = new ArrayList<>();
        TaskRuntime[] rt = {null};
        rt[0] = runtime(ctx -> {
            seen.add(rt[0].metrics().of("job", "jobs").orElseThrow());
            return WorkResult.success();
        });
        create("ok");
        rt[0].start();
        executor.runAll();
        assertThat(seen).hasSize(1);
        assertThat(seen.get(0).running()).isEqualTo(1);
        assertThat(seen.get(0).states()).containsExactly(Map.entry("RUNNING", 1L));
        assertThat(seen.get(0).lastMinute()).isEqualTo(new LastMinute(1, 0, 0, 0, 0, 0));
        rt[0].halt();
    }
}
