package dev.statekit.core.spi;

/** A handle on something scheduled that may be called off. */
@FunctionalInterface
public interface Cancellable {
    /**
     * Calls the scheduled action off if it has not started yet.
     *
     * @return whether this call prevented the action from running
     */
    boolean cancel();
}
