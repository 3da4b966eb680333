package dev.statekit.core.runtime;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.RefusalCode;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.internal.Kernel;
import dev.statekit.core.ops.CancelResult;
import dev.statekit.core.ops.TaskOperations;
import dev.statekit.core.spi.TransitionListener;
import dev.statekit.store.HistoryEntry;
import org.jspecify.annotations.Nullable;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.QueueRecord;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskRecord;
import dev.statekit.test.fixtures.Jobs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The operator's commands ({@link TaskOperations}) next to a runtime: queue control, retries and
 * their placement, reordering as recorded changes, and cancellation (with the runtime's own part,
 * {@link Cancels}, for the tasks it runs).
 */
class OperationsTest {
    final RuntimeParts parts = new RuntimeParts();
    final Registration<Jobs.State, Jobs.Event> r = RuntimeParts.registration(Jobs.MACHINE, "q", c -> WorkResult.success());
    int wakes;
    final TaskOperations ops = TaskOperations.of(parts.engine);
    final Command ops_ = Command.user("ops");

    {
        parts.engine.subscribe(new TransitionListener() {      // what wakes a runtime of this engine
            @Override
            public void onTransition(String machine, TaskRecord task, HistoryEntry entry) {
                wakes++;
            }

            @Override
            public void onQueueChanged(QueueRecord queue, @Nullable String actor) {
                if (!queue.paused()) wakes++;
            }
        });
    }

    Cancels control(RuntimeContext ctx) {
        return new Cancels(ctx);
    }

    long enqueue(int priority) {
        return parts.enqueue(Jobs.MACHINE, "q", priority);
    }

    /** Creates a task on {@code queue} and fails it with two retries spent and a wait left over. */
    long failed(String queue, TaskSpec spec) {
        long id = parts.engine.create(Jobs.MACHINE, spec.queue(queue)).task().id();
        parts.engine.fire(Jobs.MACHINE, id, Jobs.Event.START);
        Kernel.of(parts.engine).fire(Jobs.MACHINE, id, Jobs.Event.FAIL, Command.system().error(new TaskError("BROKEN", "no", false, null)),
                (cur, next) -> next.retries(2).notBefore(parts.clock.now().plusSeconds(60)));
        assertThat(parts.task(id).state()).isEqualTo("FAILED");
        return id;
    }

    long failed(int priority) {
        return failed("q", TaskSpec.defaults().priority(priority));
    }

    /** Returns the ids of the runnable tasks of queue {@code q} in the order a claim takes them. */
    List<Long> claimOrder() {
        ClaimRequest next = new ClaimRequest(Jobs.MACHINE.name(), "q", List.of(new ClaimRule("QUEUED", "START", "RUNNING")), "peek",
                parts.clock.now(), RuntimeParts.LEASE, 100, 0);
        List<Long> ids = new ArrayList<>();
        for (TaskRecord t : parts.store.peek(next)) ids.add(t.id());
        return ids;
    }

    // --- queues -------------------------------------------------------------------------------

    @Test
    void pauseAndStopAfterCurrentRecordTheirReasonAndResumeClearsItAndWakesTheRuntime() {
        parts.started("r", r);
        parts.store.setConcurrency("q", 2);
        assertThat(ops.pause("q", ops_)).isEqualTo(new QueueRecord("q", true, "PAUSED", 2, 0));
        assertThat(parts.store.queue("q")).isEqualTo(new QueueRecord("q", true, "PAUSED", 2, 0));
        ops.stopAfterCurrent("q", ops_);
        assertThat(parts.store.queue("q").pauseReason()).isEqualTo("STOP_AFTER_CURRENT");
        assertThat(wakes).isZero();
        ops.resume("q", ops_);
        assertThat(parts.store.queue("q")).isEqualTo(new QueueRecord("q", false, null, 2, 0));
        assertThat(wakes).isEqualTo(1);
    }

    // --- retries ------------------------------------------------------------------------------

    @Test
    void aRetryGoesToTheEndOfItsPriorityWithItsCountersResetAndItsErrorKept() {
        parts.started("r", r);
        long f = failed(0);
        long q1 = enqueue(0);
        parts.spy.clear();
        Outcome<Jobs.State> o = ops.retry(Jobs.MACHINE, f, Jobs.Event.RETRY, false, Command.user("ops"));
        assertThat(o.isApplied()).isTrue();
        TaskRecord t = parts.task(f);
        assertThat(t.state()).isEqualTo("QUEUED");
        assertThat(t.retries()).isZero();
        assertThat(t.notBefore()).isNull();
        assertThat(t.lastError().code()).isEqualTo("BROKEN");
        assertThat(claimOrder()).containsExactly(q1, f);
        assertThat(parts.spy.calls("reorder")).as("the place is written with the transition").isEmpty();
        assertThat(parts.last(f).actor()).isEqualTo("ops");
    }

    @Test
    void aRetryToTheFrontGoesAheadOfItsPriority() {
        parts.started("r", r);
        long f = failed(0);
        long q1 = enqueue(0);
        long high = enqueue(1);
        ops.retry(Jobs.MACHINE, f, Jobs.Event.RETRY, true, Command.user("ops"));
        assertThat(claimOrder()).containsExactly(high, f, q1);
    }

    @Test
    void aRefusedRetryWritesNothing() {
        parts.started("r", r);
        long queued = enqueue(0);
        TaskRecord before = parts.task(queued);
        Outcome<Jobs.State> o = ops.retry(Jobs.MACHINE, queued, Jobs.Event.RETRY, true, Command.user("ops"));
        assertThat(((Outcome.Refused<Jobs.State>) o).code()).isEqualTo(RefusalCode.ILLEGAL_TRANSITION);
        assertThat(parts.task(queued)).isEqualTo(before);
    }

    @Test
    void retryAllToTheFrontKeepsTheRetriedTasksInTheirOrderAheadOfEachPriority() {
        parts.started("r", r);
        long a = failed(0);
        long b = failed(1);
        long c = failed(0);
        long x = enqueue(0);
        long y = enqueue(1);
        List<Outcome<Jobs.State>> outcomes = ops.retryAll(Jobs.MACHINE, Jobs.State.FAILED, Jobs.Event.RETRY, null, null, true,
                Command.user("ops"));
        assertThat(outcomes).hasSize(3).allMatch(Outcome::isApplied);
        assertThat(claimOrder()).containsExactly(b, y, a, c, x);
        for (long id : List.of(a, b, c)) assertThat(parts.task(id).retries()).isZero();
    }

    @Test
    void retryAllToTheEndKeepsTheRetriedTasksInTheirOrderBehindEachPriority() {
        parts.started("r", r);
        long a = failed(0);
        long b = failed(1);
        long c = failed(0);
        long x = enqueue(0);
        long y = enqueue(1);
        ops.retryAll(Jobs.MACHINE, Jobs.State.FAILED, Jobs.Event.RETRY, null, null, false, Command.user("ops"));
        assertThat(claimOrder()).containsExactly(y, b, x, a, c);
    }

    @Test
    void retryAllRetriesOnlyTheChildrenAndTheQueueAskedFor() {
        parts.started("r", r);
        long parent = enqueue(0);
        long child = failed("q", TaskSpec.defaults().parent(parent));
        long orphan = failed("q", TaskSpec.defaults());
        long childElsewhere = failed("other", TaskSpec.defaults().parent(parent));
        List<Outcome<Jobs.State>> outcomes = ops.retryAll(Jobs.MACHINE, Jobs.State.FAILED, Jobs.Event.RETRY, parent, "q", false,
                Command.user("ops"));
        assertThat(outcomes).hasSize(1);
        assertThat(parts.task(child).state()).isEqualTo("QUEUED");
        assertThat(parts.task(orphan).state()).isEqualTo("FAILED");
        assertThat(parts.task(childElsewhere).state()).isEqualTo("FAILED");
    }

    // --- order --------------------------------------------------------------------------------

    @Test
    void moveToFrontPutsATaskAheadOfItsPriorityAndWakesTheRuntime() {
        parts.started("r", r);
        long t1 = enqueue(0);
        long t2 = enqueue(0);
        long t3 = enqueue(0);
        long high = enqueue(1);
        wakes = 0;
        assertThat(ops.moveToFront(Jobs.MACHINE, t3, ops_).isApplied()).isTrue();
        assertThat(claimOrder()).containsExactly(high, t3, t1, t2);
        assertThat(parts.task(t3).priority()).isZero();
        assertThat(wakes).isEqualTo(1);
        assertThat(parts.events(t3)).as("a recorded change").containsExactly(TaskOperations.MOVE_TO_FRONT);
        assertThat(parts.last(t3).actor()).isEqualTo("ops");
        assertThat(parts.last(t3).to()).isEqualTo("QUEUED");
        assertThat(((Outcome.Refused<Jobs.State>) ops.moveToFront(Jobs.MACHINE, 999, ops_)).code()).isEqualTo(RefusalCode.NOT_FOUND);
        assertThat(wakes).isEqualTo(1);
    }

    @Test
    void setPriorityKeepsTheTasksPlaceAmongItsNewEquals() {
        parts.started("r", r);
        long t1 = enqueue(0);
        long h1 = enqueue(5);
        long t2 = enqueue(0);
        long h2 = enqueue(5);
        long sequence = parts.task(t2).sequence();
        wakes = 0;
        assertThat(ops.setPriority(Jobs.MACHINE, t2, 5, ops_).isApplied()).isTrue();
        assertThat(parts.task(t2).sequence()).isEqualTo(sequence);
        assertThat(claimOrder()).containsExactly(h1, t2, h2, t1);
        assertThat(wakes).isEqualTo(1);
        assertThat(parts.events(t2)).containsExactly(TaskOperations.SET_PRIORITY);
        assertThat(ops.setPriority(Jobs.MACHINE, 999, 5, ops_).isApplied()).isFalse();
    }

    @Test
    void moveBeforeRenumbersTheTasksBetweenWithTheirOwnNumbers() {
        parts.started("r", r);
        long t1 = enqueue(0);
        long t2 = enqueue(0);
        long t3 = enqueue(0);
        long t4 = enqueue(0);
        List<Long> numbers = new ArrayList<>();
        for (long id : List.of(t1, t2, t3, t4)) numbers.add(parts.task(id).sequence());
        assertThat(ops.moveBefore(Jobs.MACHINE, t4, t2, ops_)).isTrue();
        assertThat(claimOrder()).containsExactly(t1, t4, t2, t3);
        assertThat(ops.moveBefore(Jobs.MACHINE, t1, t3, ops_)).isTrue();
        assertThat(claimOrder()).containsExactly(t4, t2, t1, t3);
        List<Long> after = new ArrayList<>();
        for (long id : List.of(t4, t2, t1, t3)) after.add(parts.task(id).sequence());
        assertThat(after).as("the same numbers, handed out anew").isEqualTo(numbers);
        assertThat(parts.events(t1)).as("each move is recorded with its actor").containsExactly(TaskOperations.MOVE_BEFORE);
        assertThat(parts.last(t1).actor()).isEqualTo("ops");
        assertThat(parts.events(t3)).as("renumbered by the first move only").containsExactly(TaskOperations.MOVE_BEFORE);
    }

    @Test
    void moveBeforeRefusesTasksOfDifferentPrioritiesAndIgnoresTheImpossible() {
        parts.started("r", r);
        long t1 = enqueue(0);
        long high = enqueue(1);
        assertThatThrownBy(() -> ops.moveBefore(Jobs.MACHINE, t1, high, ops_)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not in one machine, queue and priority");
        assertThat(ops.moveBefore(Jobs.MACHINE, t1, t1, ops_)).isFalse();
        assertThat(ops.moveBefore(Jobs.MACHINE, t1, 999, ops_)).isFalse();
        assertThat(claimOrder()).containsExactly(high, t1);
    }

    // --- cancellation -------------------------------------------------------------------------

    @Test
    void aQueuedTaskIsCancelledAtOnceAndATerminalOneIsRefused() {
        Cancels control = control(parts.started("r", r));
        long id = enqueue(0);
        CancelResult<Jobs.State> first = control.cancel(Jobs.MACHINE, id, Command.user("ana"));
        assertThat(first.status()).isEqualTo(CancelResult.Status.CANCELLED);
        assertThat(parts.task(id).state()).isEqualTo("CANCELED");
        assertThat(parts.last(id).actor()).isEqualTo("ana");
        CancelResult<Jobs.State> again = control.cancel(Jobs.MACHINE, id, Command.user("ana"));
        assertThat(again.status()).isEqualTo(CancelResult.Status.REFUSED);
        assertThat(((Outcome.Refused<Jobs.State>) again.outcome()).code()).isEqualTo(RefusalCode.ILLEGAL_TRANSITION);
        assertThat(parts.task(id).version()).isEqualTo(1);
        assertThat(parts.clock.pendingTimers()).as("no grace period for a task that does not run").isEmpty();
    }

    @Test
    void aMachineWithoutACancelEventCannotBeCancelled() {
        Cancels control = control(parts.started("r", r));
        long id = parts.enqueue(RuntimeParts.PLAIN, "q");
        assertThatThrownBy(() -> control.cancel(RuntimeParts.PLAIN, id, Command.user("ana")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("plain");
        assertThat(parts.task(id).state()).isEqualTo("QUEUED");
    }

    @Test
    void aRunningTasksWorkerIsAskedToStopAndItsEndAppliesTheCancellation() {
        RuntimeContext ctx = parts.started("r", r);
        Cancels control = control(ctx);
        long id = enqueue(0);
        Run<Jobs.State, Jobs.Event> run = RuntimeParts.claim(ctx, r).get(0);
        List<String> seenByWorker = new ArrayList<>();
        run.onCancel(() -> seenByWorker.add(run.cancelReason()));
        Command ana = Command.user("ana").reason("no longer needed");
        assertThat(control.cancel(Jobs.MACHINE, id, ana).status()).isEqualTo(CancelResult.Status.REQUESTED);
        assertThat(seenByWorker).containsExactly("CANCELLED");
        assertThat(run.cancelCommand).isSameAs(ana);
        assertThat(parts.store.cancelRequested(id)).as("kept for a recovery of the lease").isTrue();
        assertThat(parts.task(id).state()).isEqualTo("RUNNING");
        assertThat(parts.clock.pendingTimers()).containsExactly(parts.clock.now().plus(RuntimeParts.GRACE));

        ResultWriter writer = RuntimeParts.writer(ctx, at -> { });
        writer.write(List.of(writer.settle(run, WorkResult.success(), parts.clock.now())));
        assertThat(parts.task(id).state()).isEqualTo("CANCELED");
        assertThat(parts.last(id).actor()).isEqualTo("ana");
        assertThat(parts.last(id).reason()).isEqualTo("no longer needed");
        parts.clock.advance(RuntimeParts.GRACE);
        assertThat(parts.events(id)).as("the end of the grace finds the task finished").containsExactly("START", "CANCEL");
    }

    @Test
    void aWorkerThatDoesNotStopWithinTheGraceIsCancelledAnywayAndFenced() {
        RuntimeContext ctx = parts.started("r", r);
        long id = enqueue(0);
        Run<Jobs.State, Jobs.Event> run = RuntimeParts.claim(ctx, r).get(0);
        control(ctx).cancel(Jobs.MACHINE, id, Command.user("ana"));
        parts.clock.advance(RuntimeParts.GRACE.minusSeconds(1));
        assertThat(parts.task(id).state()).isEqualTo("RUNNING");
        parts.clock.advance(Duration.ofSeconds(1));
        assertThat(parts.task(id).state()).isEqualTo("CANCELED");
        assertThat(parts.task(id).lease()).isNull();
        assertThat(parts.last(id).reason()).isEqualTo("cancelled after the grace period");
        ResultWriter writer = RuntimeParts.writer(ctx, at -> { });
        writer.write(List.of(writer.settle(run, WorkResult.success(), parts.clock.now())));
        assertThat(parts.events(id)).as("the late result is discarded").containsExactly("START", "CANCEL");
    }

    @Test
    void withoutForcingAWorkerThatDoesNotStopKeepsItsTask() {
        parts.forceCancel = false;
        RuntimeContext ctx = parts.started("r", r);
        long id = enqueue(0);
        RuntimeParts.claim(ctx, r);
        control(ctx).cancel(Jobs.MACHINE, id, Command.user("ana"));
        parts.clock.advance(RuntimeParts.GRACE.multipliedBy(2));
        assertThat(parts.task(id).state()).isEqualTo("RUNNING");
        assertThat(parts.events(id)).containsExactly("START");
    }

    @Test
    void aTaskRunningElsewhereIsCancelledThroughTheStoreAndForcedAfterTheGrace() {
        RuntimeContext ctx = parts.started("r", r);
        long id = enqueue(0);
        RuntimeParts.claim(parts.started("elsewhere", r), r);
        assertThat(control(ctx).cancel(Jobs.MACHINE, id, Command.user("ana")).status()).isEqualTo(CancelResult.Status.REQUESTED);
        assertThat(parts.store.cancelRequested(id)).isTrue();
        parts.clock.advance(RuntimeParts.GRACE);
        assertThat(parts.task(id).state()).isEqualTo("CANCELED");
    }

    @Test
    void aForcedCancellationSparesALaterHolderOfTheTask() {
        RuntimeContext ctx = parts.started("r", r);
        long id = enqueue(0);
        RuntimeParts.claim(ctx, r);
        control(ctx).cancel(Jobs.MACHINE, id, Command.user("ana"));
        parts.engine.fire(Jobs.MACHINE, id, Jobs.Event.RELEASE, Command.system().reason("operator reset"));
        RuntimeParts.claim(parts.started("next", r), r);
        parts.clock.advance(RuntimeParts.GRACE);
        assertThat(parts.task(id).state()).isEqualTo("RUNNING");
        assertThat(parts.task(id).lease().owner()).isEqualTo("next");
    }

    @Test
    void aMachineThatCannotCancelAStartedTaskRefusesAndRequestsNothing() {
        Machine<Jobs.State, Jobs.Event> m = Machine.builder("uncancellable", Jobs.State.class, Jobs.Event.class)
                .states(Jobs.State.QUEUED, Jobs.State.RUNNING, Jobs.State.DONE, Jobs.State.FAILED, Jobs.State.CANCELED)
                .initial(Jobs.State.QUEUED)
                .terminal(Jobs.State.DONE, Jobs.State.FAILED, Jobs.State.CANCELED)
                .transition(Jobs.State.QUEUED, Jobs.Event.START, Jobs.State.RUNNING, SYSTEM)
                .transition(Jobs.State.RUNNING, Jobs.Event.COMPLETE, Jobs.State.DONE, SYSTEM)
                .transition(Jobs.State.RUNNING, Jobs.Event.FAIL, Jobs.State.FAILED, SYSTEM)
                .transition(Jobs.State.QUEUED, Jobs.Event.CANCEL, Jobs.State.CANCELED, USER)
                .run(p -> p.claim(Jobs.State.QUEUED, Jobs.Event.START).success(Jobs.Event.COMPLETE).fatal(Jobs.Event.FAIL)
                        .cancel(Jobs.Event.CANCEL).recoverByFailing())
                .build();
        Registration<Jobs.State, Jobs.Event> reg = RuntimeParts.registration(m, "q", c -> WorkResult.success());
        RuntimeContext ctx = parts.started("r", reg);
        long id = parts.enqueue(m, "q");
        Run<Jobs.State, Jobs.Event> run = RuntimeParts.claim(ctx, reg).get(0);
        CancelResult<Jobs.State> result = control(ctx).cancel(m, id, Command.user("ana"));
        assertThat(result.status()).isEqualTo(CancelResult.Status.REFUSED);
        assertThat(((Outcome.Refused<Jobs.State>) result.outcome()).code()).isEqualTo(RefusalCode.ILLEGAL_TRANSITION);
        assertThat(run.cancelled()).isFalse();
        assertThat(parts.store.cancelRequested(id)).isFalse();
        assertThat(parts.clock.pendingTimers()).isEmpty();
        assertThat(parts.task(id).state()).isEqualTo("RUNNING");
    }

    @Test
    void aRunningTaskIsNotMovedBeforeAnotherAndTheQueueKeepsItsOrder() {
        Registration<Jobs.State, Jobs.Event> r = RuntimeParts.registration(Jobs.MACHINE, "q", c -> WorkResult.success());
        RuntimeContext ctx = parts.started("r", r);

        long running = parts.enqueue(Jobs.MACHINE, "q");
        long t2 = parts.enqueue(Jobs.MACHINE, "q");
        long t3 = parts.enqueue(Jobs.MACHINE, "q");
        RuntimeParts.claim(ctx, r);                                // the first task runs now
        long before = parts.task(running).sequence();
        long second = parts.task(t2).sequence();
        long third = parts.task(t3).sequence();
        assertThat(ops.moveBefore(Jobs.MACHINE, running, t3, ops_)).isFalse();
        assertThat(ops.moveBefore(Jobs.MACHINE, t3, running, ops_)).isFalse();
        assertThat(parts.task(running).sequence()).as("the running task keeps its place").isEqualTo(before);
        assertThat(parts.task(t2).sequence()).isEqualTo(second);
        assertThat(parts.task(t3).sequence()).isEqualTo(third);
    }
}
