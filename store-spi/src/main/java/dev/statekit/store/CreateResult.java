package dev.statekit.store;

import java.util.Objects;

/**
 * The result of {@link Store#create}: the task, and whether this call created it ({@code false}
 * when a task with the same machine and idempotency key already existed, or a task of the machine
 * held the same unique key, {@link NewTask#uniqueKey()}).
 *
 * @param task    the created or the existing task
 * @param created whether this call created it
 */
public record CreateResult(TaskRecord task, boolean created) {
    /** Creates a result. */
    public CreateResult {
        Objects.requireNonNull(task, "task");
    }
}
