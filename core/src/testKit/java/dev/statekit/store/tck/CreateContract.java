package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.store.Attributes;
import dev.statekit.store.Change;
import dev.statekit.store.CreateResult;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.NewTask;
import dev.statekit.store.RenewResult;
import dev.statekit.store.StatekitException;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on creating a task: ids, sequences, idempotency keys, payloads up to the limit,
 * and the row as written. Every store runs it as {@link StoreContract.Create}.
 */
abstract class CreateContract extends ContractPart {

    CreateContract(StoreContract contract) {
        super(contract);
    }

    @Test
    public void startsAtVersionZeroWithoutHistoryAndKeepsEveryField() {
        TaskRecord parent = create();
        Instant createdAt = T0.minusSeconds(30).plus(7, ChronoUnit.MICROS);
        Attributes attributes = Attributes.of("title", "İstanbul ığüşöç", "empty", "", "Iı", "iİ");
        CreateResult r = store.create(new NewTask("billing-ıİ", 3, "waiting_İ", "import-ı", -2, parent.id(), attributes,
                "{\"name\":\"ıİ\"}", "order-İ-1", T0.plus(HOUR), createdAt));
        assertThat(r.created()).isTrue();
        TaskRecord t = r.task();
        assertThat(t.id()).isPositive().isNotEqualTo(parent.id());
        assertThat(t.machine()).isEqualTo("billing-ıİ");
        assertThat(t.machineVersion()).isEqualTo(3);
        assertThat(t.state()).isEqualTo("waiting_İ");
        assertThat(t.queue()).isEqualTo("import-ı");
        assertThat(t.priority()).isEqualTo(-2);
        assertThat(t.parentId()).isEqualTo(parent.id());
        assertThat(t.attempts()).isZero();
        assertThat(t.retries()).isZero();
        assertThat(t.lease()).isNull();
        assertThat(t.notBefore()).isEqualTo(T0.plus(HOUR));
        assertThat(t.lastError()).isNull();
        assertThat(t.attributes()).isEqualTo(attributes);
        assertThat(t.payload()).isEqualTo("{\"name\":\"ıİ\"}");
        assertThat(t.idempotencyKey()).isEqualTo("order-İ-1");
        assertThat(t.createdAt()).isEqualTo(createdAt);
        assertThat(t.updatedAt()).isEqualTo(createdAt);
        assertThat(t.version()).isZero();
        assertThat(store.find(t.id())).contains(t);
        assertThat(store.history(t.id())).isEmpty();
        assertThat(store.cancelRequested(t.id())).isFalse();
        assertThat(parent.parentId()).isNull();
        assertThat(parent.payload()).isNull();
        assertThat(parent.idempotencyKey()).isNull();
        assertThat(parent.notBefore()).isNull();
        assertThat(parent.attributes()).isEqualTo(Attributes.EMPTY);
    }

    @Test
    public void idsArePositiveAndDistinctAndSequencesFollowCreationOrder() {
        Set<Long> ids = new HashSet<>();
        long lastSequence = Long.MIN_VALUE;
        for (int i = 0; i < 20; i++) {
            TaskRecord t = create(spec().machine(i % 2 == 0 ? MACHINE : "other").priority(i % 3));
            assertThat(t.id()).isPositive();
            assertThat(ids.add(t.id())).as("id %s is new", t.id()).isTrue();
            assertThat(t.sequence()).isGreaterThan(lastSequence);
            lastSequence = t.sequence();
        }
        assertThat(store.query(TaskQuery.all()).items()).hasSize(20);
    }

    @Test
    public void anIdempotencyKeyReturnsTheFirstTaskOfTheMachineAndWritesNothing() {
        TaskRecord first = create(spec().key("order-1").payload("first"));
        TaskRecord moved = applied(move(first, RUNNING, null));
        List<HistoryEntry> history = store.history(first.id());

        CreateResult again = store.create(spec().key("order-1").state(WAITING).queue("elsewhere").payload("second")
                .createdAt(T0.plus(HOUR)).build());
        assertThat(again.created()).isFalse();
        assertThat(again.task()).as("the task as it is now").isEqualTo(moved);
        assertThat(get(first.id())).isEqualTo(moved);
        assertThat(store.history(first.id())).isEqualTo(history);
        assertThat(queryIds(TaskQuery.all())).containsExactly(first.id());

        TaskRecord otherMachine = create(spec().machine("other").key("order-1"));
        assertThat(otherMachine.id()).isNotEqualTo(first.id());
        TaskRecord otherKey = create(spec().key("order-2"));
        TaskRecord noKey1 = create();
        TaskRecord noKey2 = create();
        assertThat(queryIds(TaskQuery.all()))
                .containsExactlyInAnyOrder(first.id(), otherMachine.id(), otherKey.id(), noKey1.id(), noKey2.id());
    }

    @Test
    public void concurrentCreationsWithOneKeyCreateOneTask() throws Exception {
        int threads = 4;
        int keys = 15;
        ConcurrentLinkedQueue<CreateResult> results = new ConcurrentLinkedQueue<>();
        concurrently(threads, thread -> {
            for (int i = 0; i < keys; i++) {
                results.add(store.create(spec().key("key-" + (i + thread * 4) % keys).build()));
            }
        });
        Map<String, List<CreateResult>> byKey = new HashMap<>();
        for (CreateResult r : results) byKey.computeIfAbsent(r.task().idempotencyKey(), k -> new ArrayList<>()).add(r);
        assertThat(byKey).hasSize(keys);
        byKey.forEach((key, rs) -> {
            assertThat(rs).hasSize(threads);
            assertThat(rs).filteredOn(CreateResult::created).as("creations of %s", key).hasSize(1);
            assertThat(rs).extracting(r -> r.task().id()).as("ids of %s", key).containsOnly(rs.get(0).task().id());
        });
        assertThat(store.query(TaskQuery.all()).items()).hasSize(keys);
    }

    @Test
    public void aPayloadAtTheLimitIsKeptExactly() {
        String payload = payloadOf(maxPayloadChars());
        TaskRecord t = create(spec().payload(payload));
        assertThat(get(t.id()).payload()).isEqualTo(payload);
        TaskRecord changed = applied(change(t, b -> b.payload(payloadOf(maxPayloadChars()).replace('ı', 'i')), null));
        assertThat(changed.payload()).isEqualTo(payloadOf(maxPayloadChars()).replace('ı', 'i'));
    }

    @Test
    public void aPayloadOverTheLimitIsRefusedAndNothingIsWritten() {
        NewTask tooLarge = spec().key("k").payload(payloadOf(maxPayloadChars() + 1)).build();
        assertThatThrownBy(() -> store.create(tooLarge))
                .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE));
        assertThat(store.query(TaskQuery.all()).items()).isEmpty();
        CreateResult withKey = store.create(spec().key("k").build());
        assertThat(withKey.created()).as("the key was not taken").isTrue();
    }

    @Test
    public void aChangeWithAPayloadOverTheLimitIsRefusedAndNothingIsWritten() {
        TaskRecord t = create(spec().payload("small"));
        TaskRecord other = create();
        Change tooLarge = change(t, b -> b.payload(payloadOf(maxPayloadChars() + 1)), "big");
        assertThatThrownBy(() -> store.apply(tooLarge))
                .isInstanceOfSatisfying(StatekitException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE);
                    assertThat(e.taskId()).isEqualTo(t.id());
                });
        assertThatThrownBy(() -> store.applyAll(List.of(move(other, RUNNING, null), tooLarge)))
                .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE));
        assertThat(get(t.id())).isEqualTo(t);
        assertThat(get(other.id())).isEqualTo(other);
        assertThat(store.history(t.id())).isEmpty();
        assertThat(store.history(other.id())).isEmpty();
        assertThat(store.findCommand(t.id(), "big")).isEmpty();
    }

    @Test
    public void unknownIdsAreAbsentEverywhere() {
        TaskRecord t = create();
        long unknown = t.id() + 1000;
        assertThat(store.find(unknown)).isEmpty();
        assertThat(store.history(unknown)).isEmpty();
        assertThat(store.findCommand(unknown, "k")).isEmpty();
        assertThat(store.requestCancel(unknown)).isFalse();
        assertThat(store.cancelRequested(unknown)).isFalse();
        assertThat(store.reorder(unknown, 1, 1)).isFalse();
        assertThat(store.renew(unknown, 1, T0, T0.plus(HOUR))).isEqualTo(RenewResult.LOST);
        assertThat(get(t.id())).isEqualTo(t);
    }
}
