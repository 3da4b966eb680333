package dev.statekit.store.memory;

import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.Claimed;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.QueueRecord;
import dev.statekit.store.RateLimit;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.memory.ClaimIndex.Key;
import dev.statekit.store.memory.InMemorySlots.Slot;
import dev.statekit.store.support.ClaimPicker;
import dev.statekit.store.support.RateGate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The claims of an {@link InMemoryStore}: under the queue's monitor (taken before any slot monitor,
 * never after, which makes the queue's concurrency limit exact), candidates come from the
 * {@link ClaimIndex} in the order of {@link ClaimPicker}, and each is claimed under its slot's
 * monitor with {@link ClaimRule#claim} and {@link ClaimRule#entry}, written as any change is. A
 * rate-limited queue's candidates pass through a {@link RateGate} over the starts and holds its
 * {@link InMemoryQueues.QueueSlot} keeps, and the claim, made at {@link RateLimit#claimTime},
 * records its starts there.
 */
final class InMemoryClaims {
    private final InMemoryStore store;
    private final InMemorySlots tasks;
    private final ClaimIndex index;
    private final InMemoryQueues queues;
    private final InMemoryCreations creations;
    private final AtomicLong fencingTokens = new AtomicLong();

    InMemoryClaims(InMemoryStore store, InMemorySlots tasks, ClaimIndex index, InMemoryQueues queues, InMemoryCreations creations) {
        this.store = store;
        this.tasks = tasks;
        this.index = index;
        this.queues = queues;
        this.creations = creations;
    }

    /**
     * Claims as {@link dev.statekit.store.Store#claim} describes; a rate-limited queue's claim is made
     * at {@link RateLimit#claimTime}.
     */
    List<Claimed> claim(ClaimRequest asked) {
        List<String> from = fromStates(asked);
        index.ensureIndexed(asked.machine(), from, creations::lastId);
        InMemoryQueues.QueueSlot qs = queues.slot(asked.queue());
        synchronized (qs) {
            QueueRecord q = qs.record;
            if (q.paused()) return List.of();
            RateLimit limit = q.rateLimit();
            ClaimRequest request = limit == null ? asked : asked.withNow(limit.claimTime(asked.now(), qs.latestStart()));
            int room = request.max();
            if (q.concurrency() > 0) room = Math.min(room, q.concurrency() - index.leased(request.queue()));
            QueueCandidates candidates = new QueueCandidates(request, index.candidates(request.machine(), request.queue(), from));
            if (!q.rateLimited()) {
                int skipped = ClaimPicker.pick(candidates, room, q.skippedLower(), request.starvationLimit());
                if (skipped != q.skippedLower()) qs.record = q.withSkippedLower(skipped);
                return candidates.claimed;
            }
            RateGate<Key, RuntimeException> gate = new RateGate<>(candidates, k -> RateLimit.keyOf(limit, Objects.requireNonNull(tasks.get(k.id())).task),
                    limit, limit != null ? qs.startsInWindow(limit, request.now()) : java.util.Map.of(),
                    RateGate.holdsApply(q.heldUntil(), request.now()) ? qs.heldAt(request.now()) : Set.of());
            int skipped = ClaimPicker.pick(gate, room, q.skippedLower(), request.starvationLimit());
            if (skipped != q.skippedLower()) qs.record = qs.record.withSkippedLower(skipped);
            if (limit != null) qs.started(limit, candidates.claimed);
            qs.forgetHoldsOver(request.now());
            return candidates.claimed;
        }
    }

    /** Returns what a claim would take, as {@link dev.statekit.store.Store#peek} describes. */
    List<TaskRecord> peek(ClaimRequest request) {
        List<String> from = fromStates(request);
        index.ensureIndexed(request.machine(), from, creations::lastId);
        return index.peek(request, from);
    }

    private static List<String> fromStates(ClaimRequest request) {
        List<String> from = new ArrayList<>(request.rules().size());
        for (ClaimRule r : request.rules()) from.add(r.from());
        return from;
    }

    /** The runnable tasks of one claim, read from the claim index; taking one claims it. The caller holds the queue's monitor. */
    private final class QueueCandidates implements ClaimPicker.Candidates<Key, RuntimeException> {
        final ClaimRequest request;
        final List<NavigableSet<Key>> sets;
        final List<Claimed> claimed = new ArrayList<>();
        final Set<Long> passed = new HashSet<>();

        QueueCandidates(ClaimRequest request, List<NavigableSet<Key>> sets) {
            this.request = request;
            this.sets = sets;
        }

        @Override
        public @Nullable Key top() {
            return index.top(sets, request, passed);
        }

        @Override
        public @Nullable Key lower(int priority) {
            return index.lower(sets, priority, request, passed);
        }

        @Override
        public int priority(Key candidate) {
            return candidate.priority();
        }

        @Override
        public boolean take(Key candidate) {
            Claimed c = claimOne(candidate.id(), request);
            if (c != null) claimed.add(c);
            return c != null;
        }

        @Override
        public void pass(Key candidate) {
            passed.add(candidate.id());
        }
    }

    private @Nullable Claimed claimOne(long id, ClaimRequest request) {
        Slot slot = Objects.requireNonNull(tasks.get(id));
        synchronized (slot) {
            if (!index.runnable(id, request)) return null;
            TaskRecord t = slot.task;
            ClaimRule rule = Objects.requireNonNull(request.ruleFor(t.state()));
            Lease lease = new Lease(request.owner(), fencingTokens.incrementAndGet(), request.now().plus(request.leaseDuration()));
            HistoryEntry entry = rule.entry(t, request.owner(), request.now());
            slot.cancelRequested = false;
            store.write(slot, rule.claim(t, lease, request.now()), entry, false);
            return new Claimed(slot.task, entry, ClaimRule.readySince(t));
        }
    }
}
