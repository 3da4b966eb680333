package dev.statekit.core;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The effect of a transition row on a task's attributes (for example setting {@code phase}).
 *
 * <p>Effects are pure: they may run more than once for one command (when a concurrent change
 * forces a retry), must not have side effects outside {@code changes}, and must be thread-safe.
 *
 * @param <S> the state type
 */
@FunctionalInterface
public interface Effect<S extends Enum<S>> {
    /**
     * Records attribute changes.
     *
     * @param task    the task before the change
     * @param command the command being applied
     * @param changes the attribute changes so far (the command's own first); put a value to set
     *                an attribute, put null to remove one
     */
    void apply(Task<S> task, Command command, Map<String, @Nullable String> changes);
}
