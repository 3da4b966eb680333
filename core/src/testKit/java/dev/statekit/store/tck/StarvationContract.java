package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.TaskRecord;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on anti-starvation: a lower task passed over often enough is taken. Every store
 * runs it as {@link StoreContract.Starvation}.
 */
abstract class StarvationContract extends ContractPart {

    StarvationContract(StoreContract contract) {
        super(contract);
    }

    private List<Long> claimSingly(int times, int limit) {
        List<Long> picked = new ArrayList<>();
        for (int i = 0; i < times; i++) {
            List<TaskRecord> c = tasksOf(store.claim(claimOf(OWNER, T0, LEASE, 1, limit)));
            assertThat(c).hasSize(1);
            picked.add(c.get(0).id());
        }
        return picked;
    }

    @Test
    public void afterKPicksThatPassedOverALowerTaskTheBestLowerOneIsTaken() {
        long h1 = create(spec().priority(10)).id();
        long l1 = create(spec().priority(0)).id();
        long h2 = create(spec().priority(10)).id();
        long m1 = create(spec().priority(5)).id();
        long h3 = create(spec().priority(10)).id();
        long l2 = create(spec().priority(0)).id();
        long h4 = create(spec().priority(10)).id();
        assertThat(claimSingly(1, 2)).containsExactly(h1);
        assertThat(store.queue(QUEUE).skippedLower()).isEqualTo(1);
        assertThat(claimSingly(1, 2)).containsExactly(h2);
        assertThat(store.queue(QUEUE).skippedLower()).isEqualTo(2);
        assertThat(claimSingly(1, 2)).as("the best lower task").containsExactly(m1);
        assertThat(store.queue(QUEUE).skippedLower()).isZero();
        assertThat(claimSingly(4, 2)).containsExactly(h3, h4, l1, l2);
        assertThat(store.queue(QUEUE).skippedLower()).isZero();
    }

    @Test
    public void theCountCarriesOnWithinOneClaim() {
        long h1 = create(spec().priority(10)).id();
        long h2 = create(spec().priority(10)).id();
        long h3 = create(spec().priority(10)).id();
        long l1 = create(spec().priority(0)).id();
        long l2 = create(spec().priority(0)).id();
        long h4 = create(spec().priority(10)).id();
        assertThat(ids(tasksOf(store.claim(claimOf(OWNER, T0, LEASE, 4, 2))))).containsExactly(h1, h2, l1, h3);
        assertThat(store.queue(QUEUE).skippedLower()).isEqualTo(1);
        assertThat(ids(tasksOf(store.claim(claimOf(OWNER, T0, LEASE, 4, 2))))).containsExactly(h4, l2);
        assertThat(store.queue(QUEUE).skippedLower()).isZero();
    }

    @Test
    public void withoutALimitLowerTasksWait() {
        long l1 = create(spec().priority(0)).id();
        long h1 = create(spec().priority(10)).id();
        long m1 = create(spec().priority(5)).id();
        long h2 = create(spec().priority(10)).id();
        long h3 = create(spec().priority(10)).id();
        assertThat(claimSingly(5, 0)).containsExactly(h1, h2, h3, m1, l1);
    }

    @Test
    public void aLowerTaskThatIsNotRunnableIsNotPassedOver() {
        long later = create(spec().priority(0).notBefore(T0.plus(HOUR))).id();
        long h1 = create(spec().priority(10)).id();
        long h2 = create(spec().priority(10)).id();
        long h3 = create(spec().priority(10)).id();
        assertThat(claimSingly(3, 1)).containsExactly(h1, h2, h3);
        assertThat(store.queue(QUEUE).skippedLower()).isZero();
        assertThat(get(later).lease()).isNull();
    }

    @Test
    public void aPickThatPassesOverNoLowerTaskResetsTheCount() {
        long h1 = create(spec().priority(10)).id();
        long l1 = create(spec().priority(0)).id();
        assertThat(claimSingly(1, 3)).containsExactly(h1);
        assertThat(store.queue(QUEUE).skippedLower()).isEqualTo(1);
        assertThat(claimSingly(1, 3)).containsExactly(l1);
        assertThat(store.queue(QUEUE).skippedLower()).isZero();
        long h2 = create(spec().priority(10)).id();
        long h3 = create(spec().priority(10)).id();
        long h4 = create(spec().priority(10)).id();
        long l2 = create(spec().priority(0)).id();
        long h5 = create(spec().priority(10)).id();
        assertThat(claimSingly(5, 3)).containsExactly(h2, h3, h4, l2, h5);
    }
}
