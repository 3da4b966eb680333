package dev.statekit.core.ops;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.core.Machine;
import dev.statekit.core.RetryPolicy;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import dev.statekit.store.memory.InMemoryStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link TaskOperations#activity}: per queue, per minute, the starts, successes, failures and
 * retries the store's history holds, whichever process did the work, classified by each machine's
 * run policy.
 */
class TaskActivityTest {
    enum S { QUEUED, RUNNING, DONE, FAILED }

    enum E { START, COMPLETE, FAIL, RETRY_LATER }

    static final Machine<S, E> JOB = Machine.builder("job", S.class, E.class)
            .initial(S.QUEUED)
            .terminal(S.DONE, S.FAILED)
            .transition(S.QUEUED, E.START, S.RUNNING, SYSTEM)
            .transition(S.RUNNING, E.COMPLETE, S.DONE, SYSTEM)
            .transition(S.RUNNING, E.FAIL, S.FAILED, SYSTEM)
            .run(r -> r.claim(S.QUEUED, E.START).success(E.COMPLETE).fatal(E.FAIL)
                    .retry(RetryPolicy.exponential(3, Duration.ofSeconds(10), Duration.ofSeconds(10))))
            .build();

    /** The same lifecycle, with a retryable event of its own. */
    static final Machine<S, E> RETRYING = Machine.builder("retrying", S.class, E.class)
            .initial(S.QUEUED)
            .terminal(S.DONE, S.FAILED)
            .transition(S.QUEUED, E.START, S.RUNNING, SYSTEM)
            .transition(S.RUNNING, E.COMPLETE, S.DONE, SYSTEM)
            .transition(S.RUNNING, E.FAIL, S.FAILED, SYSTEM)
            .transition(S.RUNNING, E.RETRY_LATER, S.QUEUED, SYSTEM)
            .run(r -> r.claim(S.QUEUED, E.START).success(E.COMPLETE).fatal(E.FAIL).retryable(E.RETRY_LATER)
                    .retry(RetryPolicy.exponential(3, Duration.ofSeconds(10), Duration.ofSeconds(10))))
            .build();

    final Instant t0 = Instant.parse("2031-04-05T13:30:00Z");
    final ManualClock clock = new ManualClock(t0);
    final InMemoryStore store = new InMemoryStore();
    final TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock).build();

    /** Succeeds, fails, or fails retryably once, as the task's attribute says. */
    final Worker<S> worker = ctx -> {
        String does = ctx.task().attribute("do");
        if ("fatal".equals(does)) return WorkResult.fatal("BROKEN", "cannot be done");
        if ("flaky".equals(does) && ctx.task().record().retries() == 0) return WorkResult.retryable("BUSY", "try later");
        return WorkResult.success();
    };

    /** Runs every runnable task of {@code machine} on {@code queue}, in a runtime of its own: another process's work. */
    void runOnce(TransitionEngine on, Machine<S, E> machine, String queue) {
        ManualExecutor executor = new ManualExecutor();
        TaskRuntime rt = TaskRuntime.builder(on).owner("r-" + queue).executor(executor).workers(1)
                .leaseDuration(Duration.ofSeconds(30)).pollInterval(Duration.ofSeconds(1)).seed(1)
                .register(machine, queue, worker, QueueOptions.defaults())
                .build();
        rt.start();
        executor.runAll();
        rt.halt();
    }

    void create(Machine<S, E> machine, String queue, String does) {
        engine.create(machine, TaskSpec.defaults().queue(queue).attribute("do", does));
    }

    @Test
    void eachQueueCountsStartsSuccessesFailuresAndRetriesPerMinuteFromTheHistory() {
        for (int i = 0; i < 3; i++) create(JOB, "jobs", "ok");
        create(JOB, "jobs", "fatal");
        create(JOB, "jobs", "flaky");
        create(RETRYING, "others", "flaky");
        clock.advance(Duration.ofSeconds(5));
        // Another process's engine on the same store does the work: the counts come from the store.
        TransitionEngine elsewhere = TransitionEngine.builder().store(store).clock(clock).build();
        runOnce(elsewhere, JOB, "jobs");
        runOnce(elsewhere, RETRYING, "others");
        clock.advance(Duration.ofMinutes(1));
        runOnce(elsewhere, JOB, "jobs");            // the retried tasks run again, a minute later
        runOnce(elsewhere, RETRYING, "others");

        List<QueueActivity> activity = TaskOperations.of(engine).activity(List.of(JOB, RETRYING), Duration.ofHours(1),
                Duration.ofMinutes(1));

        assertThat(activity).extracting(QueueActivity::queue).containsExactly("jobs", "others");
        QueueActivity jobs = activity.get(0);
        assertThat(jobs.points()).as("one point per minute of the hour, the current one included").hasSize(61);
        assertThat(jobs.points().get(0).at()).isEqualTo(t0.minus(Duration.ofMinutes(59)));
        int last = jobs.points().size() - 1;
        assertThat(jobs.points().get(last - 1)).isEqualTo(new QueueActivity.Point(t0, 5, 3, 1, 1));
        assertThat(jobs.points().get(last)).isEqualTo(new QueueActivity.Point(t0.plus(Duration.ofMinutes(1)), 1, 1, 0, 0));
        assertThat(jobs.total()).isEqualTo(new QueueActivity.Point(jobs.points().get(0).at(), 6, 4, 1, 1));
        assertThat(activity.get(1).points().get(last - 1)).as("a retryable event of its own counts as a retry")
                .isEqualTo(new QueueActivity.Point(t0, 1, 0, 0, 1));
        assertThat(activity.get(1).total()).isEqualTo(new QueueActivity.Point(jobs.points().get(0).at(), 2, 1, 0, 1));

        assertThat(TaskOperations.of(engine).activity(List.of(RETRYING), Duration.ofHours(1), Duration.ofMinutes(1)))
                .as("events of machines not given count as nothing").extracting(QueueActivity::queue).containsExactly("others");

        clock.advance(Duration.ofHours(1).plusSeconds(1));
        assertThat(TaskOperations.of(engine).activity(List.of(JOB, RETRYING), Duration.ofHours(1), Duration.ofMinutes(1)))
                .as("an hour later the work has left the window").isEmpty();
    }

    @Test
    void aWindowTooLongOrABucketTooShortIsRefused() {
        TaskOperations ops = TaskOperations.of(engine);
        assertThatThrownBy(() -> ops.activity(List.of(JOB), Duration.ofDays(2), Duration.ofHours(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ops.activity(List.of(JOB), Duration.ofHours(1), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ops.activity(List.of(JOB), Duration.ZERO, Duration.ofMinutes(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(ops.activity(List.of(JOB), Duration.ofDays(1), Duration.ofMinutes(1))).isEmpty();
    }
}
