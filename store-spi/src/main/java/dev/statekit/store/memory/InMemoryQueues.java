package dev.statekit.store.memory;

import dev.statekit.store.QueueRecord;
import dev.statekit.store.support.StoreChecks;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The queue control records of an {@link InMemoryStore}. Each queue's {@link QueueSlot} monitor
 * serialises the claims on that queue and every change of its record; a claimer takes it before any
 * task's slot monitor, never after.
 */
final class InMemoryQueues {
    /** The control record of one queue; the record is written under the slot's monitor. */
    static final class QueueSlot {
        volatile QueueRecord record;

        QueueSlot(QueueRecord record) {
            this.record = record;
        }
    }

    private final ConcurrentHashMap<String, QueueSlot> queues = new ConcurrentHashMap<>();

    /** Returns the slot of {@code queue}, created with the defaults on first use. */
    QueueSlot slot(String queue) {
        return queues.computeIfAbsent(queue, q -> new QueueSlot(QueueRecord.defaults(q)));
    }

    QueueRecord get(String queue) {
        return slot(queue).record;
    }

    QueueRecord pause(String queue, @Nullable String reason) {
        return update(queue, q -> q.paused(reason));
    }

    QueueRecord resume(String queue) {
        return update(queue, QueueRecord::resumed);
    }

    QueueRecord setConcurrency(String queue, int limit) {
        StoreChecks.requireConcurrencyLimit(limit);
        return update(queue, q -> q.withConcurrency(limit));
    }

    private QueueRecord update(String queue, UnaryOperator<QueueRecord> change) {
        QueueSlot qs = slot(queue);
        synchronized (qs) {
            qs.record = change.apply(qs.record);
            return qs.record;
        }
    }
}
