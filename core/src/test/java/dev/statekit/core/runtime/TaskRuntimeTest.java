package dev.statekit.core.runtime;

import dev.statekit.core.ops.CancelResult;
import dev.statekit.core.ops.TaskOperations;
import dev.statekit.core.Chunk;
import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.Priority;
import dev.statekit.core.RefusalCode;
import dev.statekit.core.Task;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.Verdict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.core.spi.ErrorClassifier;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.TaskRecord;
import dev.statekit.test.fixtures.Jobs;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class TaskRuntimeTest {
    final ManualClock clock = new ManualClock();
    final ManualExecutor executor = new ManualExecutor();
    final InMemoryStore store = new InMemoryStore();
    final TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock).build();
    final List<Long> started = new ArrayList<>();

    TaskRuntimeBuilder builder(String owner, Machine<Jobs.State, Jobs.Event> machine, Worker<Jobs.State> worker, QueueOptions options) {
        return TaskRuntime.builder(engine).owner(owner).executor(executor).workers(2)
                .leaseDuration(Duration.ofSeconds(30)).pollInterval(Duration.ofSeconds(1)).cancelGrace(Duration.ofSeconds(10)).seed(7)
                .register(machine, "q", worker, options);
    }

    TaskRuntime runtime(Worker<Jobs.State> worker, QueueOptions options) {
        return builder("r1", Jobs.MACHINE, worker, options).build();
    }

    long enqueue(int priority) {
        return engine.create(Jobs.MACHINE, TaskSpec.defaults().queue("q").priority(priority)).task().id();
    }

    Task<Jobs.State> task(long id) {
        return engine.find(Jobs.MACHINE, id).orElseThrow();
    }

    List<String> events(long id) {
        return engine.history(id).stream().map(HistoryEntry::event).collect(Collectors.toList());
    }

    /** Runs dispatch rounds only, leaving workers queued (they "hang" until run). */
    void dispatchOnly() {
        executor.runNext();
    }

    @Test
    void createdTaskRunsToDoneWithoutPolling() {
        TaskRuntime rt = runtime(ctx -> {
            started.add(ctx.task().id());
            ctx.progress("percent", "100");
            return WorkResult.success(Map.of("out", "ok"));
        }, QueueOptions.defaults());
        rt.start();
        executor.runAll();
        long id = enqueue(0);
        executor.runAll();          // no clock advance: the creation itself woke the runtime
        Task<Jobs.State> t = task(id);
        assertThat(t.state()).isEqualTo(Jobs.State.DONE);
        assertThat(t.attributes().asMap()).containsEntry("out", "ok").containsEntry("percent", "100");
        assertThat(t.record().lease()).isNull();
        assertThat(t.record().attempts()).isEqualTo(1);
        assertThat(events(id)).containsExactly("START", "COMPLETE");
        assertThat(started).containsExactly(id);
    }

    @Test
    void retryableFailuresWaitTheirBackoffThenFailWhenExhausted() {
        TaskRuntime rt = runtime(ctx -> WorkResult.retryable("AI_RATE_LIMITED", "429"), QueueOptions.defaults());
        rt.start();
        long id = enqueue(0);
        executor.runAll();
        Task<Jobs.State> t = task(id);
        assertThat(t.state()).isEqualTo(Jobs.State.RETRYING);
        Instant first = clock.now();
        assertThat(t.record().notBefore()).isBetween(first.plusMillis(800), first.plusSeconds(1));   // 1 s minus up to 20 % jitter
        for (int i = 0; i < 60; i++) {
            clock.advance(Duration.ofSeconds(1));
            executor.runAll();
        }
        t = task(id);
        assertThat(t.state()).isEqualTo(Jobs.State.FAILED);
        assertThat(t.record().retries()).isEqualTo(3);
        assertThat(t.record().attempts()).isEqualTo(4);
        assertThat(t.record().lastError().code()).isEqualTo("AI_RATE_LIMITED");
        assertThat(events(id)).containsExactly("START", "RETRYABLE", "BACKOFF_OVER", "START", "RETRYABLE", "BACKOFF_OVER",
                "START", "RETRYABLE", "BACKOFF_OVER", "START", "FAIL");
    }

    @Test
    void aWorkerWhoseLeaseWasTakenCannotCommit() {
        long[] id = new long[1];
        int[] runs = {0};
        TaskRuntime rt = runtime(ctx -> {
            if (runs[0]++ == 0) {
                // meanwhile the task is released by someone else: this worker's lease is gone
                engine.fire(Jobs.MACHINE, id[0], Jobs.Event.RELEASE, Command.system().reason("operator reset"));
            }
            return WorkResult.success(Map.of("run", Integer.toString(runs[0])));
        }, QueueOptions.defaults());
        rt.start();
        id[0] = enqueue(0);
        executor.runAll();
        assertThat(task(id[0]).state()).isEqualTo(Jobs.State.DONE);
        assertThat(task(id[0]).attribute("run")).isEqualTo("2");
        assertThat(events(id[0])).containsExactly("START", "RELEASE", "START", "COMPLETE");
    }

    @Test
    void aRunningTaskIsCancelledCooperatively() {
        long[] id = new long[1];
        CancelResult<?>[] result = new CancelResult<?>[1];
        TaskRuntime[] rt = new TaskRuntime[1];
        rt[0] = runtime(ctx -> {
            result[0] = rt[0].cancel(Jobs.MACHINE, id[0], Command.user("ana").reason("no longer needed"));
            assertThat(ctx.cancelled()).isTrue();
            assertThat(ctx.cancelReason()).isEqualTo("CANCELLED");
            return WorkResult.success();
        }, QueueOptions.defaults());
        rt[0].start();
        id[0] = enqueue(0);
        executor.runAll();
        assertThat(result[0].status()).isEqualTo(CancelResult.Status.REQUESTED);
        assertThat(task(id[0]).state()).isEqualTo(Jobs.State.CANCELED);
        HistoryEntry last = engine.history(id[0]).get(1);
        assertThat(last.event()).isEqualTo("CANCEL");
        assertThat(last.actor()).isEqualTo("ana");
    }

    @Test
    void aHangingWorkerIsCancelledAfterTheGracePeriodAndFenced() {
        TaskRuntime rt = runtime(ctx -> WorkResult.success(), QueueOptions.defaults());
        rt.start();
        executor.runAll();
        long id = enqueue(0);
        dispatchOnly();                                        // claimed; its worker has not run yet
        assertThat(task(id).state()).isEqualTo(Jobs.State.RUNNING);
        assertThat(rt.cancel(Jobs.MACHINE, id, Command.user("ana")).status()).isEqualTo(CancelResult.Status.REQUESTED);
        clock.advance(Duration.ofSeconds(10));
        assertThat(task(id).state()).isEqualTo(Jobs.State.CANCELED);
        assertThat(task(id).record().lease()).isNull();
        executor.runAll();                                     // the worker finally returns: its success is discarded
        assertThat(task(id).state()).isEqualTo(Jobs.State.CANCELED);
        assertThat(events(id)).containsExactly("START", "CANCEL");
    }

    @Test
    void withoutForcingAHangingWorkerKeepsRunningAndItsEndAppliesTheCancellation() {
        TaskRuntime rt = builder("r1", Jobs.MACHINE, ctx -> WorkResult.success(), QueueOptions.defaults())
                .forceCancelAfterGrace(false).build();
        rt.start();
        executor.runAll();
        long id = enqueue(Priority.NORMAL.value());
        dispatchOnly();
        assertThat(rt.cancel(Jobs.MACHINE, id, Command.user("ana")).status()).isEqualTo(CancelResult.Status.REQUESTED);
        clock.advance(Duration.ofSeconds(20));
        assertThat(task(id).state()).isEqualTo(Jobs.State.RUNNING);
        executor.runAll();
        assertThat(task(id).state()).isEqualTo(Jobs.State.CANCELED);
        assertThat(events(id)).containsExactly("START", "CANCEL");
    }

    @Test
    void aQueuedTaskIsCancelledAtOnceAndARefusalChangesNothing() {
        TaskRuntime rt = runtime(ctx -> WorkResult.success(), QueueOptions.defaults());
        TaskOperations.of(engine).pause("q", Command.system());
        rt.start();
        long id = enqueue(0);
        executor.runAll();
        CancelResult<Jobs.State> r = rt.cancel(Jobs.MACHINE, id, Command.user("ana"));
        assertThat(r.status()).isEqualTo(CancelResult.Status.CANCELLED);
        assertThat(task(id).state()).isEqualTo(Jobs.State.CANCELED);
        CancelResult<Jobs.State> again = rt.cancel(Jobs.MACHINE, id, Command.user("ana"));
        assertThat(again.status()).isEqualTo(CancelResult.Status.REFUSED);
        assertThat(((Outcome.Refused<Jobs.State>) again.outcome()).code()).isEqualTo(RefusalCode.ILLEGAL_TRANSITION);
        assertThat(task(id).version()).isEqualTo(1);
    }

    @Test
    void gracefulStopLetsWorkFinishThenReleasesWhatStillRuns() {
        TaskRuntime rt = runtime(ctx -> WorkResult.success(), QueueOptions.defaults());
        rt.start();
        executor.runAll();
        long id = enqueue(0);
        dispatchOnly();
        var stopped = rt.stop(Duration.ofSeconds(5));
        assertThat(stopped).isNotDone();
        clock.advance(Duration.ofSeconds(5));
        assertThat(stopped).isDone();
        assertThat(task(id).state()).isEqualTo(Jobs.State.QUEUED);
        assertThat(task(id).record().lease()).isNull();
        executor.runAll();                                     // the late result is refused: the lease is gone
        assertThat(task(id).state()).isEqualTo(Jobs.State.QUEUED);
    }

    @Test
    void aRestartUnderTheSameOwnerHealsAtOnce() {
        TaskRuntime first = runtime(ctx -> WorkResult.success(), QueueOptions.defaults());
        first.start();
        executor.runAll();
        long id = enqueue(0);
        dispatchOnly();
        first.halt();
        executor.drop();                                       // the crashed process's work never runs
        assertThat(task(id).record().lease()).isNotNull();
        TaskRuntime second = runtime(ctx -> WorkResult.success(), QueueOptions.defaults());
        second.start();
        executor.runAll();
        assertThat(task(id).state()).isEqualTo(Jobs.State.DONE);
        assertThat(events(id)).containsExactly("START", "RELEASE", "START", "COMPLETE");
    }

    @Test
    void anotherOwnersExpiredLeaseIsRecoveredWithinLeasePlusPoll() {
        TaskRuntime crashed = builder("a", Jobs.MACHINE, ctx -> WorkResult.success(), QueueOptions.defaults()).build();
        crashed.start();
        executor.runAll();
        long id = enqueue(0);
        dispatchOnly();
        crashed.halt();
        executor.drop();
        TaskRuntime survivor = builder("b", Jobs.MACHINE, ctx -> WorkResult.success(), QueueOptions.defaults()).build();
        survivor.start();
        executor.runAll();
        clock.advance(Duration.ofSeconds(29));
        executor.runAll();
        assertThat(task(id).state()).isEqualTo(Jobs.State.RUNNING);
        clock.advance(Duration.ofSeconds(2));
        executor.runAll();
        assertThat(task(id).state()).isEqualTo(Jobs.State.DONE);
        assertThat(engine.history(id).get(1).reason()).contains("expired");
    }

    @Test
    void interruptRecoveryRequeuesAtTheFrontOnceThenFails() {
        Machine<Jobs.State, Jobs.Event> m = Jobs.machine("interruptible", true, true);
        List<Long> order = new ArrayList<>();
        TaskRuntime first = TaskRuntime.builder(engine).owner("a").executor(executor).workers(1).pollInterval(Duration.ofSeconds(1))
                .register(m, "q", ctx -> WorkResult.success(), QueueOptions.defaults()).build();
        first.start();
        executor.runAll();
        long crashing = engine.create(m, TaskSpec.defaults().queue("q")).task().id();
        dispatchOnly();
        long other = engine.create(m, TaskSpec.defaults().queue("q")).task().id();
        first.halt();
        executor.drop();
        TaskRuntime second = TaskRuntime.builder(engine).owner("a").executor(executor).workers(1).pollInterval(Duration.ofSeconds(1))
                .register(m, "q", ctx -> {
                    order.add(ctx.task().id());
                    return WorkResult.success();
                }, QueueOptions.defaults()).build();
        second.start();
        executor.runAll();
        assertThat(order).containsExactly(crashing, other);      // the interrupted task went to the front
        assertThat(engine.history(crashing)).extracting(HistoryEntry::event)
                .containsExactly("START", "INTERRUPT", "RECOVER", "START", "COMPLETE");
    }

    @Test
    void aRestartUnderTheSameOwnerTakesItsLeasesBackAtStartAndLeavesAnotherOwnersAlone() {
        Worker<Jobs.State> worker = ctx -> WorkResult.success();
        TaskRuntime a = builder("a", Jobs.MACHINE, worker, QueueOptions.defaults()).build();
        a.start();
        executor.runAll();
        long mine = enqueue(0);
        dispatchOnly();                  // a claims it; its worker never runs: a crashes
        a.halt();
        executor.drop();
        TaskRuntime b = builder("b", Jobs.MACHINE, worker, QueueOptions.defaults()).build();
        b.start();
        executor.runAll();
        long theirs = enqueue(0);
        dispatchOnly();
        b.halt();
        executor.drop();
        assertThat(store.find(mine).orElseThrow().lease().owner()).isEqualTo("a");
        assertThat(store.find(theirs).orElseThrow().lease().owner()).isEqualTo("b");

        builder("a", Jobs.MACHINE, worker, QueueOptions.defaults()).build().start();      // the clock has not moved: no lease expired
        assertThat(store.find(mine).orElseThrow().state()).isEqualTo("QUEUED");
        assertThat(store.find(mine).orElseThrow().lease()).isNull();
        assertThat(engine.history(mine).get(engine.history(mine).size() - 1).reason()).isEqualTo("restart of a");
        assertThat(store.find(theirs).orElseThrow().state()).as("another owner's lease is left to expire").isEqualTo("RUNNING");
        assertThat(store.find(theirs).orElseThrow().lease().owner()).isEqualTo("b");
        assertThat(events(theirs)).containsExactly("START");

        builder("c", Jobs.MACHINE, worker, QueueOptions.defaults()).soleOwner(true).build().start();
        assertThat(store.find(theirs).orElseThrow().state()).as("the sole owner of the store takes every lease").isEqualTo("QUEUED");
        assertThat(store.find(theirs).orElseThrow().lease()).isNull();
        assertThat(events(theirs)).containsExactly("START", "RELEASE");
    }

    @Test
    void concurrencyLimitHoldsAcrossTwoRuntimesOnOneStore() {
        QueueOptions one = QueueOptions.defaults().concurrency(1);
        List<Integer> leasedWhileRunning = new ArrayList<>();
        Worker<Jobs.State> worker = ctx -> {
            leasedWhileRunning.add(store.leased("q"));
            return WorkResult.success();
        };
        TaskRuntime a = builder("a", Jobs.MACHINE, worker, one).build();
        TaskRuntime b = builder("b", Jobs.MACHINE, worker, one).build();
        a.start();
        b.start();
        for (int i = 0; i < 5; i++) enqueue(0);
        dispatchOnly();              // a's dispatch round: claims one task, its worker waits in the executor
        dispatchOnly();              // b's dispatch round: the store refuses, the queue is full
        assertThat(store.leased("q")).isEqualTo(1);
        assertThat(a.runningTasks().size() + b.runningTasks().size()).isEqualTo(1);
        executor.runAll();
        assertThat(leasedWhileRunning).hasSize(5).containsOnly(1);
        assertThat(engine.query(Jobs.MACHINE, dev.statekit.store.TaskQuery.all()).items())
                .extracting(Task::state).containsOnly(Jobs.State.DONE);
    }

    @Test
    void pausedQueueStartsNothingUntilResumed() {
        TaskRuntime rt = runtime(ctx -> WorkResult.success(), QueueOptions.defaults());
        rt.start();
        TaskOperations.of(engine).pause("q", Command.system());
        long id = enqueue(0);
        executor.runAll();
        clock.advance(Duration.ofSeconds(5));
        executor.runAll();
        assertThat(task(id).state()).isEqualTo(Jobs.State.QUEUED);
        assertThat(store.queue("q").paused()).isTrue();
        TaskOperations.of(engine).resume("q", Command.system());
        executor.runAll();
        assertThat(task(id).state()).isEqualTo(Jobs.State.DONE);
    }

    @Test
    void priorityThenFifoMoveToFrontAndMoveBefore() {
        List<Long> order = new ArrayList<>();
        TaskRuntime rt = builder("r1", Jobs.MACHINE, ctx -> {
            order.add(ctx.task().id());
            return WorkResult.success();
        }, QueueOptions.defaults()).workers(1).build();
        TaskOperations.of(engine).pause("q", Command.system());
        rt.start();
        long low = enqueue(0);
        long n1 = enqueue(1);
        long n2 = enqueue(1);
        long n3 = enqueue(1);
        long high = enqueue(2);
        TaskOperations.of(engine).moveToFront(Jobs.MACHINE, n3, Command.system());
        TaskOperations.of(engine).moveBefore(Jobs.MACHINE, n1, n2, Command.system());       // no change: n1 is already before n2
        TaskOperations.of(engine).moveBefore(Jobs.MACHINE, n2, n3, Command.system());
        TaskOperations.of(engine).resume("q", Command.system());
        executor.runAll();
        assertThat(order).containsExactly(high, n2, n3, n1, low);
    }

    @Test
    void antiStarvationLetsOneLowerTaskStartAfterKHigherOnes() {
        List<Long> order = new ArrayList<>();
        TaskRuntime rt = builder("r1", Jobs.MACHINE, ctx -> {
            order.add(ctx.task().id());
            return WorkResult.success();
        }, QueueOptions.defaults().starvationLimit(2)).workers(1).build();
        TaskOperations.of(engine).pause("q", Command.system());
        rt.start();
        long low = enqueue(0);
        long h1 = enqueue(2);
        long h2 = enqueue(2);
        long h3 = enqueue(2);
        TaskOperations.of(engine).resume("q", Command.system());
        executor.runAll();
        assertThat(order).containsExactly(h1, h2, low, h3);
    }

    @Test
    void aFailedPreconditionBlocksTheTaskUntilItHolds() {
        boolean[] diskFull = {true};
        TaskRuntime rt = runtime(ctx -> WorkResult.success(),
                QueueOptions.defaults().precondition(t -> diskFull[0] ? "disk space below 1 GiB" : null));
        rt.start();
        long id = enqueue(0);
        executor.runAll();
        assertThat(task(id).state()).isEqualTo(Jobs.State.BLOCKED);
        assertThat(task(id).attribute(TaskRuntime.ATTR_BLOCKED_REASON)).isEqualTo("disk space below 1 GiB");
        clock.advance(Duration.ofSeconds(3));
        executor.runAll();
        assertThat(task(id).state()).isEqualTo(Jobs.State.BLOCKED);
        diskFull[0] = false;
        clock.advance(Duration.ofSeconds(1));
        executor.runAll();
        assertThat(task(id).state()).isEqualTo(Jobs.State.DONE);
        assertThat(task(id).attribute(TaskRuntime.ATTR_BLOCKED_REASON)).isNull();
    }

    @Test
    void aSnoozeRunsAgainLaterWithoutUsingAnAttempt() {
        int[] calls = {0};
        TaskRuntime rt = runtime(ctx -> calls[0]++ == 0 ? WorkResult.snooze(Duration.ofSeconds(5)) : WorkResult.success(),
                QueueOptions.defaults());
        rt.start();
        long id = enqueue(0);
        executor.runAll();
        assertThat(task(id).state()).isEqualTo(Jobs.State.QUEUED);
        assertThat(task(id).record().attempts()).isZero();
        clock.advance(Duration.ofSeconds(4));
        executor.runAll();
        assertThat(task(id).state()).isEqualTo(Jobs.State.QUEUED);
        clock.advance(Duration.ofSeconds(1));
        executor.runAll();
        assertThat(task(id).state()).isEqualTo(Jobs.State.DONE);
        assertThat(task(id).record().attempts()).isEqualTo(1);
    }

    @Test
    void thrownExceptionsAreClassified() {
        TaskRuntime rt = runtime(ctx -> {
            if (ctx.task().record().priority() == 1) throw new IllegalArgumentException("bad input file");
            throw new ErrorClassifier.StatusException(429, "rate limited");
        }, QueueOptions.defaults());
        rt.start();
        long bad = enqueue(1);
        long limited = enqueue(0);
        executor.runAll();
        assertThat(task(bad).state()).isEqualTo(Jobs.State.FAILED);
        assertThat(task(bad).record().lastError().code()).isEqualTo("BAD_INPUT");
        assertThat(task(limited).state()).isEqualTo(Jobs.State.RETRYING);
        assertThat(task(limited).record().lastError().code()).isEqualTo("HTTP_429");
        assertThat(task(limited).record().lastError().retryable()).isTrue();
    }

    @Test
    void manualRetryOfAllFailedTasksGoesToTheFrontInTheirOrder() {
        List<Long> order = new ArrayList<>();
        boolean[] fail = {true};
        TaskRuntime rt = builder("r1", Jobs.MACHINE, ctx -> {
            order.add(ctx.task().id());
            return fail[0] ? WorkResult.fatal("BROKEN", "no") : WorkResult.success();
        }, QueueOptions.defaults()).workers(1).build();
        rt.start();
        long f1 = enqueue(0);
        long f2 = enqueue(0);
        executor.runAll();
        fail[0] = false;
        TaskOperations.of(engine).pause("q", Command.system());
        long waiting = enqueue(0);
        executor.runAll();
        order.clear();
        List<Outcome<Jobs.State>> outcomes = TaskOperations.of(engine).retryAll(Jobs.MACHINE, Jobs.State.FAILED, Jobs.Event.RETRY, null, "q", true, Command.user("ana"));
        assertThat(outcomes).allMatch(Outcome::isApplied).hasSize(2);
        TaskOperations.of(engine).resume("q", Command.system());
        executor.runAll();
        assertThat(order).containsExactly(f1, f2, waiting);
        assertThat(task(f1).record().lastError().code()).isEqualTo("BROKEN");      // kept after the later success
    }

    @Test
    void runsOnRealThreadsWithTheSystemClock() throws Exception {
        InMemoryStore s = new InMemoryStore();
        TransitionEngine e = TransitionEngine.builder().store(s).build();
        int n = 500;
        CountDownLatch done = new CountDownLatch(n);
        e.subscribe((machine, t, entry) -> {
            if (entry.to().equals("DONE")) done.countDown();
        });
        ExecutorService pool = Executors.newFixedThreadPool(4);
        TaskRuntime rt = TaskRuntime.builder(e).owner("threads").executor(pool).workers(3)
                .register(Jobs.MACHINE, "q", ctx -> WorkResult.success(), QueueOptions.defaults().concurrency(2)).build();
        try {
            rt.start();
            for (int i = 0; i < n; i++) e.create(Jobs.MACHINE, TaskSpec.defaults().queue("q").priority(i % 3));
            assertThat(done.await(30, TimeUnit.SECONDS)).as("all tasks done").isTrue();
            for (TaskRecord t : s.query(dev.statekit.store.TaskQuery.all().limit(1000)).items()) {
                assertThat(s.history(t.id())).extracting(HistoryEntry::event).containsExactly("START", "COMPLETE");
            }
        } finally {
            rt.stop(Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
            pool.shutdownNow();
        }
    }

    @Test
    void aClaimRunsTheStartRowsEffectAndListenersHearOfIt() {
        Machine<Jobs.State, Jobs.Event> counted = Machine.builder("counted", Jobs.State.class, Jobs.Event.class)
                .states(Jobs.State.QUEUED, Jobs.State.RUNNING, Jobs.State.DONE, Jobs.State.FAILED)
                .initial(Jobs.State.QUEUED)
                .terminal(Jobs.State.DONE)
                .row(Jobs.State.QUEUED, Jobs.Event.START, Jobs.State.RUNNING).by(dev.statekit.store.TriggerSource.SYSTEM)
                    .effect((task, command, changes) -> changes.put("runs",
                            Integer.toString(Integer.parseInt(task.attributes().getOrDefault("runs", "0")) + 1)))
                    .add()
                .transition(Jobs.State.RUNNING, Jobs.Event.COMPLETE, Jobs.State.DONE, dev.statekit.store.TriggerSource.SYSTEM)
                .transition(Jobs.State.RUNNING, Jobs.Event.FAIL, Jobs.State.FAILED, dev.statekit.store.TriggerSource.SYSTEM)
                .transition(Jobs.State.FAILED, Jobs.Event.RETRY, Jobs.State.QUEUED, dev.statekit.store.TriggerSource.USER)
                .run(r -> r.claim(Jobs.State.QUEUED, Jobs.Event.START).success(Jobs.Event.COMPLETE).fatal(Jobs.Event.FAIL).recoverByFailing())
                .build();
        List<String> heard = new ArrayList<>();
        engine.subscribe((machine, t, entry) -> heard.add(entry.event() + "@" + t.attributes().get("runs")));
        List<String> seenByWorker = new ArrayList<>();
        TaskRuntime rt = TaskRuntime.builder(engine).owner("r1").executor(executor).workers(1)
                .register(counted, "q", ctx -> {
                    seenByWorker.add(ctx.task().attribute("runs"));
                    return WorkResult.success();
                }, QueueOptions.defaults()).build();
        rt.start();
        engine.create(counted, TaskSpec.defaults().queue("q"));
        executor.runAll();
        assertThat(seenByWorker).containsExactly("1");
        assertThat(heard).containsExactly("START@1", "COMPLETE@1");
    }

    @Test
    void aResultTheTableRefusesFailsTheTaskInsteadOfLeavingItRunning() {
        Machine<Jobs.State, Jobs.Event> gated = Machine.builder("gated", Jobs.State.class, Jobs.Event.class)
                .states(Jobs.State.QUEUED, Jobs.State.RUNNING, Jobs.State.DONE, Jobs.State.FAILED)
                .initial(Jobs.State.QUEUED)
                .terminal(Jobs.State.DONE)
                .transition(Jobs.State.QUEUED, Jobs.Event.START, Jobs.State.RUNNING, dev.statekit.store.TriggerSource.SYSTEM)
                .row(Jobs.State.RUNNING, Jobs.Event.COMPLETE, Jobs.State.DONE).by(dev.statekit.store.TriggerSource.SYSTEM)
                    .guard("has-output", (task, command) -> Verdict.when(command.attributes().containsKey("output"),
                            "OUTPUT_MISSING", "no output was reported"))
                    .add()
                .transition(Jobs.State.RUNNING, Jobs.Event.FAIL, Jobs.State.FAILED, dev.statekit.store.TriggerSource.SYSTEM)
                .transition(Jobs.State.FAILED, Jobs.Event.RETRY, Jobs.State.QUEUED, dev.statekit.store.TriggerSource.USER)
                .run(r -> r.claim(Jobs.State.QUEUED, Jobs.Event.START).success(Jobs.Event.COMPLETE).fatal(Jobs.Event.FAIL).recoverByFailing())
                .build();
        TaskRuntime rt = TaskRuntime.builder(engine).owner("r1").executor(executor).workers(1)
                .register(gated, "q", ctx -> WorkResult.success(), QueueOptions.defaults()).build();
        rt.start();
        long id = engine.create(gated, TaskSpec.defaults().queue("q")).task().id();
        executor.runAll();
        Task<Jobs.State> t = engine.find(gated, id).orElseThrow();
        assertThat(t.state()).isEqualTo(Jobs.State.FAILED);
        assertThat(t.record().lease()).isNull();
        assertThat(t.record().lastError().code()).isEqualTo("RESULT_REFUSED");
        assertThat(t.record().lastError().message()).contains("OUTPUT_MISSING");
    }

    @Test
    void failureCommandsCarryTheErrorForGuardsAndEffects() {
        List<String> seen = new ArrayList<>();
        Machine<Jobs.State, Jobs.Event> m = Machine.builder("errors", Jobs.State.class, Jobs.Event.class)
                .states(Jobs.State.QUEUED, Jobs.State.RUNNING, Jobs.State.DONE, Jobs.State.FAILED)
                .initial(Jobs.State.QUEUED)
                .terminal(Jobs.State.DONE)
                .transition(Jobs.State.QUEUED, Jobs.Event.START, Jobs.State.RUNNING, dev.statekit.store.TriggerSource.SYSTEM)
                .transition(Jobs.State.RUNNING, Jobs.Event.COMPLETE, Jobs.State.DONE, dev.statekit.store.TriggerSource.SYSTEM)
                .row(Jobs.State.RUNNING, Jobs.Event.FAIL, Jobs.State.FAILED).by(dev.statekit.store.TriggerSource.SYSTEM)
                    .effect((task, command, changes) -> {
                        seen.add(command.error().code() + "/" + command.error().step());
                        changes.put("failed_step", command.error().step());
                    })
                    .add()
                .transition(Jobs.State.FAILED, Jobs.Event.RETRY, Jobs.State.QUEUED, dev.statekit.store.TriggerSource.USER)
                .run(r -> r.claim(Jobs.State.QUEUED, Jobs.Event.START).success(Jobs.Event.COMPLETE).fatal(Jobs.Event.FAIL).recoverByFailing())
                .build();
        TaskRuntime rt = TaskRuntime.builder(engine).owner("r1").executor(executor).workers(1)
                .register(m, "q", ctx -> WorkResult.fatal("EXTRACTION_PARSE_FAILED", "no text").atStep("extract"),
                        QueueOptions.defaults()).build();
        rt.start();
        long id = engine.create(m, TaskSpec.defaults().queue("q")).task().id();
        executor.runAll();
        Task<Jobs.State> t = engine.find(m, id).orElseThrow();
        assertThat(seen).containsExactly("EXTRACTION_PARSE_FAILED/extract");
        assertThat(t.attribute("failed_step")).isEqualTo("extract");
        assertThat(t.record().lastError()).isEqualTo(new dev.statekit.store.TaskError("EXTRACTION_PARSE_FAILED", "no text", false, "extract"));
    }

    @Test
    void batchesRunTogetherAndKeepTheQueueLimit() {
        List<Integer> leasedWhileRunning = new ArrayList<>();
        List<Long> order = new ArrayList<>();
        TaskRuntime limited = builder("r1", Jobs.MACHINE, ctx -> {
            leasedWhileRunning.add(store.leased("q"));
            order.add(ctx.task().id());
            return WorkResult.success();
        }, QueueOptions.defaults().concurrency(1)).batchSize(4).build();
        TaskOperations.of(engine).pause("q", Command.system());
        limited.start();
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 6; i++) ids.add(enqueue(0));
        TaskOperations.of(engine).resume("q", Command.system());
        executor.runAll();
        assertThat(leasedWhileRunning).hasSize(6).containsOnly(1);
        assertThat(order).containsExactlyElementsOf(ids);
        for (long id : ids) assertThat(events(id)).containsExactly("START", "COMPLETE");
    }

    @Test
    void aBatchWritesEachResultOnItsOwn() {
        TaskRuntime rt = builder("r1", Jobs.MACHINE, ctx -> ctx.task().record().priority() == 1
                ? WorkResult.fatal("BROKEN", "no") : WorkResult.success(), QueueOptions.defaults()).batchSize(8).workers(1).build();
        TaskOperations.of(engine).pause("q", Command.system());
        rt.start();
        long ok = enqueue(0);
        long broken = enqueue(1);
        long ok2 = enqueue(0);
        TaskOperations.of(engine).resume("q", Command.system());
        executor.runAll();
        assertThat(task(ok).state()).isEqualTo(Jobs.State.DONE);
        assertThat(task(ok2).state()).isEqualTo(Jobs.State.DONE);
        assertThat(task(broken).state()).isEqualTo(Jobs.State.FAILED);
        assertThat(store.leased("q")).isZero();
    }

    @Test
    void builderRejectsBadConfiguration() {
        Machine<Chunk.State, Chunk.Event> noPolicy = Chunk.MACHINE;
        assertThatThrownBy(() -> TaskRuntime.builder(engine).register(noPolicy, ctx -> WorkResult.success()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no run policy");
        assertThatThrownBy(() -> TaskRuntime.builder(engine).build()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> TaskRuntime.builder(engine).leaseDuration(Duration.ofSeconds(10)).heartbeat(Duration.ofSeconds(10))
                .register(Jobs.MACHINE, ctx -> WorkResult.success()).build()).isInstanceOf(IllegalStateException.class);
    }

    /**
     * A stop that comes while a claim is under way completes only after that claim, which gives
     * back what it took before its work starts: no store call of the runtime outlives its stop (a
     * host closes its connections then), and no work starts once a stop has begun.
     */
    @Test
    void aStopDuringAClaimWaitsForTheClaimWhichGivesItsTaskBack() throws Exception {
        InMemoryStore base = new InMemoryStore();
        java.util.concurrent.atomic.AtomicReference<Runnable> duringClaim = new java.util.concurrent.atomic.AtomicReference<>();
        dev.statekit.store.Store s = (dev.statekit.store.Store) java.lang.reflect.Proxy.newProxyInstance(
                dev.statekit.store.Store.class.getClassLoader(), new Class<?>[] {dev.statekit.store.Store.class}, (proxy, method, args) -> {
                    Object result;
                    try {
                        result = method.invoke(base, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (method.getName().equals("claim")) {
                        Runnable hook = duringClaim.getAndSet(null);
                        if (hook != null) hook.run();
                    }
                    return result;
                });
        TransitionEngine e = TransitionEngine.builder().store(s).clock(clock).build();
        TaskRuntime rt = TaskRuntime.builder(e).owner("r1").executor(executor).workers(1).pollInterval(Duration.ofSeconds(1))
                .register(Jobs.MACHINE, "q", ctx -> WorkResult.success(), QueueOptions.defaults()).build();
        long id = e.create(Jobs.MACHINE, TaskSpec.defaults().queue("q")).task().id();
        List<java.util.concurrent.CompletableFuture<Void>> stops = new ArrayList<>();
        List<Boolean> doneAtOnce = new ArrayList<>();
        duringClaim.set(() -> {
            java.util.concurrent.CompletableFuture<Void> stop = rt.stop(Duration.ofSeconds(60));
            stops.add(stop);
            doneAtOnce.add(stop.isDone());
        });
        rt.start();
        executor.runAll();

        assertThat(stops).hasSize(1);
        assertThat(doneAtOnce).containsExactly(false);
        assertThat(stops.get(0)).isDone();
        assertThat(e.find(Jobs.MACHINE, id).orElseThrow().state()).isEqualTo(Jobs.State.QUEUED);
        assertThat(e.history(id)).extracting(HistoryEntry::event).endsWith("START", "RELEASE");
    }

    /**
     * A store that answers {@code STORE_UNAVAILABLE} to the first {@code times} calls of the methods
     * whose names start with {@code method}: after making the call when {@code applied} (its answer
     * lost), or without making it.
     */
    dev.statekit.store.Store unavailable(String method, int times, boolean applied) {
        int[] left = {times};
        return (dev.statekit.store.Store) java.lang.reflect.Proxy.newProxyInstance(dev.statekit.store.Store.class.getClassLoader(),
                new Class<?>[] {dev.statekit.store.Store.class}, (proxy, m, args) -> {
                    boolean fail = m.getName().startsWith(method) && left[0] > 0;
                    if (fail) left[0]--;
                    if (fail && !applied) throw new dev.statekit.store.StatekitException(dev.statekit.store.ErrorCode.STORE_UNAVAILABLE, "connection lost");
                    Object result;
                    try {
                        result = m.invoke(store, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (fail) throw new dev.statekit.store.StatekitException(dev.statekit.store.ErrorCode.STORE_UNAVAILABLE, "the answer was lost");
                    return result;
                });
    }

    /**
     * A runtime "r1" on {@code e} with one worker, claiming {@code batchSize} tasks at a time (0: adaptive
     * batches), whose worker adds each task it runs to {@code ran}.
     */
    TaskRuntime recording(TransitionEngine e, int batchSize, List<Long> ran) {
        TaskRuntimeBuilder b = TaskRuntime.builder(e).owner("r1").executor(executor).workers(1)
                .leaseDuration(Duration.ofSeconds(30)).pollInterval(Duration.ofSeconds(1)).register(Jobs.MACHINE, "q", ctx -> {
                    ran.add(ctx.task().id());
                    return WorkResult.success();
                }, QueueOptions.defaults());
        return (batchSize > 0 ? b.batchSize(batchSize) : b).build();
    }

    /**
     * The store commits a claim and its answer is lost: the runtime never hears of the task it
     * leased. The next housekeeping (one poll interval on) gives it back, and it runs, instead of
     * waiting 30 seconds for its lease to expire.
     */
    @Test
    void aTaskClaimedByAClaimWhoseAnswerWasLostGoesBackAtTheNextHousekeepingNotWhenItsLeaseExpires() {
        TransitionEngine e = TransitionEngine.builder().store(unavailable("claim", 1, true)).clock(clock).build();
        List<Long> ran = new ArrayList<>();
        TaskRuntime rt = recording(e, 0, ran);
        long id = e.create(Jobs.MACHINE, TaskSpec.defaults().queue("q")).task().id();
        rt.start();
        executor.runAll();
        assertThat(task(id).state()).isEqualTo(Jobs.State.RUNNING);
        assertThat(task(id).record().lease().owner()).isEqualTo("r1");
        assertThat(ran).isEmpty();

        clock.advance(Duration.ofSeconds(1));
        executor.runAll();
        assertThat(ran).containsExactly(id);
        assertThat(task(id).state()).isEqualTo(Jobs.State.DONE);
        assertThat(events(id)).containsExactly("START", "RELEASE", "START", "COMPLETE");
        assertThat(e.history(id).get(1).reason()).contains("held by no run");
        rt.stop(Duration.ZERO);
        executor.runAll();
    }

    /**
     * Results the store could not take, three times in a row: the task's lease is left to recovery,
     * which gives it back at the next housekeeping that reaches the store, not when its lease expires.
     */
    @Test
    void aTaskWhoseResultCouldNotBeRecordedGoesBackAtTheNextHousekeepingNotWhenItsLeaseExpires() {
        TransitionEngine e = TransitionEngine.builder().store(unavailable("apply", ResultWriter.WRITE_ATTEMPTS, false))
                .clock(clock).build();
        List<Long> ran = new ArrayList<>();
        TaskRuntime rt = recording(e, 0, ran);
        long id = e.create(Jobs.MACHINE, TaskSpec.defaults().queue("q")).task().id();
        rt.start();
        executor.runAll();
        assertThat(ran).containsExactly(id);
        assertThat(task(id).state()).isEqualTo(Jobs.State.RUNNING);

        clock.advance(Duration.ofSeconds(1));
        executor.runAll();
        assertThat(ran).containsExactly(id, id);
        assertThat(task(id).state()).isEqualTo(Jobs.State.DONE);
        assertThat(events(id)).containsExactly("START", "RELEASE", "START", "COMPLETE");
        rt.stop(Duration.ZERO);
        executor.runAll();
    }

    /**
     * Two tasks of a claim whose answer was lost; the store fails again while the first is given
     * back. The second is given back all the same, and the first at the next housekeeping.
     */
    @Test
    void aStoreFailureWhileGivingBackOneUnheldTaskDoesNotKeepTheOthersWaiting() {
        boolean[] claimLost = {false};
        boolean[] failNextWrite = {false};
        dev.statekit.store.Store s = (dev.statekit.store.Store) java.lang.reflect.Proxy.newProxyInstance(
                dev.statekit.store.Store.class.getClassLoader(), new Class<?>[] {dev.statekit.store.Store.class}, (proxy, m, args) -> {
                    if (failNextWrite[0] && m.getName().startsWith("apply")) {
                        failNextWrite[0] = false;
                        throw new dev.statekit.store.StatekitException(dev.statekit.store.ErrorCode.STORE_UNAVAILABLE, "connection lost");
                    }
                    Object result;
                    try {
                        result = m.invoke(store, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (m.getName().equals("claim") && !claimLost[0]) {
                        claimLost[0] = true;
                        failNextWrite[0] = true;
                        throw new dev.statekit.store.StatekitException(dev.statekit.store.ErrorCode.STORE_UNAVAILABLE, "the answer was lost");
                    }
                    return result;
                });
        TransitionEngine e = TransitionEngine.builder().store(s).clock(clock).build();
        List<Long> ran = new ArrayList<>();
        TaskRuntime rt = recording(e, 2, ran);
        long a = e.create(Jobs.MACHINE, TaskSpec.defaults().queue("q")).task().id();
        long b = e.create(Jobs.MACHINE, TaskSpec.defaults().queue("q")).task().id();
        rt.start();
        executor.runAll();
        assertThat(List.of(task(a).state(), task(b).state())).containsOnly(Jobs.State.RUNNING);
        assertThat(ran).isEmpty();

        clock.advance(Duration.ofSeconds(1));
        executor.runAll();
        assertThat(ran).hasSize(1);
        assertThat(List.of(task(a).state(), task(b).state())).containsExactlyInAnyOrder(Jobs.State.DONE, Jobs.State.RUNNING);

        clock.advance(Duration.ofSeconds(1));
        executor.runAll();
        assertThat(ran).containsExactlyInAnyOrder(a, b);
        for (long id : List.of(a, b)) assertThat(events(id)).containsExactly("START", "RELEASE", "START", "COMPLETE");
        rt.stop(Duration.ZERO);
        executor.runAll();
    }
}
