package dev.statekit.store;

/** The result of {@link Store#renew}. */
public enum RenewResult {
    /** The lease was extended. */
    RENEWED,
    /** The lease was extended, and someone asked for the task to be cancelled. */
    RENEWED_CANCEL_REQUESTED,
    /** The lease expired, was released or was taken over: the holder must stop and cannot commit. */
    LOST
}
