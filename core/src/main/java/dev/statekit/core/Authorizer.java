package dev.statekit.core;

import dev.statekit.store.TaskRecord;
import java.util.Objects;

/**
 * Decides whether a person may fire an event at a task: consulted by the engine for every command
 * whose source is {@link dev.statekit.store.TriggerSource#USER} (fired one by one, in batches, or as
 * a cancellation through the runtime), before the table is. A refusal is an
 * {@link Outcome.Refused} with {@link RefusalCode#FORBIDDEN} (HTTP 403) and the verdict's code and
 * message; it changes nothing and is logged with the actor. Commands of the system (workers,
 * recovery, group resolution) are never asked about.
 *
 * <p>The default, {@link #ALLOW_ALL}, allows everything. Implementations must be thread-safe and
 * quick: they run on the caller's thread, once per command (again when a command is decided anew
 * after a concurrent change).
 */
@FunctionalInterface
public interface Authorizer {
    /** Allows every command. */
    Authorizer ALLOW_ALL = request -> Verdict.allow();

    /**
     * Returns {@link Verdict#allow()}, or a refusal whose code and message the caller sees (for
     * example {@code Verdict.refuse("NOT_SUBMITTER", "only the submitter or an admin may cancel")}).
     */
    Verdict authorize(Request request);

    /**
     * One command to decide on.
     *
     * @param actor   who fires it ({@link Command#actor()}; null when the command names nobody)
     * @param machine the machine's name
     * @param task    the task as stored when the command is decided: its state, attributes and payload
     * @param event   the event's name
     * @param command the whole command (reason, attributes, idempotency key)
     */
    record Request(@org.jspecify.annotations.Nullable String actor, String machine, TaskRecord task, String event, Command command) {
        /** Creates a request. */
        public Request {
            Objects.requireNonNull(machine, "machine");
            Objects.requireNonNull(task, "task");
            Objects.requireNonNull(event, "event");
            Objects.requireNonNull(command, "command");
        }

        /** Returns the task's id. */
        public long taskId() {
            return task.id();
        }

        /** Returns the task's state name. */
        public String state() {
            return task.state();
        }
    }
}
