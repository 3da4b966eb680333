package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.store.CreateResult;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.NewTask;
import dev.statekit.store.RetentionRequest;
import dev.statekit.store.RetentionResult;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on retention: finished trees moved to the archive with their history, deleted,
 * and purged from the archive. Every store runs it as {@link StoreContract.Archive}.
 */
abstract class ArchiveContract extends ContractPart {

    ArchiveContract(StoreContract contract) {
        super(contract);
    }

    @Test
    public void archiveMovesOldFinishedLeaseFreeRootsWithTheirHistoryAndLeavesTheRest() {
        Instant at = T0.plus(HOUR.multipliedBy(3));
        TaskRecord done = applied(move(create(), DONE, "finish"));
        TaskRecord keyed = applied(move(create(spec().key("order-1")), "FAILED", null));
        TaskRecord recent = applied(change(create(), b -> b.state(DONE).updatedAt(T0.plus(HOUR.multipliedBy(2))), null));
        TaskRecord atCutoff = applied(change(create(), b -> b.state(DONE).updatedAt(T0.plus(HOUR)), null));
        TaskRecord running = applied(move(create(), RUNNING, null));
        TaskRecord otherMachine = applied(move(create(spec().machine("other")), DONE, null));
        TaskRecord leased = applied(move(claimOne(create(spec().priority(9)).id(), OWNER, LEASE), DONE, null));
        assertThat(leased.lease()).isNotNull();
        List<HistoryEntry> doneHistory = store.history(done.id());
        List<HistoryEntry> keyedHistory = store.history(keyed.id());

        assertThat(store.archive(finishedJobs(100), at)).isEqualTo(new RetentionResult(2, 2));

        assertArchived(done, doneHistory, done.id(), at);
        assertArchived(keyed, keyedHistory, keyed.id(), at);
        assertThat(doneHistory).hasSize(1);
        assertThat(store.findCommand(done.id(), "finish")).as("a hot read of an archived task's command").isEmpty();
        for (TaskRecord kept : List.of(recent, atCutoff, running, otherMachine, leased)) {
            assertThat(get(kept.id())).isEqualTo(kept);
            assertThat(store.findArchived(kept.id())).as("task %s in the archive", kept.id()).isEmpty();
        }
        assertThat(queryIds(TaskQuery.all())).containsExactly(recent.id(), atCutoff.id(), running.id(), otherMachine.id(),
                leased.id());
        assertThat(store.findArchived(leased.id() + 1000)).as("a task that never existed").isEmpty();
        assertThat(store.archive(finishedJobs(100), at)).as("nothing more qualifies").isEqualTo(RetentionResult.NONE);

        CreateResult reused = store.create(spec().key("order-1").build());
        assertThat(reused.created()).as("the key of an archived task can be used again").isTrue();
        assertThat(reused.task().id()).isNotEqualTo(keyed.id());
        assertThat(store.findArchived(keyed.id())).as("the archived task keeps its key").hasValueSatisfying(
                a -> assertThat(a.task().idempotencyKey()).isEqualTo("order-1"));
    }

    @Test
    public void aParentMovesWithItsWholeSubtreeOnlyOnceEveryDescendantIsFinished() {
        Instant at = T0.plus(HOUR.multipliedBy(3));
        TaskRecord parent = applied(move(create(), DONE, null));
        TaskRecord finishedChild = create(spec().machine("chunk").parent(parent.id()).state(DONE));
        TaskRecord grandchild = create(spec().machine("chunk").parent(finishedChild.id()).state(DONE));
        TaskRecord runningChild = create(spec().machine("chunk").parent(parent.id()).state(RUNNING));

        assertThat(store.archive(finishedJobs(100), at)).as("a child still runs").isEqualTo(RetentionResult.NONE);
        assertThat(store.archive(new RetentionRequest("chunk", T0.plus(HOUR.multipliedBy(5)), FINISHED, 100), at))
                .as("children never move on their own").isEqualTo(RetentionResult.NONE);
        for (TaskRecord kept : List.of(parent, finishedChild, grandchild, runningChild)) assertThat(get(kept.id())).isEqualTo(kept);

        TaskRecord last = applied(move(runningChild, DONE, null));
        List<HistoryEntry> parentHistory = store.history(parent.id());
        List<HistoryEntry> lastHistory = store.history(last.id());
        assertThat(store.archive(finishedJobs(100), at)).as("one tree of four tasks").isEqualTo(new RetentionResult(1, 4));
        assertArchived(parent, parentHistory, parent.id(), at);
        assertArchived(finishedChild, List.of(), parent.id(), at);
        assertArchived(grandchild, List.of(), parent.id(), at);
        assertArchived(last, lastHistory, parent.id(), at);
        assertThat(store.query(TaskQuery.all()).items()).isEmpty();
    }

    @Test
    public void aDescendantOfAMachineTheRequestDoesNotNameKeepsItsTree() {
        TaskRecord parent = applied(move(create(), DONE, null));
        TaskRecord child = create(spec().machine("other").parent(parent.id()).state(DONE));
        assertThat(store.archive(finishedJobs(100), T0.plus(HOUR))).isEqualTo(RetentionResult.NONE);
        assertThat(get(parent.id())).isEqualTo(parent);
        assertThat(get(child.id())).isEqualTo(child);
    }

    @Test
    public void aLeasedDescendantKeepsItsTreeUntilItsLeaseIsReleased() {
        Instant at = T0.plus(HOUR.multipliedBy(3));
        TaskRecord parent = applied(move(create(spec().state(WAITING)), DONE, null));
        TaskRecord child = create(childOf(parent));
        TaskRecord leasedDone = applied(move(claimOne(child.id(), OWNER, LEASE), DONE, null));
        assertThat(leasedDone.lease()).isNotNull();

        assertThat(store.archive(finishedJobs(100), at)).as("finished, but leased").isEqualTo(RetentionResult.NONE);
        assertThat(get(parent.id())).isEqualTo(parent);

        TaskRecord released = applied(release(leasedDone, DONE));
        assertThat(store.archive(finishedJobs(100), at)).isEqualTo(new RetentionResult(1, 2));
        assertThat(store.findArchived(released.id()).orElseThrow().task()).isEqualTo(released);
    }

    @Test
    public void aDependencyOfATaskInTheHotTableStaysAndAnOwnerWithMarksWaitingStays() {
        Instant at = T0.plus(HOUR.multipliedBy(3));
        TaskRecord dependency = applied(move(create(), DONE, null));
        TaskRecord waiter = create(spec().dependsOn(dependency.id()));
        resolveAll(KEEP);
        assertThat(store.archive(finishedJobs(100), at)).as("its dependent is not finished").isEqualTo(RetentionResult.NONE);
        assertThat(get(dependency.id())).isEqualTo(dependency);

        TaskRecord finishedWaiter = applied(move(get(waiter.id()), DONE, null));
        assertThat(store.pendingMarks()).isPositive();
        assertThat(store.archive(finishedJobs(100), at)).as("the owner's marks wait, and its dependency stays with it")
                .isEqualTo(RetentionResult.NONE);

        resolveAll(KEEP);
        assertThat(archiveAll(finishedJobs(100), at)).as("both, the dependent no later than its dependency")
                .isEqualTo(new RetentionResult(2, 2));
        assertThat(store.findArchived(dependency.id())).isPresent();
        assertThat(store.findArchived(finishedWaiter.id())).isPresent();
        assertThat(store.group(finishedWaiter.id())).isEmpty();
        assertThat(store.dependencies(finishedWaiter.id())).isEmpty();
    }

    @Test
    public void theGroupOfAMovedParentGoesWithIt() {
        Instant at = T0.plus(HOUR.multipliedBy(3));
        TaskRecord parent = ownerOfSealed(2);
        for (TaskRecord child : store.query(TaskQuery.all().parent(parent.id())).items()) applied(move(child, DONE, null));
        applied(move(parent, DONE, null));
        resolveAll(KEEP);
        assertThat(groupOf(parent.id()).counts()).isEqualTo(Map.of(member(DONE), 2L));

        assertThat(store.archive(finishedJobs(100), at)).isEqualTo(new RetentionResult(1, 3));
        assertThat(store.group(parent.id())).isEmpty();
        assertThat(store.pendingMarks()).isZero();
        assertThat(resolveAll(KEEP)).isZero();
    }

    @Test
    public void batchesAreBoundedByMax() {
        for (int i = 0; i < 5; i++) applied(move(create(), DONE, null));
        Instant at = T0.plus(HOUR);
        assertThat(store.archive(finishedJobs(2), at)).isEqualTo(new RetentionResult(2, 2));
        assertThat(store.query(TaskQuery.all()).items()).hasSize(3);
        assertThat(store.archive(finishedJobs(2), at)).isEqualTo(new RetentionResult(2, 2));
        assertThat(store.archive(finishedJobs(2), at)).isEqualTo(new RetentionResult(1, 1));
        assertThat(store.archive(finishedJobs(2), at)).isEqualTo(RetentionResult.NONE);
        assertThat(store.query(TaskQuery.all()).items()).isEmpty();
    }

    @Test
    public void deleteFinishedDeletesWholeTreesWithoutArchivingThem() {
        TaskRecord parent = applied(move(create(spec().key("k-1")), DONE, "finish"));
        TaskRecord child = create(spec().machine("chunk").parent(parent.id()).state(DONE));
        TaskRecord unfinished = applied(move(create(), RUNNING, null));

        assertThat(store.deleteFinished(finishedJobs(100))).isEqualTo(new RetentionResult(1, 2));
        for (TaskRecord gone : List.of(parent, child)) {
            assertThat(store.find(gone.id())).isEmpty();
            assertThat(store.history(gone.id())).isEmpty();
            assertThat(store.findArchived(gone.id())).isEmpty();
        }
        assertThat(store.findCommand(parent.id(), "finish")).isEmpty();
        assertThat(get(unfinished.id())).isEqualTo(unfinished);
        assertThat(store.create(spec().key("k-1").build()).created()).as("the key can be used again").isTrue();
        assertThat(store.deleteFinished(finishedJobs(100))).isEqualTo(RetentionResult.NONE);
    }

    @Test
    public void deleteFinishedWithChosenRootsTakesOnlyThoseWholeTreesWheneverTheyFinished() {
        TaskRecord chosen = applied(move(create(), DONE, null));
        TaskRecord child = create(spec().machine("chunk").parent(chosen.id()).state(DONE));
        TaskRecord notChosen = applied(move(create(), DONE, null));
        TaskRecord unfinished = applied(move(create(), RUNNING, null));
        TaskRecord withRunningChild = applied(move(create(), "FAILED", null));
        TaskRecord runningChild = create(spec().machine("chunk").parent(withRunningChild.id()).state(RUNNING));
        TaskRecord finishedChild = create(spec().machine("chunk").parent(withRunningChild.id()).state(DONE));
        TaskRecord leased = applied(move(claimOne(create(spec().priority(9)).id(), OWNER, LEASE), DONE, null));
        List<Long> ids = List.of(chosen.id(), unfinished.id(), withRunningChild.id(), finishedChild.id(), leased.id(),
                leased.id() + 1000);

        assertThat(store.deleteFinished(RetentionRequest.ofTasks(MACHINE, ids, FINISHED)))
                .as("the chosen root with its child, though it finished after every time given")
                .isEqualTo(new RetentionResult(1, 2));
        assertThat(store.find(chosen.id())).isEmpty();
        assertThat(store.find(child.id())).isEmpty();
        assertThat(store.history(chosen.id())).isEmpty();
        for (TaskRecord kept : List.of(notChosen, unfinished, withRunningChild, runningChild, finishedChild, leased)) {
            assertThat(get(kept.id())).isEqualTo(kept);
        }
        assertThat(store.deleteFinished(RetentionRequest.ofTasks(MACHINE, ids, FINISHED))).isEqualTo(RetentionResult.NONE);
        assertThatThrownBy(() -> RetentionRequest.ofTasks(MACHINE, List.of(), FINISHED)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    public void purgeArchivedDeletesTreesOfTheMachineArchivedBeforeATime() {
        Instant first = T0.plus(HOUR.multipliedBy(2));
        Instant second = T0.plus(HOUR.multipliedBy(3));
        TaskRecord early = applied(move(create(), DONE, null));
        TaskRecord earlyChild = create(spec().machine("chunk").parent(early.id()).state(DONE));
        TaskRecord other = applied(move(create(spec().machine("other")), DONE, null));
        assertThat(store.archive(finishedJobs(100), first)).isEqualTo(new RetentionResult(1, 2));
        assertThat(store.archive(new RetentionRequest("other", T0.plus(HOUR), Map.of("other", Set.of(DONE)), 100), first))
                .isEqualTo(new RetentionResult(1, 1));
        TaskRecord late = applied(move(create(), DONE, null));
        TaskRecord late2 = applied(move(create(), DONE, null));
        assertThat(store.archive(finishedJobs(100), second)).isEqualTo(new RetentionResult(2, 2));

        assertThat(store.purgeArchived(MACHINE, first, 10)).as("archived at the time, not before").isEqualTo(RetentionResult.NONE);
        assertThat(store.purgeArchived(MACHINE, second, 10)).isEqualTo(new RetentionResult(1, 2));
        assertThat(store.findArchived(early.id())).isEmpty();
        assertThat(store.findArchived(earlyChild.id())).isEmpty();
        assertThat(store.findArchived(other.id())).as("another machine's tree").isPresent();
        assertThat(store.findArchived(late.id())).isPresent();

        assertThat(store.purgeArchived(MACHINE, second.plusSeconds(1), 1)).as("at most max trees").isEqualTo(new RetentionResult(1, 1));
        assertThat(store.purgeArchived(MACHINE, second.plusSeconds(1), 1)).isEqualTo(new RetentionResult(1, 1));
        assertThat(store.findArchived(late.id())).isEmpty();
        assertThat(store.findArchived(late2.id())).isEmpty();
        assertThat(store.purgeArchived(MACHINE, second.plusSeconds(1), 1)).isEqualTo(RetentionResult.NONE);
        assertThatThrownBy(() -> store.purgeArchived(MACHINE, second, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    public void concurrentBatchesMoveEveryTreeOnceAndLoseNone() throws Exception {
        Instant at = T0.plus(HOUR.multipliedBy(3));
        int roots = 120;
        List<NewTask> specs = new ArrayList<>();
        for (int i = 0; i < roots; i++) specs.add(spec().state(DONE).build());
        List<Long> rootIds = new ArrayList<>();
        for (CreateResult r : store.createAll(specs)) rootIds.add(r.task().id());
        List<NewTask> children = new ArrayList<>();
        for (int i = 0; i < roots; i += 3) children.add(spec().machine("chunk").parent(rootIds.get(i)).state(DONE).build());
        int tasks = roots + children.size();
        store.createAll(children);

        int threads = 4;
        AtomicInteger trees = new AtomicInteger();
        AtomicInteger moved = new AtomicInteger();
        concurrently(threads, thread -> {
            for (int quiet = 0; quiet < 3; ) {
                RetentionResult r = store.archive(finishedJobs(7), at);
                trees.addAndGet(r.trees());
                moved.addAndGet(r.tasks());
                quiet = r.trees() == 0 ? quiet + 1 : 0;
            }
        });
        RetentionResult rest = archiveAll(finishedJobs(7), at);
        assertThat(trees.get() + rest.trees()).as("trees moved in all").isEqualTo(roots);
        assertThat(moved.get() + rest.tasks()).as("tasks moved in all").isEqualTo(tasks);
        assertThat(store.query(TaskQuery.all()).items()).isEmpty();
        for (long id : rootIds) assertThat(store.findArchived(id)).as("root %s", id).isPresent();
    }
}
