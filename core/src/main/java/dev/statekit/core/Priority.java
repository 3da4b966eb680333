package dev.statekit.core;

/**
 * Named priorities for {@link TaskSpec#priority(Priority)}. A task's priority is an int (larger
 * runs first); these are three well-spaced values, so applications may put their own in between.
 */
public enum Priority {
    /** Runs before normal and low tasks: 10. */
    HIGH(10),
    /** The default: 0. */
    NORMAL(0),
    /** Runs after high and normal tasks (anti-starvation aside): -10. */
    LOW(-10);

    private final int value;

    Priority(int value) {
        this.value = value;
    }

    /** Returns the stored priority value. */
    public int value() {
        return value;
    }
}
