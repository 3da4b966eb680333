package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.store.ApplyResult;
import dev.statekit.store.CreateResult;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.GroupKind;
import dev.statekit.store.GroupRecord;
import dev.statekit.store.GroupResolver.Resolution;
import dev.statekit.store.GroupWrite;
import dev.statekit.store.MemberState;
import dev.statekit.store.StatekitException;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on groups of dependencies: a task waits for the tasks it depends on. Every
 * store runs it as {@link StoreContract.Dependencies}.
 */
abstract class DependencyContract extends ContractPart {

    DependencyContract(StoreContract contract) {
        super(contract);
    }

    @Test
    public void aDependentIsNotClaimedUntilAPassReleasesIt() {
        TaskRecord dependency = applied(move(create(), DONE, null));
        TaskRecord dependent = create(spec().dependsOn(dependency.id()));
        assertThat(groupOf(dependent.id()).hold()).isTrue();
        assertThat(ids(store.peek(claimOf(OWNER, T0, LEASE, 10, 0)))).isEmpty();
        assertThat(claim(10)).isEmpty();

        resolveAll(v -> new Resolution(List.of(), List.of(), List.of(), "released", false, false));
        assertThat(groupOf(dependent.id()).hold()).isFalse();
        assertThat(groupOf(dependent.id()).resolution()).isEqualTo("released");
        assertThat(ids(claim(10))).containsExactly(dependent.id());
    }

    @Test
    public void aTaskWithDependenciesCountsTheirStatesWhenItIsCreated() {
        TaskRecord ready = create();
        TaskRecord done = applied(move(create(), DONE, null));
        TaskRecord other = create(spec().machine("other").state(RUNNING));
        TaskRecord waiter = create(spec().state(WAITING).dependsOn(done.id(), ready.id(), other.id()));
        TaskRecord second = create(spec().state(WAITING).dependsOn(ready.id()));

        GroupRecord g = groupOf(waiter.id());
        assertThat(g.kind()).isEqualTo(GroupKind.DEPENDENCIES);
        assertThat(g.sealed()).isTrue();
        assertThat(g.total()).isEqualTo(3);
        assertThat(g.counts()).isEqualTo(Map.of(member(READY), 1L, member(DONE), 1L, new MemberState("other", RUNNING), 1L));
        assertThat(g.resolution()).isNull();
        assertThat(g.hold()).isTrue();                       // held until the resolver releases it
        assertThat(store.dependencies(waiter.id())).containsExactly(done.id(), ready.id(), other.id());
        assertThat(store.dependencies(second.id())).containsExactly(ready.id());
        assertThat(store.dependencies(ready.id())).isEmpty();
        assertThat(store.group(ready.id())).isEmpty();

        applied(move(ready, DONE, null));
        List<List<Long>> read = new ArrayList<>();
        resolveAll(v -> {
            if (v.owner().id() == waiter.id()) read.add(ids(v.members().inState(MACHINE, DONE, 0, 10)));
            return KEEP.resolve(v);
        });
        assertThat(read).last().isEqualTo(List.of(ready.id(), done.id()));
        assertThat(groupOf(waiter.id()).counts()).isEqualTo(Map.of(member(DONE), 2L, new MemberState("other", RUNNING), 1L));
        assertThat(groupOf(second.id()).counts()).isEqualTo(Map.of(member(DONE), 1L));
    }

    @Test
    public void anUnknownDependencyIsRefusedAndNothingIsCreated() {
        TaskRecord d = create();
        assertThatThrownBy(() -> store.create(spec().dependsOn(d.id(), d.id() + 1000).build()))
                .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_DEPENDENCY));
        assertThat(queryIds(TaskQuery.all())).containsExactly(d.id());
        assertThat(store.pendingMarks()).isZero();
        assertThatThrownBy(() -> store.create(spec().dependsOn(-1L).build())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    public void tasksCreatedTogetherThatWouldDependInACycleAreRefusedWithACode() {
        long before = queryIds(TaskQuery.all()).size();
        for (List<Long> deps : List.of(List.of(-1L), List.of(-2L))) {      // itself; the next task
            assertThatThrownBy(() -> store.createAll(List.of(spec().dependsOn(deps.toArray(new Long[0])).build(), spec().build())))
                    .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.DEPENDENCY_CYCLE));
        }
        assertThat(queryIds(TaskQuery.all())).hasSize((int) before);
    }

    @Test
    public void createAllNamesEarlierTasksOfTheListByNegativeNumbers() {
        TaskRecord existing = create();
        List<CreateResult> results = store.createAll(List.of(spec().build(), spec().dependsOn(-1L).build(),
                spec().dependsOn(existing.id(), -2L, -1L).build(), spec().build()));
        long a = results.get(0).task().id();
        long b = results.get(1).task().id();
        long c = results.get(2).task().id();
        assertThat(store.dependencies(b)).containsExactly(a);
        assertThat(store.dependencies(c)).containsExactly(existing.id(), b, a);
        assertThat(store.dependencies(a)).isEmpty();
        assertThat(store.dependencies(results.get(3).task().id())).isEmpty();
        assertThat(groupOf(c).total()).isEqualTo(3);
        assertThat(groupOf(c).counts()).isEqualTo(Map.of(member(READY), 3L));
        assertThat(store.group(a)).isEmpty();

        assertThatThrownBy(() -> store.createAll(List.of(spec().build(), spec().dependsOn(-2L).build())))
                .as("a task cannot name itself").isInstanceOfSatisfying(StatekitException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.DEPENDENCY_CYCLE));
        assertThatThrownBy(() -> store.createAll(List.of(spec().dependsOn(-2L).build(), spec().build())))
                .as("nor a later one").isInstanceOfSatisfying(StatekitException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.DEPENDENCY_CYCLE));
    }

    @Test
    public void aTaskWaitingOnDependenciesTakesNoGroupOfChildren() {
        TaskRecord d = create();
        TaskRecord waiter = create(spec().state(WAITING).dependsOn(d.id()));
        assertThatThrownBy(() -> store.applyAll(List.of(), List.of(GroupWrite.open(waiter.id(), List.of(childOf(waiter).build())))))
                .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
        assertThat(store.query(TaskQuery.all().parent(waiter.id())).items()).isEmpty();
        create(childOf(waiter));
        resolveAll(KEEP);
        assertThat(groupOf(waiter.id()).kind()).isEqualTo(GroupKind.DEPENDENCIES);
        assertThat(groupOf(waiter.id()).total()).as("a child is no dependency").isEqualTo(1);
    }

    @Test
    public void aChildWithDependenciesIsCountedInItsParentsGroup() {
        TaskRecord parent = create(spec().state(WAITING));
        assertThat(store.applyAll(List.of(), List.of(GroupWrite.open(parent.id(), List.of())))).isEqualTo(ApplyResult.APPLIED);
        TaskRecord d = create();
        TaskRecord child = create(childOf(parent).state(WAITING).dependsOn(d.id()));
        resolveAll(KEEP);
        assertThat(groupOf(parent.id()).total()).isEqualTo(1);
        assertThat(groupOf(parent.id()).counts()).isEqualTo(Map.of(member(WAITING), 1L));
        assertThat(groupOf(child.id()).counts()).isEqualTo(Map.of(member(READY), 1L));
    }

    /**
     * A task created with a parent and a dependency waits for both (its parent's group must not be
     * sealed meanwhile, its dependency's state must not change before it is counted) while another
     * writer changes both at once: neither waits for the other forever.
     */
    @Test
    public void creatingUnderAParentWithADependencyWhileBothChangeDoesNotDeadlock() throws Exception {
        TaskRecord dependency = create(spec().state(WAITING));
        TaskRecord parent = create(spec().state(WAITING));
        assertThat(store.applyAll(List.of(), List.of(GroupWrite.open(parent.id(), List.of())))).isEqualTo(ApplyResult.APPLIED);
        int rounds = 200;
        concurrently(2, thread -> {
            for (int i = 0; i < rounds; i++) {
                if (thread == 0) {
                    store.create(childOf(parent).dependsOn(dependency.id()).build());
                } else {
                    String next = i % 2 == 0 ? RUNNING : WAITING;
                    assertThat(store.applyAll(List.of(move(get(dependency.id()), next, null), move(get(parent.id()), next, null))))
                            .isEqualTo(ApplyResult.APPLIED);
                }
            }
        });
        resolveAll(KEEP);
        assertThat(groupOf(parent.id()).total()).isEqualTo(rounds);
        TaskRecord d = get(dependency.id());
        for (TaskRecord child : store.query(TaskQuery.all().parent(parent.id()).limit(rounds + 1)).items()) {
            assertThat(groupOf(child.id()).counts()).isEqualTo(Map.of(member(d.state()), 1L));
        }
    }
}
