package dev.statekit.store;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A task moved to the archive ({@link Store#archive}) with its history, as the store keeps it
 * there: the last snapshot it had in the hot table, every history entry, the root of the tree it
 * moved with, and when it moved.
 *
 * @param task       the task's last snapshot (its lease is always null)
 * @param history    the task's history, oldest first
 * @param rootId     the root of the tree the task moved with (its own id when it had no parent)
 * @param archivedAt when it moved, as the retention batch's caller gave it
 */
public record ArchivedTask(TaskRecord task, List<HistoryEntry> history, long rootId, Instant archivedAt) {
    /** Creates an archived task; the history is copied. */
    public ArchivedTask {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(archivedAt, "archivedAt");
        history = List.copyOf(history);
    }
}
