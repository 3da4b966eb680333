/**
 * Scenario tests of the seed systems' behaviours, one test per behaviour, run through the sample
 * hosts and the runtime on a {@link dev.statekit.core.spi.ManualClock} and a
 * {@link dev.statekit.core.spi.ManualExecutor}: everything happens when a test advances the clock
 * or runs the executor, so every run is the same.
 */
@NullMarked
package dev.statekit.examples.scenarios;

import org.jspecify.annotations.NullMarked;
