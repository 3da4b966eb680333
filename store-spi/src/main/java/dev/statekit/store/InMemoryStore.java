package dev.statekit.store;

import dev.statekit.store.ClaimIndex.Key;
import dev.statekit.store.InMemorySlots.Slot;
import dev.statekit.store.support.ClaimPicker;
import dev.statekit.store.support.StoreChecks;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * A thread-safe store that keeps everything in memory: the reference implementation of
 * {@link Store}, for tests, simulations and single-process hosts that need no durability.
 *
 * <p>Each task lives in a slot guarded by its own monitor, so writes to different tasks do not
 * contend; {@link #applyAll} locks the slots it touches in ascending id order. Claims on one queue
 * are serialised by that queue's monitor (taken before any slot monitor, never after), which is
 * what makes the queue's concurrency limit exact.
 *
 * <p>Runnable tasks are found through an index kept only for the states that claims and due-time
 * scans have asked about, so a store used without a runtime pays nothing for it.
 *
 * <p>The parts: {@code InMemorySlots} holds the tasks by id, {@code ClaimIndex} the indexes and the
 * scans that read them, {@code InMemoryQueues} the queue records. What every store writes the same
 * way (a new task's first snapshot, a claim's snapshot and history entry, the claim order) comes
 * from the store contract's own types: {@link NewTask#toRecord}, {@link ClaimRule#claim},
 * {@link ClaimRule#entry} and {@link dev.statekit.store.support.ClaimPicker}.
 */
public final class InMemoryStore implements Store {

    /** The default payload limit, in characters. */
    public static final int DEFAULT_MAX_PAYLOAD_CHARS = 1 << 20;

    private final InMemorySlots tasks = new InMemorySlots();
    private final ClaimIndex index = new ClaimIndex(tasks);
    private final ConcurrentHashMap<String, Long> creationKeys = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final AtomicLong sequences = new AtomicLong();
    private final AtomicLong frontSequences = new AtomicLong();
    private final AtomicLong fencingTokens = new AtomicLong();
    private final InMemoryQueues queues = new InMemoryQueues();
    private final int maxPayloadChars;

    /** Creates an empty store with the default payload limit. */
    public InMemoryStore() {
        this(DEFAULT_MAX_PAYLOAD_CHARS);
    }

    /**
     * Creates an empty store.
     *
     * @param maxPayloadChars the largest payload accepted, in characters
     * @throws IllegalArgumentException if {@code maxPayloadChars} is negative
     */
    public InMemoryStore(int maxPayloadChars) {
        if (maxPayloadChars < 0) throw new IllegalArgumentException("maxPayloadChars must be >= 0, was " + maxPayloadChars);
        this.maxPayloadChars = maxPayloadChars;
    }

    // --- create, find, apply ----------------------------------------------------------------

    @Override
    public CreateResult create(NewTask spec) {
        StoreChecks.checkPayload(spec, maxPayloadChars);
        String key = spec.idempotencyKey();
        if (key == null) return new CreateResult(insert(spec), true);
        boolean[] created = {false};
        Long id = creationKeys.computeIfAbsent(spec.machine() + '\u0000' + key, k -> {
            created[0] = true;
            return insert(spec).id();
        });
        return new CreateResult(Objects.requireNonNull(tasks.get(id)).task, created[0]);
    }

    private TaskRecord insert(NewTask spec) {
        long id = ids.incrementAndGet();
        TaskRecord record = spec.toRecord(id, sequences.incrementAndGet());
        Slot slot = new Slot(record);
        synchronized (slot) {
            tasks.put(id, slot);
            index.reindex(null, record);
        }
        return record;
    }

    @Override
    public Optional<TaskRecord> find(long id) {
        Slot slot = tasks.get(id);
        return slot == null ? Optional.empty() : Optional.of(slot.task);
    }

    @Override
    public ApplyResult apply(Change change) {
        Slot slot = tasks.get(change.next().id());
        if (slot == null) return ApplyResult.notFound(change.next().id());
        synchronized (slot) {
            ApplyResult refusal = check(slot, change);
            if (refusal != null) return refusal;
            write(slot, change.next(), change.entry(), change.reorders());
        }
        return ApplyResult.APPLIED;
    }

    @Override
    public ApplyResult applyAll(List<Change> changes) {
        if (changes.isEmpty()) throw new IllegalArgumentException("no changes to apply");
        if (changes.size() == 1) return apply(changes.get(0));
        StoreChecks.requireDistinctTasks(changes);
        Change[] sorted = changes.toArray(new Change[0]);
        Arrays.sort(sorted, Comparator.comparingLong(c -> c.next().id()));
        @Nullable Slot[] slots = new Slot[sorted.length];
        for (int i = 0; i < sorted.length; i++) slots[i] = tasks.get(sorted[i].next().id());
        return lockAndApply(slots, sorted, changes, 0);
    }

    // Monitors are taken in ascending id order, so two concurrent applyAll calls cannot deadlock.
    private ApplyResult lockAndApply(@Nullable Slot[] slots, Change[] sorted, List<Change> original, int i) {
        if (i < slots.length) {
            Slot slot = slots[i];
            if (slot == null) return lockAndApply(slots, sorted, original, i + 1);
            synchronized (slot) {
                return lockAndApply(slots, sorted, original, i + 1);
            }
        }
        for (Change c : original) {           // refusals name the first task in the order given
            Slot slot = slots[indexOf(sorted, c)];
            if (slot == null) return ApplyResult.notFound(c.next().id());
            ApplyResult refusal = check(slot, c);
            if (refusal != null) return refusal;
        }
        for (int j = 0; j < sorted.length; j++) write(Objects.requireNonNull(slots[j]), sorted[j].next(), sorted[j].entry(), sorted[j].reorders());
        return ApplyResult.APPLIED;
    }

    private static int indexOf(Change[] sorted, Change c) {
        for (int i = 0; i < sorted.length; i++) if (sorted[i] == c) return i;
        throw new IllegalStateException("change not found");
    }

    private @Nullable ApplyResult check(Slot slot, Change change) {
        String key = change.entry().commandKey();
        if (key != null && slot.commands != null) {
            HistoryEntry prior = slot.commands.get(key);
            if (prior != null) return ApplyResult.duplicate(prior);
        }
        if (slot.task.version() != change.expectedVersion()) return ApplyResult.conflict(change.next().id());
        StoreChecks.checkPayload(change.next(), maxPayloadChars);
        return null;
    }

    /** Writes a new snapshot and its entry; the caller holds the slot's monitor. */
    private void write(Slot slot, TaskRecord next, HistoryEntry entry, boolean reorders) {
        TaskRecord old = slot.task;
        next = keepMetadata(old, next, reorders);
        slot.history.add(entry);
        String key = entry.commandKey();
        if (key != null) {
            if (slot.commands == null) slot.commands = new HashMap<>();
            slot.commands.put(key, entry);
        }
        slot.task = next;
        index.reindex(old, next);
    }

    // Priority and sequence change only through reorder or a reordering change; a kept lease keeps its renewed expiry.
    private static TaskRecord keepMetadata(TaskRecord stored, TaskRecord next, boolean reorders) {
        Lease sl = stored.lease();
        Lease nl = next.lease();
        boolean sameLease = sl != null && nl != null && sl.fencingToken() == nl.fencingToken()
                && !nl.expiresAt().equals(sl.expiresAt());
        boolean samePlace = reorders || (stored.priority() == next.priority() && stored.sequence() == next.sequence());
        if (samePlace && !sameLease) return next;
        TaskRecord.Builder b = next.toBuilder().lease(sameLease ? sl : nl);
        if (!reorders) b.priority(stored.priority()).sequence(stored.sequence());
        return b.build();
    }

    // --- read -------------------------------------------------------------------------------

    @Override
    public Optional<HistoryEntry> findCommand(long taskId, String commandKey) {
        Slot slot = tasks.get(taskId);
        if (slot == null) return Optional.empty();
        synchronized (slot) {
            return slot.commands == null ? Optional.empty() : Optional.ofNullable(slot.commands.get(commandKey));
        }
    }

    @Override
    public List<HistoryEntry> history(long taskId) {
        Slot slot = tasks.get(taskId);
        if (slot == null) return List.of();
        synchronized (slot) {
            return List.copyOf(slot.history);
        }
    }

    @Override
    public Page<TaskRecord> query(TaskQuery query) {
        ArrayList<TaskRecord> matching = new ArrayList<>();
        long last = ids.get();
        for (long id = query.afterId() + 1; id <= last && matching.size() <= query.limit(); id++) {
            Slot slot = tasks.get(id);
            if (slot != null && query.matches(slot.task)) matching.add(slot.task);
        }
        if (matching.size() <= query.limit()) return new Page<>(matching, null);
        List<TaskRecord> page = matching.subList(0, query.limit());
        return new Page<>(page, page.get(page.size() - 1).id());
    }

    // --- running work -----------------------------------------------------------------------

    @Override
    public List<Claimed> claim(ClaimRequest request) {
        List<String> from = fromStates(request);
        index.ensureIndexed(request.machine(), from, ids.get());
        InMemoryQueues.QueueSlot qs = queues.slot(request.queue());
        synchronized (qs) {
            QueueRecord q = qs.record;
            if (q.paused()) return List.of();
            int room = request.max();
            if (q.concurrency() > 0) room = Math.min(room, q.concurrency() - index.leased(request.queue()));
            QueueCandidates candidates = new QueueCandidates(request, index.candidates(request.machine(), request.queue(), from));
            int skipped = ClaimPicker.pick(candidates, room, q.skippedLower(), request.starvationLimit());
            if (skipped != q.skippedLower()) qs.record = q.withSkippedLower(skipped);
            return candidates.claimed;
        }
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

        QueueCandidates(ClaimRequest request, List<NavigableSet<Key>> sets) {
            this.request = request;
            this.sets = sets;
        }

        @Override
        public @Nullable Key top() {
            return index.top(sets, request);
        }

        @Override
        public @Nullable Key lower(int priority) {
            return index.lower(sets, priority, request);
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
            write(slot, rule.claim(t, lease, request.now()), entry, false);
            return new Claimed(slot.task, entry);
        }
    }

    @Override
    public RenewResult renew(long taskId, long fencingToken, Instant now, Instant expiresAt) {
        Slot slot = tasks.get(taskId);
        if (slot == null) return RenewResult.LOST;
        synchronized (slot) {
            TaskRecord t = slot.task;
            Lease l = t.lease();
            if (l == null || l.fencingToken() != fencingToken || !l.expiresAt().isAfter(now)) return RenewResult.LOST;
            if (expiresAt.isAfter(l.expiresAt())) {
                slot.task = t.toBuilder().lease(new Lease(l.owner(), l.fencingToken(), expiresAt)).build();
            }
            return slot.cancelRequested ? RenewResult.RENEWED_CANCEL_REQUESTED : RenewResult.RENEWED;
        }
    }

    @Override
    public List<TaskRecord> expiredLeases(Instant now, int max) {
        return index.expiredLeases(null, now, max);
    }

    @Override
    public List<TaskRecord> expiredLeases(Collection<String> machines, Instant now, int max) {
        return index.expiredLeases(Set.copyOf(machines), now, max);
    }

    @Override
    public List<TaskRecord> due(String machine, Collection<String> states, Instant now, int max) {
        return index.due(machine, states, now, max);
    }

    @Override
    public @Nullable Instant nextDue(String machine, Collection<String> states, Instant now) {
        return index.nextDue(machine, states, now);
    }

    @Override
    public List<TaskRecord> leasedBy(String owner, int max) {
        return index.leasedBy(owner, max);
    }

    @Override
    public List<TaskRecord> peek(ClaimRequest request) {
        List<String> from = fromStates(request);
        index.ensureIndexed(request.machine(), from, ids.get());
        return index.peek(request, from);
    }

    @Override
    public int purge(String machine, Collection<String> states, Instant updatedBefore, int max) {
        java.util.Set<Long> parents = new java.util.HashSet<>();
        long last = ids.get();
        for (long id = 1; id <= last; id++) {
            Slot slot = tasks.get(id);
            if (slot != null && slot.task.parentId() != null) parents.add(slot.task.parentId());
        }
        int purged = 0;
        for (long id = 1; id <= last && purged < max; id++) {
            Slot slot = tasks.get(id);
            if (slot == null) continue;
            synchronized (slot) {
                TaskRecord t = slot.task;
                if (!t.machine().equals(machine) || !states.contains(t.state()) || t.lease() != null
                        || !t.updatedAt().isBefore(updatedBefore) || parents.contains(t.id())) {
                    continue;
                }
                index.reindex(t, t.toBuilder().state("\u0000purged").notBefore(null).build());   // drops it from every index
                tasks.remove(id);
                String key = t.idempotencyKey();
                if (key != null) creationKeys.remove(t.machine() + '\u0000' + key, t.id());
                purged++;
            }
        }
        return purged;
    }

    @Override
    public int leased(String queue) {
        return index.leased(queue);
    }

    @Override
    public boolean requestCancel(long taskId) {
        Slot slot = tasks.get(taskId);
        if (slot == null) return false;
        synchronized (slot) {
            slot.cancelRequested = true;
        }
        return true;
    }

    @Override
    public boolean cancelRequested(long taskId) {
        Slot slot = tasks.get(taskId);
        if (slot == null) return false;
        synchronized (slot) {
            return slot.cancelRequested;
        }
    }

    @Override
    public boolean reorder(long taskId, int priority, long sequence) {
        Slot slot = tasks.get(taskId);
        if (slot == null) return false;
        synchronized (slot) {
            TaskRecord old = slot.task;
            TaskRecord next = old.toBuilder().priority(priority).sequence(sequence).build();
            slot.task = next;
            index.reindex(old, next);
        }
        return true;
    }

    @Override
    public long nextSequence(boolean front) {
        return front ? frontSequences.decrementAndGet() : sequences.incrementAndGet();
    }

    // --- queues -----------------------------------------------------------------------------

    @Override
    public QueueRecord queue(String queue) {
        return queues.get(queue);
    }

    @Override
    public QueueRecord pauseQueue(String queue, @Nullable String reason) {
        return queues.pause(queue, reason);
    }

    @Override
    public QueueRecord resumeQueue(String queue) {
        return queues.resume(queue);
    }

    @Override
    public QueueRecord setConcurrency(String queue, int limit) {
        return queues.setConcurrency(queue, limit);
    }
}
