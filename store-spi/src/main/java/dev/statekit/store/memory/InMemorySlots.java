package dev.statekit.store.memory;

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
}
