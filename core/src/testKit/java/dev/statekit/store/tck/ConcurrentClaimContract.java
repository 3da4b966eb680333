package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.HistoryEntry;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on concurrent claimers: never more than the limit hold a lease. Every store
 * runs it as {@link StoreContract.ConcurrentClaims}.
 */
abstract class ConcurrentClaimContract extends ContractPart {

    ConcurrentClaimContract(StoreContract contract) {
        super(contract);
    }

    @Test
    public void neverMoreThanTheLimitHoldALeaseUnderConcurrentClaimsAndCompletions() throws Exception {
        int limit = 3;
        int total = 60;
        int claimers = 4;
        int completers = 2;
        for (int i = 0; i < total; i++) create(spec().priority(i % 3));
        store.setConcurrency(QUEUE, limit);
        BlockingQueue<TaskRecord> toComplete = new LinkedBlockingQueue<>();
        AtomicInteger completed = new AtomicInteger();
        // counted after a claim returns and uncounted before its release: never above the true number
        AtomicInteger held = new AtomicInteger();
        Set<Long> tokens = ConcurrentHashMap.newKeySet();
        concurrently(claimers + completers, thread -> {
            if (thread < claimers) {
                for (long round = 0; completed.get() < total; round++) {
                    assertThat(round).as("claim rounds").isLessThan(5_000_000);
                    if (Thread.currentThread().isInterrupted()) throw new InterruptedException();
                    List<TaskRecord> claimed = tasksOf(store.claim(claimOf("claimer-" + thread, T0, LEASE, limit, 0)));
                    for (TaskRecord t : claimed) {
                        assertThat(held.incrementAndGet()).as("tasks holding a lease").isLessThanOrEqualTo(limit);
                        assertThat(tokens.add(leaseOf(t).fencingToken())).isTrue();
                        toComplete.add(t);
                    }
                    assertThat(store.leased(QUEUE)).isLessThanOrEqualTo(limit);
                }
            } else {
                while (completed.get() < total) {
                    TaskRecord t = toComplete.poll(50, TimeUnit.MILLISECONDS);
                    if (t == null) continue;
                    held.decrementAndGet();
                    assertThat(store.apply(release(t, DONE)).applied()).isTrue();
                    completed.incrementAndGet();
                }
            }
        });
        assertThat(store.leased(QUEUE)).as("tasks holding a lease afterwards: %s",
                store.query(TaskQuery.all()).items().stream().filter(t -> t.lease() != null).toList()).isZero();
        List<TaskRecord> all = store.query(TaskQuery.all()).items();
        assertThat(all).hasSize(total);
        for (TaskRecord t : all) {
            assertThat(t.state()).isEqualTo(DONE);
            assertThat(t.attempts()).as("claimed once").isEqualTo(1);
            assertThat(store.history(t.id())).extracting(HistoryEntry::to).containsExactly(RUNNING, DONE);
        }
        assertThat(tokens).hasSize(total);
    }
}
