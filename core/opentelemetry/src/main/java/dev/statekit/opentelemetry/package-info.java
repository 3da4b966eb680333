/**
 * OpenTelemetry tracing of statekit tasks. {@link dev.statekit.opentelemetry.TaskTracing} is a
 * {@link dev.statekit.core.spi.TaskInterceptor}: registered on the engine, it starts a producer span
 * where a task is created (a child of the span current there, such as the request's) and writes that
 * span's context into the task's attributes ({@code traceparent}, and {@code tracestate} when there
 * is one); a runtime that claims the task, in this process or another, runs each attempt inside a
 * consumer span that is a child of it, current on the worker's thread, which ends with the attempt's
 * result. So a task started by a request shows in that request's trace whichever process runs it,
 * and what the worker calls (a database, an HTTP service, another task's creation) nests under it.
 */
@NullMarked
package dev.statekit.opentelemetry;

import org.jspecify.annotations.NullMarked;
