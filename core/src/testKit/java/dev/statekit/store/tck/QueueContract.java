package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.store.QueueRecord;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on queue control records: pause with its reason, the concurrency limit and the
 * starvation count. Every store runs it as {@link StoreContract.Queues}.
 */
abstract class QueueContract extends ContractPart {

    QueueContract(StoreContract contract) {
        super(contract);
    }

    @Test
    public void aQueueNobodyConfiguredHasTheDefaults() {
        assertThat(store.queue("fresh")).isEqualTo(QueueRecord.defaults("fresh"));
        assertThat(store.queue("fresh").paused()).isFalse();
        assertThat(store.queue("fresh").concurrency()).isZero();
        assertThat(store.leased("fresh")).isZero();
    }

    @Test
    public void pausingKeepsTheReasonAndResumingClearsIt() {
        QueueRecord paused = store.pauseQueue(QUEUE, "STOP_AFTER_CURRENT İ");
        assertThat(paused).isEqualTo(new QueueRecord(QUEUE, true, "STOP_AFTER_CURRENT İ", 0, 0));
        assertThat(store.queue(QUEUE)).isEqualTo(paused);
        QueueRecord resumed = store.resumeQueue(QUEUE);
        assertThat(resumed).isEqualTo(QueueRecord.defaults(QUEUE));
        assertThat(store.queue(QUEUE)).isEqualTo(resumed);
        assertThat(store.pauseQueue(QUEUE, null)).isEqualTo(new QueueRecord(QUEUE, true, null, 0, 0));
        assertThat(store.queue("other")).isEqualTo(QueueRecord.defaults("other"));
    }

    @Test
    public void theConcurrencyLimitIsKeptAcrossPauseAndResume() {
        assertThat(store.setConcurrency(QUEUE, 4)).isEqualTo(new QueueRecord(QUEUE, false, null, 4, 0));
        assertThat(store.pauseQueue(QUEUE, "r")).isEqualTo(new QueueRecord(QUEUE, true, "r", 4, 0));
        assertThat(store.setConcurrency(QUEUE, 2)).isEqualTo(new QueueRecord(QUEUE, true, "r", 2, 0));
        assertThat(store.resumeQueue(QUEUE)).isEqualTo(new QueueRecord(QUEUE, false, null, 2, 0));
        assertThatThrownBy(() -> store.setConcurrency(QUEUE, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(store.queue(QUEUE)).isEqualTo(new QueueRecord(QUEUE, false, null, 2, 0));
        assertThat(store.setConcurrency(QUEUE, 0).concurrency()).isZero();
    }

    @Test
    public void theStarvationCountIsKeptByPauseResumeAndLimit() {
        create(spec().priority(10));
        create(spec().priority(0));
        tasksOf(store.claim(claimOf(OWNER, T0, LEASE, 1, 3)));
        assertThat(store.queue(QUEUE).skippedLower()).isEqualTo(1);
        assertThat(store.pauseQueue(QUEUE, null).skippedLower()).isEqualTo(1);
        assertThat(store.resumeQueue(QUEUE).skippedLower()).isEqualTo(1);
        assertThat(store.setConcurrency(QUEUE, 5).skippedLower()).isEqualTo(1);
    }
}
