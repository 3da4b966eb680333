package dev.statekit.store;

import java.util.List;
import java.util.Objects;

/**
 * What one resolution pass ({@link Store#resolveGroups}) committed, as {@link Claimed} is what a
 * claim committed: the caller learns from it what the pass wrote without reading the store again.
 *
 * @param changes   the changes the pass wrote (the resolvers' decisions), each with its task as stored
 *                  after the pass and the history entry written with it; in the order written
 * @param groups    the groups whose decision the pass wrote, as stored after it (counts, resolution, flags),
 *                  in owner id order; a group whose decision was undone is absent
 * @param marksLeft whether marks (of any machine's groups) wait for another pass after this one, as
 *                  {@link Store#pendingMarks} would tell after the pass committed: the pass's own
 *                  changes may have written some, and members may have written some while the pass
 *                  held their owners (a store whose passes skip owners another pass holds reads this
 *                  after the commit, so that those marks get another pass at once)
 */
public record GroupPass(List<Written> changes, List<GroupRecord> groups, boolean marksLeft) {

    /** Creates a pass result. */
    public GroupPass {
        changes = List.copyOf(changes);
        groups = List.copyOf(groups);
    }

    /** Returns a pass that wrote nothing. */
    public static GroupPass none(boolean marksLeft) {
        return new GroupPass(List.of(), List.of(), marksLeft);
    }

    /** Returns how many groups the pass resolved: those whose decision it wrote. */
    public int resolved() {
        return groups.size();
    }

    /**
     * One change a pass wrote.
     *
     * @param task  the task as stored by the change
     * @param entry the history entry written with it
     */
    public record Written(TaskRecord task, HistoryEntry entry) {
        /**
         * Creates a written change.
         *
         * @throws IllegalArgumentException if the entry does not describe the task at its version
         */
        public Written {
            Objects.requireNonNull(task, "task");
            Objects.requireNonNull(entry, "entry");
            if (entry.taskId() != task.id() || entry.version() != task.version()) {
                throw new IllegalArgumentException("history entry (task " + entry.taskId() + ", version " + entry.version()
                        + ") does not describe task " + task.id() + " at version " + task.version());
            }
        }
    }
}
