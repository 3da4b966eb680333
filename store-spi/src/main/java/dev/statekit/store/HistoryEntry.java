package dev.statekit.store;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One applied change of a task, written in the same atomic write as the change itself.
 *
 * <p>Entries of one task form an unbroken chain: the entry with {@code version} {@code n}
 * describes the change that produced version {@code n} of the task.
 *
 * @param taskId     the task
 * @param version    the version the change produced (1 for the first change)
 * @param from       the state before the change
 * @param to         the state after the change
 * @param event      the name of the event that caused it
 * @param source     who triggered it
 * @param actor      the user or component that triggered it, if known
 * @param reason     a free-text reason, if given
 * @param at         when it was applied
 * @param commandKey the idempotency key of the command, if it carried one
 * @param error      the error the change recorded as the task's last error (a failure, a retry, a
 *                   recovery), with its detail; null for a change that recorded none
 */
public record HistoryEntry(
        long taskId,
        long version,
        String from,
        String to,
        String event,
        TriggerSource source,
        @Nullable String actor,
        @Nullable String reason,
        Instant at,
        @Nullable String commandKey,
        @Nullable TaskError error) {

    /**
     * Creates an entry.
     *
     * @throws NullPointerException if a non-nullable component is null
     * @throws IllegalArgumentException if {@code version} is not positive
     */
    public HistoryEntry {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(at, "at");
        if (version <= 0) throw new IllegalArgumentException("history version must be positive, was " + version);
    }

    /** Creates an entry of a change that recorded no error. */
    public HistoryEntry(long taskId, long version, String from, String to, String event, TriggerSource source,
                        @Nullable String actor, @Nullable String reason, Instant at, @Nullable String commandKey) {
        this(taskId, version, from, to, event, source, actor, reason, at, commandKey, null);
    }
}
