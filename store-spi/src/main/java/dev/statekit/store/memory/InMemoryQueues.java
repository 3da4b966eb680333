package dev.statekit.store.memory;

import dev.statekit.store.Claimed;

import dev.statekit.store.QueueRecord;
import dev.statekit.store.RateLimit;
import dev.statekit.store.support.StoreChecks;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The queue control records of an {@link InMemoryStore}. Each queue's {@link QueueSlot} monitor
 * serialises the claims on that queue and every change of its record; a claimer takes it before any
 * task's slot monitor, never after. The slot also keeps the queue's recent starts per rate key
 * and its key holds, read and written under its monitor.
 */
final class InMemoryQueues {
    /** The control record of one queue; the record is written under the slot's monitor. */
    static final class QueueSlot {
        volatile QueueRecord record;
        /** The start times per rate key, kept for a period more than the rate limit's window before the latest. */
        private final Map<String, List<Instant>> starts = new HashMap<>();
        /** The latest start kept, or null. */
        private @Nullable Instant latestStart;
        /** The end of the hold of each held key. */
        private final Map<String, Instant> holds = new HashMap<>();

        QueueSlot(QueueRecord record) {
            this.record = record;
        }

        /** Returns the latest start kept, or null (the time of a claim: {@link RateLimit#claimTime}). Under the monitor. */
        @Nullable Instant latestStart() {
            return latestStart;
        }

        /**
         * Returns the starts of each key within the window of {@code limit} at {@code now}, a claim's
         * time ({@link RateLimit#claimTime}), dropping the ones no claim counts any more
         * ({@link RateLimit#keepAfter}). Under the monitor.
         */
        Map<String, Integer> startsInWindow(RateLimit limit, Instant now) {
            Instant after = limit.windowAfter(now);
            Map<String, Integer> counts = new HashMap<>();
            Instant latest = latestStart;
            if (latest != null) {
                Instant forgotten = limit.keepAfter(latest);
                starts.values().forEach(list -> list.removeIf(at -> !at.isAfter(forgotten)));
                starts.values().removeIf(List::isEmpty);
            }
            starts.forEach((key, list) -> {
                int n = (int) list.stream().filter(at -> at.isAfter(after)).count();
                if (n > 0) counts.put(key, n);
            });
            return counts;
        }

        /** Records one start per task claimed, at its claim's history time, under its key. Under the monitor. */
        void started(RateLimit limit, List<Claimed> claimed) {
            for (Claimed k : claimed) {
                Instant at = k.entry().at();
                starts.computeIfAbsent(RateLimit.keyOf(limit, k.task()), key -> new ArrayList<>()).add(at);
                if (latestStart == null || at.isAfter(latestStart)) latestStart = at;
            }
        }

        /** Returns the keys held at {@code now}, dropping the holds that are over. Under the monitor. */
        Set<String> heldAt(Instant now) {
            holds.values().removeIf(until -> !until.isAfter(now));
            return new HashSet<>(holds.keySet());
        }

        /** Clears the record's hold mark when every hold is over at {@code now}. Under the monitor. */
        void forgetHoldsOver(Instant now) {
            Instant until = record.heldUntil();
            if (until != null && !until.isAfter(now)) {
                holds.clear();
                record = record.withHeldUntil(null);
            }
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

    QueueRecord setRateLimit(String queue, @Nullable RateLimit limit) {
        return update(queue, q -> q.withRateLimit(limit));
    }

    void holdKey(String queue, String key, Instant until) {
        QueueSlot qs = slot(queue);
        synchronized (qs) {
            qs.holds.merge(key, until, (a, b) -> a.isAfter(b) ? a : b);
            Instant latest = qs.record.heldUntil();
            if (latest == null || until.isAfter(latest)) qs.record = qs.record.withHeldUntil(until);
        }
    }

    private QueueRecord update(String queue, UnaryOperator<QueueRecord> change) {
        QueueSlot qs = slot(queue);
        synchronized (qs) {
            qs.record = change.apply(qs.record);
            return qs.record;
        }
    }
}
