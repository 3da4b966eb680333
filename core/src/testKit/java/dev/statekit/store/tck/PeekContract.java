package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.QueueRecord;
import dev.statekit.store.TaskRecord;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on peek: the tasks a claim would take, in its order, without claiming them.
 * Every store runs it as {@link StoreContract.Peek}.
 */
abstract class PeekContract extends ContractPart {

    PeekContract(StoreContract contract) {
        super(contract);
    }

    @Test
    public void peekShowsTheClaimOrderAndWritesNothing() {
        TaskRecord a = create(spec().priority(0));
        TaskRecord b = create(spec().priority(5));
        TaskRecord c = create(spec().priority(5));
        TaskRecord later = create(spec().priority(9).notBefore(T0.plus(HOUR)));
        TaskRecord d = create(spec().priority(1).state("RETRY"));
        ClaimRequest request = new ClaimRequest(MACHINE, QUEUE, List.of(START, new ClaimRule("RETRY", "RESTART", RUNNING)),
                OWNER, T0, LEASE, 3, 0);
        List<TaskRecord> peeked = store.peek(request);
        assertThat(peeked).containsExactly(b, c, d);
        assertThat(store.peek(request)).isEqualTo(peeked);
        for (TaskRecord t : List.of(a, b, c, later, d)) {
            assertThat(get(t.id())).isEqualTo(t);
            assertThat(store.history(t.id())).isEmpty();
        }
        assertThat(store.leased(QUEUE)).isZero();
        assertThat(store.queue(QUEUE)).isEqualTo(QueueRecord.defaults(QUEUE));
        assertThat(ids(tasksOf(store.claim(request)))).containsExactly(b.id(), c.id(), d.id());
        assertThat(ids(store.peek(request))).containsExactly(a.id());
    }

    @Test
    public void peekIgnoresAPausedOrFullQueue() {
        TaskRecord a = create();
        TaskRecord b = create();
        store.setConcurrency(QUEUE, 1);
        claimOne(a.id(), OWNER, LEASE);
        store.pauseQueue(QUEUE, null);
        assertThat(claim(1)).isEmpty();
        assertThat(store.peek(claimOf(OWNER, T0, LEASE, 5, 0))).containsExactly(b);
    }

    @Test
    public void peekAppliesNoAntiStarvation() {
        TaskRecord h1 = create(spec().priority(10));
        TaskRecord h2 = create(spec().priority(10));
        TaskRecord l1 = create(spec().priority(0));
        TaskRecord h3 = create(spec().priority(10));
        assertThat(ids(tasksOf(store.claim(claimOf(OWNER, T0, LEASE, 1, 1))))).containsExactly(h1.id());
        assertThat(store.queue(QUEUE).skippedLower()).isEqualTo(1);
        assertThat(ids(store.peek(claimOf(OWNER, T0, LEASE, 3, 1)))).containsExactly(h2.id(), h3.id(), l1.id());
        assertThat(store.queue(QUEUE).skippedLower()).isEqualTo(1);
        assertThat(ids(tasksOf(store.claim(claimOf(OWNER, T0, LEASE, 1, 1))))).as("the claim does").containsExactly(l1.id());
    }
}
