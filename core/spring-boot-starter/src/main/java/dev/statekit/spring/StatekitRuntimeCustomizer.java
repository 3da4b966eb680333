package dev.statekit.spring;

import dev.statekit.core.runtime.TaskRuntimeBuilder;

/**
 * A bean that changes the runtime's builder after the properties, the worker registrations and the
 * listener and classifier beans were applied, before the runtime is built: where schedules
 * ({@code schedule(...)}) and retention ({@code retain(...)}) are declared. Called in bean order.
 */
@FunctionalInterface
public interface StatekitRuntimeCustomizer {
    /**
     * Changes {@code builder}.
     *
     * @param builder the runtime's builder
     */
    void customize(TaskRuntimeBuilder builder);
}
