package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.store.ApplyResult;
import dev.statekit.store.Attributes;
import dev.statekit.store.Change;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on reads and writes of several tasks by id: findAll and applyEach. Every store
 * runs it as {@link StoreContract.Batches}.
 */
abstract class BatchContract extends ContractPart {

    BatchContract(StoreContract contract) {
        super(contract);
    }

    @Test
    void findAllReturnsTheTasksThatExistById() {
        TaskRecord a = create();
        TaskRecord b = create();
        java.util.Map<Long, TaskRecord> found = store.findAll(List.of(a.id(), b.id(), b.id() + 1000));
        assertThat(found).containsOnlyKeys(a.id(), b.id());
        assertThat(found.get(a.id())).isEqualTo(a);
        assertThat(store.findAll(List.of())).isEmpty();
    }

    @Test
    void applyEachWritesEveryChangeOnItsOwn() {
        TaskRecord fresh = create();
        TaskRecord stale = create();
        TaskRecord keyed = create();
        applied(move(stale, WAITING, null));
        TaskRecord keyedNow = applied(move(keyed, WAITING, "k1"));
        TaskRecord missing = fresh.toBuilder().build();
        List<Change> changes = List.of(
                move(fresh, DONE, null),
                move(stale, DONE, null),                         // computed from version 0: stale
                move(keyedNow, DONE, "k1"),                      // the key was applied before
                new Change(0, new TaskRecord(fresh.id() + 1000, missing.machine(), 1, READY, QUEUE, 0, 1, null, 0, 0,
                        null, null, null, Attributes.EMPTY, null, null, T0, T0.plusSeconds(1), 1),
                        new HistoryEntry(fresh.id() + 1000, 1, READY, DONE, "GO", TriggerSource.SYSTEM, null, null,
                                T0.plusSeconds(1), null)));
        List<ApplyResult> results = store.applyEach(changes);
        assertThat(results).extracting(ApplyResult::status).containsExactly(ApplyResult.Status.APPLIED,
                ApplyResult.Status.VERSION_CONFLICT, ApplyResult.Status.DUPLICATE_COMMAND, ApplyResult.Status.NOT_FOUND);
        assertThat(get(fresh.id()).state()).isEqualTo(DONE);
        assertThat(store.history(fresh.id())).hasSize(1);
        assertThat(get(stale.id()).state()).isEqualTo(WAITING);
        assertThat(store.history(stale.id())).hasSize(1);
        assertThat(get(keyed.id()).version()).isEqualTo(1);
    }

    @Test
    void applyEachRefusesTwoChangesForOneTask() {
        TaskRecord t = create();
        assertThatThrownBy(() -> store.applyEach(List.of(move(t, DONE, null), move(t, WAITING, null))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(get(t.id())).isEqualTo(t);
    }
}
