package dev.statekit.store.memory;

import dev.statekit.store.ClaimRequest;
import dev.statekit.store.Lease;
import dev.statekit.store.TaskRecord;
import java.time.Instant;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
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
    private final ConcurrentHashMap<Group, ConcurrentSkipListMap<Key, Boolean>> index = new ConcurrentHashMap<>();
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
                    ConcurrentSkipListMap<Key, Boolean> set = index.get(group(old.machine(), old.queue(), old.state()));
                    if (set != null) set.remove(new Key(old.priority(), old.sequence(), old.id()));
                }
                if (states.contains(now.state())) indexSet(now).put(new Key(now.priority(), now.sequence(), now.id()), Boolean.TRUE);
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

    private ConcurrentSkipListMap<Key, Boolean> indexSet(TaskRecord t) {
        return index.computeIfAbsent(group(t.machine(), t.queue(), t.state()), k -> new ConcurrentSkipListMap<>());      // natural order: the claim order
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
            // Publish first, then scan: a write after publication indexes itself; the scan reads each
            // task under its slot's monitor, so it sees every write that happened before.
            HashMap<Group, ArrayList<Key>> found = new HashMap<>();
            long last = lastId.getAsLong();
            for (long id = 1; id <= last; id++) {
                InMemorySlots.Slot slot = slots.get(id);
                if (slot == null) continue;
                synchronized (slot) {
                    TaskRecord t = slot.task;
                    if (t.machine().equals(machine) && states.contains(t.state())) {
                        found.computeIfAbsent(group(t.machine(), t.queue(), t.state()), g -> new ArrayList<>())
                                .add(new Key(t.priority(), t.sequence(), t.id()));
                    }
                }
            }
            for (Map.Entry<Group, ArrayList<Key>> e : found.entrySet()) addScanned(e.getKey(), e.getValue());
        }
    }

    /**
     * Adds the keys a scan found for group {@code g}. When no writer has made the group's set yet,
     * the set is built at once from the sorted keys (in linear time, where adding them one by one
     * costs a search each) and published; then each key is checked again under its task's monitor and
     * dropped if the task changed since the scan (a write between the scan and the publication found
     * no set to drop it from). Into a set writers made meanwhile, each key goes under its task's
     * monitor if the task still has it.
     */
    private void addScanned(Group g, List<Key> keys) {
        keys.sort(null);
        ConcurrentSkipListMap<Key, Boolean> built = new ConcurrentSkipListMap<>(new SortedKeys(keys));
        ConcurrentSkipListMap<Key, Boolean> live = index.putIfAbsent(g, built);
        for (Key k : keys) {
            InMemorySlots.Slot slot = slots.get(k.id());
            if (slot == null) {                  // purged since the scan
                if (live == null) built.remove(k);
                continue;
            }
            synchronized (slot) {
                boolean still = has(slot.task, g, k);
                if (live == null) {
                    if (!still) built.remove(k);
                } else if (still) {
                    live.put(k, Boolean.TRUE);
                }
            }
        }
    }

    private static boolean has(TaskRecord t, Group g, Key k) {
        return t.priority() == k.priority() && t.sequence() == k.sequence() && t.state().equals(g.state())
                && t.queue().equals(g.queue()) && t.machine().equals(g.machine());
    }

    /** Sorted keys seen as the sorted map {@link ConcurrentSkipListMap}'s copy constructor builds from in one pass. */
    private static final class SortedKeys extends AbstractMap<Key, Boolean> implements SortedMap<Key, Boolean> {
        private final List<Key> keys;

        SortedKeys(List<Key> keys) {
            this.keys = keys;
        }

        @Override
        public @Nullable Comparator<? super Key> comparator() {
            return null;       // natural order: the claim order
        }

        @Override
        public Set<Map.Entry<Key, Boolean>> entrySet() {
            return new AbstractSet<>() {
                @Override
                public int size() {
                    return keys.size();
                }

                @Override
                public Iterator<Map.Entry<Key, Boolean>> iterator() {
                    Iterator<Key> it = keys.iterator();
                    return new Iterator<>() {
                        @Override
                        public boolean hasNext() {
                            return it.hasNext();
                        }

                        @Override
                        public Map.Entry<Key, Boolean> next() {
                            return new AbstractMap.SimpleImmutableEntry<>(it.next(), Boolean.TRUE);
                        }
                    };
                }
            };
        }

        @Override
        public Key firstKey() {
            if (keys.isEmpty()) throw new java.util.NoSuchElementException();
            return keys.get(0);
        }

        @Override
        public Key lastKey() {
            if (keys.isEmpty()) throw new java.util.NoSuchElementException();
            return keys.get(keys.size() - 1);
        }

        @Override
        public SortedMap<Key, Boolean> subMap(Key from, Key to) {
            throw new UnsupportedOperationException();
        }

        @Override
        public SortedMap<Key, Boolean> headMap(Key to) {
            throw new UnsupportedOperationException();
        }

        @Override
        public SortedMap<Key, Boolean> tailMap(Key from) {
            throw new UnsupportedOperationException();
        }
    }

    /** Returns the candidate sets of (machine, queue) for {@code states} that hold any task; {@link #ensureIndexed} first. */
    List<NavigableSet<Key>> candidates(String machine, String queue, Collection<String> states) {
        List<NavigableSet<Key>> sets = new ArrayList<>(states.size());
        for (String state : states) {
            ConcurrentSkipListMap<Key, Boolean> set = index.get(group(machine, queue, state));
            if (set != null) sets.add(set.keySet());
        }
        return sets;
    }

    /** Returns the first key in claim order among {@code sets} whose task is runnable for {@code request}, or null. */
    @Nullable Key top(List<NavigableSet<Key>> sets, ClaimRequest request, Set<Long> passed) {
        Key top = null;
        for (NavigableSet<Key> set : sets) top = better(top, firstRunnable(set, request, passed));
        return top;
    }

    /** Returns the first key in claim order among {@code sets} below {@code priority} whose task is runnable, or null. */
    @Nullable Key lower(List<NavigableSet<Key>> sets, int priority, ClaimRequest request, Set<Long> passed) {
        // the first key after every key of that priority
        Key bound = new Key(priority, Long.MAX_VALUE, Long.MAX_VALUE);
        Key lower = null;
        for (NavigableSet<Key> set : sets) lower = better(lower, firstRunnable(set.tailSet(bound, false), request, passed));
        return lower;
    }

    private static @Nullable Key better(@Nullable Key a, @Nullable Key b) {
        if (b == null) return a;
        return a == null || CLAIM_ORDER.compare(b, a) < 0 ? b : a;
    }

    private @Nullable Key firstRunnable(NavigableSet<Key> keys, ClaimRequest request, Set<Long> passed) {
        for (Key k : keys) if (!passed.contains(k.id()) && runnable(k.id(), request)) return k;
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
