package dev.statekit.store;

import java.util.Objects;

/**
 * One compare-and-set of a task together with its history entry: applied only if the stored
 * task is still at {@code expectedVersion}.
 *
 * @param expectedVersion the version the change was computed from
 * @param next            the new snapshot, at {@code expectedVersion + 1}
 * @param entry           the history entry describing the change, at the same version
 */
public record Change(long expectedVersion, TaskRecord next, HistoryEntry entry) {
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
}
