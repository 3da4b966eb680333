package dev.statekit.core.runtime;


/** Runs the properties of {@link RuntimeProperties}. */
class RuntimePropertiesTest extends RuntimeProperties {}
