/**
 * statekit in a Spring Boot application. The auto-configuration ({@code dev.statekit.spring.autoconfigure})
 * makes the {@link dev.statekit.jdbc.JdbcStore} on the application's {@code DataSource}, joining its
 * Spring-managed transactions through {@link dev.statekit.spring.SpringTransactionHooks}, the
 * {@link dev.statekit.core.TransitionEngine}, and the {@link dev.statekit.core.runtime.TaskRuntime}
 * serving every {@link dev.statekit.spring.WorkerRegistration} bean, started and stopped with the
 * context by {@link dev.statekit.spring.StatekitRuntimeLifecycle}. Every option is a property under
 * {@code statekit.*} ({@link dev.statekit.spring.StatekitProperties}).
 */
@NullMarked
package dev.statekit.spring;

import org.jspecify.annotations.NullMarked;
