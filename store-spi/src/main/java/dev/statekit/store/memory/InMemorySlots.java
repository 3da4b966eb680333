package dev.statekit.store.memory;

import dev.statekit.store.TaskQuery;

import dev.statekit.store.Page;

import java.util.List;

import java.time.Instant;

import dev.statekit.store.StateCount;

import dev.statekit.store.ClaimRule;

import dev.statekit.store.ErrorCode;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.StatekitException;
import dev.statekit.store.TaskRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * The tasks of an {@link InMemoryStore} by id. Ids are dense (1, 2, 3, ...), so a two-level array
 * finds a slot without hashing or boxing; pages are allocated on first use and published with a
 * CAS. Thread-safe; each slot's fields are guarded by the slot's own monitor.
 */
final class InMemorySlots {
    private static final int PAGE_BITS = 12;
    private static final int PAGE_SIZE = 1 << PAGE_BITS;
    private static final int MAX_PAGES = 1 << 19;

    /** The mutable home of one task; every field is guarded by the slot's monitor. */
    static final class Slot {
        volatile TaskRecord task;
        final ArrayList<HistoryEntry> history = new ArrayList<>(4);
        @Nullable HashMap<String, HistoryEntry> commands;
        boolean cancelRequested;

        Slot(TaskRecord task) {
            this.task = task;
        }
    }

    private final AtomicReferenceArray<@Nullable AtomicReferenceArray<@Nullable Slot>> pages =
            new AtomicReferenceArray<>(MAX_PAGES);

    /** Returns the slot of {@code id}, or null. */
    @Nullable Slot get(long id) {
        if (id <= 0) return null;
        long page = id >>> PAGE_BITS;
        if (page >= MAX_PAGES) return null;
        AtomicReferenceArray<@Nullable Slot> p = pages.get((int) page);
        return p == null ? null : p.get((int) (id & (PAGE_SIZE - 1)));
    }

    /** Publishes the slot of a new task. */
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

    /** Forgets the slot of a purged task. */
    void remove(long id) {
        long page = id >>> PAGE_BITS;
        if (page >= MAX_PAGES) return;
        AtomicReferenceArray<@Nullable Slot> p = pages.get((int) page);
        if (p != null) p.set((int) (id & (PAGE_SIZE - 1)), null);
    }

    /** Takes the monitors of {@code slots[i..]} in the order given (ascending ids), skipping nulls, then runs {@code body}. */
    static <T> T locked(@Nullable Slot[] slots, int i, java.util.function.Supplier<T> body) {
        if (i == slots.length) return body.get();
        Slot slot = slots[i];
        if (slot == null) return locked(slots, i + 1, body);
        synchronized (slot) {
            return locked(slots, i + 1, body);
        }
    }

    /**
     * Counts the tasks of ids 1 to {@code last} by machine, queue and state, with those holding a
     * lease and since when the longest-waiting ready one has been ready at {@code now}.
     */
    List<StateCount> counts(long last, Instant now) {
        java.util.Map<List<String>, long[]> counts = new HashMap<>();
        java.util.Map<List<String>, Instant> oldest = new HashMap<>();
        for (long id = 1; id <= last; id++) {
            Slot slot = get(id);
            if (slot == null) continue;
            TaskRecord t = slot.task;      // volatile: a snapshot, as a query reads it
            List<String> key = List.of(t.machine(), t.queue(), t.state());
            long[] c = counts.computeIfAbsent(key, k -> new long[2]);
            c[0]++;
            if (t.lease() != null) {
                c[1]++;
                continue;
            }
            Instant notBefore = t.notBefore();
            if (notBefore != null && notBefore.isAfter(now)) continue;
            oldest.merge(key, ClaimRule.readySince(t), (a, b) -> a.isBefore(b) ? a : b);
        }
        List<StateCount> result = new ArrayList<>(counts.size());
        counts.forEach((k, c) -> result.add(new StateCount(k.get(0), k.get(1), k.get(2), c[0], c[1], oldest.get(k))));
        result.sort(StateCount.ORDER);
        return result;
    }

    /** Returns one page of the tasks of ids up to {@code last} that match {@code query}, in id order. */
    Page<TaskRecord> query(long last, TaskQuery query) {
        ArrayList<TaskRecord> matching = new ArrayList<>();
        for (long id = query.afterId() + 1; id <= last && matching.size() <= query.limit(); id++) {
            Slot slot = get(id);
            if (slot != null && query.matches(slot.task)) matching.add(slot.task);
        }
        if (matching.size() <= query.limit()) return new Page<>(matching, null);
        List<TaskRecord> page = matching.subList(0, query.limit());
        return new Page<>(page, page.get(page.size() - 1).id());
    }

    /** Counts the history entries of tasks of ids 1 to {@code last} as {@link dev.statekit.store.Store#activity} describes. */
    List<dev.statekit.store.ActivityCount> activity(long last, Instant from, Instant to, java.time.Duration bucket) {
        dev.statekit.store.ActivityCount.requireWindow(from, to, bucket);
        java.util.Map<List<Object>, long[]> counts = new HashMap<>();
        for (long id = 1; id <= last; id++) {
            Slot slot = get(id);
            if (slot == null) continue;
            synchronized (slot) {
                TaskRecord t = slot.task;
                if (t.updatedAt().isBefore(from)) continue;      // its entries are all older
                for (HistoryEntry e : slot.history) {
                    if (e.at().isBefore(from) || !e.at().isBefore(to)) continue;
                    List<Object> key = List.of(t.machine(), t.queue(), e.event(), e.to(),
                            dev.statekit.store.ActivityCount.bucketOf(e.at(), bucket));
                    counts.computeIfAbsent(key, k -> new long[1])[0]++;
                }
            }
        }
        List<dev.statekit.store.ActivityCount> result = new ArrayList<>(counts.size());
        counts.forEach((k, c) -> result.add(new dev.statekit.store.ActivityCount((String) k.get(0), (String) k.get(1),
                (String) k.get(2), (String) k.get(3), (Instant) k.get(4), c[0])));
        result.sort(dev.statekit.store.ActivityCount.ORDER);
        return result;
    }
}
