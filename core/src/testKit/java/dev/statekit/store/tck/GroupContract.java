package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.store.ApplyResult;
import dev.statekit.store.Change;
import dev.statekit.store.CreateResult;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.GroupKind;
import dev.statekit.store.GroupRecord;
import dev.statekit.store.GroupWrite;
import dev.statekit.store.NewTask;
import dev.statekit.store.StatekitException;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on groups of children: sealed and open groups, their children counted once, and
 * held groups. Every store runs it as {@link StoreContract.Groups}.
 */
abstract class GroupContract extends ContractPart {

    GroupContract(StoreContract contract) {
        super(contract);
    }

    @Test
    public void aSealedGroupOpensWithItsChildrenInTheWriteThatChangesItsOwner() {
        TaskRecord parent = create();
        List<NewTask> children = List.of(childOf(parent).build(), childOf(parent).priority(2).build(),
                childOf(parent).payload("p").build());
        ApplyResult r = store.applyAll(List.of(move(parent, WAITING, "split")), List.of(GroupWrite.sealed(parent.id(), children)));

        assertThat(r).isEqualTo(ApplyResult.APPLIED);
        assertThat(get(parent.id()).state()).isEqualTo(WAITING);
        List<TaskRecord> made = store.query(TaskQuery.all().parent(parent.id())).items();
        assertThat(made).hasSize(3).allSatisfy(c -> {
            assertThat(c.state()).isEqualTo(READY);
            assertThat(c.version()).isZero();
            assertThat(store.history(c.id())).isEmpty();
        });
        GroupRecord g = groupOf(parent.id());
        assertThat(g.ownerId()).isEqualTo(parent.id());
        assertThat(g.kind()).isEqualTo(GroupKind.CHILDREN);
        assertThat(g.sealed()).isTrue();
        assertThat(g.total()).isEqualTo(3);
        assertThat(g.counts()).as("counted in the write that created them").isEqualTo(Map.of(member(READY), 3L));
        assertThat(g.resolution()).isNull();
        assertThat(g.hold()).isFalse();
        assertThat(g.awaiting()).isFalse();
        assertThat(store.dependencies(parent.id())).isEmpty();
        assertThat(store.pendingMarks()).as("the group write asks for a look at its owner").isPositive();

        List<GroupRecord> seen = new ArrayList<>();
        assertThat(resolveAll(v -> {
            seen.add(v.group());
            assertThat(v.owner()).isEqualTo(get(parent.id()));
            return KEEP.resolve(v);
        })).isPositive();
        assertThat(seen).allSatisfy(s -> assertThat(s).isEqualTo(g));
        assertThat(groupOf(parent.id())).isEqualTo(g);
        assertThat(store.group(made.get(0).id())).as("a child owns no group").isEmpty();
    }

    @Test
    public void aRepeatedCommandCreatesNoChildTwice() {
        TaskRecord parent = create();
        Change split = move(parent, WAITING, "split-1");
        GroupWrite children = GroupWrite.sealed(parent.id(), List.of(childOf(parent).build(), childOf(parent).build()));
        assertThat(store.applyAll(List.of(split), List.of(children))).isEqualTo(ApplyResult.APPLIED);
        TaskRecord waiting = get(parent.id());

        ApplyResult again = store.applyAll(List.of(split), List.of(children));
        assertThat(again.status()).isEqualTo(ApplyResult.Status.DUPLICATE_COMMAND);
        assertThat(again.taskId()).isEqualTo(parent.id());
        ApplyResult stale = store.applyAll(List.of(move(parent, WAITING, null)), List.of(children));
        assertThat(stale).isEqualTo(ApplyResult.conflict(parent.id()));
        ApplyResult missing = store.applyAll(List.of(), List.of(GroupWrite.open(parent.id() + 1000, List.of())));
        assertThat(missing).isEqualTo(ApplyResult.notFound(parent.id() + 1000));

        assertThat(get(parent.id())).isEqualTo(waiting);
        assertThat(store.query(TaskQuery.all().parent(parent.id())).items()).hasSize(2);
        assertThat(groupOf(parent.id()).total()).isEqualTo(2);
        resolveAll(KEEP);
        assertThat(groupOf(parent.id()).counts()).isEqualTo(Map.of(member(READY), 2L));
        assertThat(store.group(parent.id() + 1000)).isEmpty();
    }

    @Test
    public void childrenWhoseKeysExistAreCountedOnce() {
        TaskRecord parent = create(spec().state(WAITING));
        List<NewTask> first = List.of(childOf(parent).key("c-1").build(), childOf(parent).key("c-2").build(),
                childOf(parent).key("c-1").build());
        assertThat(store.applyAll(List.of(), List.of(GroupWrite.open(parent.id(), first)))).isEqualTo(ApplyResult.APPLIED);
        assertThat(groupOf(parent.id()).total()).as("a key named twice in one write").isEqualTo(2);
        List<NewTask> second = List.of(childOf(parent).key("c-2").build(), childOf(parent).key("c-3").build());
        assertThat(store.applyAll(List.of(), List.of(GroupWrite.sealed(parent.id(), second)))).isEqualTo(ApplyResult.APPLIED);

        assertThat(store.query(TaskQuery.all().parent(parent.id())).items()).hasSize(3);
        GroupRecord g = groupOf(parent.id());
        assertThat(g.sealed()).isTrue();
        assertThat(g.total()).isEqualTo(3);
        resolveAll(KEEP);
        assertThat(groupOf(parent.id()).counts()).isEqualTo(Map.of(member(READY), 3L));
        assertThat(groupOf(parent.id()).total()).isEqualTo(3);
    }

    @Test
    public void childrenAreNotAddedToASealedGroup() {
        TaskRecord parent = create(spec().state(WAITING));
        assertThat(store.applyAll(List.of(), List.of(GroupWrite.sealed(parent.id(), List.of(childOf(parent).key("c-1").build())))))
                .isEqualTo(ApplyResult.APPLIED);
        TaskRecord other = create();

        assertThatThrownBy(() -> store.applyAll(List.of(move(parent, RUNNING, null), move(other, DONE, null)),
                List.of(GroupWrite.open(parent.id(), List.of(childOf(parent).key("c-2").build())))))
                .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.GROUP_SEALED));
        assertThatThrownBy(() -> store.create(childOf(parent).build()))
                .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.GROUP_SEALED));
        assertThatThrownBy(() -> store.createAll(List.of(spec().build(), childOf(parent).build())))
                .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.GROUP_SEALED));
        assertThat(get(parent.id())).isEqualTo(parent);
        assertThat(get(other.id())).isEqualTo(other);
        assertThat(store.query(TaskQuery.all().parent(parent.id())).items()).hasSize(1);

        // a child that exists already is no addition
        TaskRecord existing = store.query(TaskQuery.all().parent(parent.id())).items().get(0);
        CreateResult again = store.create(childOf(parent).key("c-1").build());
        assertThat(again.created()).isFalse();
        assertThat(again.task()).isEqualTo(existing);
        assertThat(store.applyAll(List.of(), List.of(GroupWrite.open(parent.id(), List.of(childOf(parent).key("c-1").build())))))
                .isEqualTo(ApplyResult.APPLIED);
        assertThat(store.query(TaskQuery.all().parent(parent.id())).items()).containsExactly(existing);
        resolveAll(KEEP);
        assertThat(groupOf(parent.id()).total()).isEqualTo(1);
    }

    @Test
    public void childrenCreatedUnderAnOpenGroupAreCountedByThePass() {
        TaskRecord parent = create(spec().state(WAITING));
        assertThat(store.applyAll(List.of(), List.of(GroupWrite.open(parent.id(), List.of(childOf(parent).build())))))
                .isEqualTo(ApplyResult.APPLIED);
        assertThat(groupOf(parent.id()).sealed()).isFalse();
        create(childOf(parent).state(RUNNING));
        store.createAll(List.of(childOf(parent).build(), childOf(parent).state(DONE).build(), spec().build()));
        assertThat(groupOf(parent.id()).total()).as("until a pass").isEqualTo(1);

        resolveAll(KEEP);
        GroupRecord g = groupOf(parent.id());
        assertThat(g.total()).isEqualTo(4);
        assertThat(g.counts()).isEqualTo(Map.of(member(READY), 2L, member(RUNNING), 1L, member(DONE), 1L));

        assertThat(store.applyAll(List.of(), List.of(new GroupWrite(parent.id(), List.of(), true, null))))
                .isEqualTo(ApplyResult.APPLIED);
        assertThat(groupOf(parent.id()).sealed()).isTrue();
        assertThat(groupOf(parent.id()).total()).isEqualTo(4);
    }

    @Test
    public void aHeldGroupsMembersAreNotClaimedUntilItIsReleased() {
        TaskRecord parent = create(spec().state(WAITING));
        TaskRecord loose = create(spec().priority(-1));
        assertThat(store.applyAll(List.of(), List.of(new GroupWrite(parent.id(),
                List.of(childOf(parent).priority(5).build(), childOf(parent).priority(5).build()), true, true))))
                .isEqualTo(ApplyResult.APPLIED);
        GroupRecord held = groupOf(parent.id());
        assertThat(held.hold()).isTrue();
        assertThat(held.sealed()).isTrue();
        List<Long> children = queryIds(TaskQuery.all().parent(parent.id()));

        assertThat(ids(store.peek(claimOf(OWNER, T0, LEASE, 10, 0)))).containsExactly(loose.id());
        assertThat(ids(claim(10))).containsExactly(loose.id());

        assertThat(store.applyAll(List.of(), List.of(GroupWrite.hold(parent.id(), false)))).isEqualTo(ApplyResult.APPLIED);
        assertThat(groupOf(parent.id()).hold()).isFalse();
        assertThat(groupOf(parent.id()).sealed()).as("a hold changes nothing else").isTrue();
        assertThat(ids(claim(10))).containsExactlyElementsOf(children);
    }

    @Test
    public void aGroupWriteNeedsSomethingToWriteAndEachOwnerOnce() {
        TaskRecord parent = create(spec().state(WAITING));
        assertThatThrownBy(() -> store.applyAll(List.of(), List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.applyAll(List.of(), List.of(GroupWrite.open(parent.id(), List.of()),
                GroupWrite.hold(parent.id(), true)))).isInstanceOf(IllegalArgumentException.class);
        assertThat(store.group(parent.id())).isEmpty();
    }
}
