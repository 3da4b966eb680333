package dev.statekit.store;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The result of {@link Store#apply} and {@link Store#applyAll}: either every change was
 * written, or none was and {@code status} says why, naming the first task that stood in the way.
 *
 * @param status the result
 * @param taskId the task that caused a non-applied result; 0 when applied
 * @param prior  for {@link Status#DUPLICATE_COMMAND}, the history entry of the earlier command
 */
public record ApplyResult(Status status, long taskId, @Nullable HistoryEntry prior) {

    /** The shared result of a successful write. */
    public static final ApplyResult APPLIED = new ApplyResult(Status.APPLIED, 0, null);

    /** Why changes were, or were not, written. */
    public enum Status {
        /** Every change was written. */
        APPLIED,
        /** A task was no longer at the expected version; nothing was written. */
        VERSION_CONFLICT,
        /** A task does not exist; nothing was written. */
        NOT_FOUND,
        /** A change's command key was already applied to its task; nothing was written. */
        DUPLICATE_COMMAND
    }

    /** Creates a result. */
    public ApplyResult {
        Objects.requireNonNull(status, "status");
        if ((status == Status.DUPLICATE_COMMAND) != (prior != null)) {
            throw new IllegalArgumentException("prior entry is given exactly for DUPLICATE_COMMAND");
        }
    }

    /** Returns a conflict result for {@code taskId}. */
    public static ApplyResult conflict(long taskId) {
        return new ApplyResult(Status.VERSION_CONFLICT, taskId, null);
    }

    /** Returns a not-found result for {@code taskId}. */
    public static ApplyResult notFound(long taskId) {
        return new ApplyResult(Status.NOT_FOUND, taskId, null);
    }

    /** Returns a duplicate-command result carrying the earlier entry. */
    public static ApplyResult duplicate(HistoryEntry prior) {
        return new ApplyResult(Status.DUPLICATE_COMMAND, prior.taskId(), prior);
    }

    /** Returns whether every change was written. */
    public boolean applied() {
        return status == Status.APPLIED;
    }
}
