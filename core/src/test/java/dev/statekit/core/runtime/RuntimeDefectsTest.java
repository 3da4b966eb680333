package dev.statekit.core.runtime;

import dev.statekit.core.ops.TaskOperations;
import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.internal.Kernel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.TransitionListener;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.Claimed;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.TaskRecord;
import dev.statekit.test.fixtures.Jobs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** Runtime behaviours once got wrong, each pinned by the situation that showed it. */
class RuntimeDefectsTest {
    final ManualClock clock = new ManualClock();
    final ManualExecutor executor = new ManualExecutor();
    final InMemoryStore store = new InMemoryStore();
    final TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock).build();

    long enqueue(Machine<Jobs.State, Jobs.Event> m) {
        return engine.create(m, TaskSpec.defaults().queue("q")).task().id();
    }

    @Test
    void anErrorThrownPastWorkGivesTheSlotBackAndFailsTheTaskByPolicy() {
        List<Long> ran = new ArrayList<>();
        TaskRuntime rt = TaskRuntime.builder(engine).owner("r").executor(executor).workers(1)
                .register(Jobs.MACHINE, "q", ctx -> {
                    ran.add(ctx.task().id());
                    if (ran.size() == 1) throw new AssertionError("a worker's own error");
                    if (ran.size() == 2) throw new NoClassDefFoundError("com/example/Missing");
                    return WorkResult.success();
                }, QueueOptions.defaults()).build();
        rt.start();
        long first = enqueue(Jobs.MACHINE);
        long second = enqueue(Jobs.MACHINE);
        long third = enqueue(Jobs.MACHINE);
        executor.runAll();
        assertThat(ran).containsExactly(first, second, third);          // the one slot came back each time
        assertThat(engine.find(Jobs.MACHINE, first).orElseThrow().state()).isEqualTo(Jobs.State.FAILED);
        assertThat(engine.find(Jobs.MACHINE, first).orElseThrow().record().lastError().code()).isEqualTo("ASSERTIONERROR");
        assertThat(engine.find(Jobs.MACHINE, second).orElseThrow().state()).isEqualTo(Jobs.State.FAILED);
        assertThat(engine.find(Jobs.MACHINE, third).orElseThrow().state()).isEqualTo(Jobs.State.DONE);
        assertThat(rt.runningTasks()).isEmpty();
        assertThat(store.leased("q")).isZero();
    }

    @Test
    void anExpiredLeaseOnALimitedQueueIsRecoveredBeforeAnythingElseOfTheQueueIsClaimed() {
        Machine<Jobs.State, Jobs.Event> m = Jobs.machine("interruptible", true, true);
        QueueOptions one = QueueOptions.defaults().concurrency(1);
        TaskRuntime crashed = TaskRuntime.builder(engine).owner("a").executor(executor).workers(1)
                .register(m, "q", ctx -> WorkResult.success(), one).build();
        crashed.start();
        executor.runAll();
        long interrupted = enqueue(m);
        executor.runNext();                 // claimed; its worker never runs
        long waiting = enqueue(m);
        crashed.halt();
        executor.drop();
        clock.advance(Duration.ofSeconds(31));

        // Another process claims the queue the moment the recovery's first change is written.
        List<Long> intruderGot = new ArrayList<>();
        engine.subscribe(new TransitionListener() {
            @Override
            public void onTransition(String machine, TaskRecord task, @Nullable HistoryEntry entry) {
                if (entry != null && entry.event().equals("INTERRUPT")) {
                    ClaimRequest request = new ClaimRequest(m.name(), "q", List.of(new ClaimRule("QUEUED", "START", "RUNNING")),
                            "intruder", clock.now(), Duration.ofSeconds(30), 1, 0);
                    for (Claimed c : store.claim(request)) intruderGot.add(c.task().id());
                }
            }
        });
        List<Long> order = new ArrayList<>();
        TaskRuntime survivor = TaskRuntime.builder(engine).owner("b").executor(executor).workers(1)
                .register(m, "q", ctx -> {
                    order.add(ctx.task().id());
                    return WorkResult.success();
                }, one).build();
        survivor.start();
        executor.runAll();
        assertThat(intruderGot).as("claims while the interrupted task is put back").isEmpty();
        assertThat(order).containsExactly(interrupted, waiting);
        assertThat(engine.history(interrupted)).extracting(HistoryEntry::event)
                .containsExactly("START", "INTERRUPT", "RECOVER", "START", "COMPLETE");
    }

    @Test
    void anInterruptedTaskLeftByACrashedRecovererIsPutBackByTheNextOne() {
        Machine<Jobs.State, Jobs.Event> m = Jobs.machine("interruptible", true, true);
        QueueOptions one = QueueOptions.defaults().concurrency(1);
        TaskRuntime crashed = TaskRuntime.builder(engine).owner("a").executor(executor).workers(1)
                .register(m, "q", ctx -> WorkResult.success(), one).build();
        crashed.start();
        executor.runAll();
        long id = enqueue(m);
        executor.runNext();
        crashed.halt();
        executor.drop();
        clock.advance(Duration.ofSeconds(31));
        // the recoverer wrote the interruption (keeping the expired lease) and died before putting it back
        TaskRecord running = store.find(id).orElseThrow();
        Outcome<Jobs.State> o = Kernel.of(engine).fire(m, id, Jobs.Event.INTERRUPT, Command.system().actor("dead"),
                (cur, next) -> next.lease(cur.lease()));
        assertThat(o.isApplied()).isTrue();
        assertThat(store.find(id).orElseThrow().lease()).isEqualTo(running.lease());

        List<Long> ran = new ArrayList<>();
        TaskRuntime next = TaskRuntime.builder(engine).owner("b").executor(executor).workers(1)
                .register(m, "q", ctx -> {
                    ran.add(ctx.task().id());
                    return WorkResult.success();
                }, one).build();
        next.start();
        executor.runAll();
        assertThat(ran).containsExactly(id);
        assertThat(engine.history(id)).extracting(HistoryEntry::event).containsExactly("START", "INTERRUPT", "RECOVER", "START", "COMPLETE");
    }

    @Test
    void aRetryToTheFrontWritesItsPlaceWithTheTransition() {
        List<Long> seenAtWrite = new ArrayList<>();
        TaskRuntime rt = TaskRuntime.builder(engine).owner("r").executor(executor).workers(1)
                .register(Jobs.MACHINE, "q", ctx -> WorkResult.fatal("NO", "no"), QueueOptions.defaults()).build();
        rt.start();
        long failed = enqueue(Jobs.MACHINE);
        executor.runAll();
        TaskOperations.of(engine).pause("q", Command.system());
        long queued = enqueue(Jobs.MACHINE);
        engine.subscribe(new TransitionListener() {
            @Override
            public void onTransition(String machine, TaskRecord task, @Nullable HistoryEntry entry) {
                if (entry != null && entry.event().equals("RETRY")) seenAtWrite.add(store.find(task.id()).orElseThrow().sequence());
            }
        });
        assertThat(TaskOperations.of(engine).retry(Jobs.MACHINE, failed, Jobs.Event.RETRY, true, Command.user("ops")).isApplied()).isTrue();
        long queuedSequence = store.find(queued).orElseThrow().sequence();
        assertThat(seenAtWrite).hasSize(1);
        assertThat(seenAtWrite.get(0)).as("the stored sequence when the retry is announced").isLessThan(queuedSequence);
    }

    @Test
    void historyNeverGoesBackwardsWhenACallersClockLags() {
        ManualClock behind = new ManualClock(clock.now());
        clock.advance(Duration.ofSeconds(10));
        TransitionEngine lagging = TransitionEngine.builder().store(store).clock(behind).build();
        long id = enqueue(Jobs.MACHINE);
        engine.fire(Jobs.MACHINE, id, Jobs.Event.START);
        engine.fire(Jobs.MACHINE, id, Jobs.Event.RELEASE);
        lagging.fire(Jobs.MACHINE, id, Jobs.Event.CANCEL, Command.user("ops"));
        List<HistoryEntry> history = engine.history(id);
        assertThat(history).hasSize(3);
        for (int i = 1; i < history.size(); i++) {
            assertThat(history.get(i).at()).as("entry %d", i).isAfterOrEqualTo(history.get(i - 1).at());
        }
        assertThat(store.find(id).orElseThrow().updatedAt()).isEqualTo(history.get(2).at());
    }

    @Test
    void aStoppedRuntimeLeavesNoTimerScheduled() {
        TaskRuntime rt = TaskRuntime.builder(engine).owner("r").executor(executor).workers(1).cancelGrace(Duration.ofMinutes(5))
                .register(Jobs.MACHINE, "q", ctx -> WorkResult.success(), QueueOptions.defaults()).build();
        rt.start();
        long id = enqueue(Jobs.MACHINE);
        executor.runNext();                                    // claimed; the worker has not run yet
        rt.cancel(Jobs.MACHINE, id, Command.user("ops"));     // a forced cancellation is scheduled after the grace
        var stopped = rt.stop(Duration.ofSeconds(30));         // and the end of the stop's grace
        executor.runAll();
        assertThat(stopped).isDone();
        assertThat(clock.pendingTimers()).as("timers left behind a stopped runtime").isEmpty();
    }

    @Test
    void workRunningInAStopsGracePeriodKeepsItsLease() {
        TaskRuntime rt = TaskRuntime.builder(engine).owner("r").executor(executor).workers(1).leaseDuration(Duration.ofSeconds(30))
                .register(Jobs.MACHINE, "q", ctx -> WorkResult.success(), QueueOptions.defaults()).build();
        rt.start();
        long id = enqueue(Jobs.MACHINE);
        executor.runNext();                                    // claimed; the worker is still at work
        var stopped = rt.stop(Duration.ofSeconds(60));
        clock.advance(Duration.ofSeconds(45));                 // past the lease, within the grace
        TaskRecord t = store.find(id).orElseThrow();
        assertThat(t.lease()).isNotNull();
        assertThat(t.lease().expiresAt()).as("renewed during the grace").isAfter(clock.now());
        assertThat(store.expiredLeases(clock.now(), 10)).isEmpty();
        executor.runAll();                                     // the worker finishes within the grace
        assertThat(stopped).isDone();
        assertThat(store.find(id).orElseThrow().state()).isEqualTo("DONE");
    }
}
