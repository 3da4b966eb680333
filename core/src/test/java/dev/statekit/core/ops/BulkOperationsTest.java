package dev.statekit.core.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.core.Authorizer;
import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.StoreSpy;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.Verdict;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.store.Change;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.StatekitException;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import dev.statekit.test.fixtures.Jobs;
import dev.statekit.test.fixtures.Jobs.Event;
import dev.statekit.test.fixtures.Jobs.State;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The bulk operations of {@link TaskOperations}: a count, then retries, cancellations and deletions
 * of every task a {@link TaskFilter} selects, in batches through the engine's write pipeline, with
 * refusals counted by code, failures counted, and pages that change under the operation.
 */
class BulkOperationsTest {
    static final Machine<State, Event> M = Jobs.MACHINE;
    static final Instant START = Instant.parse("2030-01-01T00:00:00Z");

    final ManualClock clock = new ManualClock(START);
    final StoreSpy spy = new StoreSpy();
    final Set<Long> locked = new HashSet<>();
    final List<Authorizer.Request> asked = new ArrayList<>();
    final TransitionEngine engine = TransitionEngine.builder().store(spy.store).clock(clock).authorizer(request -> {
        asked.add(request);
        return locked.contains(request.taskId()) ? Verdict.refuse("LOCKED", "the task is locked") : Verdict.allow();
    }).build();
    final TaskOperations ops = TaskOperations.of(engine).withBatchSize(3);
    final Command ana = Command.user("ana");

    long queued() {
        return engine.create(M, TaskSpec.defaults().queue("q")).task().id();
    }

    long failed(String code) {
        long id = queued();
        engine.fire(M, id, Event.START);
        engine.fire(M, id, Event.FAIL, Command.system().error(new TaskError(code, "no", false, null)));
        clock.advance(Duration.ofSeconds(1));
        return id;
    }

    long finished(Event how) {
        long id = queued();
        if (how == Event.COMPLETE) engine.fire(M, id, Event.START);
        engine.fire(M, id, how, how == Event.CANCEL ? ana : Command.system());
        return id;
    }

    long leased() {
        long id = engine.create(M, TaskSpec.defaults().queue("lease")).task().id();
        ClaimRequest claim = new ClaimRequest(M.name(), "lease", List.of(new ClaimRule("QUEUED", "START", "RUNNING")), "worker",
                clock.now(), Duration.ofMinutes(5), 1, 0);
        assertThat(spy.base.claim(claim)).singleElement().satisfies(c -> assertThat(c.task().id()).isEqualTo(id));
        return id;
    }

    TaskRecord task(long id) {
        return spy.base.find(id).orElseThrow();
    }

    HistoryEntry last(long id) {
        List<HistoryEntry> h = spy.base.history(id);
        return h.get(h.size() - 1);
    }

    // --- count and retry ------------------------------------------------------------------------

    @Test
    void aCountNamesTheMatchingTasksAndARetryTakesThemInBatchesEachRecordedWithItsActor() {
        List<Long> broken = new ArrayList<>();
        for (int i = 0; i < 7; i++) broken.add(failed("BROKEN"));
        long timeout = failed("TIMEOUT");
        long waiting = queued();
        TaskFilter<State, Event> filter = TaskFilter.of(M).states(State.FAILED).errorCode("BROKEN");

        BulkCount count = ops.count(filter);
        assertThat(count).isEqualTo(new BulkCount(7, broken.get(6)));
        assertThat(ops.count(TaskFilter.of(M))).isEqualTo(new BulkCount(9, waiting));
        assertThat(ops.count(TaskFilter.of(M).states(State.DONE))).isEqualTo(new BulkCount(0, 0));
        spy.clear();

        BulkResult result = ops.retryAll(filter.upTo(count.lastId()), Event.RETRY, false, ana);

        assertThat(result).isEqualTo(new BulkResult(7, 7, 0, 0, Map.of(), 0, 0));
        assertThat(spy.calls("query")).as("pages of 3: 3, 3 and 1").hasSize(3);
        assertThat(spy.calls("applyEach")).as("one write per batch of several").hasSize(2);
        for (long id : broken) {
            assertThat(task(id).state()).isEqualTo("QUEUED");
            assertThat(task(id).lastError().code()).isEqualTo("BROKEN");
            HistoryEntry entry = last(id);
            assertThat(entry.event()).isEqualTo("RETRY");
            assertThat(entry.actor()).isEqualTo("ana");
            assertThat(entry.source()).isEqualTo(TriggerSource.USER);
            assertThat(spy.base.history(id)).filteredOn(e -> e.event().equals("RETRY")).hasSize(1);
        }
        assertThat(task(timeout).state()).isEqualTo("FAILED");
        assertThat(task(waiting).version()).isZero();
        assertThat(asked).filteredOn(r -> r.event().equals("RETRY")).hasSize(7);
    }

    @Test
    void filtersByQueueParentAndTimeRanges() {
        long early = failed("BROKEN");
        clock.advance(Duration.ofHours(1));
        long other = engine.create(M, TaskSpec.defaults().queue("other")).task().id();
        long child = engine.create(M, TaskSpec.defaults().queue("q").parent(early)).task().id();
        clock.advance(Duration.ofMinutes(1));
        Instant mid = clock.now();
        clock.advance(Duration.ofHours(1));
        long late = queued();

        assertThat(ops.count(TaskFilter.of(M).queue("other"))).isEqualTo(new BulkCount(1, other));
        assertThat(ops.count(TaskFilter.of(M).parent(early))).isEqualTo(new BulkCount(1, child));
        assertThat(ops.count(TaskFilter.of(M).createdBetween(null, mid))).isEqualTo(new BulkCount(3, child));
        assertThat(ops.count(TaskFilter.of(M).createdBetween(mid, null))).isEqualTo(new BulkCount(1, late));
        assertThat(ops.count(TaskFilter.of(M).updatedBetween(START.plusSeconds(1), mid))).isEqualTo(new BulkCount(2, child));
        assertThat(ops.count(TaskFilter.of(M).states(State.QUEUED).upTo(child))).isEqualTo(new BulkCount(2, child));
    }

    @Test
    void refusalsAreCountedByCodeAndTheRestIsApplied() {
        long a = failed("BROKEN");
        long waiting = queued();
        long lockedTask = failed("BROKEN");
        long done = finished(Event.COMPLETE);
        long b = failed("BROKEN");
        locked.add(lockedTask);

        BulkResult result = ops.retryAll(TaskFilter.of(M).states(State.FAILED, State.QUEUED, State.DONE), Event.RETRY, true, ana);

        assertThat(result).isEqualTo(new BulkResult(5, 2, 0, 3, Map.of("ILLEGAL_TRANSITION", 2L, "LOCKED", 1L), 0, 0));
        assertThat(task(a).state()).isEqualTo("QUEUED");
        assertThat(task(b).state()).isEqualTo("QUEUED");
        assertThat(task(lockedTask).state()).isEqualTo("FAILED");
        assertThat(task(waiting).version()).isZero();
        assertThat(task(done).state()).isEqualTo("DONE");
        assertThat(task(b).sequence()).as("to the front, a later batch in front of an earlier one").isLessThan(task(a).sequence());
        assertThat(task(a).sequence()).isLessThan(task(waiting).sequence());
    }

    @Test
    void aTaskWhoseChangeFailsIsCountedAsFailedAndTheOthersGoOn() {
        long a = failed("BROKEN");
        long broken = failed("BROKEN");
        long b = failed("BROKEN");
        spy.failWhen("applyEach", args -> true, new StatekitException(ErrorCode.STORE_UNAVAILABLE, "down", null, null));
        spy.failWhen("apply", args -> ((Change) args.get(0)).next().id() == broken,
                new StatekitException(ErrorCode.STORE_UNAVAILABLE, "down", broken, null));

        BulkResult result = ops.retryAll(TaskFilter.of(M).states(State.FAILED), Event.RETRY, false, ana);

        assertThat(result).isEqualTo(new BulkResult(3, 2, 0, 0, Map.of(), 1, 0));
        assertThat(task(a).state()).isEqualTo("QUEUED");
        assertThat(task(broken).state()).isEqualTo("FAILED");
        assertThat(task(b).state()).isEqualTo("QUEUED");
    }

    // --- pages that change under the operation ------------------------------------------------

    @Test
    void tasksCreatedDuringTheOperationAreLeftOutAfterACountAndTakenWithoutOne() {
        for (int i = 0; i < 4; i++) failed("BROKEN");
        TaskFilter<State, Event> filter = TaskFilter.of(M).states(State.FAILED);
        BulkCount count = ops.count(filter);
        List<Long> created = new ArrayList<>();
        spy.afterNext("query", () -> created.add(failed("BROKEN")));

        assertThat(ops.retryAll(filter.upTo(count.lastId()), Event.RETRY, false, ana).matched()).isEqualTo(4);
        assertThat(task(created.get(0)).state()).as("created after the count").isEqualTo("FAILED");

        for (int i = 0; i < 3; i++) failed("BROKEN");
        spy.afterNext("query", () -> created.add(failed("BROKEN")));
        BulkResult again = ops.retryAll(filter, Event.RETRY, false, ana);
        assertThat(again).as("the one left out, three more, and one created during it, on the second page")
                .isEqualTo(new BulkResult(5, 5, 0, 0, Map.of(), 0, 0));
        assertThat(task(created.get(0)).state()).isEqualTo("QUEUED");
        assertThat(task(created.get(1)).state()).isEqualTo("QUEUED");
    }

    @Test
    void aTaskChangedBetweenTheCountAndTheActionIsNotTakenAgain() {
        long a = failed("BROKEN");
        long retriedMeanwhile = failed("BROKEN");
        long b = failed("BROKEN");
        TaskFilter<State, Event> filter = TaskFilter.of(M).states(State.FAILED);
        BulkCount count = ops.count(filter);
        assertThat(count.tasks()).isEqualTo(3);
        ops.retry(M, retriedMeanwhile, Event.RETRY, false, Command.user("bob"));

        BulkResult result = ops.retryAll(filter.upTo(count.lastId()), Event.RETRY, false, ana);

        assertThat(result).isEqualTo(new BulkResult(2, 2, 0, 0, Map.of(), 0, 0));
        assertThat(spy.base.history(retriedMeanwhile)).filteredOn(e -> e.event().equals("RETRY")).singleElement()
                .satisfies(e -> assertThat(e.actor()).isEqualTo("bob"));
        assertThat(last(a).actor()).isEqualTo("ana");
        assertThat(last(b).actor()).isEqualTo("ana");
    }

    @Test
    void aTaskChangedAfterItsPageWasReadIsDecidedAgainIfItStillMatchesAndRefusedIfNot() {
        long a = failed("BROKEN");
        long movedOn = failed("BROKEN");
        long touched = failed("BROKEN");
        spy.afterNext("query", () -> {
            engine.fire(M, movedOn, Event.RETRY, Command.user("bob"));
            TaskRecord t = task(touched);
            TaskRecord next = t.toBuilder().attributes(t.attributes().with("note", "seen")).version(t.version() + 1)
                    .updatedAt(clock.now()).build();
            spy.base.apply(new Change(t.version(), next, new HistoryEntry(t.id(), next.version(), "FAILED", "FAILED", "NOTE",
                    TriggerSource.USER, "bob", null, clock.now(), null)));
        });

        BulkResult result = ops.retryAll(TaskFilter.of(M).states(State.FAILED), Event.RETRY, false, ana);

        assertThat(result).isEqualTo(new BulkResult(3, 2, 0, 1, Map.of(TaskOperations.NO_LONGER_MATCHES, 1L), 0, 0));
        assertThat(last(movedOn).actor()).isEqualTo("bob");
        assertThat(spy.base.history(movedOn)).filteredOn(e -> e.event().equals("RETRY")).hasSize(1);
        assertThat(task(touched).state()).isEqualTo("QUEUED");
        assertThat(last(touched).actor()).isEqualTo("ana");
        assertThat(task(a).state()).isEqualTo("QUEUED");
    }

    // --- cancel -------------------------------------------------------------------------------

    @Test
    void cancelAllCancelsWaitingTasksRequestsRunningOnesAndCountsTheRefused() {
        long waiting = queued();
        long running = leased();
        long done = finished(Event.COMPLETE);
        long lockedTask = queued();
        locked.add(lockedTask);

        BulkResult result = ops.cancelAll(TaskFilter.of(M), ana);

        assertThat(result).isEqualTo(new BulkResult(4, 1, 1, 2, Map.of("ILLEGAL_TRANSITION", 1L, "LOCKED", 1L), 0, 0));
        assertThat(task(waiting).state()).isEqualTo("CANCELED");
        assertThat(last(waiting).actor()).isEqualTo("ana");
        assertThat(task(running).state()).as("its worker is asked to stop").isEqualTo("RUNNING");
        assertThat(spy.base.cancelRequested(running)).isTrue();
        assertThat(task(done).state()).isEqualTo("DONE");
        assertThat(task(lockedTask).state()).isEqualTo("QUEUED");
        assertThatThrownBy(() -> ops.cancelAll(TaskFilter.of(Jobs.SIMPLE), ana)).isInstanceOf(IllegalArgumentException.class);
    }

    // --- delete -------------------------------------------------------------------------------

    @Test
    void deleteAllDeletesFinishedRootsWithTheirTreesAndRefusesTheRestByCode() {
        long done = finished(Event.COMPLETE);
        long waiting = queued();
        long cancelledParent = finished(Event.CANCEL);
        long unfinishedChild = engine.create(M, TaskSpec.defaults().queue("q").parent(cancelledParent)).task().id();
        long finishedParent = finished(Event.COMPLETE);
        long lockedTask = finished(Event.CANCEL);
        long finishedChild = engine.create(M, TaskSpec.defaults().queue("q").parent(finishedParent)).task().id();
        engine.fire(M, finishedChild, Event.CANCEL, ana);
        locked.add(lockedTask);
        asked.clear();

        BulkResult result = ops.deleteAll(TaskFilter.of(M), ana);

        // pages of 3: [done, waiting, cancelledParent], [unfinishedChild, finishedParent, lockedTask], and finishedChild is gone
        assertThat(result).isEqualTo(new BulkResult(6, 2, 0, 4, Map.of(TaskOperations.NOT_FINISHED, 1L, TaskOperations.UNFINISHED_TREE, 1L,
                TaskOperations.HAS_PARENT, 1L, "LOCKED", 1L), 0, 1));
        for (long gone : List.of(done, finishedParent, finishedChild)) {
            assertThat(spy.base.find(gone)).isEmpty();
            assertThat(spy.base.history(gone)).isEmpty();
        }
        for (long kept : List.of(waiting, cancelledParent, unfinishedChild, lockedTask)) assertThat(spy.base.find(kept)).isPresent();
        assertThat(asked).extracting(Authorizer.Request::event).containsOnly(TaskOperations.DELETE);
        assertThat(asked).extracting(Authorizer.Request::actor).containsOnly("ana");
    }

    @Test
    void aBatchSizeIsBoundedAndDefaultsToAHundred() {
        assertThat(TaskOperations.of(engine).batchSize()).isEqualTo(TaskOperations.DEFAULT_BATCH_SIZE).isEqualTo(100);
        assertThatThrownBy(() -> ops.withBatchSize(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ops.withBatchSize(10_001)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BulkResult(2, 1, 0, 0, Map.of(), 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BulkResult(1, 0, 0, 1, Map.of(), 0, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
