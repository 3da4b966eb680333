package dev.statekit.store;

/**
 * Stable codes of the errors statekit throws (as opposed to refusals, which are returned as
 * values). Codes are API: they do not change meaning between versions.
 */
public enum ErrorCode {
    /** An argument or a definition is invalid. */
    INVALID_ARGUMENT,
    /** A machine definition has defects; the message lists all of them. */
    INVALID_DEFINITION,
    /** A command was refused; the exception carries the refusal. */
    REFUSED,
    /** A payload is larger than the store accepts. */
    PAYLOAD_TOO_LARGE,
    /** A stored task names a state or machine its definition does not know. */
    SCHEMA_DRIFT,
    /** The store cannot be reached or failed; the operation may be retried. */
    STORE_UNAVAILABLE,
    /** The store failed in a way that retrying will not fix. */
    STORE_FAILURE,
    /** Children were added to a group that is already sealed. */
    GROUP_SEALED,
    /** A new task depends on a task that does not exist. */
    UNKNOWN_DEPENDENCY,
    /**
     * Tasks created together depend on themselves or on tasks after them in the list: their
     * dependencies would form a cycle (a task can depend only on tasks that exist, or come earlier).
     */
    DEPENDENCY_CYCLE
}
