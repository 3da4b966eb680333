/** Bridging a runtime's events and metrics to Micrometer, as docs/runtime.md shows it. */
@NullMarked
package dev.statekit.examples.metrics;

import org.jspecify.annotations.NullMarked;
