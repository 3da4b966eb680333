package dev.statekit.store;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The indexes of an {@link InMemoryStore}: runnable candidates in claim order per (machine, queue,
 * state), lease-free tasks with a not-before time, and the leased tasks with a count per queue.
 *
 * <p>Concurrency: every structure is a concurrent one. {@link #reindex} is called by a writer that
 * holds the task's slot monitor, so the index entries of one task change under that monitor only;
 * readers tolerate entries that are a step behind and check the task itself. Candidates are kept
 * only for the states that claims and scans have asked about ({@link #ensureIndexed}), so a store
 * used without a runtime pays nothing for them.
 */
final class ClaimIndex {
    /** A task's place in the claim order: higher priority first, then lower sequence, then lower id. */
    record Key(int priority, long sequence, long id) implements Comparable<Key> {
        @Override
        public int compareTo(Key o) {
            if (priority != o.priority) return priority > o.priority ? -1 : 1;
            if (sequence != o.sequence) return sequence < o.sequence ? -1 : 1;
            return Long.compare(id, o.id);
        }
    }

    /** The candidates of one (machine, queue, state). */
    private record Group(String machine, String queue, String state) {}

    /** A lease-free task's not-before time. */
    record TimedKey(Instant notBefore, long id) {}

    static final Comparator<Key> CLAIM_ORDER = Comparator.naturalOrder();

    private final InMemorySlots slots;
    // machine -> states indexed for it (copy-on-write sets)
    private final ConcurrentHashMap<String, Set<String>> indexedStates = new ConcurrentHashMap<>();
    // (machine, queue, state) -> tasks in claim order
    private final ConcurrentHashMap<Group, ConcurrentSkipListSet<Key>> index = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Boolean> leasedIds = new ConcurrentHashMap<>();
    // lease-free tasks with a not-before time, earliest first
    private final ConcurrentSkipListSet<TimedKey> timed = new ConcurrentSkipListSet<>(
            Comparator.comparing(TimedKey::notBefore).thenComparingLong(TimedKey::id));
    private final ConcurrentHashMap<String, AtomicInteger> leasedPerQueue = new ConcurrentHashMap<>();

    private final java.util.function.Predicate<TaskRecord> held;

    /** Creates the indexes of {@code slots}; {@code held} tells whether a task is held by a group. */
    ClaimIndex(InMemorySlots slots, java.util.function.Predicate<TaskRecord> held) {
        this.slots = slots;
        this.held = held;
    }

    private static Group group(String machine, String queue, String state) {
        return new Group(machine, queue, state);
    }

    /** Keeps the indexes and the lease bookkeeping in step with one task; the caller holds its slot's monitor. */
    void reindex(@Nullable TaskRecord old, TaskRecord now) {
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
            if (oldTime != null) timed.remove(new TimedKey(oldTime, now.id()));
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
        return index.computeIfAbsent(group(t.machine(), t.queue(), t.state()), k -> new ConcurrentSkipListSet<>());      // natural order: the claim order
    }

    private AtomicInteger leasedCounter(String queue) {
        return leasedPerQueue.computeIfAbsent(queue, k -> new AtomicInteger());
    }

    /**
     * Makes sure {@code states} of {@code machine} are indexed, building the index once from every
     * task with an id up to {@code lastId}, read after the states are published: a task whose id
     * was taken before that read is scanned, one taken after it finds the states published when it
     * indexes itself.
     */
    void ensureIndexed(String machine, Collection<String> states, java.util.function.LongSupplier lastId) {
        Set<String> current = indexedStates.get(machine);
        if (current != null && current.containsAll(states)) return;
        synchronized (indexedStates) {
            current = indexedStates.getOrDefault(machine, Set.of());
            if (current.containsAll(states)) return;
            HashSet<String> merged = new HashSet<>(current);
            merged.addAll(states);
            indexedStates.put(machine, Set.copyOf(merged));
            // Publish first, then scan: a write after publication indexes itself; the scan takes each
            // slot's monitor, so it sees every write that happened before.
            long last = lastId.getAsLong();
            for (long id = 1; id <= last; id++) {
                InMemorySlots.Slot slot = slots.get(id);
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

    /** Returns the candidate sets of (machine, queue) for {@code states} that hold any task; {@link #ensureIndexed} first. */
    List<NavigableSet<Key>> candidates(String machine, String queue, Collection<String> states) {
        List<NavigableSet<Key>> sets = new ArrayList<>(states.size());
        for (String state : states) {
            ConcurrentSkipListSet<Key> set = index.get(group(machine, queue, state));
            if (set != null) sets.add(set);
        }
        return sets;
    }

    /** Returns the first key in claim order among {@code sets} whose task is runnable for {@code request}, or null. */
    @Nullable Key top(List<NavigableSet<Key>> sets, ClaimRequest request) {
        Key top = null;
        for (NavigableSet<Key> set : sets) top = better(top, firstRunnable(set, request));
        return top;
    }

    /** Returns the first key in claim order among {@code sets} below {@code priority} whose task is runnable, or null. */
    @Nullable Key lower(List<NavigableSet<Key>> sets, int priority, ClaimRequest request) {
        // the first key after every key of that priority
        Key bound = new Key(priority, Long.MAX_VALUE, Long.MAX_VALUE);
        Key lower = null;
        for (NavigableSet<Key> set : sets) lower = better(lower, firstRunnable(set.tailSet(bound, false), request));
        return lower;
    }

    private static @Nullable Key better(@Nullable Key a, @Nullable Key b) {
        if (b == null) return a;
        return a == null || CLAIM_ORDER.compare(b, a) < 0 ? b : a;
    }

    private @Nullable Key firstRunnable(NavigableSet<Key> keys, ClaimRequest request) {
        for (Key k : keys) if (runnable(k.id(), request)) return k;
        return null;
    }

    /**
     * Returns, without claiming them, the tasks {@code request} would claim next in claim order,
     * at most {@code request.max()}; {@link #ensureIndexed} first.
     */
    List<TaskRecord> peek(ClaimRequest request, Collection<String> states) {
        List<Key> keys = new ArrayList<>();
        for (NavigableSet<Key> set : candidates(request.machine(), request.queue(), states)) {
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
            InMemorySlots.Slot slot = slots.get(k.id());
            if (slot != null) result.add(slot.task);
        }
        return result;
    }

    /** Returns whether task {@code id} is runnable for {@code request} as it is stored now. */
    boolean runnable(long id, ClaimRequest request) {
        InMemorySlots.Slot slot = slots.get(id);
        if (slot == null) return false;
        TaskRecord t = slot.task;
        Instant nb = t.notBefore();
        return t.lease() == null && (nb == null || !nb.isAfter(request.now())) && request.ruleFor(t.state()) != null
                && t.queue().equals(request.queue()) && t.machine().equals(request.machine()) && !held.test(t);
    }

    // --- scans ---------------------------------------------------------------------------------

    /** Returns tasks (of {@code machines}, unless null) whose lease expired at or before {@code now}, oldest expiry first, at most {@code max}. */
    List<TaskRecord> expiredLeases(@Nullable Set<String> machines, Instant now, int max) {
        List<TaskRecord> expired = new ArrayList<>();
        for (Long id : leasedIds.keySet()) {
            InMemorySlots.Slot slot = slots.get(id);
            if (slot == null) continue;
            TaskRecord t = slot.task;
            Lease l = t.lease();
            if (l != null && !l.expiresAt().isAfter(now) && (machines == null || machines.contains(t.machine()))) expired.add(t);
        }
        expired.sort(Comparator.comparing((TaskRecord t) -> Objects.requireNonNull(t.lease()).expiresAt()).thenComparingLong(TaskRecord::id));
        return expired.size() <= max ? expired : List.copyOf(expired.subList(0, max));
    }

    /** Returns lease-free tasks of {@code machine} in {@code states} whose not-before time has come, earliest first. */
    List<TaskRecord> due(String machine, Collection<String> states, Instant now, int max) {
        List<TaskRecord> due = new ArrayList<>();
        for (TimedKey k : timed) {
            if (k.notBefore().isAfter(now) || due.size() >= max) break;
            InMemorySlots.Slot slot = slots.get(k.id());
            if (slot == null) continue;
            TaskRecord t = slot.task;
            Instant nb = t.notBefore();
            if (t.lease() == null && nb != null && !nb.isAfter(now) && t.machine().equals(machine) && states.contains(t.state())) {
                due.add(t);
            }
        }
        return due;
    }

    /** Returns the earliest not-before time after {@code now} of lease-free tasks of {@code machine} in {@code states}. */
    @Nullable Instant nextDue(String machine, Collection<String> states, Instant now) {
        for (TimedKey k : timed.tailSet(new TimedKey(now, Long.MAX_VALUE), false)) {
            InMemorySlots.Slot slot = slots.get(k.id());
            if (slot == null) continue;
            TaskRecord t = slot.task;
            Instant nb = t.notBefore();
            if (t.lease() == null && nb != null && nb.isAfter(now) && t.machine().equals(machine) && states.contains(t.state())) {
                return nb;
            }
        }
        return null;
    }

    /** Returns the tasks whose lease {@code owner} holds, by id, at most {@code max}. */
    List<TaskRecord> leasedBy(String owner, int max) {
        List<TaskRecord> held = new ArrayList<>();
        for (Long id : leasedIds.keySet()) {
            InMemorySlots.Slot slot = slots.get(id);
            if (slot == null) continue;
            Lease l = slot.task.lease();
            if (l != null && l.owner().equals(owner)) held.add(slot.task);
        }
        held.sort(Comparator.comparingLong(TaskRecord::id));
        return held.size() <= max ? held : List.copyOf(held.subList(0, max));
    }

    /** Returns how many tasks of {@code queue} hold a lease, expired or not. */
    int leased(String queue) {
        return leasedCounter(queue).get();
    }
}
