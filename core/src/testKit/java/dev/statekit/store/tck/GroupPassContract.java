package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.store.GroupPass;
import dev.statekit.store.ApplyResult;
import dev.statekit.store.Attributes;
import dev.statekit.store.CreateResult;
import dev.statekit.store.GroupRecord;
import dev.statekit.store.GroupResolver;
import dev.statekit.store.GroupResolver.Resolution;
import dev.statekit.store.GroupWrite;
import dev.statekit.store.MemberState;
import dev.statekit.store.NewTask;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on resolution passes: the counts they keep, the resolver's writes, and marks
 * left by failures. Every store runs it as {@link StoreContract.GroupPasses}.
 */
abstract class GroupPassContract extends ContractPart {

    GroupPassContract(StoreContract contract) {
        super(contract);
    }

    @Test
    public void aPassCountsClaimsCompletionsAndRetries() {
        TaskRecord parent = ownerOfSealed(3);
        resolveAll(KEEP);
        List<TaskRecord> running = claim(2);
        assertThat(store.pendingMarks()).as("one mark per claim").isEqualTo(2);
        assertThat(groupOf(parent.id()).counts()).as("counts change only in a pass").isEqualTo(Map.of(member(READY), 3L));
        resolveAll(KEEP);
        assertThat(groupOf(parent.id()).counts()).isEqualTo(Map.of(member(READY), 1L, member(RUNNING), 2L));

        applied(release(running.get(0), DONE));
        TaskRecord retried = applied(release(running.get(1), READY));
        applied(change(retried, b -> b.attributes(Attributes.of("note", "again")), null));
        assertThat(store.pendingMarks()).as("a change that keeps the state writes no mark").isEqualTo(2);
        resolveAll(KEEP);
        GroupRecord g = groupOf(parent.id());
        assertThat(g.counts()).isEqualTo(Map.of(member(READY), 2L, member(DONE), 1L));
        assertThat(g.total()).isEqualTo(3);
        assertThat(store.pendingMarks()).isZero();
    }

    @Test
    public void aPassWritesTheResolversChangesCreationsAndCancellations() {
        TaskRecord parent = ownerOfSealed(2);
        List<TaskRecord> running = claim(2);
        TaskRecord done = applied(release(running.get(0), DONE));
        long stillRunning = running.get(1).id();
        List<List<Long>> read = new ArrayList<>();
        NewTask report = spec().machine("report").key("report-of-" + parent.id()).build();
        GroupResolver resolver = v -> {
            GroupRecord g = v.group();
            if (g.resolution() != null || g.count(MACHINE, DONE) == 0) return Resolution.keep(g);
            read.add(ids(v.members().inState(MACHINE, RUNNING, 0, 10)));
            read.add(ids(v.members().inState(MACHINE, DONE, 0, 10)));
            read.add(ids(v.members().inState(MACHINE, RUNNING, stillRunning, 10)));
            read.add(ids(v.members().inState(MACHINE, READY, 0, 10)));
            return new Resolution(List.of(move(v.owner(), "REDUCING", null)), List.of(report), List.of(stillRunning),
                    "FIRST_DONE", false);
        };

        GroupPass pass = store.resolveGroups(List.of(MACHINE), T0, 10, resolver);
        assertStored(pass);
        assertThat(pass.resolved()).isEqualTo(1);
        assertThat(pass.changes()).as("the owner's change, as stored").singleElement().satisfies(w -> {
            assertThat(w.task().id()).isEqualTo(parent.id());
            assertThat(w.task().state()).isEqualTo("REDUCING");
            assertThat(w.entry().to()).isEqualTo("REDUCING");
        });
        assertThat(pass.groups()).extracting(GroupRecord::ownerId, GroupRecord::resolution)
                .containsExactly(tuple(parent.id(), "FIRST_DONE"));
        assertThat(pass.marksLeft()).as("the owner's own change asks for a look").isTrue();
        assertThat(read).containsExactly(List.of(stillRunning), List.of(done.id()), List.of(), List.of());
        TaskRecord owner = get(parent.id());
        assertThat(owner.state()).isEqualTo("REDUCING");
        assertUnbrokenChain(parent.id(), WAITING);
        CreateResult again = store.create(report);
        assertThat(again.created()).as("the follow-on task exists").isFalse();
        assertThat(store.cancelRequested(stillRunning)).isTrue();
        assertThat(store.cancelRequested(done.id())).isFalse();
        GroupRecord g = groupOf(parent.id());
        assertThat(g.resolution()).isEqualTo("FIRST_DONE");
        assertThat(g.awaiting()).isFalse();
        assertThat(g.counts()).isEqualTo(Map.of(member(RUNNING), 1L, member(DONE), 1L));
        assertThat(store.pendingMarks()).as("the marks were taken; the owner's own change asks for a look").isEqualTo(1);

        resolveAll(resolver);
        assertThat(get(parent.id())).isEqualTo(owner);
        assertThat(store.query(TaskQuery.all().machine("report")).items()).hasSize(1);
    }

    @Test
    public void aResolverChangeThatConflictsWritesNothingAndLeavesTheMarks() {
        TaskRecord parent = ownerOfSealed(1);
        resolveAll(KEEP);
        TaskRecord stale = claim(1).get(0);
        applied(release(stale, DONE));
        long marks = store.pendingMarks();
        GroupRecord before = groupOf(parent.id());
        GroupResolver conflicting = v -> new Resolution(List.of(move(v.owner(), DONE, null), release(stale, "FAILED")),
                List.of(spec().key("never").build()), List.of(stale.id()), "ALL_DONE", false);

        GroupPass refused = store.resolveGroups(List.of(MACHINE), T0, 10, conflicting);
        assertThat(refused.resolved()).isZero();
        assertThat(refused.changes()).as("a refused pass returns nothing written").isEmpty();
        assertThat(refused.groups()).isEmpty();
        assertThat(refused.marksLeft()).isTrue();
        assertThat(get(parent.id())).isEqualTo(parent);
        assertThat(store.history(parent.id())).isEmpty();
        assertThat(store.query(TaskQuery.all()).items()).hasSize(2);
        assertThat(store.cancelRequested(stale.id())).isFalse();
        assertThat(groupOf(parent.id())).isEqualTo(before);
        assertThat(store.pendingMarks()).isEqualTo(marks);

        assertThat(resolveOnce(List.of(MACHINE), 10, KEEP)).as("the next pass takes the marks").isEqualTo(1);
        assertThat(groupOf(parent.id()).counts()).isEqualTo(Map.of(member(DONE), 1L));
        assertThat(store.pendingMarks()).isZero();
    }

    @Test
    public void groupsOfNoChildAndOfOneChildResolve() {
        TaskRecord empty = create(spec().state(WAITING));
        TaskRecord single = create(spec().state(WAITING));
        assertThat(store.applyAll(List.of(), List.of(GroupWrite.sealed(empty.id(), List.of()),
                GroupWrite.sealed(single.id(), List.of(childOf(single).build()))))).isEqualTo(ApplyResult.APPLIED);
        GroupResolver allDone = v -> {
            GroupRecord g = v.group();
            if (g.resolution() != null || !g.sealed() || g.count(MACHINE, DONE) != g.total()) return Resolution.keep(g);
            return new Resolution(List.of(move(v.owner(), DONE, null)), List.of(), List.of(), "ALL_DONE", false);
        };

        resolveAll(allDone);
        assertThat(get(empty.id()).state()).isEqualTo(DONE);
        assertThat(get(single.id()).state()).isEqualTo(WAITING);
        assertThat(groupOf(empty.id()).resolution()).isEqualTo("ALL_DONE");
        assertThat(groupOf(empty.id()).total()).isZero();
        assertThat(groupOf(empty.id()).counts()).isEmpty();

        applied(release(claim(1).get(0), DONE));
        resolveAll(allDone);
        assertThat(get(single.id()).state()).isEqualTo(DONE);
        assertThat(store.history(single.id())).hasSize(1);
        assertThat(groupOf(single.id()).resolution()).isEqualTo("ALL_DONE");
        assertThat(groupOf(single.id()).counts()).isEqualTo(Map.of(member(DONE), 1L));
    }

    @Test
    public void anAwaitingGroupIsResolvedAgainWithoutANewMarkLeastRecentlyCheckedFirst() {
        TaskRecord first = ownerOfSealed(1);
        TaskRecord second = ownerOfSealed(1);
        List<Long> seen = new ArrayList<>();
        GroupResolver waiting = v -> {
            seen.add(v.owner().id());
            return new Resolution(List.of(), List.of(), List.of(), null, seen.size() < 5);
        };
        assertThat(resolveOnce(List.of(MACHINE), 10, waiting)).isEqualTo(2);
        assertThat(store.pendingMarks()).isZero();
        assertThat(groupOf(first.id()).awaiting()).isTrue();
        assertThat(groupOf(second.id()).awaiting()).isTrue();
        assertThat(resolveOnce(List.of(MACHINE), 1, waiting)).isEqualTo(1);
        assertThat(resolveOnce(List.of(MACHINE), 1, waiting)).isEqualTo(1);
        assertThat(resolveOnce(List.of(MACHINE), 1, waiting)).isEqualTo(1);
        assertThat(seen).containsExactly(first.id(), second.id(), first.id(), second.id(), first.id());
        assertThat(groupOf(first.id()).awaiting()).isFalse();
        assertThat(resolveOnce(List.of(MACHINE), 10, waiting)).isEqualTo(1);
        assertThat(seen).hasSize(6).endsWith(second.id());
        assertThat(groupOf(second.id()).awaiting()).isFalse();
        assertThat(resolveOnce(List.of(MACHINE), 10, waiting)).isZero();
    }

    @Test
    public void aPassTakesOnlyGroupsOfTheMachinesGiven() {
        TaskRecord parent = ownerOfSealed(1);
        long marks = store.pendingMarks();
        assertThat(resolveOnce(List.of("other"), 10, KEEP)).isZero();
        assertThat(store.pendingMarks()).isEqualTo(marks);
        assertThat(resolveOnce(List.of("other", MACHINE), 10, KEEP)).isEqualTo(1);
        assertThat(store.pendingMarks()).isZero();
        assertThatThrownBy(() -> store.resolveGroups(List.of(MACHINE), T0, 0, KEEP)).isInstanceOf(IllegalArgumentException.class);
        assertThat(groupOf(parent.id()).counts()).isEqualTo(Map.of(member(READY), 1L));
    }

    @Test
    public void aResolverThatFailsWritesNothingAndLeavesTheMarks() {
        TaskRecord parent = ownerOfSealed(1);
        applied(release(claim(1).get(0), DONE));
        long marks = store.pendingMarks();
        GroupRecord before = groupOf(parent.id());
        GroupResolver failing = v -> {
            throw new IllegalStateException("resolver failed");
        };
        assertThatThrownBy(() -> store.resolveGroups(List.of(MACHINE), T0, 10, failing))
                .isInstanceOf(IllegalStateException.class).hasMessage("resolver failed");
        assertThat(store.pendingMarks()).isEqualTo(marks);
        assertThat(groupOf(parent.id())).isEqualTo(before);
        resolveAll(KEEP);
        assertThat(groupOf(parent.id()).counts()).isEqualTo(Map.of(member(DONE), 1L));
    }

    /**
     * Members complete (some after a retry) on several threads while passes run on others: every
     * pass sees counts that add up to the total and never go below zero (it takes every member's
     * changes up to some point, never a later one without an earlier one), and at the end the
     * counts are exact and each owner's event fired once.
     */
    @Test
    public void countsStayExactWhileMembersCompleteAndPassesRunConcurrently() throws Exception {
        int owners = 4;
        int perOwner = 50;
        int members = owners * perOwner;
        List<TaskRecord> parents = new ArrayList<>();
        for (int i = 0; i < owners; i++) parents.add(ownerOfSealed(perOwner));
        AtomicInteger fired = new AtomicInteger();
        GroupResolver once = v -> {
            GroupRecord g = v.group();
            long sum = 0;
            for (Map.Entry<MemberState, Long> e : g.counts().entrySet()) {
                if (e.getValue() < 0) throw new AssertionError("count " + e + " below zero in " + g);
                sum += e.getValue();
            }
            if (sum != g.total()) throw new AssertionError("counts " + g.counts() + " do not add up to " + g.total());
            if (g.resolution() != null || g.count(MACHINE, DONE) != g.total()) return Resolution.keep(g);
            fired.incrementAndGet();
            return new Resolution(List.of(move(v.owner(), DONE, null)), List.of(), List.of(), "ALL_DONE", false);
        };
        int workers = 3;
        int passers = 2;
        AtomicInteger completed = new AtomicInteger();
        Set<Long> retried = ConcurrentHashMap.newKeySet();
        concurrently(workers + passers, thread -> {
            if (thread < workers) {
                for (long round = 0; completed.get() < members; round++) {
                    assertThat(round).as("claim rounds").isLessThan(1_000_000);
                    if (Thread.currentThread().isInterrupted()) throw new InterruptedException();
                    for (TaskRecord t : tasksOf(store.claim(claimOf("worker-" + thread, T0, LEASE, 5, 0)))) {
                        boolean retry = t.id() % 5 == 0 && retried.add(t.id());
                        assertThat(store.apply(release(t, retry ? READY : DONE)).applied()).isTrue();
                        if (!retry) completed.incrementAndGet();
                    }
                }
            } else {
                while (completed.get() < members) {
                    if (Thread.currentThread().isInterrupted()) throw new InterruptedException();
                    store.resolveGroups(List.of(MACHINE), T0, 3, once);
                }
            }
        });
        resolveAll(once);

        assertThat(retried).isNotEmpty();
        assertThat(store.pendingMarks()).isZero();
        for (TaskRecord p : parents) {
            GroupRecord g = groupOf(p.id());
            assertThat(g.total()).isEqualTo(perOwner);
            assertThat(g.counts()).isEqualTo(Map.of(member(DONE), (long) perOwner));
            assertThat(g.resolution()).isEqualTo("ALL_DONE");
            assertThat(get(p.id()).state()).isEqualTo(DONE);
            assertThat(store.history(p.id())).as("the owner's event of task %s", p.id()).hasSize(1);
        }
        assertThat(fired.get()).isEqualTo(owners);
    }
}
