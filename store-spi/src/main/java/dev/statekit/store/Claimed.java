package dev.statekit.store;

import java.util.Objects;

/**
 * A task a {@link Store#claim} took, with the history entry the claim wrote for it, so that the
 * caller learns what was written without reading the history back.
 *
 * @param task  the claimed task as stored after the claim
 * @param entry the claim's history entry, at the task's version
 */
public record Claimed(TaskRecord task, HistoryEntry entry) {
    /**
     * Creates a claimed task.
     *
     * @throws IllegalArgumentException if the entry does not describe the task at its version
     */
    public Claimed {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(entry, "entry");
        if (entry.taskId() != task.id() || entry.version() != task.version()) {
            throw new IllegalArgumentException("history entry (task " + entry.taskId() + ", version " + entry.version()
                    + ") does not describe task " + task.id() + " at version " + task.version());
        }
    }
}
