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
}
