package dev.statekit.examples;

import static dev.statekit.examples.CompressionTask.BACKOFF_SECONDS;
import static dev.statekit.examples.CompressionTask.QUEUE_PLACEMENT;
import static dev.statekit.examples.CompressionTask.RETRY_COUNT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.RefusalCode;
import dev.statekit.core.Task;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.Transition;
import dev.statekit.core.TransitionEngine;
import dev.statekit.examples.CompressionTask.Event;
import dev.statekit.examples.CompressionTask.State;
import dev.statekit.store.InMemoryStore;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TriggerSource;
import java.util.ArrayList;
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
                "RUNNING RETRYABLE_ERROR RETRYING S [retry-budget]",
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
                "CREATED CANCEL CANCELED U",
                "QUEUED CANCEL CANCELED U",
                "RUNNING CANCEL CANCELED U",
                "RETRYING CANCEL CANCELED U",
                "PAUSED CANCEL CANCELED U",
                "FAILED CANCEL CANCELED U",
                "INTERRUPTED CANCEL CANCELED U",
                "BLOCKED CANCEL CANCELED U");
    }

    @Override
    Machine<State, Event> machine() {
        return CompressionTask.MACHINE;
    }

    @Override
    Map<String, String> namedRefusals() {
        return Map.of("RUNNING/PAUSE", CompressionTask.RUNNING_NOT_PAUSABLE);
    }

    @Override
    Command command(Transition<State, Event> row, TriggerSource source, Task<State> task) {
        Command c = base(source);
        return switch (row.event()) {
            case BLOCK -> c.set(CompressionTask.BLOCKED_REASON, "disk_space");
            case FAIL, RETRYABLE_ERROR -> c.set(CompressionTask.FAILURE_REASON, "temporary I/O error");
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

    @Test
    void retryableErrorsBackOffExponentiallyUntilTheBudgetIsSpent() {
        long id = running();
        List<String> backoffs = new ArrayList<>();
        for (int i = 0; i < CompressionTask.DEFAULT_MAX_RETRIES; i++) {
            var retrying = apply(id, Event.RETRYABLE_ERROR, SYSTEM);
            backoffs.add(retrying.attribute(BACKOFF_SECONDS));
            assertThat(apply(id, Event.BACKOFF_ELAPSED, SYSTEM).state()).isEqualTo(State.QUEUED);
            apply(id, Event.START, SYSTEM);
        }
        assertThat(backoffs).containsExactly("1", "2", "4");
        assertThat(task(id).attribute(RETRY_COUNT)).isEqualTo("3");
        var r = refuse(id, Event.RETRYABLE_ERROR, SYSTEM, RefusalCode.GUARD_REFUSED, CompressionTask.RETRIES_EXHAUSTED);
        assertThat(r.message()).contains("3 of 3");

        assertThat(apply(id, Event.FAIL, SYSTEM.set(CompressionTask.FAILURE_REASON, "resource busy")).state()).isEqualTo(State.FAILED);
        var retried = apply(id, Event.RETRY, ALICE);
        assertThat(retried.state()).isEqualTo(State.QUEUED);
        assertThat(retried.attribute(QUEUE_PLACEMENT)).isEqualTo("front");
        assertThat(retried.attribute(RETRY_COUNT)).isEqualTo("0");
        assertThat(retried.attributes().contains(CompressionTask.FAILURE_REASON)).isFalse();
        assertThat(apply(id, Event.START, SYSTEM).attributes().contains(QUEUE_PLACEMENT)).isFalse();
    }

    @Test
    void theRetryBudgetIsTheTasksOwnWhenItSetsOne() {
        long id = engine.create(machine(), TaskSpec.defaults().attribute(CompressionTask.MAX_RETRIES, "0")).task().id();
        apply(id, Event.ENQUEUE, SYSTEM);
        apply(id, Event.START, SYSTEM);
        refuse(id, Event.RETRYABLE_ERROR, SYSTEM, RefusalCode.GUARD_REFUSED, CompressionTask.RETRIES_EXHAUSTED);
    }

    @Test
    void theBackoffDoublesUpToThirtySeconds() {
        List<Integer> seconds = new ArrayList<>();
        for (int done = 0; done < 8; done++) seconds.add(CompressionTask.backoffSeconds(done));
        assertThat(seconds).containsExactly(1, 2, 4, 8, 16, 30, 30, 30);
        assertThat(CompressionTask.backoffSeconds(Integer.MAX_VALUE)).isEqualTo(30);
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
        long recovered = running();
        apply(recovered, Event.INTERRUPT, SYSTEM.reason("app restarted"));
        var queued = apply(recovered, Event.RECOVER, SYSTEM);
        assertThat(queued.state()).isEqualTo(State.QUEUED);
        assertThat(queued.attribute(QUEUE_PLACEMENT)).isEqualTo("front");

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
