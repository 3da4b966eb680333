package dev.statekit.examples;

import dev.statekit.core.ops.TaskOperations;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.RefusalCode;
import dev.statekit.core.Task;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.Transition;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import dev.statekit.examples.CompressionTask.Event;
import dev.statekit.examples.CompressionTask.State;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TriggerSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CompressionTaskTest extends MachineContract<State, Event> {
    static final Command ALICE = Command.user("alice");
    static final Command SYSTEM = Command.system();

    @Override
    List<String> expectedRows() {
        return List.of(
                "CREATED ENQUEUE QUEUED S",
                "QUEUED START RUNNING S",
                "RUNNING SUCCEED COMPLETED S",
                "RUNNING FAIL FAILED S",
                "RUNNING RETRYABLE_ERROR RETRYING S",
                "RETRYING BACKOFF_ELAPSED QUEUED S",
                "FAILED RETRY QUEUED U",
                "RUNNING INTERRUPT INTERRUPTED S",
                "INTERRUPTED RECOVER QUEUED S",
                "INTERRUPTED FAIL FAILED S",
                "QUEUED SKIP CANCELED U",
                "QUEUED BLOCK BLOCKED S [reason-given]",
                "BLOCKED UNBLOCK QUEUED S",
                "QUEUED PAUSE PAUSED U",
                "PAUSED RESUME QUEUED U",
                "CREATED CANCEL CANCELED SU",
                "QUEUED CANCEL CANCELED SU",
                "RUNNING CANCEL CANCELED U",
                "RETRYING CANCEL CANCELED SU",
                "PAUSED CANCEL CANCELED SU",
                "FAILED CANCEL CANCELED SU",
                "INTERRUPTED CANCEL CANCELED SU",
                "BLOCKED CANCEL CANCELED SU");
    }

    @Override
    Machine<State, Event> machine() {
        return CompressionTask.MACHINE;
    }

    @Override
    Map<String, String> namedRefusals() {
        Map<String, String> named = new HashMap<>();
        named.put("RUNNING/PAUSE", CompressionTask.RUNNING_NOT_PAUSABLE);
        for (State s : State.values()) {
            if (s != State.QUEUED) named.put(s + "/SKIP", s == State.RUNNING ? CompressionTask.TASK_ALREADY_STARTED : CompressionTask.NOT_QUEUED);
            if (s != State.FAILED) named.put(s + "/RETRY", CompressionTask.NOT_FAILED);
        }
        named.put("COMPLETED/CANCEL", CompressionTask.TASK_FINISHED);
        named.put("CANCELED/CANCEL", CompressionTask.TASK_FINISHED);
        return named;
    }

    @Override
    Command command(Transition<State, Event> row, TriggerSource source, Task<State> task) {
        Command c = base(source);
        return switch (row.event()) {
            case BLOCK -> c.set(CompressionTask.BLOCKED_REASON, "disk_space");
            case FAIL, RETRYABLE_ERROR -> c.error(new TaskError("IO_ERROR", "temporary I/O error", true, null));
            default -> c;
        };
    }

    long queued() {
        long id = create();
        apply(id, Event.ENQUEUE, SYSTEM);
        return id;
    }

    long running() {
        long id = queued();
        apply(id, Event.START, SYSTEM);
        return id;
    }

    /** A scheduler of the queue {@value #QUEUE} over the test's engine and clock, running {@code worker} on {@code executor}. */
    TaskRuntime scheduler(ManualExecutor executor, Worker<State> worker) {
        return TaskRuntime.builder(engine).owner("scheduler").executor(executor).workers(1).seed(1)
                .register(machine(), QUEUE, worker, QueueOptions.defaults().concurrency(1)).build();
    }

    /** Creates a task on the scheduler's queue and enqueues it. */
    long enqueued() {
        long id = engine.create(machine(), TaskSpec.defaults().queue(QUEUE)).task().id();
        apply(id, Event.ENQUEUE, SYSTEM);
        return id;
    }

    static final String QUEUE = "compression-test";

    @Test
    void retryableErrorsBackOffExponentiallyUntilTheBudgetIsSpent() {
        ManualExecutor executor = new ManualExecutor();
        List<Long> started = new ArrayList<>();
        TaskRuntime scheduler = scheduler(executor, ctx -> {
            started.add(ctx.task().id());
            return started.size() <= 4 ? WorkResult.retryable("IO_BUSY", "resource busy") : WorkResult.success();
        });
        long id = enqueued();
        scheduler.start();
        executor.runAll();
        List<Duration> backoffs = new ArrayList<>();
        for (int i = 0; i < CompressionTask.RETRY_POLICY.maxRetries(); i++) {
            Task<State> retrying = task(id);
            assertThat(retrying.state()).isEqualTo(State.RETRYING);
            assertThat(retrying.record().retries()).isEqualTo(i + 1);
            backoffs.add(Duration.between(clock.now(), retrying.record().notBefore()));
            clock.advanceTo(retrying.record().notBefore());
            executor.runAll();
        }
        // 1 s, 2 s, 4 s, each shortened by at most a fifth
        for (int i = 0; i < backoffs.size(); i++) {
            Duration base = Duration.ofSeconds(1L << i);
            assertThat(backoffs.get(i)).isBetween(base.multipliedBy(8).dividedBy(10), base);
        }
        Task<State> failed = task(id);
        assertThat(failed.state()).as("the budget of 3 retries is spent").isEqualTo(State.FAILED);
        assertThat(failed.record().retries()).isEqualTo(3);
        assertThat(failed.record().lastError().code()).isEqualTo("IO_BUSY");
        var history = engine.history(id);
        assertThat(history.get(history.size() - 1).reason()).contains("after 3 retries");

        TaskOperations ops = TaskOperations.of(engine);
        ops.pause(QUEUE, ALICE);
        long waiting = enqueued();
        assertThat(ops.moveToFront(machine(), waiting, ALICE).isApplied()).isTrue();
        assertThat(task(waiting).record().sequence()).isLessThan(task(id).record().sequence());
        var retried = ops.retry(machine(), id, Event.RETRY, true, ALICE).orElseThrow().task();
        assertThat(retried.state()).isEqualTo(State.QUEUED);
        assertThat(retried.record().retries()).as("a fresh retry budget").isZero();
        assertThat(retried.record().attempts()).as("and fresh attempts").isZero();
        assertThat(retried.record().notBefore()).isNull();
        assertThat(task(id).record().sequence()).as("at the front of its priority").isLessThan(task(waiting).record().sequence());
        ops.resume(QUEUE, ALICE);
        executor.runAll();
        assertThat(task(id).state()).isEqualTo(State.COMPLETED);
        assertThat(started).containsExactly(id, id, id, id, id, waiting);
        scheduler.halt();
    }

    @Test
    void theBackoffDoublesUpToThirtySeconds() {
        List<Long> seconds = new ArrayList<>();
        for (int done = 0; done < 8; done++) seconds.add(CompressionTask.RETRY_POLICY.baseDelay(done).toSeconds());
        assertThat(seconds).containsExactly(1L, 2L, 4L, 8L, 16L, 30L, 30L, 30L);
        assertThat(CompressionTask.RETRY_POLICY.baseDelay(Integer.MAX_VALUE)).isEqualTo(Duration.ofSeconds(CompressionTask.MAX_BACKOFF_SECONDS));
    }

    @Test
    void aRunningTaskCannotBePausedButAQueuedOneCanBeHeld() {
        long run = running();
        var r = refuse(run, Event.PAUSE, ALICE, RefusalCode.ILLEGAL_TRANSITION, CompressionTask.RUNNING_NOT_PAUSABLE);
        assertThat(r.message()).contains("pause the queue");

        long held = queued();
        assertThat(apply(held, Event.PAUSE, ALICE).state()).isEqualTo(State.PAUSED);
        refuse(held, Event.START, SYSTEM, RefusalCode.ILLEGAL_TRANSITION, "ILLEGAL_TRANSITION");
        assertThat(apply(held, Event.RESUME, ALICE).state()).isEqualTo(State.QUEUED);
    }

    @Test
    void skipCancelsAQueuedTaskAsSkipped() {
        long id = queued();
        var skipped = apply(id, Event.SKIP, ALICE);
        assertThat(skipped.state()).isEqualTo(State.CANCELED);
        assertThat(skipped.attribute(CompressionTask.CANCEL_REASON)).isEqualTo("skipped");
        long canceled = running();
        assertThat(apply(canceled, Event.CANCEL, ALICE).attribute(CompressionTask.CANCEL_REASON)).isEqualTo("canceled");
    }

    @Test
    void lowDiskSpaceBlocksAQueuedTaskUntilSpaceIsBack() {
        long id = queued();
        refuse(id, Event.BLOCK, SYSTEM, RefusalCode.GUARD_REFUSED, CompressionTask.BLOCK_REASON_MISSING);
        var blocked = apply(id, Event.BLOCK, SYSTEM.set(CompressionTask.BLOCKED_REASON, "disk_space"));
        assertThat(blocked.state()).isEqualTo(State.BLOCKED);
        assertThat(blocked.attribute(CompressionTask.BLOCKED_REASON)).isEqualTo("disk_space");
        refuse(id, Event.START, SYSTEM, RefusalCode.ILLEGAL_TRANSITION, "ILLEGAL_TRANSITION");
        var back = apply(id, Event.UNBLOCK, SYSTEM);
        assertThat(back.state()).isEqualTo(State.QUEUED);
        assertThat(back.attributes().contains(CompressionTask.BLOCKED_REASON)).isFalse();
    }

    @Test
    void anInterruptedTaskIsRecoveredToTheFrontOrFailed() {
        ManualExecutor crashed = new ManualExecutor();
        TaskRuntime first = scheduler(crashed, ctx -> WorkResult.success());
        long recovered = enqueued();
        long next = enqueued();
        first.start();
        crashed.runNext();                      // the scheduler starts the first task, then the app crashes
        assertThat(task(recovered).state()).isEqualTo(State.RUNNING);
        first.halt();
        crashed.drop();
        TaskRuntime restarted = scheduler(new ManualExecutor(), ctx -> WorkResult.success());
        restarted.start();                      // the same owner: its lost task is recovered at once
        Task<State> queued = task(recovered);
        assertThat(queued.state()).isEqualTo(State.QUEUED);
        assertThat(queued.record().sequence()).as("at the front of its priority").isLessThan(task(next).record().sequence());
        assertThat(engine.history(recovered)).extracting(e -> e.event()).containsExactly("ENQUEUE", "START", "INTERRUPT", "RECOVER");
        restarted.halt();

        long failed = running();
        apply(failed, Event.INTERRUPT, SYSTEM);
        assertThat(apply(failed, Event.FAIL, SYSTEM).state()).isEqualTo(State.FAILED);
        assertThat(machine().allowedEvents(State.FAILED, TriggerSource.USER)).containsExactlyInAnyOrder(Event.RETRY, Event.CANCEL);
    }

    @Test
    void everyNonTerminalStateCanBeCanceledByTheUser() {
        for (State s : machine().states()) {
            boolean cancellable = machine().allowedEvents(s, TriggerSource.USER).contains(Event.CANCEL);
            assertThat(cancellable).as("%s", s).isEqualTo(!machine().isTerminal(s));
        }
        assertThat(machine().allowedEvents(State.RUNNING, TriggerSource.SYSTEM)).doesNotContain(Event.CANCEL);
    }

    @Test
    void onlyOneTaskRunsAtATimeUnderTheScheduler() {
        // a queue of its own, so that the scheduler sees only these tasks
        TransitionEngine queue = TransitionEngine.builder().store(new InMemoryStore()).clock(clock).build();
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            long id = queue.create(machine()).task().id();
            queue.fire(machine(), id, Event.ENQUEUE, SYSTEM).orElseThrow();
            ids.add(id);
        }
        assertThat(startNext(queue)).contains(ids.get(0));
        assertThat(startNext(queue)).isEmpty();
        assertThat(running(queue, ids)).containsExactly(ids.get(0));
        queue.fire(machine(), ids.get(0), Event.SUCCEED, SYSTEM).orElseThrow();
        assertThat(startNext(queue)).contains(ids.get(1));
        assertThat(running(queue, ids)).containsExactly(ids.get(1));
    }

    /** A one-slot scheduler: starts the first queued task when no task of the queue runs. */
    private Optional<Long> startNext(TransitionEngine queue) {
        TaskQuery all = TaskQuery.all().machine(machine().name());
        if (!queue.query(machine(), all.states(List.of(State.RUNNING.name()))).items().isEmpty()) return Optional.empty();
        var waiting = queue.query(machine(), all.states(List.of(State.QUEUED.name()))).items();
        if (waiting.isEmpty()) return Optional.empty();
        long id = waiting.get(0).id();
        queue.fire(machine(), id, Event.START, SYSTEM).orElseThrow();
        return Optional.of(id);
    }

    private List<Long> running(TransitionEngine queue, List<Long> ids) {
        return ids.stream().filter(id -> queue.find(machine(), id).orElseThrow().state() == State.RUNNING).toList();
    }
}
