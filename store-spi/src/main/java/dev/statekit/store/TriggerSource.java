package dev.statekit.store;

/**
 * Who may trigger a transition: the system itself (a worker, a scheduler, recovery) or a user
 * acting through an application's API.
 */
public enum TriggerSource {
    /** The system: workers, the runtime, recovery, automatic policies. */
    SYSTEM,
    /** A user acting through the host application. */
    USER
}
