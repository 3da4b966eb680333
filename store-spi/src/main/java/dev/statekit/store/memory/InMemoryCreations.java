package dev.statekit.store.memory;

import dev.statekit.store.CreateResult;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.GroupKind;
import dev.statekit.store.GroupWrite;
import dev.statekit.store.MemberState;
import dev.statekit.store.NewTask;
import dev.statekit.store.StatekitException;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.memory.InMemorySlots.Slot;
import dev.statekit.store.support.GroupLedger;
import dev.statekit.store.support.StoreChecks;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The creations of an {@link InMemoryStore}: new tasks with their ids, sequences, idempotency
 * keys and unique keys, under a parent's group or waiting on dependencies, and the group writes that create
 * children with their parent's change.
 *
 * <p>A creation takes the monitors of the parent (which keeps its group from being sealed
 * meanwhile) and of the dependencies (which keeps their states from changing between being counted
 * and the new task being registered as their dependent), all in ascending id order, as
 * {@code applyAll} takes them.
 */
final class InMemoryCreations {
    private final InMemorySlots tasks;
    private final ClaimIndex index;
    private final InMemoryGroups groups;
    private final int maxPayloadChars;
    private final ConcurrentHashMap<String, Long> creationKeys = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Long> uniqueKeys = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final AtomicLong sequences = new AtomicLong();
    private final AtomicLong frontSequences = new AtomicLong();

    InMemoryCreations(InMemorySlots tasks, ClaimIndex index, InMemoryGroups groups, int maxPayloadChars) {
        this.tasks = tasks;
        this.index = index;
        this.groups = groups;
        this.maxPayloadChars = maxPayloadChars;
    }

    /** Returns the largest id handed out so far. */
    long lastId() {
        return ids.get();
    }

    /** Returns the next sequence at the back of the queues, or (with {@code front}) ahead of every one so far. */
    long nextSequence(boolean front) {
        return front ? frontSequences.decrementAndGet() : sequences.incrementAndGet();
    }

    /** Creates one task, as {@link dev.statekit.store.Store#create} describes. */
    CreateResult create(NewTask spec) {
        for (long d : spec.dependsOn()) {
            if (d < 0) throw new IllegalArgumentException("a dependency on an earlier task of the list is only for createAll: " + d);
        }
        StoreChecks.checkPayload(spec, maxPayloadChars);
        Long parent = spec.parentId();
        TreeMap<Long, Slot> monitors = new TreeMap<>();
        Slot parentSlot = parent == null ? null : tasks.get(parent);
        if (parentSlot != null) monitors.put(parent, parentSlot);
        for (long d : spec.dependsOn()) monitors.put(d, dependency(d, tasks.get(d)));
        if (monitors.isEmpty()) return createUnder(spec, false);
        return InMemorySlots.locked(monitors.values().toArray(new Slot[0]), 0, () -> {
            for (long d : spec.dependsOn()) {
                if (tasks.get(d) != monitors.get(d)) dependency(d, null);     // purged before its monitor was taken
            }
            InMemoryGroups.Group g = parent == null ? null : groups.get(parent);
            if (g != null && g.kind == GroupKind.CHILDREN && g.sealed && !existing(spec)) {
                throw new StatekitException(ErrorCode.GROUP_SEALED, "the children of task " + parent + " are sealed");
            }
            return createUnder(spec, false);
        });
    }

    private static Slot dependency(long id, @Nullable Slot slot) {
        if (slot == null) throw new StatekitException(ErrorCode.UNKNOWN_DEPENDENCY, "task " + id + " does not exist");
        return slot;
    }

    /** Creates tasks in order, as {@link dev.statekit.store.Store#createAll} describes. */
    List<CreateResult> createAll(List<NewTask> specs) {
        List<CreateResult> results = new ArrayList<>(specs.size());
        for (NewTask spec : specs) {
            List<Long> deps = new ArrayList<>(spec.dependsOn().size());
            for (long d : spec.dependsOn()) {
                if (d > 0) deps.add(d);
                else if (-d <= results.size()) deps.add(results.get((int) -d - 1).task().id());
                else throw new StatekitException(ErrorCode.DEPENDENCY_CYCLE, "dependency " + d + " of task " + (results.size() + 1)
                        + " of the list names itself or a later task: the dependencies would form a cycle");
            }
            results.add(create(spec.withDependencies(deps)));
        }
        return results;
    }

    private boolean existing(NewTask spec) {
        String key = spec.idempotencyKey();
        return key != null && creationKeys.containsKey(spec.machine() + '\u0000' + key);
    }

    // The idempotency key first: it is recorded only when this call creates the task, not when a unique key turns it away.
    private CreateResult createUnder(NewTask spec, boolean countedByWrite) {
        String key = spec.idempotencyKey();
        if (key == null) return createUnique(spec, countedByWrite);
        CreateResult[] result = {null};
        Long id = creationKeys.computeIfAbsent(spec.machine() + '\u0000' + key, k -> {
            CreateResult r = createUnique(spec, countedByWrite);
            result[0] = r;
            return r.created() ? r.task().id() : null;
        });
        if (result[0] != null) return result[0];
        return new CreateResult(Objects.requireNonNull(tasks.get(Objects.requireNonNull(id))).task, false);
    }

    // The unique key is taken and the task inserted in one step of the key's map entry; a change that frees it removes the entry.
    private CreateResult createUnique(NewTask spec, boolean countedByWrite) {
        String key = spec.uniqueKey();
        if (key == null) return new CreateResult(insert(spec, countedByWrite), true);
        boolean[] created = {false};
        Long id = uniqueKeys.computeIfAbsent(spec.machine() + '\u0000' + key, k -> {
            created[0] = true;
            return insert(spec, countedByWrite).id();
        });
        return new CreateResult(Objects.requireNonNull(tasks.get(id)).task, created[0]);
    }

    /** Frees the unique key {@code t} holds; the caller holds its monitor and writes its next snapshot without the key. */
    void release(TaskRecord t) {
        String key = t.uniqueKey();
        if (key != null) uniqueKeys.remove(t.machine() + '\u0000' + key, t.id());
    }

    // A task with dependencies opens its own group of them, sealed and held, counted as locked: the caller holds their monitors.
    private TaskRecord insert(NewTask spec, boolean countedByWrite) {
        boolean waits = !spec.dependsOn().isEmpty();
        long id = ids.incrementAndGet();
        TaskRecord record = spec.toRecord(id, sequences.incrementAndGet());
        Slot slot = new Slot(record);
        synchronized (slot) {
            tasks.put(id, slot);
            index.reindex(null, record);
            groups.born(record);
            groups.changed(null, record, countedByWrite && !waits);
            if (waits) {
                InMemoryGroups.Group g = groups.open(id, record.machine(), GroupKind.DEPENDENCIES, spec.dependsOn());
                g.sealed = true;
                g.hold = true;
                for (long d : spec.dependsOn()) {
                    TaskRecord member = Objects.requireNonNull(tasks.get(d)).task;
                    g.total++;
                    g.count(new MemberState(member.machine(), member.state()), 1);
                }
                groups.mark(id, GroupLedger.Mark.LOOK);
            }
        }
        return record;
    }

    /** Checks a group write before anything is written; the caller holds the owner's monitor. */
    void checkGroupWrite(GroupWrite w) {
        InMemoryGroups.Group g = groups.get(w.parentId());
        if (g == null) return;
        if (g.kind != GroupKind.CHILDREN) {
            throw new StatekitException(ErrorCode.INVALID_ARGUMENT, "task " + w.parentId() + " waits on dependencies and cannot have a group of children");
        }
        if (g.sealed) {
            for (NewTask child : w.children()) {
                if (!existing(child)) throw new StatekitException(ErrorCode.GROUP_SEALED, "the children of task " + w.parentId() + " are sealed");
            }
        }
    }

    /** Writes a group write; the caller holds the owner's monitor. Children opened with the group are counted here, not by marks. */
    void writeGroup(GroupWrite w, TaskRecord owner) {
        InMemoryGroups.Group g = groups.get(w.parentId());
        if (g == null) g = groups.open(w.parentId(), owner.machine(), GroupKind.CHILDREN, List.of());
        for (NewTask child : w.children()) {
            CreateResult r = createUnder(child, true);
            if (r.created()) {
                g.total++;
                g.count(new MemberState(child.machine(), child.state()), 1);
            }
        }
        if (w.seal()) g.sealed = true;
        Boolean hold = w.hold();
        if (hold != null) g.hold = hold;
        groups.mark(w.parentId(), GroupLedger.Mark.LOOK);
    }

    /** Frees the idempotency key and the unique key of a task taken out of the store. */
    void forget(TaskRecord t) {
        String key = t.idempotencyKey();
        if (key != null) creationKeys.remove(t.machine() + '\u0000' + key, t.id());
        release(t);
    }
}
