package dev.statekit.store.support;

import dev.statekit.store.MemberState;
import dev.statekit.store.Store;
import dev.statekit.store.TaskRecord;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The group bookkeeping every store keeps the same way around {@link Store#resolveGroups}: what a
 * mark is, which owners a task's change marks, how a pass turns the marks it takes into counts, and
 * in which order a pass picks owners. A store keeps the marks and groups in its own way (maps, rows)
 * and asks this class what to do with them.
 *
 * <p>The mark rule is written here in Java for the stores that run it in Java; a store that writes
 * marks in SQL (statekit's JDBC store) mirrors {@link #marks} in its statements, and the store
 * contract checks both.
 */
public final class GroupLedger {

    private GroupLedger() {
    }

    /**
     * A mark: a member's change of state, or a request to look at the owner.
     *
     * @param machine the member's machine, or null for a look at the owner
     * @param from    the member's state before the change, or null when the change created it
     * @param to      the member's state after the change, or null for a look
     */
    public record Mark(@Nullable String machine, @Nullable String from, @Nullable String to) {
        /** A request to look at the owner, written by the owner's own change and by a group write. */
        public static final Mark LOOK = new Mark(null, null, null);

        /** Returns the mark of a member of {@code machine} moving from {@code from} (null: created) to {@code to}. */
        public static Mark member(String machine, @Nullable String from, String to) {
            return new Mark(Objects.requireNonNull(machine, "machine"), from, Objects.requireNonNull(to, "to"));
        }

        /** Returns whether this mark is a look at the owner, which moves no count. */
        public boolean look() {
            return machine == null;
        }
    }

    /**
     * A group's counts after a pass applied its marks.
     *
     * @param total  how many members the group has
     * @param counts how many members are in each state; states with none are absent
     */
    public record Counts(long total, Map<MemberState, Long> counts) {
        /** Creates counts. */
        public Counts {
            counts = Map.copyOf(counts);
        }
    }

    /** The owners a task's change marks, as the store knows them when it writes the change. */
    public interface Owners {
        /** Returns whether {@code taskId} owns a group of children. */
        boolean ownsChildren(long taskId);

        /** Returns the owners whose dependency groups {@code taskId} is a member of. */
        Collection<Long> dependents(long taskId);

        /** Returns whether {@code taskId} owns a group of either kind. */
        boolean ownsGroup(long taskId);
    }

    /**
     * A mark for one owner.
     *
     * @param ownerId the owner whose group the mark is for
     * @param mark    the mark
     */
    public record Marked(long ownerId, Mark mark) {
        /** Creates a mark for an owner. */
        public Marked {
            Objects.requireNonNull(mark, "mark");
        }
    }

    /**
     * Returns the marks one write of a task makes, in the order to write them: a change that keeps
     * the task's state makes none; otherwise its parent, if it owns a group of children, gets the
     * member's change (unless {@code countedByWrite}: the group write that creates the child counts
     * it), every owner that depends on the task gets it too, and the task itself, when a change (not
     * its creation) moves it and it owns a group, gets a look.
     *
     * @param old            the task before the write, or null when the write created it
     * @param now            the task as written
     * @param countedByWrite whether the write that created the task counts it in its parent's group
     * @param owners         the groups as the store knows them
     */
    public static List<Marked> marks(@Nullable TaskRecord old, TaskRecord now, boolean countedByWrite, Owners owners) {
        if (old != null && old.state().equals(now.state())) return List.of();
        List<Marked> marks = new ArrayList<>(2);
        Mark member = Mark.member(now.machine(), old == null ? null : old.state(), now.state());
        Long parent = now.parentId();
        if (parent != null && !countedByWrite && owners.ownsChildren(parent)) marks.add(new Marked(parent, member));
        for (long owner : owners.dependents(now.id())) marks.add(new Marked(owner, member));
        if (old != null && owners.ownsGroup(now.id())) marks.add(new Marked(now.id(), Mark.LOOK));
        return marks;
    }

    /**
     * Returns a group's counts after {@code marks}, taken in the order written: a creation adds one
     * member to the total, a change moves one member from its old state's count to its new one's, and
     * a look moves nothing.
     *
     * @param total  the group's total before the marks
     * @param counts the group's counts before the marks
     * @param marks  the marks the pass took for the group
     */
    public static Counts counted(long total, Map<MemberState, Long> counts, Iterable<Mark> marks) {
        Map<MemberState, Long> after = new HashMap<>(counts);
        long n = total;
        for (Mark m : marks) {
            String machine = m.machine();
            if (machine == null) continue;
            String from = m.from();
            if (from == null) n++;
            else after.merge(new MemberState(machine, from), -1L, Long::sum);
            String to = m.to();
            if (to != null) after.merge(new MemberState(machine, to), 1L, Long::sum);
        }
        after.values().removeIf(c -> c == 0);
        return new Counts(n, after);
    }

    /** Returns whether {@code marks} hold a member's change, not only looks: whether the pass moves the counts. */
    public static boolean movesCounts(Iterable<Mark> marks) {
        for (Mark m : marks) if (!m.look()) return true;
        return false;
    }

    /**
     * Returns the owners one pass takes, in the order to take them: owners with marks first, in the
     * order of their oldest mark, then owners of awaiting groups, least recently checked first (ties
     * by owner id); each once, none of {@code skipped}, at most {@code max}.
     *
     * @param marked   owners with marks, oldest mark first
     * @param awaiting owners of groups with {@link dev.statekit.store.GroupRecord#awaiting()} set, least recently checked first
     * @param max      how many owners the pass takes at most
     * @param skipped  owners the pass must not take (for example those a refused attempt named)
     */
    public static List<Long> passOrder(Iterable<Long> marked, Iterable<Long> awaiting, int max, Set<Long> skipped) {
        if (max <= 0) throw new IllegalArgumentException("max must be positive, was " + max);
        LinkedHashSet<Long> picked = new LinkedHashSet<>();
        for (Long id : marked) {
            if (picked.size() >= max) break;
            if (!skipped.contains(id)) picked.add(id);
        }
        for (Long id : awaiting) {
            if (picked.size() >= max) break;
            if (!skipped.contains(id)) picked.add(id);
        }
        return new ArrayList<>(picked);
    }
}
