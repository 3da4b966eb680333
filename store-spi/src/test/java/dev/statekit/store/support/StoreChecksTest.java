package dev.statekit.store.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.store.Attributes;
import dev.statekit.store.Change;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.NewTask;
import dev.statekit.store.StatekitException;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The checks every store makes, and their messages. */
class StoreChecksTest {
    static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

    static NewTask task(String payload) {
        return new NewTask("job", 1, "P", "q", 0, null, Attributes.EMPTY, payload, null, null, T0);
    }

    static Change change(long id, String payload) {
        TaskRecord next = task(payload).toRecord(id, 1).toBuilder().version(1).build();
        return new Change(0, next, new HistoryEntry(id, 1, "P", "P", "E", TriggerSource.SYSTEM, null, null, T0, null));
    }

    @Test
    void aPayloadOverTheLimitIsRefusedWithOneMessage() {
        StoreChecks.checkPayload(task("1234"), 4);
        assertThatThrownBy(() -> StoreChecks.checkPayload(task("12345"), 4))
                .isInstanceOfSatisfying(StatekitException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE);
                    assertThat(e.taskId()).isNull();
                })
                .hasMessageContaining("payload of 5 chars exceeds the limit of 4 for a new task of machine job");
        StoreChecks.checkPayload(change(7, "1234").next(), 4);
        assertThatThrownBy(() -> StoreChecks.checkPayload(change(7, "12345").next(), 4))
                .isInstanceOfSatisfying(StatekitException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE);
                    assertThat(e.taskId()).isEqualTo(7L);
                })
                .hasMessageContaining("payload of 5 chars exceeds the limit of 4 for task 7");
    }

    @Test
    void twoChangesForOneTaskAreRefused() {
        StoreChecks.requireDistinctTasks(List.of(change(1, "a"), change(2, "b")));
        StoreChecks.requireDistinctTasks(List.of());
        assertThatThrownBy(() -> StoreChecks.requireDistinctTasks(List.of(change(1, "a"), change(2, "b"), change(1, "c"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("two changes for task 1");
    }

    @Test
    void aNegativeConcurrencyLimitIsRefused() {
        assertThat(StoreChecks.requireConcurrencyLimit(0)).isZero();
        assertThat(StoreChecks.requireConcurrencyLimit(3)).isEqualTo(3);
        assertThatThrownBy(() -> StoreChecks.requireConcurrencyLimit(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("concurrency limit must be >= 0, was -1");
    }
}
