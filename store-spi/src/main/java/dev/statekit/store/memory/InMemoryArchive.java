package dev.statekit.store.memory;

import java.util.Collection;

import dev.statekit.store.ArchivedTask;
import dev.statekit.store.RetentionRequest;
import dev.statekit.store.RetentionResult;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.memory.InMemorySlots.Slot;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import org.jspecify.annotations.Nullable;

/**
 * The retention of an {@link InMemoryStore}: finished trees taken out of the hot slots, into an
 * archive kept in memory or nowhere, and archived trees deleted again.
 *
 * <p>A tree is locked whole, its slots' monitors in ascending id order (as {@code applyAll} takes
 * them), and checked again under the locks: still in the hot slots, still the same tree (no child
 * was born since it was read: a creation holds its parent's monitor), every task movable, no marks,
 * no dependent outside the tree. Two batches that meet on a tree take it in turn, and the second
 * finds it gone. The archive's maps change only under {@link #lock}, taken inside slot monitors and
 * never the other way round, so a tree enters and leaves the archive whole.
 */
final class InMemoryArchive {
    private final InMemoryStore store;
    private final InMemorySlots tasks;
    private final InMemoryGroups groups;
    private final Object lock = new Object();
    /** The archived tasks by id; guarded by {@link #lock} for writes. */
    private final ConcurrentHashMap<Long, ArchivedTask> archived = new ConcurrentHashMap<>();
    /** The members of each archived tree by root id, in the order archived; guarded by {@link #lock}. */
    private final ConcurrentSkipListMap<Long, List<Long>> trees = new ConcurrentSkipListMap<>();

    InMemoryArchive(InMemoryStore store, InMemorySlots tasks, InMemoryGroups groups) {
        this.store = store;
        this.tasks = tasks;
        this.groups = groups;
    }

    /** Takes up to {@code request.max()} trees out of the hot slots: into the archive at {@code archivedAt}, or nowhere when it is null. */
    RetentionResult move(RetentionRequest request, @Nullable Instant archivedAt) {
        Set<Long> chosen = request.roots();
        List<Long> candidates = new ArrayList<>();
        if (chosen != null) {
            candidates.addAll(new TreeSet<>(chosen));
        } else {
            for (long id = 1, last = store.lastId(); id <= last; id++) candidates.add(id);
        }
        int trees = 0;
        int moved = 0;
        for (int c = 0; c < candidates.size() && trees < request.max(); c++) {
            long root = candidates.get(c);
            Slot slot = tasks.get(root);
            if (slot == null || !request.isRoot(slot.task)) continue;     // a first look without the monitor
            TreeSet<Long> tree = subtree(root);
            @Nullable Slot[] slots = new Slot[tree.size()];
            int i = 0;
            for (long member : tree) slots[i++] = tasks.get(member);
            int n = InMemorySlots.locked(slots, 0, () -> moveLocked(request, root, tree, slots, archivedAt));
            if (n > 0) {
                trees++;
                moved += n;
            }
        }
        return new RetentionResult(trees, moved);
    }

    /** Returns the ids of {@code root} and every descendant as registered now. */
    private TreeSet<Long> subtree(long root) {
        TreeSet<Long> tree = new TreeSet<>();
        ArrayDeque<Long> next = new ArrayDeque<>();
        next.add(root);
        while (!next.isEmpty()) {
            long id = next.poll();
            if (tree.add(id)) next.addAll(groups.childrenOf(id));
        }
        return tree;
    }

    // The caller holds the monitors of every slot of the tree; returns how many tasks moved (0: the tree stays).
    private int moveLocked(RetentionRequest request, long root, TreeSet<Long> tree, @Nullable Slot[] slots, @Nullable Instant archivedAt) {
        int i = 0;
        for (long member : tree) {
            Slot slot = slots[i++];
            if (slot == null || tasks.get(member) != slot) return 0;          // gone or moved since it was read
        }
        if (!subtree(root).equals(tree)) return 0;                             // a child was born before the monitors were taken
        Slot rootSlot = tasks.get(root);
        if (rootSlot == null || !request.isRoot(rootSlot.task)) return 0;
        for (Slot slot : slots) {
            TaskRecord t = java.util.Objects.requireNonNull(slot).task;
            if (!request.isMovable(t) || groups.hasMarks(t.id()) || groups.isDependencyOutside(t.id(), tree)) return 0;
        }
        if (archivedAt != null) keep(root, slots, archivedAt);
        for (int k = slots.length - 1; k >= 0; k--) store.forget(java.util.Objects.requireNonNull(slots[k]).task);   // children first
        return slots.length;
    }

    private void keep(long root, @Nullable Slot[] slots, Instant archivedAt) {
        List<Long> members = new ArrayList<>(slots.length);
        synchronized (lock) {
            for (Slot slot : slots) {
                Slot s = java.util.Objects.requireNonNull(slot);
                TaskRecord t = s.task;
                archived.put(t.id(), new ArchivedTask(t, s.history, root, archivedAt));
                members.add(t.id());
            }
            trees.put(root, List.copyOf(members));
        }
    }

    Optional<ArchivedTask> find(long id) {
        return Optional.ofNullable(archived.get(id));
    }

    /** Deletes up to {@code max} archived trees of {@code machine} archived before {@code archivedBefore}, lowest root first. */
    RetentionResult purge(String machine, Instant archivedBefore, int max) {
        java.util.Objects.requireNonNull(machine, "machine");
        java.util.Objects.requireNonNull(archivedBefore, "archivedBefore");
        if (max <= 0) throw new IllegalArgumentException("max must be positive, was " + max);
        int deletedTrees = 0;
        int deleted = 0;
        synchronized (lock) {
            Set<Long> done = new HashSet<>();
            for (Map.Entry<Long, List<Long>> tree : trees.entrySet()) {
                if (deletedTrees >= max) break;
                ArchivedTask root = archived.get(tree.getKey());
                if (root == null || !root.task().machine().equals(machine) || !root.archivedAt().isBefore(archivedBefore)) continue;
                for (long member : tree.getValue()) if (archived.remove(member) != null) deleted++;
                done.add(tree.getKey());
                deletedTrees++;
            }
            for (long root : done) trees.remove(root);
        }
        return new RetentionResult(deletedTrees, deleted);
    }

    /** Deletes up to {@code max} tasks of {@code machine} in {@code states} last changed before {@code updatedBefore} ({@code Store.purge}). */
    int purge(String machine, Collection<String> states, Instant updatedBefore, int max) {
        long last = store.lastId();
        int purged = 0;
        for (long id = 1; id <= last && purged < max; id++) {
            Slot slot = tasks.get(id);
            if (slot == null) continue;
            synchronized (slot) {
                TaskRecord t = slot.task;
                if (!t.machine().equals(machine) || !states.contains(t.state()) || t.lease() != null
                        || !t.updatedAt().isBefore(updatedBefore) || groups.hasChildren(t.id()) || groups.hasMarks(t.id())
                        || groups.isDependency(t.id())) {
                    continue;
                }
                store.forget(t);
                purged++;
            }
        }
        return purged;
    }
}
