/**
 * A program that observes a runtime with the published integrations: {@code statekit-micrometer}'s
 * meters and {@code statekit-opentelemetry}'s traces, printed when it ends
 * ({@link dev.statekit.examples.observability.ObservedReports}, shown in docs/observability.md).
 */
@NullMarked
package dev.statekit.examples.observability;

import org.jspecify.annotations.NullMarked;
