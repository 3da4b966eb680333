package dev.statekit.examples.scenarios;

import static dev.statekit.examples.scenarios.Scripts.events;
import static dev.statekit.examples.scenarios.Scripts.last;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.statekit.core.ops.CancelResult;
import dev.statekit.core.Task;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.WorkContext;
import dev.statekit.examples.CompressionBatch;
import dev.statekit.examples.CompressionTask;
import dev.statekit.examples.CompressionTask.State;
import dev.statekit.examples.hosts.CompressionHost;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** The compression seed (004): one running task across the queue, ordering, queue control, retries, recovery. */
class CompressionScenariosTest {
    /** One start of a compression: the input, the host that ran it, the leases held on the queue, and when. */
    record Start(String input, String owner, int leased, Instant at) {}

    /** What one attempt of a compression does. */
    @FunctionalInterface
    interface Attempt {
        long run(WorkContext<State> ctx) throws Exception;
    }

    final ManualClock clock = new ManualClock();
    final ManualExecutor executor = new ManualExecutor();
    final InMemoryStore store = new InMemoryStore();
    final List<Start> starts = new ArrayList<>();
    final Map<String, Deque<Attempt>> attempts = new HashMap<>();

    final CompressionHost.Compressor compressor = ctx -> {
        String input = String.valueOf(ctx.task().attribute(CompressionHost.INPUT));
        starts.add(new Start(input, ctx.lease().owner(), store.leased(CompressionHost.QUEUE), ctx.clock().now()));
        Attempt next = attempts.getOrDefault(input, new ArrayDeque<>()).poll();
        return next == null ? 100 : next.run(ctx);
    };

    CompressionHost host(String owner, ManualExecutor exec, boolean autoRecover, @Nullable LongSupplier freeBytes) {
        return new CompressionHost(store, clock, exec, owner, compressor, autoRecover, freeBytes);
    }

    CompressionHost host() {
        return host("host-1", executor, true, null);
    }

    void script(String input, Attempt... steps) {
        attempts.computeIfAbsent(input, k -> new ArrayDeque<>()).addAll(List.of(steps));
    }

    List<String> order() {
        return starts.stream().map(Start::input).toList();
    }

    @Test
    void compressionRunsOneAtATime() {
        ManualExecutor executor2 = new ManualExecutor();
        CompressionHost one = host("host-1", executor, true, null);
        CompressionHost two = host("host-2", executor2, true, null);
        one.start();
        two.start();
        long a = one.add("a.iso", 10, CompressionTask.NORMAL);
        long b = one.add("b.iso", 10, CompressionTask.NORMAL);
        long c = one.add("c.iso", 10, CompressionTask.NORMAL);

        executor.runNext();                     // host-1 claims a; the queue's limit of 1 is reached
        assertThat(one.task(a).state()).isEqualTo(State.RUNNING);
        executor2.runAll();                     // host-2 has two free slots, yet claims nothing
        clock.advance(Duration.ofSeconds(1));
        executor2.runAll();
        assertThat(two.task(b).state()).isEqualTo(State.QUEUED);
        assertThat(two.task(c).state()).isEqualTo(State.QUEUED);
        assertThat(store.leased(CompressionHost.QUEUE)).isEqualTo(1);

        one.runtime().stop(Duration.ofMinutes(1));   // host-1 finishes a and takes nothing more
        executor.runAll();
        assertThat(one.task(a).state()).isEqualTo(State.COMPLETED);
        clock.advance(Duration.ofSeconds(1));
        executor2.runAll();

        assertThat(starts).extracting(Start::input, Start::owner)
                .containsExactly(tuple("a.iso", "host-1"), tuple("b.iso", "host-2"), tuple("c.iso", "host-2"));
        assertThat(starts).extracting(Start::leased).containsOnly(1);
        assertThat(List.of(a, b, c)).allSatisfy(id -> assertThat(two.task(id).state()).isEqualTo(State.COMPLETED));
    }

    @Test
    void compressionPriorityThenFifo() {
        CompressionHost host = host();
        host.start();
        host.pauseQueue();
        host.add("n1", 10, CompressionTask.NORMAL);
        host.add("l1", 10, CompressionTask.LOW);
        host.add("h1", 10, CompressionTask.HIGH);
        host.add("n2", 10, CompressionTask.NORMAL);
        host.add("l2", 10, CompressionTask.LOW);
        executor.runAll();
        assertThat(starts).as("nothing starts while the queue is paused").isEmpty();
        host.resumeQueue();
        executor.runAll();
        // three starts pass over a low task, which is not yet more than the anti-starvation limit
        assertThat(order()).containsExactly("h1", "n1", "n2", "l1", "l2");
        assertThat(host.tasks()).extracting(Task::state).containsOnly(State.COMPLETED);
    }

    @Test
    void compressionStartNowMovesToFront() {
        CompressionHost host = host();
        host.start();
        host.pauseQueue();
        host.add("a", 10, CompressionTask.NORMAL);
        host.add("b", 10, CompressionTask.NORMAL);
        long c = host.add("c", 10, CompressionTask.NORMAL);
        host.add("h", 10, CompressionTask.HIGH);
        assertThat(host.startNow(c, "ana")).isTrue();
        host.resumeQueue();
        executor.runAll();
        assertThat(order()).as("the front of its own priority").containsExactly("h", "c", "a", "b");
    }

    @Test
    void compressionPauseQueueLetsRunningFinish() {
        CompressionHost host = host();
        host.start();
        script("a", ctx -> {
            host.pauseQueue();                  // the user pauses the queue while a compresses
            return 100;
        });
        long a = host.add("a", 10, CompressionTask.NORMAL);
        long b = host.add("b", 10, CompressionTask.NORMAL);
        executor.runAll();
        assertThat(host.task(a).state()).isEqualTo(State.COMPLETED);
        assertThat(host.task(b).state()).isEqualTo(State.QUEUED);
        assertThat(host.queue().paused()).isTrue();
        assertThat(host.queue().pauseReason()).isEqualTo("PAUSED");

        clock.advance(Duration.ofSeconds(5));
        executor.runAll();
        assertThat(host.task(b).state()).isEqualTo(State.QUEUED);
        host.resumeQueue();
        executor.runAll();
        assertThat(host.task(b).state()).isEqualTo(State.COMPLETED);
        assertThat(order()).containsExactly("a", "b");
    }

    @Test
    void compressionStopAfterCurrent() {
        CompressionHost host = host();
        host.start();
        script("a", ctx -> {
            host.stopAfterCurrent();
            return 100;
        });
        long a = host.add("a", 10, CompressionTask.NORMAL);
        long b = host.add("b", 10, CompressionTask.NORMAL);
        long c = host.add("c", 10, CompressionTask.NORMAL);
        executor.runAll();
        assertThat(host.task(a).state()).isEqualTo(State.COMPLETED);
        assertThat(host.queue().paused()).isTrue();
        assertThat(host.queue().pauseReason()).isEqualTo("STOP_AFTER_CURRENT");
        clock.advance(Duration.ofSeconds(5));
        executor.runAll();
        assertThat(host.task(b).state()).isEqualTo(State.QUEUED);
        assertThat(host.task(c).state()).isEqualTo(State.QUEUED);

        host.resumeQueue();
        assertThat(host.queue().paused()).isFalse();
        executor.runAll();
        assertThat(order()).containsExactly("a", "b", "c");
    }

    @Test
    void compressionAutoRetryWithCappedBackoff() {
        CompressionHost host = host();
        host.start();
        for (int i = 0; i < 4; i++) script("flaky", ctx -> {
            throw new IOException("the output drive is busy");
        });
        long id = host.add("flaky", 10, CompressionTask.NORMAL);
        executor.runAll();
        for (int retry = 0; retry < 3; retry++) {
            Task<State> waiting = host.task(id);
            Instant failedAt = clock.now();
            Duration base = Duration.ofSeconds(1L << retry);
            assertThat(waiting.state()).isEqualTo(State.RETRYING);
            assertThat(waiting.record().retries()).isEqualTo(retry + 1);
            assertThat(waiting.record().lastError().code()).isEqualTo("IO_ERROR");
            assertThat(waiting.record().lastError().message()).isEqualTo("the output drive is busy");
            Instant notBefore = waiting.record().notBefore();
            assertThat(Duration.between(failedAt, notBefore)).as("back-off of retry %d within the jitter", retry + 1)
                    .isBetween(base.multipliedBy(8).dividedBy(10), base);

            clock.advanceTo(notBefore.minusMillis(1));
            executor.runAll();
            assertThat(host.task(id).state()).isEqualTo(State.RETRYING);
            assertThat(starts).hasSize(retry + 1);
            clock.advanceTo(notBefore);
            executor.runAll();
            assertThat(starts).hasSize(retry + 2);
            assertThat(starts.get(retry + 1).at()).isEqualTo(notBefore);
        }
        Task<State> failed = host.task(id);
        assertThat(failed.state()).isEqualTo(State.FAILED);
        assertThat(failed.record().attempts()).isEqualTo(4);
        assertThat(failed.record().retries()).isEqualTo(3);
        assertThat(failed.record().lastError().code()).isEqualTo("IO_ERROR");
        assertThat(failed.record().lastError().retryable()).isTrue();
        assertThat(events(host.engine(), id)).containsExactly("ENQUEUE",
                "START", "RETRYABLE_ERROR", "BACKOFF_ELAPSED",
                "START", "RETRYABLE_ERROR", "BACKOFF_ELAPSED",
                "START", "RETRYABLE_ERROR", "BACKOFF_ELAPSED",
                "START", "FAIL");
        // the sequence goes on 8 s, 16 s, then stays at the cap of 30 s
        assertThat(CompressionTask.RETRY_POLICY.baseDelay(3)).isEqualTo(Duration.ofSeconds(8));
        assertThat(CompressionTask.RETRY_POLICY.baseDelay(4)).isEqualTo(Duration.ofSeconds(16));
        assertThat(CompressionTask.RETRY_POLICY.baseDelay(5)).isEqualTo(Duration.ofSeconds(30));
        assertThat(CompressionTask.RETRY_POLICY.baseDelay(9)).isEqualTo(Duration.ofSeconds(30));
        assertThat(CompressionTask.RETRY_POLICY.maxRetries()).isEqualTo(3);
    }

    @Test
    void compressionBlockedOnDiskSpaceStartsWhenSpaceReturns() {
        AtomicLong free = new AtomicLong(100);
        CompressionHost host = host("host-1", executor, true, free::get);
        host.start();
        long big = host.add("big.iso", 500, CompressionTask.NORMAL);
        long small = host.add("small.txt", 50, CompressionTask.NORMAL);
        executor.runAll();
        Task<State> blocked = host.task(big);
        assertThat(blocked.state()).isEqualTo(State.BLOCKED);
        assertThat(blocked.attribute(CompressionTask.BLOCKED_REASON)).isEqualTo(CompressionHost.DISK_SPACE);
        assertThat(last(host.engine(), big).reason()).isEqualTo(CompressionHost.DISK_SPACE);
        assertThat(host.task(small).state()).as("a task that fits is not held up").isEqualTo(State.COMPLETED);

        clock.advance(Duration.ofSeconds(3));
        executor.runAll();
        assertThat(host.task(big).state()).isEqualTo(State.BLOCKED);

        free.set(1_000);
        clock.advance(Duration.ofSeconds(1));
        executor.runAll();
        Task<State> done = host.task(big);
        assertThat(done.state()).isEqualTo(State.COMPLETED);
        assertThat(done.attribute(CompressionTask.BLOCKED_REASON)).isNull();
        assertThat(events(host.engine(), big)).containsExactly("ENQUEUE", "BLOCK", "UNBLOCK", "START", "SUCCEED");
        assertThat(order()).containsExactly("small.txt", "big.iso");
    }

    @Test
    void compressionCrashMarksInterruptedThenRequeuesAtFrontOnce() {
        CompressionHost first = host();
        first.start();
        long a = first.add("a", 10, CompressionTask.NORMAL);
        long b = first.add("b", 10, CompressionTask.NORMAL);
        long c = first.add("c", 10, CompressionTask.NORMAL);
        executor.runNext();                     // a starts
        assertThat(first.task(a).state()).isEqualTo(State.RUNNING);
        first.runtime().halt();                 // the app crashes while a compresses
        executor.drop();
        first.startNow(c, "ana");               // before the restart the user put c in front

        ManualExecutor second = new ManualExecutor();
        CompressionHost restarted = host("host-1", second, true, null);
        restarted.start();
        Task<State> recovered = restarted.task(a);
        assertThat(recovered.state()).isEqualTo(State.QUEUED);
        assertThat(recovered.attribute(TaskRuntime.ATTR_INTERRUPTIONS)).isEqualTo("1");
        assertThat(recovered.record().sequence()).as("at the front, ahead of c moved there before")
                .isLessThan(restarted.task(c).record().sequence());
        assertThat(events(restarted.engine(), a)).containsExactly("ENQUEUE", "START", "INTERRUPT", "RECOVER");
        second.runNext();                       // a starts again, ahead of c
        assertThat(restarted.task(a).state()).isEqualTo(State.RUNNING);
        assertThat(restarted.task(c).state()).isEqualTo(State.QUEUED);
        restarted.runtime().halt();             // and the app crashes again
        second.drop();

        ManualExecutor third = new ManualExecutor();
        CompressionHost again = host("host-1", third, true, null);
        again.start();
        Task<State> failed = again.task(a);
        assertThat(failed.state()).as("one automatic retry only").isEqualTo(State.FAILED);
        assertThat(failed.record().lastError().code()).isEqualTo("INTERRUPTED");
        assertThat(events(again.engine(), a)).containsExactly("ENQUEUE", "START", "INTERRUPT", "RECOVER", "START", "INTERRUPT", "FAIL");
        third.runAll();
        assertThat(order()).containsExactly("c", "b");
        assertThat(again.task(b).state()).isEqualTo(State.COMPLETED);
        assertThat(again.task(c).state()).isEqualTo(State.COMPLETED);
    }

    @Test
    void compressionCrashWithoutAutoRecoveryFails() {
        CompressionHost crashed = host("host-1", executor, false, null);
        crashed.start();
        long a = crashed.add("a", 10, CompressionTask.NORMAL);
        executor.runNext();
        crashed.runtime().halt();
        executor.drop();

        ManualExecutor other = new ManualExecutor();
        CompressionHost survivor = host("host-2", other, false, null);
        survivor.start();
        other.runAll();
        assertThat(survivor.task(a).state()).as("the lease has not expired yet").isEqualTo(State.RUNNING);
        clock.advance(Duration.ofSeconds(31));
        other.runAll();
        Task<State> failed = survivor.task(a);
        assertThat(failed.state()).isEqualTo(State.FAILED);
        assertThat(failed.record().lease()).isNull();
        assertThat(failed.record().lastError().code()).isEqualTo("INTERRUPTED");
        assertThat(events(survivor.engine(), a)).containsExactly("ENQUEUE", "START", "INTERRUPT", "FAIL");

        survivor.retry(a, "alice").orElseThrow();
        other.runAll();
        assertThat(survivor.task(a).state()).isEqualTo(State.COMPLETED);
        assertThat(starts).extracting(Start::owner).containsExactly("host-2");
    }

    @Test
    void compressionCancelQueuedAndCancelRunning() {
        CompressionHost host = host();
        host.start();
        List<Boolean> sawCancel = new ArrayList<>();
        script("a", ctx -> {
            sawCancel.add(ctx.cancelled());
            if (ctx.cancelled()) throw new IOException("stopped at a safe point");
            return 100;
        });
        long a = host.add("a", 10, CompressionTask.NORMAL);
        long b = host.add("b", 10, CompressionTask.NORMAL);
        long c = host.add("c", 10, CompressionTask.NORMAL);
        executor.runNext();                     // a starts
        assertThat(host.task(a).state()).isEqualTo(State.RUNNING);

        CancelResult<State> queued = host.cancel(b, "alice");
        assertThat(queued.status()).isEqualTo(CancelResult.Status.CANCELLED);
        assertThat(host.task(b).state()).isEqualTo(State.CANCELED);
        assertThat(host.task(b).attribute(CompressionTask.CANCEL_REASON)).isEqualTo("canceled");

        CancelResult<State> running = host.cancel(a, "alice");
        assertThat(running.status()).isEqualTo(CancelResult.Status.REQUESTED);
        assertThat(host.task(a).state()).isEqualTo(State.RUNNING);
        executor.runAll();

        Task<State> canceled = host.task(a);
        assertThat(canceled.state()).isEqualTo(State.CANCELED);
        assertThat(canceled.record().lease()).isNull();
        assertThat(canceled.attribute(CompressionTask.CANCEL_REASON)).isEqualTo("canceled");
        assertThat(last(host.engine(), a).event()).isEqualTo("CANCEL");
        assertThat(last(host.engine(), a).actor()).isEqualTo("alice");
        assertThat(sawCancel).containsExactly(true);
        assertThat(host.task(c).state()).as("the next task starts at once").isEqualTo(State.COMPLETED);
        assertThat(order()).containsExactly("a", "c");
    }

    @Test
    void compressionCancelOfARunningTaskThatDoesNotStopIsForcedAfterTheGrace() {
        CompressionHost host = host();
        host.start();
        long a = host.add("a", 10, CompressionTask.NORMAL);
        long b = host.add("b", 10, CompressionTask.NORMAL);
        executor.runNext();                     // a starts; its worker does not get to run
        assertThat(host.cancel(a, "alice").status()).isEqualTo(CancelResult.Status.REQUESTED);
        clock.advance(Duration.ofSeconds(30));  // the grace passes
        assertThat(host.task(a).state()).isEqualTo(State.CANCELED);
        assertThat(host.task(a).record().lease()).isNull();
        executor.runAll();                      // the late worker finishes; its result is discarded
        assertThat(host.task(a).state()).isEqualTo(State.CANCELED);
        assertThat(events(host.engine(), a)).containsExactly("ENQUEUE", "START", "CANCEL");
        assertThat(host.task(b).state()).isEqualTo(State.COMPLETED);
    }

    @Test
    void compressionSkipQueued() {
        CompressionHost host = host();
        host.start();
        host.pauseQueue();
        host.add("a", 10, CompressionTask.NORMAL);
        long b = host.add("b", 10, CompressionTask.NORMAL);
        host.add("c", 10, CompressionTask.NORMAL);
        host.skip(b, "alice").orElseThrow();
        Task<State> skipped = host.task(b);
        assertThat(skipped.state()).isEqualTo(State.CANCELED);
        assertThat(skipped.attribute(CompressionTask.CANCEL_REASON)).isEqualTo("skipped");
        host.resumeQueue();
        executor.runAll();
        assertThat(order()).containsExactly("a", "c");
        assertThat(host.task(b).record().attempts()).isZero();
        assertThat(events(host.engine(), b)).containsExactly("ENQUEUE", "SKIP");
    }

    @Test
    void compressionAntiStarvationLetsLowRunAfterKHigh() {
        CompressionHost host = host();
        host.start();
        host.pauseQueue();
        host.add("low", 10, CompressionTask.LOW);
        for (int i = 1; i <= 5; i++) host.add("high-" + i, 10, CompressionTask.HIGH);
        host.resumeQueue();
        executor.runAll();
        assertThat(CompressionHost.STARVATION_LIMIT).isEqualTo(3);
        assertThat(order()).containsExactly("high-1", "high-2", "high-3", "low", "high-4", "high-5");
    }

    @Test
    void compressionManualRetryToFront() {
        CompressionHost host = host();
        host.start();
        script("x", ctx -> {
            throw new FileNotFoundException("x is gone");
        });
        long b = host.add("b", 10, CompressionTask.NORMAL);
        long c = host.add("c", 10, CompressionTask.NORMAL);
        host.hold(b, "alice").orElseThrow();    // b and c wait ahead of x, held by the user
        host.hold(c, "alice").orElseThrow();
        long x = host.add("x", 10, CompressionTask.NORMAL);
        executor.runAll();
        Task<State> failed = host.task(x);
        assertThat(failed.state()).isEqualTo(State.FAILED);
        assertThat(failed.record().retries()).as("a missing input is not retried").isZero();
        assertThat(failed.record().lastError().code()).isEqualTo("INPUT_MISSING");
        assertThat(failed.record().lastError().message()).isEqualTo("x is gone");
        assertThat(host.task(b).state()).isEqualTo(State.PAUSED);

        host.pauseQueue();
        host.release(b, "alice").orElseThrow();
        host.release(c, "alice").orElseThrow();
        Task<State> retried = host.retry(x, "alice").orElseThrow().task();
        assertThat(retried.state()).isEqualTo(State.QUEUED);
        assertThat(host.task(x).record().sequence()).as("at the front of its priority")
                .isLessThan(host.task(b).record().sequence()).isLessThan(host.task(c).record().sequence());
        assertThat(retried.record().retries()).isZero();
        assertThat(retried.record().notBefore()).isNull();
        host.resumeQueue();
        executor.runAll();
        assertThat(order()).as("x was added after b and c, and retried ahead of them").containsExactly("x", "x", "b", "c");
        Task<State> done = host.task(x);
        assertThat(done.state()).isEqualTo(State.COMPLETED);
        assertThat(done.record().lastError().code()).as("kept after the success, as history").isEqualTo("INPUT_MISSING");
        assertThat(events(host.engine(), x)).containsExactly("ENQUEUE", "START", "FAIL", "RETRY", "START", "SUCCEED");
    }

    @Test
    void aBatchSummaryRunsOnceAfterEveryFileIsCompressed() {
        CompressionHost host = host();
        host.start();
        CompressionHost.Batch batch = host.addBatch("batch-1", List.of(new CompressionHost.File("a.log", 1000, CompressionTask.NORMAL),
                new CompressionHost.File("b.log", 2000, CompressionTask.NORMAL), new CompressionHost.File("c.log", 3000, CompressionTask.NORMAL)));
        assertThat(host.addBatch("batch-1", List.of(new CompressionHost.File("a.log", 1000, CompressionTask.NORMAL))))
                .as("the same key adds nothing").isEqualTo(batch);
        executor.runAll();
        assertThat(order()).containsExactly("a.log", "b.log", "c.log");
        assertThat(store.find(batch.batchId()).orElseThrow().state()).isEqualTo(CompressionBatch.BatchState.COMPLETED.name());
        TaskRecord summary = store.find(batch.summaryId()).orElseThrow();
        assertThat(summary.state()).isEqualTo(CompressionBatch.SummaryState.DONE.name());
        assertThat(summary.attributes().get(CompressionHost.SUMMARY)).isEqualTo("3 files, 6000 bytes in, 300 bytes out");
        assertThat(host.batchProgress(batch.batchId()).succeeded()).isEqualTo(3);
        assertThat(host.engine().history(batch.summaryId())).extracting(h -> h.event()).containsExactly("START", "SUCCEED");
    }

    @Test
    void aBatchWithAFailedFileFailsItsSummaryInsteadOfLeavingItWaiting() {
        CompressionHost host = host();
        host.start();
        script("bad.log", ctx -> {
            throw new IllegalArgumentException("not a log file");
        });
        CompressionHost.Batch batch = host.addBatch("batch-2", List.of(new CompressionHost.File("ok.log", 10, CompressionTask.NORMAL),
                new CompressionHost.File("bad.log", 10, CompressionTask.NORMAL)));
        executor.runAll();
        assertThat(store.find(batch.batchId()).orElseThrow().state()).isEqualTo(CompressionBatch.BatchState.FAILED.name());
        assertThat(store.find(batch.summaryId()).orElseThrow().state()).isEqualTo(CompressionBatch.SummaryState.FAILED.name());
        assertThat(host.engine().history(batch.summaryId())).extracting(h -> h.event()).containsExactly("BATCH_FAILED");
    }

    @Test
    void cancellingABatchCancelsItsWaitingFilesAndItsSummary() {
        CompressionHost host = host();
        host.start();
        host.pauseQueue();
        CompressionHost.Batch batch = host.addBatch("batch-3", List.of(new CompressionHost.File("x.log", 10, CompressionTask.NORMAL),
                new CompressionHost.File("y.log", 10, CompressionTask.NORMAL)));
        host.cancelBatch(batch.batchId(), "alice").orElseThrow();
        executor.runAll();
        for (TaskRecord file : store.query(TaskQuery.all().parent(batch.batchId())).items()) {
            assertThat(file.state()).isEqualTo(State.CANCELED.name());
        }
        assertThat(store.find(batch.summaryId()).orElseThrow().state()).isEqualTo(CompressionBatch.SummaryState.CANCELED.name());
        assertThat(starts).isEmpty();
    }
}
