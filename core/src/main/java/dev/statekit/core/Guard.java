package dev.statekit.core;

/**
 * A named condition on a transition row, checked against the task as it is before the change.
 *
 * <p>Guards are pure: they may run more than once for one command (when a concurrent change
 * forces a retry) and must not have side effects. They must be thread-safe.
 *
 * @param <S> the state type
 */
@FunctionalInterface
public interface Guard<S extends Enum<S>> {
    /** Decides whether the row applies to {@code task} under {@code command}. */
    Verdict check(Task<S> task, Command command);
}
