package dev.statekit.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Validation of the store's value records. */
class RecordsTest {
    static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

    static TaskRecord record(long id, long version) {
        return new TaskRecord(id, "job", 1, "P", "q", 0, 1, null, 0, 0, null, null, null, Attributes.EMPTY, null, null,
                T0, T0, version);
    }

    static HistoryEntry entry(long taskId, long version) {
        return new HistoryEntry(taskId, version, "P", "R", "GO", TriggerSource.USER, "ana", null, T0, null);
    }

    @Test
    void changeLinesUpVersionsAndTasks() {
        Change c = new Change(4, record(7, 5), entry(7, 5));
        assertThat(c.expectedVersion()).isEqualTo(4);
        assertThatThrownBy(() -> new Change(4, record(7, 6), entry(7, 6)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be 5, was 6");
        assertThatThrownBy(() -> new Change(4, record(7, 4), entry(7, 4))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Change(4, record(7, 5), entry(8, 5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("task 8");
        assertThatThrownBy(() -> new Change(4, record(7, 5), entry(7, 4))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Change(4, null, entry(7, 5))).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new Change(4, record(7, 5), null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void taskRecordValidatesItsComponents() {
        assertThatThrownBy(() -> record(0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> record(1, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> record(1, 0).toBuilder().attempts(-1).build()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> record(1, 0).toBuilder().retries(-1).build()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> record(1, 0).toBuilder().state(null).build()).isInstanceOf(NullPointerException.class);
    }

    @Test
    void transitionedRaisesTheVersionAndKeepsEverythingElse() {
        TaskRecord r = record(3, 2).toBuilder().payload("p").priority(9).lease(new Lease("w", 4, T0)).build();
        TaskRecord next = r.transitioned("R", Attributes.of("a", "b"), T0.plusSeconds(5));
        assertThat(next.version()).isEqualTo(3);
        assertThat(next.state()).isEqualTo("R");
        assertThat(next.attributes()).isEqualTo(Attributes.of("a", "b"));
        assertThat(next.updatedAt()).isEqualTo(T0.plusSeconds(5));
        assertThat(next.toBuilder().state("P").attributes(Attributes.EMPTY).updatedAt(T0).version(2).build()).isEqualTo(r);
    }

    @Test
    void historyEntryValidatesItsComponents() {
        assertThatThrownBy(() -> entry(1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new HistoryEntry(1, 1, "P", "R", "GO", null, null, null, T0, null))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new HistoryEntry(1, 1, "P", "R", "GO", TriggerSource.SYSTEM, null, null, null, null))
                .isInstanceOf(NullPointerException.class);
    }

    @Test
    void newTaskValidatesNamesAndKey() {
        assertThatThrownBy(() -> new NewTask(" ", 1, "P", "q", 0, null, Attributes.EMPTY, null, null, null, T0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new NewTask("m", 1, "", "q", 0, null, Attributes.EMPTY, null, null, null, T0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new NewTask("m", 1, "P", " ", 0, null, Attributes.EMPTY, null, null, null, T0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new NewTask("m", 1, "P", "q", 0, null, Attributes.EMPTY, null, "  ", null, T0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new NewTask("m", 1, "P", "q", 0, null, null, null, null, null, T0))
                .isInstanceOf(NullPointerException.class);
    }

    @Test
    void applyResultCarriesAPriorEntryExactlyForDuplicates() {
        HistoryEntry e = entry(5, 1);
        assertThat(ApplyResult.duplicate(e).taskId()).isEqualTo(5);
        assertThat(ApplyResult.duplicate(e).prior()).isEqualTo(e);
        assertThat(ApplyResult.APPLIED.applied()).isTrue();
        assertThat(ApplyResult.conflict(5).applied()).isFalse();
        assertThat(ApplyResult.notFound(5).status()).isEqualTo(ApplyResult.Status.NOT_FOUND);
        assertThatThrownBy(() -> new ApplyResult(ApplyResult.Status.DUPLICATE_COMMAND, 5, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ApplyResult(ApplyResult.Status.APPLIED, 0, e))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void taskQueryValidatesPaging() {
        assertThatThrownBy(() -> TaskQuery.all().limit(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TaskQuery.all().limit(TaskQuery.MAX_LIMIT + 1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(TaskQuery.all().limit(TaskQuery.MAX_LIMIT).limit()).isEqualTo(TaskQuery.MAX_LIMIT);
        assertThatThrownBy(() -> TaskQuery.all().after(-1)).isInstanceOf(IllegalArgumentException.class);
        Set<String> states = new HashSet<>(Set.of("A"));
        TaskQuery q = TaskQuery.all().states(states);
        states.add("B");
        assertThat(q.states()).containsExactly("A");
        assertThat(TaskQuery.all().afterId()).isZero();
        assertThat(TaskQuery.all().limit()).isEqualTo(100);
    }

    @Test
    void taskQueryMatchesOnEveryFilter() {
        TaskRecord r = record(2, 0).toBuilder().queue("fast").build();
        TaskRecord child = new TaskRecord(3, "chunk", 1, "P", "q", 0, 1, 2L, 0, 0, null, null, null, Attributes.EMPTY,
                null, null, T0, T0, 0);
        assertThat(TaskQuery.all().matches(r)).isTrue();
        assertThat(TaskQuery.all().machine("job").matches(r)).isTrue();
        assertThat(TaskQuery.all().machine("chunk").matches(r)).isFalse();
        assertThat(TaskQuery.all().states(Set.of("P", "Q")).matches(r)).isTrue();
        assertThat(TaskQuery.all().states(Set.of("Q")).matches(r)).isFalse();
        assertThat(TaskQuery.all().queue("fast").matches(r)).isTrue();
        assertThat(TaskQuery.all().queue("slow").matches(r)).isFalse();
        assertThat(TaskQuery.all().parent(2).matches(r)).isFalse();
        assertThat(TaskQuery.all().parent(2).matches(child)).isTrue();
        assertThat(TaskQuery.all().parent(9).matches(child)).isFalse();
    }

    @Test
    void leaseAndErrorValidateTheirComponents() {
        assertThatThrownBy(() -> new Lease(" ", 1, T0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Lease("w", -1, T0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TaskError(" ", "m", false, null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new TaskError("AI_RATE_LIMITED", "slow down", true, "embed").retryable()).isTrue();
    }

    @Test
    void exceptionsCarryTheirCode() {
        StatekitException e = new StatekitException(ErrorCode.STORE_FAILURE, "disk full", 4L, null);
        assertThat(e.code()).isEqualTo(ErrorCode.STORE_FAILURE);
        assertThat(e.taskId()).isEqualTo(4L);
        assertThat(e).hasMessage("[STORE_FAILURE] disk full");
        assertThat(new StatekitException(ErrorCode.INVALID_ARGUMENT, "x").taskId()).isNull();
    }

    @Test
    void aNewTaskBecomesItsFirstSnapshot() {
        NewTask spec = new NewTask("job", 3, "P", "q", 7, 42L, Attributes.of("a", "b"), "p", "k", T0.plusSeconds(9), T0);
        TaskRecord first = spec.toRecord(5, 11);
        assertThat(first).isEqualTo(new TaskRecord(5, "job", 3, "P", "q", 7, 11, 42L, 0, 0, null, T0.plusSeconds(9), null,
                Attributes.of("a", "b"), "p", "k", T0, T0, 0));
        assertThatThrownBy(() -> spec.toRecord(0, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aClaimWritesTheRuleStateALeaseOneMoreAttemptAndOneVersionMore() {
        ClaimRule rule = new ClaimRule("P", "START", "R", before -> before.attributes().with("started", "yes"));
        TaskRecord before = record(4, 2).toBuilder().attempts(1).notBefore(T0.minusSeconds(5)).payload("p").build();
        Lease lease = new Lease("w", 9, T0.plusSeconds(60));
        Instant now = T0.plusSeconds(3);
        TaskRecord claimed = rule.claim(before, lease, now);
        assertThat(claimed).isEqualTo(before.toBuilder().state("R").attributes(Attributes.of("started", "yes")).lease(lease)
                .attempts(2).notBefore(null).updatedAt(now).version(3).build());
        assertThat(rule.claim(before, Attributes.of("given", "1"), lease, now).attributes()).isEqualTo(Attributes.of("given", "1"));
        assertThat(rule.entry(before, "w", now))
                .isEqualTo(new HistoryEntry(4, 3, "P", "R", "START", TriggerSource.SYSTEM, "w", ClaimRule.CLAIM_REASON, now, null));
        assertThat(ClaimRule.CLAIM_REASON).isEqualTo("claimed");
        assertThatThrownBy(() -> rule.claim(before.toBuilder().state("X").build(), lease, now))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("state X");
        assertThatThrownBy(() -> rule.entry(before.toBuilder().state("X").build(), "w", now))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aClaimIsStampedNoEarlierThanTheTasksLastChange() {
        ClaimRule rule = new ClaimRule("P", "START", "R");
        TaskRecord before = record(4, 2).toBuilder().updatedAt(T0.plusSeconds(10)).build();
        Instant early = T0.plusSeconds(4);
        Lease lease = new Lease("w", 9, early.plusSeconds(60));
        assertThat(ClaimRule.claimTime(before, early)).isEqualTo(T0.plusSeconds(10));
        assertThat(ClaimRule.claimTime(before, T0.plusSeconds(11))).isEqualTo(T0.plusSeconds(11));
        assertThat(rule.claim(before, lease, early).updatedAt()).isEqualTo(T0.plusSeconds(10));
        assertThat(rule.claim(before, lease, early).lease()).isEqualTo(lease);
        assertThat(rule.entry(before, "w", early).at()).isEqualTo(T0.plusSeconds(10));
    }

    @Test
    void queueRecordWithersChangeOneThingEach() {
        QueueRecord q = new QueueRecord("q", false, null, 3, 2);
        assertThat(q.paused("STOP")).isEqualTo(new QueueRecord("q", true, "STOP", 3, 2));
        assertThat(q.paused(null)).isEqualTo(new QueueRecord("q", true, null, 3, 2));
        assertThat(q.paused("STOP").resumed()).isEqualTo(q);
        assertThat(q.withConcurrency(0)).isEqualTo(new QueueRecord("q", false, null, 0, 2));
        assertThat(q.withSkippedLower(5)).isEqualTo(new QueueRecord("q", false, null, 3, 5));
        assertThatThrownBy(() -> q.withConcurrency(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> q.withSkippedLower(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRetentionRequestNamesItsRootsFinishedStatesAndTellsRootsAndMovableTasks() {
        java.util.Map<String, Set<String>> finished = java.util.Map.of("job", Set.of("P"), "chunk", Set.of("DONE"));
        RetentionRequest r = new RetentionRequest("job", T0.plusSeconds(1), finished, 10);
        assertThat(r.rootStates()).containsExactly("P");
        assertThat(r.isFinished("chunk", "DONE")).isTrue();
        assertThat(r.isFinished("chunk", "P")).isFalse();
        assertThat(r.isFinished("unknown", "DONE")).as("a machine the map does not name").isFalse();
        TaskRecord root = record(1, 0);
        TaskRecord child = new TaskRecord(2, "job", 1, "P", "q", 0, 1, 1L, 0, 0, null, null, null, Attributes.EMPTY, null, null,
                T0, T0, 0);
        assertThat(r.isRoot(root)).isTrue();
        assertThat(r.isRoot(child)).as("a child").isFalse();
        assertThat(r.isRoot(root.toBuilder().updatedAt(T0.plusSeconds(1)).build())).as("changed at the time").isFalse();
        assertThat(r.isRoot(root.toBuilder().state("R").build())).as("unfinished").isFalse();
        TaskRecord leased = root.toBuilder().lease(new Lease("w", 1, T0.plusSeconds(30))).build();
        assertThat(r.isRoot(leased)).isFalse();
        assertThat(r.isMovable(leased)).isFalse();
        assertThat(r.isMovable(child)).isTrue();

        assertThatThrownBy(() -> new RetentionRequest("job", T0, finished, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("max");
        assertThatThrownBy(() -> new RetentionRequest("other", T0, finished, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("machine other");
        assertThatThrownBy(() -> new RetentionRequest("job", T0, java.util.Map.of("job", Set.of()), 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRetentionResultCountsTreesAndTasks() {
        assertThat(new RetentionResult(1, 3).plus(new RetentionResult(2, 2))).isEqualTo(new RetentionResult(3, 5));
        assertThat(RetentionResult.NONE).isEqualTo(new RetentionResult(0, 0));
        assertThatThrownBy(() -> new RetentionResult(2, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RetentionResult(-1, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
