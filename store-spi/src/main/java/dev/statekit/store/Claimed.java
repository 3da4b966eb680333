package dev.statekit.store;

import java.time.Instant;
import java.util.Objects;

/**
 * A task a {@link Store#claim} took, with the history entry the claim wrote for it, so that the
 * caller learns what was written without reading the history back, and since when the task had
 * been waiting for the claim.
 *
 * @param task       the claimed task as stored after the claim
 * @param entry      the claim's history entry, at the task's version
 * @param readySince when the task became ready to be claimed: {@link ClaimRule#readySince} of the
 *                   task as it was before the claim (its not-before time is cleared by the claim,
 *                   and its last change becomes the claim itself)
 */
public record Claimed(TaskRecord task, HistoryEntry entry, Instant readySince) {
    /**
     * Creates a claimed task.
     *
     * @throws IllegalArgumentException if the entry does not describe the task at its version
     */
    public Claimed {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(entry, "entry");
        Objects.requireNonNull(readySince, "readySince");
        if (entry.taskId() != task.id() || entry.version() != task.version()) {
            throw new IllegalArgumentException("history entry (task " + entry.taskId() + ", version " + entry.version()
                    + ") does not describe task " + task.id() + " at version " + task.version());
        }
    }
}
