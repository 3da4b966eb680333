package dev.statekit.store;

import java.util.Objects;

/**
 * One compare-and-set of a task together with its history entry: applied only if the stored
 * task is still at {@code expectedVersion}.
 *
 * <p>A change keeps the task's stored priority and FIFO sequence (they move only through
 * {@link Store#reorder}) unless it {@code reorders}: then the priority and sequence of {@code next}
 * are written in the same atomic write, so that a task put back into its queue at a chosen place
 * (the front, after a crash or a manual retry) is never seen runnable at its old place.
 *
 * @param expectedVersion the version the change was computed from
 * @param next            the new snapshot, at {@code expectedVersion + 1}
 * @param entry           the history entry describing the change, at the same version
 * @param reorders        whether the change writes {@code next}'s priority and sequence
 */
public record Change(long expectedVersion, TaskRecord next, HistoryEntry entry, boolean reorders) {
    /**
     * Creates a change.
     *
     * @throws IllegalArgumentException if the versions or task ids do not line up
     */
    public Change {
        Objects.requireNonNull(next, "next");
        Objects.requireNonNull(entry, "entry");
        if (next.version() != expectedVersion + 1) {
            throw new IllegalArgumentException("next version must be " + (expectedVersion + 1) + ", was " + next.version());
        }
        if (entry.taskId() != next.id() || entry.version() != next.version()) {
            throw new IllegalArgumentException("history entry (task " + entry.taskId() + ", version " + entry.version()
                    + ") does not describe task " + next.id() + " at version " + next.version());
        }
    }

    /** Creates a change that keeps the stored priority and sequence. */
    public Change(long expectedVersion, TaskRecord next, HistoryEntry entry) {
        this(expectedVersion, next, entry, false);
    }
}
