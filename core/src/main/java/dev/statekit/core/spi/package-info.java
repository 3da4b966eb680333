/**
 * What applications plug into statekit: the {@link dev.statekit.core.spi.Clock} (with the
 * {@link dev.statekit.core.spi.ManualClock} for deterministic tests),
 * {@link dev.statekit.core.spi.TransitionListener}s on the engine and
 * {@link dev.statekit.core.spi.RuntimeListener}s on a runtime.
 */
@NullMarked
package dev.statekit.core.spi;

import org.jspecify.annotations.NullMarked;
