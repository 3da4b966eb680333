/**
 * What applications plug into statekit: the {@link dev.statekit.core.spi.Clock} (with the
 * {@link dev.statekit.core.spi.ManualClock} for deterministic tests) and
 * {@link dev.statekit.core.spi.TransitionListener}s.
 */
@NullMarked
package dev.statekit.core.spi;

import org.jspecify.annotations.NullMarked;
