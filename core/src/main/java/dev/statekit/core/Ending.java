package dev.statekit.core;

/**
 * How a task in a state has ended, as the groups it belongs to count it: a machine declares its
 * ending states with {@link MachineBuilder#succeeded}, {@link MachineBuilder#failed} and
 * {@link MachineBuilder#cancelled}. An ending state need not be terminal: a failed chunk that may
 * be retried has ended for its parent until it is retried.
 */
public enum Ending {
    /** The work was done. */
    SUCCEEDED,
    /** The work failed. */
    FAILED,
    /** The work was cancelled: neither done nor failed. */
    CANCELLED
}
