package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.ApplyResult;
import dev.statekit.store.CreateResult;
import dev.statekit.store.GroupWrite;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on purge: old finished tasks deleted with their history, bounded, children
 * before parents. Every store runs it as {@link StoreContract.Purge}.
 */
abstract class PurgeContract extends ContractPart {

    PurgeContract(StoreContract contract) {
        super(contract);
    }

    @Test
    public void purgeDeletesOnlyOldLeaseFreeChildlessTasksOfTheMachineInTheStates() {
        Instant cutoff = T0.plus(HOUR);
        TaskRecord oldDone = applied(move(create(), DONE, "finish"));
        TaskRecord oldFailed = applied(move(create(), "FAILED", null));
        TaskRecord keyed = applied(move(create(spec().key("order-1")), DONE, "finish"));
        TaskRecord recent = applied(change(create(), b -> b.state(DONE).updatedAt(T0.plus(HOUR.multipliedBy(2))), null));
        TaskRecord atCutoff = applied(change(create(), b -> b.state(DONE).updatedAt(cutoff), null));
        TaskRecord running = applied(move(create(), RUNNING, null));
        TaskRecord otherMachine = applied(move(create(spec().machine("other")), DONE, null));
        TaskRecord leased = applied(move(claimOne(create(spec().priority(9)).id(), OWNER, LEASE), DONE, null));
        TaskRecord parent = applied(move(create(), DONE, null));
        TaskRecord child = create(spec().machine("chunk").parent(parent.id()).state(RUNNING));
        assertThat(leased.lease()).isNotNull();

        int purged = store.purge(MACHINE, List.of(DONE, "FAILED"), cutoff, 100);
        assertThat(purged).isEqualTo(3);
        for (TaskRecord gone : List.of(oldDone, oldFailed, keyed)) {
            assertThat(store.find(gone.id())).isEmpty();
            assertThat(store.history(gone.id())).isEmpty();
        }
        assertThat(store.findCommand(oldDone.id(), "finish")).isEmpty();
        assertThat(store.findCommand(keyed.id(), "finish")).isEmpty();
        for (TaskRecord kept : List.of(recent, atCutoff, running, otherMachine, leased, parent, child)) {
            assertThat(get(kept.id())).isEqualTo(kept);
        }
        assertThat(queryIds(TaskQuery.all())).containsExactly(recent.id(), atCutoff.id(), running.id(), otherMachine.id(),
                leased.id(), parent.id(), child.id());
        assertThat(store.history(parent.id())).hasSize(1);

        CreateResult reused = store.create(spec().key("order-1").build());
        assertThat(reused.created()).as("the key of a purged task can be used again").isTrue();
        assertThat(reused.task().id()).isNotEqualTo(keyed.id());
        assertThat(reused.task().version()).isZero();
        assertThat(store.history(reused.task().id())).isEmpty();
    }

    @Test
    public void purgeDeletesAtMostMaxTasks() {
        for (int i = 0; i < 3; i++) applied(move(create(), DONE, null));
        assertThat(store.purge(MACHINE, List.of(DONE), T0.plus(HOUR), 1)).isEqualTo(1);
        assertThat(store.query(TaskQuery.all()).items()).hasSize(2);
        assertThat(store.purge(MACHINE, List.of(DONE), T0.plus(HOUR), 10)).isEqualTo(2);
        assertThat(store.query(TaskQuery.all()).items()).isEmpty();
        assertThat(store.purge(MACHINE, List.of(DONE), T0.plus(HOUR), 10)).isZero();
    }

    @Test
    public void aParentIsPurgedOnceItsChildrenAreGone() {
        TaskRecord parent = applied(move(create(), DONE, null));
        TaskRecord child = applied(move(create(spec().machine("chunk").parent(parent.id())), DONE, null));
        assertThat(store.purge(MACHINE, List.of(DONE), T0.plus(HOUR), 10)).isZero();
        assertThat(store.purge("chunk", List.of(DONE), T0.plus(HOUR), 10)).isEqualTo(1);
        assertThat(store.find(child.id())).isEmpty();
        assertThat(store.purge(MACHINE, List.of(DONE), T0.plus(HOUR), 10)).isEqualTo(1);
        assertThat(store.find(parent.id())).isEmpty();
    }

    @Test
    public void purgeKeepsDependenciesAndOwnersWithMarksAndDeletesAGroupWithItsOwner() {
        Instant cutoff = T0.plus(HOUR);
        TaskRecord dependency = applied(move(create(), DONE, null));
        TaskRecord waiter = applied(move(create(spec().dependsOn(dependency.id())), DONE, null));
        assertThat(store.pendingMarks()).isPositive();
        assertThat(store.purge(MACHINE, List.of(DONE), cutoff, 10)).as("a dependency, and an owner whose marks wait").isZero();

        resolveAll(KEEP);
        assertThat(store.purge(MACHINE, List.of(DONE), cutoff, 10)).as("the owner; its dependency stays while it exists")
                .isEqualTo(1);
        assertThat(store.find(waiter.id())).isEmpty();
        assertThat(store.group(waiter.id())).isEmpty();
        assertThat(store.dependencies(waiter.id())).isEmpty();
        assertThat(get(dependency.id())).isEqualTo(dependency);
        assertThat(store.purge(MACHINE, List.of(DONE), cutoff, 10)).isEqualTo(1);
        assertThat(store.find(dependency.id())).isEmpty();

        TaskRecord parent = create(spec().state(WAITING));
        assertThat(store.applyAll(List.of(), List.of(GroupWrite.sealed(parent.id(), List.of(spec().machine("chunk")
                .parent(parent.id()).state(DONE).build()))))).isEqualTo(ApplyResult.APPLIED);
        applied(move(parent, DONE, null));
        resolveAll(KEEP);
        assertThat(store.purge(MACHINE, List.of(DONE), cutoff, 10)).as("a parent").isZero();
        assertThat(store.purge("chunk", List.of(DONE), cutoff, 10)).isEqualTo(1);
        assertThat(groupOf(parent.id()).total()).as("a purge is no change of state").isEqualTo(1);
        assertThat(store.purge(MACHINE, List.of(DONE), cutoff, 10)).isEqualTo(1);
        assertThat(store.group(parent.id())).isEmpty();
        assertThat(store.pendingMarks()).isZero();
        assertThat(store.query(TaskQuery.all()).items()).isEmpty();
    }
}
