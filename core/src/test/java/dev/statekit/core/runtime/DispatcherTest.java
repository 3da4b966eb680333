package dev.statekit.core.runtime;

import dev.statekit.core.TaskSpec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import dev.statekit.store.HistoryEntry;
import dev.statekit.test.fixtures.Jobs;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Dispatch rounds: how requests coalesce, how slots are taken and given back, and whose work is claimed. */
class DispatcherTest {
    final RuntimeParts parts = new RuntimeParts();
    final List<Long> worked = new ArrayList<>();
    final Worker<Jobs.State> worker = ctx -> {
        worked.add(ctx.task().id());
        return WorkResult.success();
    };
    int housekeepingRuns;
    int idleCalls;

    Dispatcher dispatcher(RuntimeContext ctx) {
        return RuntimeParts.dispatcher(ctx, () -> housekeepingRuns++, () -> idleCalls++);
    }

    @Test
    void requestsCoalesceIntoOneQueuedRound() {
        RuntimeContext ctx = parts.started("r", RuntimeParts.registration(Jobs.MACHINE, "q", worker));
        Dispatcher d = dispatcher(ctx);
        d.requestDispatch();
        d.requestDispatch();
        d.requestHousekeeping();
        assertThat(parts.executor.pending()).isEqualTo(1);
        parts.executor.runNext();
        assertThat(housekeepingRuns).isEqualTo(1);
        assertThat(idleCalls).isEqualTo(1);
        assertThat(parts.executor.pending()).isZero();
        d.requestDispatch();
        assertThat(parts.executor.pending()).as("a request after the round queues the next").isEqualTo(1);
    }

    @Test
    void aRequestDuringARoundQueuesTheNextRound() {
        RuntimeContext ctx = parts.started("r", RuntimeParts.registration(Jobs.MACHINE, "q", worker));
        Dispatcher[] d = new Dispatcher[1];
        d[0] = RuntimeParts.dispatcher(ctx, () -> {
            housekeepingRuns++;
            d[0].requestDispatch();
        }, () -> idleCalls++);
        d[0].requestHousekeeping();
        parts.executor.runNext();
        assertThat(parts.executor.pending()).isEqualTo(1);
        parts.executor.runNext();
        assertThat(housekeepingRuns).as("housekeeping runs only in the round it was asked for").isEqualTo(1);
        assertThat(parts.executor.pending()).isZero();
        assertThat(idleCalls).isEqualTo(2);
    }

    @Test
    void aRuntimeThatDoesNotRunAsksForNoRoundAndARoundQueuedBeforeAStopClaimsNothing() {
        Registration<Jobs.State, Jobs.Event> r = RuntimeParts.registration(Jobs.MACHINE, "q", worker);
        RuntimeContext ctx = parts.context("r", r);
        Dispatcher d = dispatcher(ctx);
        long id = parts.enqueue(Jobs.MACHINE, "q");
        d.requestDispatch();
        assertThat(parts.executor.pending()).as("not started").isZero();
        ctx.life.start("r");
        d.requestDispatch();
        ctx.life.beginStop();
        d.requestDispatch();
        assertThat(parts.executor.pending()).isEqualTo(1);
        parts.executor.runAll();
        assertThat(parts.task(id).state()).isEqualTo("QUEUED");
        assertThat(parts.spy.calls("claim")).isEmpty();
        assertThat(idleCalls).as("the round still lets the stop complete").isEqualTo(1);
    }

    @Test
    void aRoundFillsTheFreeSlotsAndItsTasksRunBeforeTheirWorkStarts() {
        parts.slots = 2;
        Registration<Jobs.State, Jobs.Event> r = RuntimeParts.registration(Jobs.MACHINE, "q", worker);
        RuntimeContext ctx = parts.started("r", r);
        List<HistoryEntry> heard = new ArrayList<>();
        parts.engine.subscribe((machine, task, entry) -> heard.add(entry));
        long first = parts.enqueue(Jobs.MACHINE, "q");
        long second = parts.enqueue(Jobs.MACHINE, "q");
        long third = parts.enqueue(Jobs.MACHINE, "q");
        dispatcher(ctx).requestDispatch();
        parts.executor.runNext();
        assertThat(parts.executor.pending()).as("one batch per free slot").isEqualTo(2);
        assertThat(worked).isEmpty();
        assertThat(ctx.running.keySet()).containsExactlyInAnyOrder(first, second);
        assertThat(ctx.running.get(first).lease).isEqualTo(parts.task(first).lease());
        assertThat(parts.store.leased("q")).isEqualTo(2);
        assertThat(parts.task(third).state()).isEqualTo("QUEUED");
        assertThat(heard).extracting(HistoryEntry::taskId).containsExactly(first, second);
        assertThat(heard).allSatisfy(e -> {
            assertThat(e.event()).isEqualTo("START");
            assertThat(e.actor()).isEqualTo("r");
            assertThat(e.version()).isEqualTo(1);
        });
        assertThat(heard).isEqualTo(List.of(parts.store.history(first).get(0), parts.store.history(second).get(0)));
    }

    @Test
    void slotsComeBackWhenTheirBatchesEnd() {
        parts.slots = 2;
        RuntimeContext ctx = parts.started("r", RuntimeParts.registration(Jobs.MACHINE, "q", worker));
        Dispatcher d = dispatcher(ctx);
        for (int i = 0; i < 3; i++) parts.enqueue(Jobs.MACHINE, "q");
        d.requestDispatch();
        parts.executor.runAll();
        assertThat(worked).hasSize(3);
        assertThat(ctx.running).isEmpty();
        long fourth = parts.enqueue(Jobs.MACHINE, "q");
        long fifth = parts.enqueue(Jobs.MACHINE, "q");
        d.requestDispatch();
        parts.executor.runNext();
        assertThat(ctx.running.keySet()).as("both slots are free again").containsExactlyInAnyOrder(fourth, fifth);
    }

    @Test
    void aClaimThatBringsNothingGivesItsSlotBack() {
        RuntimeContext ctx = parts.started("r", RuntimeParts.registration(Jobs.MACHINE, "q", worker));
        Dispatcher d = dispatcher(ctx);
        for (int i = 0; i < 3; i++) {
            d.requestDispatch();
            parts.executor.runNext();
        }
        assertThat(parts.spy.calls("claim")).hasSize(3);
        assertThat(parts.executor.pending()).isZero();
        long id = parts.enqueue(Jobs.MACHINE, "q");
        d.requestDispatch();
        parts.executor.runNext();
        assertThat(ctx.running.keySet()).as("the one slot was free").containsExactly(id);
    }

    @Test
    void aRoundThatFindsTheOnlySlotInAnEmptyClaimIsRunAgainWhenThatClaimGivesItBack() {
        RuntimeContext ctx = parts.started("r", RuntimeParts.registration(Jobs.MACHINE, "q", worker));
        Dispatcher d = dispatcher(ctx);
        long[] created = {0};
        // The first round's claim has read the store and found nothing when the task is created; the
        // round asked for by the creation runs before that claim gives its slot back, and finds none.
        parts.spy.afterNext("claim", () -> {
            created[0] = parts.enqueue(Jobs.MACHINE, "q");
            d.requestDispatch();
            parts.executor.runNext();
        });
        d.requestDispatch();
        parts.executor.runNext();
        assertThat(parts.spy.calls("claim")).as("the second round claimed nothing: no slot").hasSize(1);
        assertThat(parts.executor.pending()).as("the empty claim asked for a round when it gave its slot back").isEqualTo(1);
        parts.executor.runAll();
        assertThat(worked).containsExactly(created[0]);
        assertThat(parts.task(created[0]).state()).isEqualTo("DONE");
        assertThat(parts.executor.pending()).as("a slot missed once asks for one round only").isZero();
    }

    @Test
    void aRateLimitedAnswerHoldsItsKeyBeforeTheRunsEndIsTimedSoNoLaterClaimStartsATaskOfTheKey() {
        Worker<Jobs.State> limited = ctx -> {
            worked.add(ctx.task().id());
            return WorkResult.rateLimited(java.time.Duration.ofSeconds(30));
        };
        RuntimeContext ctx = parts.started("r", RuntimeParts.registration(Jobs.MACHINE, "q", limited));
        long first = parts.enqueue(Jobs.MACHINE, "q");
        java.time.Instant answered = parts.clock.now();
        // writing the hold takes a second on the clock: the snooze is timed after it, not before
        parts.spy.afterNext("holdKey", () -> parts.clock.advance(java.time.Duration.ofSeconds(1)));
        dispatcher(ctx).requestDispatch();
        parts.executor.runAll();
        assertThat(worked).containsExactly(first);
        List<dev.statekit.core.StoreSpy.Call> holds = parts.spy.calls("holdKey");
        assertThat(holds).as("held at once, then again with the snooze's write").hasSize(2);
        assertThat(holds.get(0).args().get(2)).isEqualTo(answered.plusSeconds(30));
        HistoryEntry snooze = parts.last(first);
        assertThat(snooze.reason()).startsWith("rate limited; retry after");
        assertThat(snooze.at()).as("timed after the hold was written").isEqualTo(answered.plusSeconds(1));

        long second = parts.enqueue(Jobs.MACHINE, "q");
        parts.clock.advance(java.time.Duration.ofSeconds(10));
        dispatcher(ctx).requestDispatch();
        parts.executor.runAll();
        assertThat(worked).as("the key is held: nothing of it starts").containsExactly(first);
        assertThat(parts.task(second).state()).isEqualTo("QUEUED");
    }

    @Test
    void aFailedClaimGivesItsSlotBackAndTheRoundEndsQuietly() {
        RuntimeContext ctx = parts.started("r", RuntimeParts.registration(Jobs.MACHINE, "q", worker));
        Dispatcher d = dispatcher(ctx);
        long id = parts.enqueue(Jobs.MACHINE, "q");
        parts.spy.failNext("claim", new IllegalStateException("store unavailable"));
        d.requestDispatch();
        parts.executor.runNext();
        assertThat(parts.executor.pending()).isZero();
        assertThat(parts.task(id).state()).isEqualTo("QUEUED");
        assertThat(ctx.running).isEmpty();
        assertThat(idleCalls).isEqualTo(1);
        d.requestDispatch();
        parts.executor.runAll();
        assertThat(worked).as("the one slot came back").containsExactly(id);
        assertThat(parts.task(id).state()).isEqualTo("DONE");
    }

    @Test
    void roundsTurnOverTheRegistrations() {
        Worker<Jobs.State> slow = ctx -> {
            worked.add(ctx.task().id());
            parts.clock.advance(RuntimeParts.POLL);      // each batch uses up its slot's turn
            return WorkResult.success();
        };
        RuntimeContext ctx = parts.started("r", RuntimeParts.registration(Jobs.MACHINE, "a", slow),
                RuntimeParts.registration(Jobs.MACHINE, "b", slow));
        long a1 = parts.enqueue(Jobs.MACHINE, "a");
        long a2 = parts.enqueue(Jobs.MACHINE, "a");
        long b1 = parts.enqueue(Jobs.MACHINE, "b");
        long b2 = parts.enqueue(Jobs.MACHINE, "b");
        dispatcher(ctx).requestDispatch();
        parts.executor.runAll();
        assertThat(worked).containsExactly(a1, b1, a2, b2);
    }

    @Test
    void aRoundWhoseFirstRegistrationHasNoWorkClaimsFromTheNext() {
        RuntimeContext ctx = parts.started("r", RuntimeParts.registration(Jobs.MACHINE, "a", worker),
                RuntimeParts.registration(Jobs.MACHINE, "b", worker));
        long b1 = parts.enqueue(Jobs.MACHINE, "b");
        dispatcher(ctx).requestDispatch();
        parts.executor.runNext();
        assertThat(ctx.running.keySet()).containsExactly(b1);
        assertThat(parts.spy.calls("claim")).extracting(c -> ((dev.statekit.store.ClaimRequest) c.args().get(0)).queue())
                .containsExactly("a", "b");
    }

    @Test
    void eachFreeSlotGetsABatchOfItsOwn() {
        parts.slots = 2;
        parts.batchSize = 2;
        RuntimeContext ctx = parts.started("r", RuntimeParts.registration(Jobs.MACHINE, "q", worker));
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) ids.add(parts.enqueue(Jobs.MACHINE, "q"));
        dispatcher(ctx).requestDispatch();
        parts.executor.runNext();
        assertThat(parts.executor.pending()).isEqualTo(2);
        assertThat(ctx.running.keySet()).containsExactlyInAnyOrderElementsOf(ids.subList(0, 4));
        assertThat(parts.spy.calls("claim")).extracting(c -> ((dev.statekit.store.ClaimRequest) c.args().get(0)).max())
                .containsExactly(2, 2);
    }

    @Test
    void aQueueWithAPreconditionIsClaimedOneTaskAtATimeAfterItsUnreadyTasksAreBlocked() {
        parts.batchSize = 4;
        Registration<Jobs.State, Jobs.Event> r = new Registration<>(Jobs.MACHINE, "q", worker,
                QueueOptions.defaults().precondition(t -> "big".equals(t.attributes().get("size")) ? "not enough disk" : null));
        RuntimeContext ctx = parts.started("r", r);
        long big = parts.engine.create(Jobs.MACHINE, TaskSpec.defaults().queue("q").attribute("size", "big")).task().id();
        long small = parts.enqueue(Jobs.MACHINE, "q");
        long later = parts.enqueue(Jobs.MACHINE, "q");
        dispatcher(ctx).requestDispatch();
        parts.executor.runNext();
        assertThat(parts.task(big).state()).isEqualTo("BLOCKED");
        assertThat(ctx.running.keySet()).containsExactly(small);
        assertThat(parts.task(later).state()).isEqualTo("QUEUED");
    }

    @Test
    void aStopBegunDuringAClaimCompletesAfterTheRoundWhichGivesBackWhatItClaimedBeforeItsWorkStarts() {
        Registration<Jobs.State, Jobs.Event> r = RuntimeParts.registration(Jobs.MACHINE, "q", worker);
        RuntimeContext ctx = parts.started("r", r);
        int[] stopActions = {0};
        Runnable onIdle = () -> ctx.life.finishIfIdle(ctx.running::isEmpty, () -> stopActions[0]++);
        Dispatcher d = RuntimeParts.dispatcher(ctx, () -> { }, onIdle);
        long id = parts.enqueue(Jobs.MACHINE, "q");
        List<Boolean> stoppedInsideTheClaim = new ArrayList<>();
        // The round tested that the runtime runs and went to the store; the stop begins while the store claims.
        parts.spy.afterNext("claim", () -> {
            ctx.life.beginStop();
            onIdle.run();
            stoppedInsideTheClaim.add(ctx.life.stopped().isDone());
        });
        d.requestDispatch();
        parts.executor.runNext();
        assertThat(stoppedInsideTheClaim).as("the stop waits for the claim under way").containsExactly(false);
        assertThat(parts.spy.calls("claim")).hasSize(1);
        assertThat(worked).as("no work starts once a stop has begun").isEmpty();
        assertThat(parts.task(id).state()).as("given back by the machine's release row").isEqualTo("QUEUED");
        assertThat(parts.task(id).lease()).isNull();
        assertThat(parts.events(id)).endsWith("START", "RELEASE");
        assertThat(ctx.running).isEmpty();
        assertThat(ctx.life.stopped()).isDone();
        assertThat(stopActions[0]).isEqualTo(1);
        assertThat(parts.executor.pending()).isZero();
    }

    @Test
    void onItsOwnThreadsARoundRunsTheFirstBatchItClaimedItselfAndLeavesTheOtherSlotsToAnotherRound() {
        parts.ownThreads = true;
        parts.slots = 2;
        List<String> othersWhenTheFirstRan = new ArrayList<>();
        long[] ids = new long[3];
        Worker<Jobs.State> recording = ctx -> {
            if (ctx.task().id() == ids[0]) {
                othersWhenTheFirstRan.add(parts.task(ids[1]).state());
                othersWhenTheFirstRan.add(parts.task(ids[2]).state());
            }
            return worker.work(ctx);
        };
        RuntimeContext ctx = parts.started("r", RuntimeParts.registration(Jobs.MACHINE, "q", recording));
        for (int i = 0; i < ids.length; i++) ids[i] = parts.enqueue(Jobs.MACHINE, "q");
        dispatcher(ctx).requestDispatch();
        // The round claims the first task and runs it at once, before any other claim: it asks
        // another round to fill the free slot. The slot that ran the first claims on by itself.
        parts.executor.runNext();
        assertThat(worked).as("the first, on the round's thread").startsWith(ids[0]);
        assertThat(othersWhenTheFirstRan).as("nothing else claimed before the first ran").containsExactly("QUEUED", "QUEUED");
        assertThat(parts.executor.pending()).as("the round for the other slot").isEqualTo(1);
        parts.executor.runAll();
        assertThat(worked).containsExactlyInAnyOrder(ids[0], ids[1], ids[2]);
    }

    @Test
    void onAnExecutorGivenByTheHostARoundHandsEveryBatchOver() {
        parts.slots = 2;
        RuntimeContext ctx = parts.started("r", RuntimeParts.registration(Jobs.MACHINE, "q", worker));
        long t1 = parts.enqueue(Jobs.MACHINE, "q");
        dispatcher(ctx).requestDispatch();
        parts.executor.runNext();
        assertThat(worked).isEmpty();
        assertThat(parts.task(t1).state()).isEqualTo("RUNNING");
        parts.executor.runNext();
        assertThat(worked).containsExactly(t1);
    }

    @Test
    void aRequestThatRacesAStopToItsEndIsDroppedWhenThePoolRefusesIt() {
        RuntimeContext[] ctx = new RuntimeContext[1];
        java.util.concurrent.Executor stoppedMeanwhile = command -> {     // the stop completes between the test and the hand-over
            ctx[0].life.beginStop();
            ctx[0].life.finishIfIdle(() -> true, () -> { });
            throw new java.util.concurrent.RejectedExecutionException("pool shut down");
        };
        ctx[0] = new RuntimeContext(parts.engine, "r", stoppedMeanwhile, true, 1, 1, RuntimeParts.LEASE, RuntimeParts.HEARTBEAT,
                RuntimeParts.POLL, RuntimeParts.GRACE, true, dev.statekit.core.spi.ErrorClassifier.defaults(),
                new Registrations(List.of(RuntimeParts.registration(Jobs.MACHINE, "q", worker))), 7);
        ctx[0].life.start("r");
        Dispatcher d = dispatcher(ctx[0]);
        d.requestDispatch();
        assertThat(ctx[0].life.stopped()).isCompleted();
    }

    @Test
    void aPoolThatRefusesWorkWhileTheRuntimeRunsIsAnError() {
        java.util.concurrent.Executor full = command -> {
            throw new java.util.concurrent.RejectedExecutionException("queue full");
        };
        RuntimeContext ctx = new RuntimeContext(parts.engine, "r", full, true, 1, 1, RuntimeParts.LEASE, RuntimeParts.HEARTBEAT,
                RuntimeParts.POLL, RuntimeParts.GRACE, true, dev.statekit.core.spi.ErrorClassifier.defaults(),
                new Registrations(List.of(RuntimeParts.registration(Jobs.MACHINE, "q", worker))), 7);
        ctx.life.start("r");
        Dispatcher d = dispatcher(ctx);
        org.assertj.core.api.Assertions.assertThatThrownBy(d::requestDispatch)
                .isInstanceOf(java.util.concurrent.RejectedExecutionException.class);
    }

    /**
     * A task leased to this owner that no run holds is given back only under its queue's claim turn.
     * A claim the store has answered holds the turn until its runs are registered, so a recovery
     * that read the claim's task as leased, and came meanwhile, finds it held once it gets the turn
     * and leaves it alone.
     */
    @Test
    void aTaskOfAClaimUnderWayIsNotTakenForOneThatNoRunHolds() throws Exception {
        Registration<Jobs.State, Jobs.Event> r = RuntimeParts.registration(Jobs.MACHINE, "q", worker);
        RuntimeContext ctx = parts.started("r", r);
        Dispatcher d = RuntimeParts.dispatcher(ctx, () -> { }, () -> { });
        LeaseRecovery recovery = new LeaseRecovery(ctx);
        long id = parts.enqueue(Jobs.MACHINE, "q");
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        Thread recoverer = new Thread(() -> recovery.recoverUnheld(d::withClaimTurn), "recoverer");
        recoverer.setUncaughtExceptionHandler((t, e) -> failures.add(e));
        List<Thread.State> whileTheClaimAnswers = new ArrayList<>();
        // The store has claimed the task and is answering: the recovery starts now and reads it as leased here.
        parts.spy.afterNext("claim", () -> {
            recoverer.start();
            Thread.State state;
            while ((state = recoverer.getState()) != Thread.State.WAITING && state != Thread.State.TERMINATED) Thread.onSpinWait();
            whileTheClaimAnswers.add(state);
        });
        List<Run<Jobs.State, Jobs.Event>> runs = d.claimBatch(r, ctx.clock.now(), 1);
        recoverer.join(10_000);

        assertThat(whileTheClaimAnswers).as("the recovery waited for the claim's turn").containsExactly(Thread.State.WAITING);
        assertThat(recoverer.isAlive()).isFalse();
        assertThat(failures).isEmpty();
        assertThat(runs).extracting(Run::id).containsExactly(id);
        assertThat(parts.task(id).state()).isEqualTo("RUNNING");
        assertThat(parts.task(id).lease().fencingToken()).isEqualTo(runs.get(0).lease().fencingToken());
        assertThat(parts.events(id)).containsExactly("START");
    }
}
