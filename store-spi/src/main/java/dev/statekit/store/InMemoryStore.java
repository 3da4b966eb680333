package dev.statekit.store;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
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
 */
public final class InMemoryStore implements Store {

    /** The default payload limit, in characters. */
    public static final int DEFAULT_MAX_PAYLOAD_CHARS = 1 << 20;

    private static final Comparator<Key> CLAIM_ORDER = Comparator.comparingInt(Key::priority).reversed()
            .thenComparingLong(Key::sequence).thenComparingLong(Key::id);

    private final Slots tasks = new Slots();
    private final ConcurrentHashMap<String, Long> creationKeys = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final AtomicLong sequences = new AtomicLong();
    private final AtomicLong frontSequences = new AtomicLong();
    private final AtomicLong fencingTokens = new AtomicLong();
    private final int maxPayloadChars;

    // machine -> states indexed for it (copy-on-write sets)
    private final ConcurrentHashMap<String, Set<String>> indexedStates = new ConcurrentHashMap<>();
    // machine \0 queue \0 state -> tasks in claim order
    private final ConcurrentHashMap<String, ConcurrentSkipListSet<Key>> index = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Boolean> leasedIds = new ConcurrentHashMap<>();
    // lease-free tasks with a not-before time, earliest first
    private final ConcurrentSkipListSet<TimedKey> timed = new ConcurrentSkipListSet<>(
            Comparator.comparing(TimedKey::notBefore).thenComparingLong(TimedKey::id));
    private final ConcurrentHashMap<String, AtomicInteger> leasedPerQueue = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, QueueSlot> queues = new ConcurrentHashMap<>();

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

    /** A task's place in the claim order. */
    private record Key(int priority, long sequence, long id) {}

    /** A lease-free task's not-before time. */
    private record TimedKey(Instant notBefore, long id) {}

    /** The mutable home of one task; every field is guarded by the slot's monitor. */
    private static final class Slot {
        volatile TaskRecord task;
        final ArrayList<HistoryEntry> history = new ArrayList<>(4);
        @Nullable HashMap<String, HistoryEntry> commands;
        boolean cancelRequested;

        Slot(TaskRecord task) {
            this.task = task;
        }
    }

    /** The control record of one queue; its monitor serialises claims on the queue. */
    private static final class QueueSlot {
        volatile QueueRecord record;

        QueueSlot(QueueRecord record) {
            this.record = record;
        }
    }

    /**
     * Slots by id. Ids are dense (1, 2, 3, ...), so a two-level array finds a slot without
     * hashing or boxing; pages are allocated on first use and published with a CAS.
     */
    private static final class Slots {
        private static final int PAGE_BITS = 12;
        private static final int PAGE_SIZE = 1 << PAGE_BITS;
        private static final int MAX_PAGES = 1 << 19;
        private final AtomicReferenceArray<@Nullable AtomicReferenceArray<@Nullable Slot>> pages =
                new AtomicReferenceArray<>(MAX_PAGES);

        @Nullable Slot get(long id) {
            if (id <= 0) return null;
            long page = id >>> PAGE_BITS;
            if (page >= MAX_PAGES) return null;
            AtomicReferenceArray<@Nullable Slot> p = pages.get((int) page);
            return p == null ? null : p.get((int) (id & (PAGE_SIZE - 1)));
        }

        void put(long id, Slot slot) {
            long page = id >>> PAGE_BITS;
            if (page >= MAX_PAGES) {
                throw new StatekitException(ErrorCode.STORE_FAILURE, "the in-memory store holds at most "
                        + ((long) MAX_PAGES * PAGE_SIZE - 1) + " tasks");
            }
            AtomicReferenceArray<@Nullable Slot> p = pages.get((int) page);
            if (p == null) {
                pages.compareAndSet((int) page, null, new AtomicReferenceArray<>(PAGE_SIZE));
                p = Objects.requireNonNull(pages.get((int) page));
            }
            p.set((int) (id & (PAGE_SIZE - 1)), slot);
        }

        void remove(long id) {
            long page = id >>> PAGE_BITS;
            if (page >= MAX_PAGES) return;
            AtomicReferenceArray<@Nullable Slot> p = pages.get((int) page);
            if (p != null) p.set((int) (id & (PAGE_SIZE - 1)), null);
        }
    }

    // --- create, find, apply ----------------------------------------------------------------

    @Override
    public CreateResult create(NewTask spec) {
        String payload = spec.payload();
        if (payload != null && payload.length() > maxPayloadChars) {
            throw new StatekitException(ErrorCode.PAYLOAD_TOO_LARGE, "payload of " + payload.length()
                    + " chars exceeds the limit of " + maxPayloadChars + " for a new task of machine " + spec.machine());
        }
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
        TaskRecord record = new TaskRecord(id, spec.machine(), spec.machineVersion(), spec.state(), spec.queue(),
                spec.priority(), sequences.incrementAndGet(), spec.parentId(), 0, 0, null, spec.notBefore(), null,
                spec.attributes(), spec.payload(), spec.idempotencyKey(), spec.createdAt(), spec.createdAt(), 0);
        Slot slot = new Slot(record);
        synchronized (slot) {
            tasks.put(id, slot);
            reindex(null, record);
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
        Change[] sorted = changes.toArray(new Change[0]);
        Arrays.sort(sorted, Comparator.comparingLong(c -> c.next().id()));
        for (int i = 1; i < sorted.length; i++) {
            if (sorted[i].next().id() == sorted[i - 1].next().id()) {
                throw new IllegalArgumentException("two changes for task " + sorted[i].next().id());
            }
        }
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
        String payload = change.next().payload();
        if (payload != null && payload.length() > maxPayloadChars) {
            throw new StatekitException(ErrorCode.PAYLOAD_TOO_LARGE, "payload of " + payload.length()
                    + " chars exceeds the limit of " + maxPayloadChars, change.next().id(), null);
        }
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
        reindex(old, next);
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

    // --- index ------------------------------------------------------------------------------

    private static String group(String machine, String queue, String state) {
        return machine + '\u0000' + queue + '\u0000' + state;
    }

    /** Keeps the claim index and the lease bookkeeping in step with one task; caller holds its monitor. */
    private void reindex(@Nullable TaskRecord old, TaskRecord now) {
        Set<String> states = indexedStates.get(now.machine());
        if (states != null) {
            boolean sameKey = old != null && old.state().equals(now.state()) && old.queue().equals(now.queue())
                    && old.priority() == now.priority() && old.sequence() == now.sequence();
            if (!sameKey) {
                if (old != null && states.contains(old.state())) {
                    ConcurrentSkipListSet<Key> set = index.get(group(old.machine(), old.queue(), old.state()));
                    if (set != null) set.remove(new Key(old.priority(), old.sequence(), old.id()));
                }
                if (states.contains(now.state())) indexSet(now).add(new Key(now.priority(), now.sequence(), now.id()));
            }
        }
        Instant oldTime = old == null || old.lease() != null ? null : old.notBefore();
        Instant newTime = now.lease() != null ? null : now.notBefore();
        if (oldTime != newTime && (oldTime == null || !oldTime.equals(newTime))) {
            if (oldTime != null) timed.remove(new TimedKey(oldTime, old.id()));
            if (newTime != null) timed.add(new TimedKey(newTime, now.id()));
        }
        boolean wasLeased = old != null && old.lease() != null;
        boolean isLeased = now.lease() != null;
        if (wasLeased != isLeased || (old != null && isLeased && !old.queue().equals(now.queue()))) {
            if (wasLeased) {
                leasedIds.remove(old.id());
                leasedCounter(old.queue()).decrementAndGet();
            }
            if (isLeased) {
                leasedIds.put(now.id(), Boolean.TRUE);
                leasedCounter(now.queue()).incrementAndGet();
            }
        }
    }

    private ConcurrentSkipListSet<Key> indexSet(TaskRecord t) {
        return index.computeIfAbsent(group(t.machine(), t.queue(), t.state()), k -> new ConcurrentSkipListSet<>(CLAIM_ORDER));
    }

    private AtomicInteger leasedCounter(String queue) {
        return leasedPerQueue.computeIfAbsent(queue, k -> new AtomicInteger());
    }

    /** Makes sure {@code states} of {@code machine} are indexed, building the index once from every task. */
    private void ensureIndexed(String machine, Collection<String> states) {
        Set<String> current = indexedStates.get(machine);
        if (current != null && current.containsAll(states)) return;
        synchronized (indexedStates) {
            current = indexedStates.getOrDefault(machine, Set.of());
            if (current.containsAll(states)) return;
            java.util.HashSet<String> merged = new java.util.HashSet<>(current);
            merged.addAll(states);
            indexedStates.put(machine, Set.copyOf(merged));
            // Publish first, then scan: a write after publication indexes itself; the scan takes each
            // slot's monitor, so it sees every write that happened before.
            long last = ids.get();
            for (long id = 1; id <= last; id++) {
                Slot slot = tasks.get(id);
                if (slot == null) continue;
                synchronized (slot) {
                    TaskRecord t = slot.task;
                    if (t.machine().equals(machine) && states.contains(t.state())) {
                        indexSet(t).add(new Key(t.priority(), t.sequence(), t.id()));
                    }
                }
            }
        }
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

    private QueueSlot queueSlot(String queue) {
        return queues.computeIfAbsent(queue, q -> new QueueSlot(QueueRecord.defaults(q)));
    }

    @Override
    public List<Claimed> claim(ClaimRequest request) {
        List<String> from = new ArrayList<>();
        for (ClaimRule r : request.rules()) from.add(r.from());
        ensureIndexed(request.machine(), from);
        QueueSlot qs = queueSlot(request.queue());
        List<Claimed> claimed = new ArrayList<>();
        synchronized (qs) {
            QueueRecord q = qs.record;
            if (q.paused()) return List.of();
            int room = request.max();
            if (q.concurrency() > 0) room = Math.min(room, q.concurrency() - leasedCounter(request.queue()).get());
            List<ConcurrentSkipListSet<Key>> sets = new ArrayList<>();
            for (String state : from) {
                ConcurrentSkipListSet<Key> set = index.get(group(request.machine(), request.queue(), state));
                if (set != null) sets.add(set);
            }
            int skipped = q.skippedLower();
            while (room > 0) {
                Key top = null;
                for (ConcurrentSkipListSet<Key> set : sets) top = better(top, firstRunnable(set, request));
                if (top == null) break;
                // the best runnable task of a lower priority: the first one after every key of top's priority
                Key bound = new Key(top.priority(), Long.MAX_VALUE, Long.MAX_VALUE);
                Key lower = null;
                for (ConcurrentSkipListSet<Key> set : sets) lower = better(lower, firstRunnable(set.tailSet(bound, false), request));
                Key pick = top;
                if (lower != null && request.starvationLimit() > 0 && skipped >= request.starvationLimit()) {
                    pick = lower;
                    skipped = 0;
                } else {
                    skipped = lower != null ? skipped + 1 : 0;
                }
                Claimed t = claimOne(pick.id(), request);
                if (t != null) {
                    claimed.add(t);
                    room--;
                }
            }
            if (skipped != q.skippedLower()) {
                qs.record = new QueueRecord(q.name(), q.paused(), q.pauseReason(), q.concurrency(), skipped);
            }
        }
        return claimed;
    }

    private static @Nullable Key better(@Nullable Key a, @Nullable Key b) {
        if (b == null) return a;
        return a == null || CLAIM_ORDER.compare(b, a) < 0 ? b : a;
    }

    private @Nullable Key firstRunnable(java.util.NavigableSet<Key> keys, ClaimRequest request) {
        for (Key k : keys) if (runnable(k.id(), request)) return k;
        return null;
    }

    private boolean runnable(long id, ClaimRequest request) {
        Slot slot = tasks.get(id);
        if (slot == null) return false;
        TaskRecord t = slot.task;
        Instant nb = t.notBefore();
        return t.lease() == null && (nb == null || !nb.isAfter(request.now())) && request.ruleFor(t.state()) != null
                && t.queue().equals(request.queue()) && t.machine().equals(request.machine());
    }

    private @Nullable Claimed claimOne(long id, ClaimRequest request) {
        Slot slot = Objects.requireNonNull(tasks.get(id));
        synchronized (slot) {
            if (!runnable(id, request)) return null;
            TaskRecord t = slot.task;
            ClaimRule rule = Objects.requireNonNull(request.ruleFor(t.state()));
            Instant now = request.now();
            Instant at = t.updatedAt().isAfter(now) ? t.updatedAt() : now;      // history never goes backwards
            TaskRecord next = t.toBuilder()
                    .state(rule.to())
                    .attributes(rule.attributesOf(t))
                    .lease(new Lease(request.owner(), fencingTokens.incrementAndGet(), now.plus(request.leaseDuration())))
                    .attempts(t.attempts() + 1)
                    .notBefore(null)
                    .updatedAt(at)
                    .version(t.version() + 1)
                    .build();
            HistoryEntry entry = new HistoryEntry(id, next.version(), t.state(), rule.to(), rule.event(),
                    TriggerSource.SYSTEM, request.owner(), "claimed", at, null);
            slot.cancelRequested = false;
            write(slot, next, entry, false);
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
        List<TaskRecord> expired = new ArrayList<>();
        for (Long id : leasedIds.keySet()) {
            Slot slot = tasks.get(id);
            if (slot == null) continue;
            TaskRecord t = slot.task;
            Lease l = t.lease();
            if (l != null && !l.expiresAt().isAfter(now)) expired.add(t);
        }
        expired.sort(Comparator.comparing((TaskRecord t) -> Objects.requireNonNull(t.lease()).expiresAt()).thenComparingLong(TaskRecord::id));
        return expired.size() <= max ? expired : List.copyOf(expired.subList(0, max));
    }

    @Override
    public List<TaskRecord> due(String machine, Collection<String> states, Instant now, int max) {
        List<TaskRecord> due = new ArrayList<>();
        for (TimedKey k : timed) {
            if (k.notBefore().isAfter(now) || due.size() >= max) break;
            Slot slot = tasks.get(k.id());
            if (slot == null) continue;
            TaskRecord t = slot.task;
            Instant nb = t.notBefore();
            if (t.lease() == null && nb != null && !nb.isAfter(now) && t.machine().equals(machine) && states.contains(t.state())) {
                due.add(t);
            }
        }
        return due;
    }

    @Override
    public @Nullable Instant nextDue(String machine, Collection<String> states, Instant now) {
        for (TimedKey k : timed.tailSet(new TimedKey(now, Long.MAX_VALUE), false)) {
            Slot slot = tasks.get(k.id());
            if (slot == null) continue;
            TaskRecord t = slot.task;
            Instant nb = t.notBefore();
            if (t.lease() == null && nb != null && nb.isAfter(now) && t.machine().equals(machine) && states.contains(t.state())) {
                return nb;
            }
        }
        return null;
    }

    @Override
    public List<TaskRecord> leasedBy(String owner, int max) {
        List<TaskRecord> held = new ArrayList<>();
        for (Long id : leasedIds.keySet()) {
            Slot slot = tasks.get(id);
            if (slot == null) continue;
            Lease l = slot.task.lease();
            if (l != null && l.owner().equals(owner)) held.add(slot.task);
        }
        held.sort(Comparator.comparingLong(TaskRecord::id));
        return held.size() <= max ? held : List.copyOf(held.subList(0, max));
    }

    @Override
    public List<TaskRecord> peek(ClaimRequest request) {
        List<String> from = new ArrayList<>();
        for (ClaimRule r : request.rules()) from.add(r.from());
        ensureIndexed(request.machine(), from);
        List<Key> keys = new ArrayList<>();
        for (String state : from) {
            ConcurrentSkipListSet<Key> set = index.get(group(request.machine(), request.queue(), state));
            if (set == null) continue;
            int taken = 0;
            for (Key k : set) {
                if (!runnable(k.id(), request)) continue;
                keys.add(k);
                if (++taken >= request.max()) break;
            }
        }
        keys.sort(CLAIM_ORDER);
        List<TaskRecord> result = new ArrayList<>();
        for (Key k : keys) {
            if (result.size() >= request.max()) break;
            Slot slot = tasks.get(k.id());
            if (slot != null) result.add(slot.task);
        }
        return result;
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
                reindex(t, t.toBuilder().state("\u0000purged").notBefore(null).build());   // drops it from every index
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
        return leasedCounter(queue).get();
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
            reindex(old, next);
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
        return queueSlot(queue).record;
    }

    @Override
    public QueueRecord pauseQueue(String queue, @Nullable String reason) {
        return updateQueue(queue, q -> new QueueRecord(q.name(), true, reason, q.concurrency(), q.skippedLower()));
    }

    @Override
    public QueueRecord resumeQueue(String queue) {
        return updateQueue(queue, q -> new QueueRecord(q.name(), false, null, q.concurrency(), q.skippedLower()));
    }

    @Override
    public QueueRecord setConcurrency(String queue, int limit) {
        if (limit < 0) throw new IllegalArgumentException("concurrency limit must be >= 0, was " + limit);
        return updateQueue(queue, q -> new QueueRecord(q.name(), q.paused(), q.pauseReason(), limit, q.skippedLower()));
    }

    private QueueRecord updateQueue(String queue, java.util.function.UnaryOperator<QueueRecord> change) {
        QueueSlot qs = queueSlot(queue);
        synchronized (qs) {
            qs.record = change.apply(qs.record);
            return qs.record;
        }
    }
}
