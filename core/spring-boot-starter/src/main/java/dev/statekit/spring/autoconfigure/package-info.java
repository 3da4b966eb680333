/**
 * The auto-configuration of statekit, registered in
 * {@code META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports}: the store,
 * engine and operations ({@link dev.statekit.spring.autoconfigure.StatekitAutoConfiguration}), the runtime
 * ({@link dev.statekit.spring.autoconfigure.StatekitRuntimeAutoConfiguration}),
 * Actuator's health ({@link dev.statekit.spring.autoconfigure.StatekitHealthAutoConfiguration}) and
 * Micrometer's meters ({@link dev.statekit.spring.autoconfigure.StatekitMetricsAutoConfiguration}).
 * Each bean backs off when the application defines its own. The dashboard, when statekit-dashboard
 * exists, comes as an auto-configuration of its own beside these.
 */
@NullMarked
package dev.statekit.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
