package dev.statekit.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * A thread-safe store that keeps everything in memory: the reference implementation of
 * {@link Store}, for tests, simulations and single-process hosts that need no durability.
 *
 * <p>Each task lives in a slot guarded by its own monitor, so writes to different tasks do not
 * contend; {@link #applyAll} locks the slots it touches in ascending id order.
 */
public final class InMemoryStore implements Store {

    /** The default payload limit, in characters. */
    public static final int DEFAULT_MAX_PAYLOAD_CHARS = 1 << 20;

    private final Slots tasks = new Slots();
    private final ConcurrentHashMap<String, Long> creationKeys = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final AtomicLong sequences = new AtomicLong();
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

    /** The mutable home of one task; every field is guarded by the slot's monitor. */
    private static final class Slot {
        volatile TaskRecord task;
        final ArrayList<HistoryEntry> history = new ArrayList<>(4);
        @Nullable HashMap<String, HistoryEntry> commands;

        Slot(TaskRecord task) {
            this.task = task;
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
    }

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
        tasks.put(id, new Slot(record));
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
            write(slot, change);
        }
        return ApplyResult.APPLIED;
    }

    @Override
    public ApplyResult applyAll(List<Change> changes) {
        if (changes.isEmpty()) throw new IllegalArgumentException("no changes to apply");
        if (changes.size() == 1) return apply(changes.get(0));
        Slot[] slots = new Slot[changes.size()];
        Change[] sorted = changes.toArray(new Change[0]);
        Arrays.sort(sorted, Comparator.comparingLong(c -> c.next().id()));
        for (int i = 0; i < sorted.length; i++) {
            if (i > 0 && sorted[i].next().id() == sorted[i - 1].next().id()) {
                throw new IllegalArgumentException("two changes for task " + sorted[i].next().id());
            }
        }
        for (Change c : changes) {
            if (tasks.get(c.next().id()) == null) return ApplyResult.notFound(c.next().id());
        }
        for (int i = 0; i < sorted.length; i++) slots[i] = tasks.get(sorted[i].next().id());
        return lockAndApply(slots, sorted, changes, 0);
    }

    // Monitors are taken in ascending id order, so two concurrent applyAll calls cannot deadlock.
    private ApplyResult lockAndApply(Slot[] slots, Change[] sorted, List<Change> original, int i) {
        if (i < slots.length) {
            synchronized (slots[i]) {
                return lockAndApply(slots, sorted, original, i + 1);
            }
        }
        for (Change c : original) {
            Slot slot = slots[indexOf(sorted, c)];
            ApplyResult refusal = check(slot, c);
            if (refusal != null) return refusal;
        }
        for (int j = 0; j < sorted.length; j++) write(slots[j], sorted[j]);
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

    private static void write(Slot slot, Change change) {
        slot.history.add(change.entry());
        String key = change.entry().commandKey();
        if (key != null) {
            if (slot.commands == null) slot.commands = new HashMap<>();
            slot.commands.put(key, change.entry());
        }
        slot.task = change.next();
    }

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
}
