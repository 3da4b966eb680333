package dev.statekit.store.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.store.Attributes;
import dev.statekit.store.MemberState;
import dev.statekit.store.NewTask;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.support.GroupLedger.Mark;
import dev.statekit.store.support.GroupLedger.Marked;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GroupLedgerTest {
    private static final Instant T0 = Instant.parse("2031-04-05T13:00:00Z");

    private static TaskRecord task(long id, String state, Long parent) {
        return new NewTask("job", 1, state, "q", 0, parent, Attributes.EMPTY, null, null, null, T0).toRecord(id, id);
    }

    /** Owners as a store knows them: 1 owns children, 2 depends on 10 and 11, 10 owns a group. */
    private static final GroupLedger.Owners OWNERS = new GroupLedger.Owners() {
        @Override
        public boolean ownsChildren(long taskId) {
            return taskId == 1;
        }

        @Override
        public Collection<Long> dependents(long taskId) {
            return taskId == 10 || taskId == 11 ? List.of(2L) : List.of();
        }

        @Override
        public boolean ownsGroup(long taskId) {
            return taskId == 1 || taskId == 2 || taskId == 10;
        }
    };

    @Test
    void aChangeOfStateMarksTheParentTheDependentsAndAsksItsOwnGroupToLook() {
        TaskRecord before = task(10, "READY", 1L);
        TaskRecord after = before.toBuilder().state("RUNNING").build();
        assertThat(GroupLedger.marks(before, after, false, OWNERS)).containsExactly(
                new Marked(1, Mark.member("job", "READY", "RUNNING")),
                new Marked(2, Mark.member("job", "READY", "RUNNING")),
                new Marked(10, Mark.LOOK));
    }

    @Test
    void aChangeThatKeepsTheStateMarksNothing() {
        TaskRecord before = task(10, "READY", 1L);
        TaskRecord after = before.toBuilder().attributes(Attributes.of("a", "b")).build();
        assertThat(GroupLedger.marks(before, after, false, OWNERS)).isEmpty();
    }

    @Test
    void aCreationMarksItsParentUnlessTheGroupWriteCountsItAndNeverLooksAtItself() {
        TaskRecord child = task(11, "READY", 1L);
        assertThat(GroupLedger.marks(null, child, false, OWNERS)).containsExactly(
                new Marked(1, Mark.member("job", null, "READY")), new Marked(2, Mark.member("job", null, "READY")));
        assertThat(GroupLedger.marks(null, child, true, OWNERS)).containsExactly(new Marked(2, Mark.member("job", null, "READY")));
        TaskRecord orphan = task(12, "READY", 5L);
        assertThat(GroupLedger.marks(null, orphan, false, OWNERS)).as("a parent without a group of children").isEmpty();
    }

    @Test
    void countedAddsCreationsMovesChangesAndIgnoresLooks() {
        MemberState ready = new MemberState("job", "READY");
        MemberState running = new MemberState("job", "RUNNING");
        MemberState done = new MemberState("job", "DONE");
        GroupLedger.Counts counts = GroupLedger.counted(2, Map.of(ready, 2L), List.of(
                Mark.member("job", "READY", "RUNNING"), Mark.LOOK, Mark.member("job", null, "READY"),
                Mark.member("job", "RUNNING", "DONE"), Mark.member("job", "READY", "DONE")));
        assertThat(counts.total()).isEqualTo(3);
        assertThat(counts.counts()).as("states with none are absent").isEqualTo(Map.of(ready, 1L, done, 2L));
        assertThat(counts.counts()).doesNotContainKey(running);
        assertThat(GroupLedger.counted(4, Map.of(done, 4L), List.of(Mark.LOOK))).isEqualTo(new GroupLedger.Counts(4, Map.of(done, 4L)));
    }

    @Test
    void onlyAMembersChangeMovesCounts() {
        assertThat(GroupLedger.movesCounts(List.of(Mark.LOOK, Mark.LOOK))).isFalse();
        assertThat(GroupLedger.movesCounts(List.of())).isFalse();
        assertThat(GroupLedger.movesCounts(List.of(Mark.LOOK, Mark.member("job", "READY", "DONE")))).isTrue();
        assertThat(Mark.LOOK.look()).isTrue();
        assertThat(Mark.member("job", null, "READY").look()).isFalse();
    }

    @Test
    void aPassTakesMarkedOwnersFirstThenAwaitingOnesEachOnceAndNoneSkipped() {
        assertThat(GroupLedger.passOrder(List.of(7L, 3L, 9L), List.of(3L, 1L, 8L), 10, Set.of(9L)))
                .containsExactly(7L, 3L, 1L, 8L);
        assertThat(GroupLedger.passOrder(List.of(7L, 3L, 9L), List.of(1L), 2, Set.of())).containsExactly(7L, 3L);
        assertThat(GroupLedger.passOrder(List.of(), List.of(5L, 4L), 1, Set.of())).containsExactly(5L);
        assertThatThrownBy(() -> GroupLedger.passOrder(List.of(), List.of(), 0, Set.of())).isInstanceOf(IllegalArgumentException.class);
    }
}
