package dev.statekit.store;

import java.util.List;
import java.util.Optional;

/**
 * The persistence contract of statekit: what the transition engine and the runtime need from a
 * database. Every implementation must pass the store contract test kit.
 *
 * <p>Implementations are thread-safe. Every write is atomic: a change and its history entry are
 * written together or not at all, and {@link #applyAll} writes all of its changes or none.
 * Stores never read a clock: every time they record is handed to them.
 */
public interface Store {

    /**
     * Creates a task at version 0, or returns the existing task when one of the same machine
     * was created with the same idempotency key (then nothing is written).
     *
     * @throws StatekitException with {@link ErrorCode#PAYLOAD_TOO_LARGE} when the payload exceeds the store's limit
     */
    CreateResult create(NewTask task);

    /** Returns the task with {@code id}, if it exists. */
    Optional<TaskRecord> find(long id);

    /**
     * Applies one change: writes the new snapshot and appends its history entry if, and only if,
     * the stored task is at {@code change.expectedVersion()} and the entry's command key (if any)
     * was not applied to the task before.
     */
    default ApplyResult apply(Change change) {
        return applyAll(List.of(change));
    }

    /**
     * Applies several changes, to distinct tasks, atomically: all are written or none is. The
     * result names the first task (in the order given) that prevented the write.
     *
     * @throws IllegalArgumentException if two changes concern the same task or the list is empty
     */
    ApplyResult applyAll(List<Change> changes);

    /**
     * Returns the history entry of the command applied to {@code taskId} with idempotency key
     * {@code commandKey}, if one was.
     */
    Optional<HistoryEntry> findCommand(long taskId, String commandKey);

    /** Returns the history of a task, oldest first; empty if it has none or does not exist. */
    List<HistoryEntry> history(long taskId);

    /** Returns one page of the tasks matching {@code query}, in ascending id order. */
    Page<TaskRecord> query(TaskQuery query);
}
