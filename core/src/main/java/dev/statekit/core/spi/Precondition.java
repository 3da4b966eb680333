package dev.statekit.core.spi;

import dev.statekit.store.TaskRecord;
import org.jspecify.annotations.Nullable;

/**
 * A condition that must hold before a task starts (for example enough free disk space). While it
 * does not, the task is moved to the machine's blocked state with the reason, and it starts by
 * itself once the condition holds again. Must be thread-safe and quick.
 */
@FunctionalInterface
public interface Precondition {
    /** Returns why {@code task} cannot start now, or null when it may. */
    @Nullable String blockedReason(TaskRecord task);
}
