package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.store.Attributes;
import dev.statekit.store.CreateResult;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.NewTask;
import dev.statekit.store.StatekitException;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on creating several tasks at once, in order, all or none. Every store runs it
 * as {@link StoreContract.CreateAll}.
 */
abstract class CreateAllContract extends ContractPart {

    CreateAllContract(StoreContract contract) {
        super(contract);
    }

    @Test
    void createsEachTaskAsCreateWouldInTheOrderGiven() {
        TaskRecord existing = create(spec().key("k-old").payload("old"));
        List<NewTask> specs = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            Spec s = spec().priority(i % 3).attributes(Attributes.of("i", Integer.toString(i))).payload(i % 2 == 0 ? "p" + i : null);
            if (i == 2) s.key("k-new");
            if (i == 4) s.key("k-old");
            if (i == 5) s.key("k-new");            // an earlier task of the list holds the key
            if (i == 6) s.notBefore(T0.plus(HOUR)).parent(existing.id());
            specs.add(s.build());
        }
        List<CreateResult> results = store.createAll(specs);
        assertThat(results).extracting(CreateResult::created).containsExactly(true, true, true, true, false, false, true);
        assertThat(results.get(4).task()).isEqualTo(existing);
        assertThat(results.get(5).task()).isEqualTo(results.get(2).task());
        long lastSequence = existing.sequence();
        Set<Long> ids = new HashSet<>(List.of(existing.id()));
        for (int i : new int[] {0, 1, 2, 3, 6}) {
            TaskRecord t = results.get(i).task();
            assertThat(ids.add(t.id())).as("id of task %s is new", i).isTrue();
            assertThat(t.sequence()).as("sequence of task %s", i).isGreaterThan(lastSequence);
            lastSequence = t.sequence();
            assertThat(t.version()).isZero();
            assertThat(t.attributes().get("i")).isEqualTo(Integer.toString(i));
            assertThat(store.find(t.id())).contains(t);
            assertThat(store.history(t.id())).isEmpty();
        }
        assertThat(results.get(6).task().notBefore()).isEqualTo(T0.plus(HOUR));
        assertThat(results.get(6).task().parentId()).isEqualTo(existing.id());
        assertThat(results.get(0).task().payload()).isEqualTo("p0");
        assertThat(results.get(1).task().payload()).isNull();
        assertThat(store.query(TaskQuery.all()).items()).hasSize(6);
        assertThat(store.createAll(List.of())).isEmpty();
    }

    @Test
    void manyTasksAreClaimedInTheOrderTheyWereCreated() {
        List<NewTask> specs = new ArrayList<>();
        for (int i = 0; i < 2500; i++) specs.add(spec().build());
        List<CreateResult> results = store.createAll(specs);
        assertThat(results).hasSize(2500).allSatisfy(r -> assertThat(r.created()).isTrue());
        List<Long> created = new ArrayList<>();
        for (CreateResult r : results) created.add(r.task().id());
        assertThat(new HashSet<>(created)).hasSize(2500);
        assertThat(ids(claim(2500))).containsExactlyElementsOf(created);
    }

    @Test
    void aPayloadOverTheLimitIsRefused() {
        List<NewTask> specs = List.of(spec().build(), spec().payload(payloadOf(maxPayloadChars() + 1)).build());
        assertThatThrownBy(() -> store.createAll(specs))
                .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE));
    }
}
