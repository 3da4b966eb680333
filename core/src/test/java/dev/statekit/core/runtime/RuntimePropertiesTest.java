package dev.statekit.core.runtime;

import dev.statekit.core.*;

/** Runs the properties of {@link RuntimeProperties}. */
class RuntimePropertiesTest extends RuntimeProperties {}
