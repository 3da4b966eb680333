/**
 * The auto-configuration of statekit, registered in
 * {@code META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports}: the store,
 * engine and operations ({@link dev.statekit.spring.autoconfigure.StatekitAutoConfiguration}), the runtime
 * ({@link dev.statekit.spring.autoconfigure.StatekitRuntimeAutoConfiguration}),
 * Actuator's health ({@link dev.statekit.spring.autoconfigure.StatekitHealthAutoConfiguration}) and
 * Micrometer's meters ({@link dev.statekit.spring.autoconfigure.StatekitMetricsAutoConfiguration}) and
 * the dashboard of statekit-dashboard ({@link dev.statekit.spring.autoconfigure.StatekitDashboardAutoConfiguration}).
 * Each bean backs off when the application defines its own.
 */
@NullMarked
package dev.statekit.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
