/**
 * Micrometer metrics of statekit runtimes. {@link dev.statekit.micrometer.StatekitMetrics} is both
 * a {@link dev.statekit.core.spi.RuntimeListener}, which counts and times what one runtime does to
 * each task as it does it, and a {@link io.micrometer.core.instrument.binder.MeterBinder}, which
 * registers those meters and gauges read from the runtime's
 * {@link dev.statekit.core.runtime.TaskRuntime#metrics()} (the whole store's counts) in a registry.
 */
@NullMarked
package dev.statekit.micrometer;

import org.jspecify.annotations.NullMarked;
