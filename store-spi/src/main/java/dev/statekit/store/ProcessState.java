package dev.statekit.store;

/** The state of a {@link ProcessRecord process} at a given time. */
public enum ProcessState {
    /** Running: seen within its {@link ProcessRecord#goneAfter()}. */
    ALIVE,
    /** Stopped gracefully. */
    STOPPED,
    /** Neither stopped nor seen within its {@link ProcessRecord#goneAfter()}: crashed, or cut off from the store. */
    GONE
}
