package dev.statekit.spring;

import dev.statekit.core.TransitionEngineBuilder;

/**
 * A bean that changes the engine's builder after the properties and the listener, interceptor,
 * clock and authorizer beans were applied, before the engine is built. Called in bean order.
 */
@FunctionalInterface
public interface StatekitEngineCustomizer {
    /**
     * Changes {@code builder}.
     *
     * @param builder the engine's builder
     */
    void customize(TransitionEngineBuilder builder);
}
