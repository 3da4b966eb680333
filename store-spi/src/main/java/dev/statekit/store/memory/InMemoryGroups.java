package dev.statekit.store.memory;

import dev.statekit.store.GroupKind;
import dev.statekit.store.GroupRecord;
import dev.statekit.store.MemberState;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.support.GroupLedger.Mark;
import dev.statekit.store.support.GroupLedger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The groups of an {@link InMemoryStore}: each group's record, the marks its members' changes
 * left for the resolver, and which tasks each task's dependents are.
 *
 * <p>A group's record is changed only with its owner's slot monitor held; marks are appended with
 * the changed task's slot monitor held, so the marks of one task are queued in the order of its
 * changes, and a pass that drains an owner's queue takes a prefix of every member's changes.
 * Passes are serialised by one lock.
 */
final class InMemoryGroups {

    /** One group; guarded by its owner's slot monitor. */
    static final class Group {
        final long ownerId;
        final String ownerMachine;
        final GroupKind kind;
        final List<Long> dependencies;
        boolean sealed;
        long total;
        final HashMap<MemberState, Long> counts = new HashMap<>();
        @Nullable String resolution;
        volatile boolean hold;
        boolean awaiting;
        long checked;

        Group(long ownerId, String ownerMachine, GroupKind kind, List<Long> dependencies) {
            this.ownerId = ownerId;
            this.ownerMachine = ownerMachine;
            this.kind = kind;
            this.dependencies = List.copyOf(dependencies);
        }

        GroupRecord record() {
            return new GroupRecord(ownerId, kind, sealed, total, counts, resolution, hold, awaiting);
        }

        void count(MemberState state, long delta) {
            counts.merge(state, delta, Long::sum);
            if (counts.get(state) == 0) counts.remove(state);
        }
    }

    private final ConcurrentHashMap<Long, Group> groups = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Set<Long>> dependents = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, java.util.concurrent.ConcurrentSkipListSet<Long>> children = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, ConcurrentLinkedQueue<Mark>> marks = new ConcurrentHashMap<>();
    private final LinkedHashSet<Long> dirty = new LinkedHashSet<>();   // guarded by itself
    private final AtomicLong pending = new AtomicLong();
    private final AtomicLong passes = new AtomicLong();
    final Object passLock = new Object();

    @Nullable Group get(long ownerId) {
        return groups.get(ownerId);
    }

    /** Returns whether {@code task} may not be claimed: its parent holds its children, or its dependencies hold it. */
    boolean held(TaskRecord task) {
        Long parentId = task.parentId();
        if (parentId != null) {
            Group p = groups.get(parentId);
            if (p != null && p.hold && p.kind == GroupKind.CHILDREN) return true;
        }
        Group own = groups.get(task.id());
        return own != null && own.hold && own.kind == GroupKind.DEPENDENCIES;
    }

    /** Opens a group; the caller holds the owner's slot monitor. */
    Group open(long ownerId, String ownerMachine, GroupKind kind, List<Long> dependencies) {
        Group g = new Group(ownerId, ownerMachine, kind, dependencies);
        groups.put(ownerId, g);
        for (long d : dependencies) dependents.computeIfAbsent(d, k -> new CopyOnWriteArraySet<>()).add(ownerId);
        return g;
    }

    /** Records a new task under its parent. */
    void born(TaskRecord child) {
        Long parent = child.parentId();
        if (parent != null) children.computeIfAbsent(parent, k -> new java.util.concurrent.ConcurrentSkipListSet<>()).add(child.id());
    }

    boolean hasChildren(long id) {
        Set<Long> c = children.get(id);
        return c != null && !c.isEmpty();
    }

    /** Returns the ids of the members of {@code g}, ascending. */
    java.util.NavigableSet<Long> members(Group g) {
        if (g.kind == GroupKind.DEPENDENCIES) return new java.util.TreeSet<>(g.dependencies);
        java.util.NavigableSet<Long> c = children.get(g.ownerId);
        return c == null ? new java.util.TreeSet<>() : c;
    }

    /**
     * Records the marks of one write of {@code now} (created when {@code old} is null), by the rule
     * of {@link GroupLedger#marks}; the caller holds its slot monitor.
     */
    void changed(@Nullable TaskRecord old, TaskRecord now, boolean countedByWrite) {
        for (GroupLedger.Marked m : GroupLedger.marks(old, now, countedByWrite, owners)) mark(m.ownerId(), m.mark());
    }

    /** The groups as {@link GroupLedger#marks} asks about them. */
    private final GroupLedger.Owners owners = new GroupLedger.Owners() {
        @Override
        public boolean ownsChildren(long taskId) {
            Group g = groups.get(taskId);
            return g != null && g.kind == GroupKind.CHILDREN;
        }

        @Override
        public Collection<Long> dependents(long taskId) {
            Set<Long> owners = dependents.get(taskId);
            return owners == null ? List.of() : owners;
        }

        @Override
        public boolean ownsGroup(long taskId) {
            return groups.containsKey(taskId);
        }
    };

    void mark(long ownerId, Mark mark) {
        marks.computeIfAbsent(ownerId, k -> new ConcurrentLinkedQueue<>()).add(mark);
        pending.incrementAndGet();
        synchronized (dirty) {
            dirty.add(ownerId);
        }
    }

    long pending() {
        return pending.get();
    }

    boolean hasMarks(long ownerId) {
        ConcurrentLinkedQueue<Mark> q = marks.get(ownerId);
        return q != null && !q.isEmpty();
    }

    /** Returns the children of {@code id} as registered now (empty if none), ascending. */
    java.util.NavigableSet<Long> childrenOf(long id) {
        java.util.NavigableSet<Long> c = children.get(id);
        return c == null ? new java.util.TreeSet<>() : c;
    }

    /** Returns whether a task that still owns its group depends on {@code taskId}, other than those in {@code besides}. */
    boolean isDependencyOutside(long taskId, Set<Long> besides) {
        Set<Long> owners = dependents.get(taskId);
        if (owners == null) return false;
        for (long o : owners) if (groups.containsKey(o) && !besides.contains(o)) return true;
        return false;
    }

    boolean isDependency(long taskId) {
        Set<Long> owners = dependents.get(taskId);
        if (owners == null) return false;
        for (long o : owners) if (groups.containsKey(o)) return true;
        return false;
    }

    /** Forgets the group of a deleted task; the caller holds its slot monitor. */
    void deleted(TaskRecord task) {
        long taskId = task.id();
        Long parent = task.parentId();
        if (parent != null) {
            Set<Long> siblings = children.get(parent);
            if (siblings != null) siblings.remove(taskId);
        }
        Group g = groups.remove(taskId);
        if (g != null) {
            for (long d : g.dependencies) {
                Set<Long> owners = dependents.get(d);
                if (owners != null) owners.remove(taskId);
            }
        }
        dependents.remove(taskId);
        Set<Long> own = children.get(taskId);
        if (own != null && own.isEmpty()) children.remove(taskId, own);
    }

    /**
     * Picks the owners of one pass in {@link GroupLedger#passOrder}: those with marks (the dirty set
     * keeps the order of each owner's oldest mark), then awaiting ones least recently checked; returns
     * them in id order. The caller holds {@link #passLock}.
     */
    List<Long> pick(Collection<String> machines, int max) {
        List<Long> marked = new ArrayList<>();
        List<Long> picked;
        synchronized (dirty) {
            for (Long id : dirty) {
                if (marked.size() >= max) break;
                Group g = groups.get(id);
                if (g == null || machines.contains(g.ownerMachine)) marked.add(id);     // marks of a deleted owner are drained
            }
            List<Long> awaiting = new ArrayList<>();
            if (marked.size() < max) {
                List<Group> waiting = new ArrayList<>();
                for (Group g : groups.values()) if (g.awaiting && machines.contains(g.ownerMachine)) waiting.add(g);
                waiting.sort(java.util.Comparator.comparingLong((Group g) -> g.checked).thenComparingLong(g -> g.ownerId));
                for (Group g : waiting) awaiting.add(g.ownerId);
            }
            picked = GroupLedger.passOrder(marked, awaiting, max, Set.of());
            picked.forEach(dirty::remove);
        }
        picked.sort(null);
        return picked;
    }

    /** Takes every mark queued for {@code ownerId}. */
    ArrayDeque<Mark> drain(long ownerId) {
        ArrayDeque<Mark> taken = new ArrayDeque<>();
        ConcurrentLinkedQueue<Mark> q = marks.get(ownerId);
        if (q == null) return taken;
        for (Mark m; (m = q.poll()) != null; ) taken.add(m);
        pending.addAndGet(-taken.size());
        return taken;
    }

    /** Puts back marks a failed pass took, ahead of any queued since. */
    void restore(long ownerId, ArrayDeque<Mark> taken) {
        if (taken.isEmpty()) return;
        ConcurrentLinkedQueue<Mark> q = marks.computeIfAbsent(ownerId, k -> new ConcurrentLinkedQueue<>());
        List<Mark> later = new ArrayList<>();
        for (Mark m; (m = q.poll()) != null; ) later.add(m);
        q.addAll(taken);
        q.addAll(later);
        pending.addAndGet(taken.size());
        synchronized (dirty) {
            dirty.add(ownerId);
        }
    }

    /** Returns the group's counts after {@code taken} ({@link GroupLedger#counted}); the caller holds its owner's monitor. */
    static GroupLedger.Counts counted(Group g, Collection<Mark> taken) {
        return GroupLedger.counted(g.total, g.counts, taken);
    }

    long nextCheck() {
        return passes.incrementAndGet();
    }
}
