package dev.statekit.core;

/**
 * Stable codes of refused commands. Codes are API: they keep their meaning between versions,
 * so applications may map them onto HTTP statuses ({@link #httpStatus()}).
 */
public enum RefusalCode {
    /** The machine has no row for the event in the task's state (for the command's source). */
    ILLEGAL_TRANSITION(409),
    /** A row exists but its guard refused; the refusal carries the guard's reason. */
    GUARD_REFUSED(409),
    /** The task is not at the version the command expected, or changed too often to apply. */
    VERSION_CONFLICT(409),
    /** No task with that id exists in that machine. */
    NOT_FOUND(404),
    /** The lease under which the command was issued expired or was taken over. */
    LEASE_LOST(409),
    /** The engine's {@link Authorizer} refused the person's command; the refusal carries its code and message. */
    FORBIDDEN(403);

    private final int httpStatus;

    RefusalCode(int httpStatus) {
        this.httpStatus = httpStatus;
    }

    /** Returns the HTTP status a web API would answer for this refusal. */
    public int httpStatus() {
        return httpStatus;
    }
}
