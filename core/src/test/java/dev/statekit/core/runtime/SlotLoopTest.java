package dev.statekit.core.runtime;

import dev.statekit.core.StoreSpy;
import dev.statekit.core.TaskSpec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import dev.statekit.store.Change;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.Lease;
import dev.statekit.test.fixtures.Jobs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A worker slot's loop: a batch's workers, then its results in one write, then the next batch;
 * when it yields the slot, and that it gives the slot back whatever happens.
 */
class SlotLoopTest {
    final RuntimeParts parts = new RuntimeParts();
    final List<String> log = new ArrayList<>();
    final List<Long> worked = new ArrayList<>();
    int idleCalls;

    /** Does what the task's "result" attribute says: fail, retry, or succeed. */
    final Worker<Jobs.State> byAttribute = ctx -> {
        log.add("work " + ctx.task().id());
        worked.add(ctx.task().id());
        String result = ctx.task().attribute("result");
        if ("fail".equals(result)) return WorkResult.fatal("BROKEN", "no");
        if ("retry".equals(result)) return WorkResult.retryable("BUSY", "later");
        return WorkResult.success();
    };

    long enqueue(String queue, String result) {
        return parts.engine.create(Jobs.MACHINE, TaskSpec.defaults().queue(queue).attribute("result", result)).task().id();
    }

    Dispatcher dispatcher(RuntimeContext ctx) {
        return RuntimeParts.dispatcher(ctx, () -> { }, () -> idleCalls++);
    }

    /** A worker that takes {@code each} of the manual clock. */
    Worker<Jobs.State> taking(Duration each) {
        return ctx -> {
            worked.add(ctx.task().id());
            parts.clock.advance(each);
            return WorkResult.success();
        };
    }

    @Test
    void aBatchsResultsAreWrittenTogetherOnceAllItsWorkersRan() {
        parts.batchSize = 3;
        RuntimeContext ctx = parts.started("r", RuntimeParts.registration(Jobs.MACHINE, "q", byAttribute));
        parts.engine.subscribe((machine, task, entry) -> log.add(entry.event() + " " + task.id()));
        long ok = enqueue("q", "ok");
        long broken = enqueue("q", "fail");
        long busy = enqueue("q", "retry");
        List<Lease> leasesSeen = new ArrayList<>();
        parts.engine.subscribe((machine, task, entry) -> {
            if (entry.event().equals("START")) leasesSeen.add(task.lease());
        });
        dispatcher(ctx).requestDispatch();
        parts.executor.runNext();                     // the round claims the batch
        parts.spy.clear();
        parts.executor.runNext();                     // the slot runs it
        assertThat(log).containsExactly("START " + ok, "START " + broken, "START " + busy,
                "work " + ok, "work " + broken, "work " + busy,
                "COMPLETE " + ok, "FAIL " + broken, "RETRYABLE " + busy);
        assertThat(parts.spy.calls("applyEach")).hasSize(1);
        @SuppressWarnings("unchecked")
        List<Change> written = (List<Change>) parts.spy.calls("applyEach").get(0).args().get(0);
        assertThat(written).extracting(c -> c.next().id()).containsExactly(ok, broken, busy);
        assertThat(parts.spy.calls("apply")).isEmpty();
        assertThat(parts.spy.calls("find")).as("decided on the records the slot holds").isEmpty();
        assertThat(ctx.completed).hasValue(3);
        assertThat(ctx.running).isEmpty();
        assertThat(parts.task(busy).lease()).isNull();
        assertThat(leasesSeen).doesNotContainNull().hasSize(3);
    }

    @Test
    void aLoneRegistrationKeepsItsSlotWhileWorkIsRunnable() {
        RuntimeContext ctx = parts.started("r", RuntimeParts.registration(Jobs.MACHINE, "q", taking(Duration.ofMillis(600))));
        long t1 = parts.enqueue(Jobs.MACHINE, "q");
        long t2 = parts.enqueue(Jobs.MACHINE, "q");
        long t3 = parts.enqueue(Jobs.MACHINE, "q");
        dispatcher(ctx).requestDispatch();
        parts.executor.runNext();
        parts.executor.runNext();
        assertThat(worked).as("one loop ran them all").containsExactly(t1, t2, t3);
        assertThat(parts.executor.pending()).as("the slot, given back, asks for a round").isEqualTo(1);
        assertThat(idleCalls).isEqualTo(2);
    }

    @Test
    void theSlotYieldsAfterThePollIntervalWhenOtherRegistrationsShareTheRuntime() {
        Worker<Jobs.State> w = taking(Duration.ofMillis(600));
        RuntimeContext ctx = parts.started("r", RuntimeParts.registration(Jobs.MACHINE, "a", w),
                RuntimeParts.registration(Jobs.MACHINE, "b", w));
        long a1 = parts.enqueue(Jobs.MACHINE, "a");
        long a2 = parts.enqueue(Jobs.MACHINE, "a");
        long a3 = parts.enqueue(Jobs.MACHINE, "a");
        dispatcher(ctx).requestDispatch();
        parts.executor.runNext();
        parts.executor.runNext();
        assertThat(worked).as("a second batch at 0.6 s, none at 1.2 s").containsExactly(a1, a2);
        assertThat(parts.task(a3).state()).isEqualTo("QUEUED");
        assertThat(ctx.running).isEmpty();
        assertThat(parts.executor.pending()).as("the dispatcher decides who is next").isEqualTo(1);
    }

    @Test
    void aWorkerThatThrowsFailsItsTaskByPolicyAndTheLoopGoesOn() {
        int[] n = {0};
        RuntimeContext ctx = parts.started("r", RuntimeParts.registration(Jobs.MACHINE, "q", c -> {
            worked.add(c.task().id());
            switch (n[0]++) {
                case 0: throw new AssertionError("a worker's own error");
                case 1: throw new IllegalArgumentException("bad input file");
                case 2: return null;
                default: return WorkResult.success();
            }
        }));
        long error = parts.enqueue(Jobs.MACHINE, "q");
        long badInput = parts.enqueue(Jobs.MACHINE, "q");
        long nothing = parts.enqueue(Jobs.MACHINE, "q");
        long fine = parts.enqueue(Jobs.MACHINE, "q");
        Dispatcher d = dispatcher(ctx);
        d.requestDispatch();
        parts.executor.runAll();
        assertThat(worked).containsExactly(error, badInput, nothing, fine);
        assertThat(parts.task(error).state()).isEqualTo("FAILED");
        assertThat(parts.task(error).lastError().code()).isEqualTo("ASSERTIONERROR");
        assertThat(parts.task(badInput).lastError().code()).isEqualTo("BAD_INPUT");
        assertThat(parts.task(nothing).state()).isEqualTo("FAILED");
        assertThat(parts.task(nothing).lastError().code()).isEqualTo(Settlement.NO_RESULT);
        assertThat(parts.task(fine).state()).isEqualTo("DONE");
        assertThat(parts.store.leased("q")).isZero();
        long next = parts.enqueue(Jobs.MACHINE, "q");
        d.requestDispatch();
        parts.executor.runNext();
        assertThat(ctx.running.keySet()).as("the one slot came back").containsExactly(next);
    }

    @Test
    void anInterruptedWorkerIsRetriedAndTheInterruptIsKept() {
        RuntimeContext ctx = parts.started("r", RuntimeParts.registration(Jobs.MACHINE, "q", c -> {
            throw new InterruptedException("shutting down");
        }));
        long id = parts.enqueue(Jobs.MACHINE, "q");
        dispatcher(ctx).requestDispatch();
        parts.executor.runNext();
        parts.executor.runNext();
        assertThat(Thread.interrupted()).as("the worker thread's interrupt status").isTrue();
        assertThat(parts.task(id).state()).isEqualTo("RETRYING");
        assertThat(parts.task(id).lastError().code()).isEqualTo(Settlement.INTERRUPTED);
    }

    @Test
    void aFailurePastTheWorkersStillGivesTheSlotBackAndForgetsTheBatch() {
        boolean[] storeDown = {true};
        RuntimeContext ctx = parts.started("r", RuntimeParts.registration(Jobs.MACHINE, "q", byAttribute));
        ResultWriter writer = new ResultWriter(ctx.kernel, "r", at -> { }, ctx.events, id -> {
            if (storeDown[0]) throw new IllegalStateException("store unavailable");
            return false;
        }, ctx::nextRandom, ResultWriter.holdsIn(ctx.store));
        Dispatcher d = new Dispatcher(ctx, () -> { }, new GroupResolution(ctx, List.of()), new Preconditions(ctx), writer,
                () -> idleCalls++, RuntimeParts.OWN, (run, cause) -> TaskRuntime.giveBack(ctx, run, cause));
        long busy = enqueue("q", "retry");          // a retry asks whether a cancellation was requested
        d.requestDispatch();
        parts.executor.runNext();
        assertThatThrownBy(parts.executor::runNext).hasMessage("store unavailable");
        assertThat(ctx.running).isEmpty();
        assertThat(parts.task(busy).state()).as("left to lease recovery").isEqualTo("RUNNING");
        assertThat(parts.executor.pending()).isEqualTo(1);
        assertThat(idleCalls).isEqualTo(2);
        storeDown[0] = false;
        long next = enqueue("q", "ok");
        parts.executor.runAll();
        assertThat(parts.task(next).state()).as("the one slot came back").isEqualTo("DONE");
    }

    @Test
    void aHaltDuringABatchWritesNoResult() {
        RuntimeContext[] ctx = new RuntimeContext[1];
        ctx[0] = parts.started("r", RuntimeParts.registration(Jobs.MACHINE, "q", c -> {
            ctx[0].life.halt();
            return WorkResult.success();
        }));
        long id = parts.enqueue(Jobs.MACHINE, "q");
        long other = parts.enqueue(Jobs.MACHINE, "q");
        dispatcher(ctx[0]).requestDispatch();
        parts.executor.runNext();
        parts.executor.runNext();
        assertThat(parts.task(id).state()).isEqualTo("RUNNING");
        assertThat(parts.task(id).lease()).isNotNull();
        assertThat(parts.events(id)).containsExactly("START");
        assertThat(parts.task(other).state()).isEqualTo("QUEUED");
        assertThat(parts.executor.pending()).isZero();
    }

    @Test
    void aStopEndsTheLoopAfterTheBatchInHand() {
        RuntimeContext[] ctx = new RuntimeContext[1];
        ctx[0] = parts.started("r", RuntimeParts.registration(Jobs.MACHINE, "q", c -> {
            ctx[0].life.beginStop();
            return WorkResult.success();
        }));
        long id = parts.enqueue(Jobs.MACHINE, "q");
        long other = parts.enqueue(Jobs.MACHINE, "q");
        dispatcher(ctx[0]).requestDispatch();
        parts.executor.runAll();
        assertThat(parts.task(id).state()).isEqualTo("DONE");
        assertThat(parts.task(other).state()).isEqualTo("QUEUED");
        assertThat(ctx[0].running).isEmpty();
    }

    /** The room each claim of the store asked for, in order. */
    List<Integer> claimSizes() {
        List<Integer> sizes = new ArrayList<>();
        for (StoreSpy.Call c : parts.spy.calls("claim")) sizes.add(((ClaimRequest) c.args().get(0)).max());
        return sizes;
    }

    @Test
    void adaptiveBatchesOfShortTasksDoubleAfterEachFullBatch() {
        parts.batchSize = 0;
        RuntimeContext ctx = parts.started("r", RuntimeParts.registration(Jobs.MACHINE, "q", taking(Duration.ZERO)));
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 10; i++) ids.add(parts.enqueue(Jobs.MACHINE, "q"));
        dispatcher(ctx).requestDispatch();
        parts.executor.runNext();
        parts.executor.runNext();
        assertThat(worked).as("in claim order").containsExactlyElementsOf(ids);
        assertThat(claimSizes()).as("1, then 2, 4, 8; the batch of 8 got 3 and the last claim none").containsExactly(1, 2, 4, 8, 8);
        assertThat(ctx.running).isEmpty();
        for (long id : ids) assertThat(parts.events(id)).containsExactly("START", "COMPLETE");
    }

    @Test
    void adaptiveBatchesOfLongTasksClaimOneAtATime() {
        parts.batchSize = 0;
        RuntimeContext ctx = parts.started("r", RuntimeParts.registration(Jobs.MACHINE, "q", taking(Duration.ofMillis(2))));
        long t1 = parts.enqueue(Jobs.MACHINE, "q");
        long t2 = parts.enqueue(Jobs.MACHINE, "q");
        long t3 = parts.enqueue(Jobs.MACHINE, "q");
        dispatcher(ctx).requestDispatch();
        parts.executor.runNext();
        parts.executor.runNext();
        assertThat(worked).containsExactly(t1, t2, t3);
        assertThat(claimSizes()).as("each task took longer than the window").containsExactly(1, 1, 1, 1);
    }

    @Test
    void anAdaptiveBatchWritesEachResultWhenItsWorkerReturns() {
        parts.batchSize = 0;
        RuntimeContext ctx = parts.started("r", RuntimeParts.registration(Jobs.MACHINE, "q", byAttribute));
        parts.engine.subscribe((machine, task, entry) -> log.add(entry.event() + " " + task.id()));
        long first = enqueue("q", "ok");
        long a = enqueue("q", "ok");
        long b = enqueue("q", "fail");
        dispatcher(ctx).requestDispatch();
        parts.executor.runNext();
        parts.executor.runNext();
        assertThat(log).containsExactly("START " + first, "work " + first, "COMPLETE " + first,
                "START " + a, "START " + b, "work " + a, "COMPLETE " + a, "work " + b, "FAIL " + b);
        assertThat(ctx.completed).hasValue(3);
    }

    @Test
    void anAdaptiveBatchGrowsUpToItsCapAndHalvesAfterASlowBatch() {
        parts.batchSize = 0;
        RuntimeContext ctx = parts.started("r", RuntimeParts.registration(Jobs.MACHINE, "q", byAttribute));
        SlotLoop loop = new SlotLoop(ctx, dispatcher(ctx), RuntimeParts.writer(ctx, at -> { }));
        Duration fast = RuntimeContext.BATCH_WINDOW;
        Duration slow = RuntimeContext.BATCH_WINDOW.plusNanos(1000);
        assertThat(loop.nextSize(1, 1, fast)).isEqualTo(2);
        assertThat(loop.nextSize(RuntimeContext.ADAPTIVE_MAX / 2, RuntimeContext.ADAPTIVE_MAX / 2, Duration.ZERO)).isEqualTo(RuntimeContext.ADAPTIVE_MAX);
        assertThat(loop.nextSize(RuntimeContext.ADAPTIVE_MAX, RuntimeContext.ADAPTIVE_MAX, Duration.ZERO)).isEqualTo(RuntimeContext.ADAPTIVE_MAX);
        assertThat(loop.nextSize(8, 3, Duration.ZERO)).as("a batch that was not full keeps its size").isEqualTo(8);
        assertThat(loop.nextSize(8, 8, slow)).isEqualTo(4);
        assertThat(loop.nextSize(1, 1, slow)).isEqualTo(1);
    }
}
