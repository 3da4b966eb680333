/**
 * The runtime that runs the work behind the states: {@link dev.statekit.core.runtime.TaskRuntime},
 * built with {@link dev.statekit.core.runtime.TaskRuntimeBuilder}, with its options
 * ({@link dev.statekit.core.runtime.QueueOptions}, {@link dev.statekit.core.runtime.Retention}) and
 * what it reports ({@link dev.statekit.core.runtime.RuntimeMetrics},
 * {@link dev.statekit.core.runtime.QueueMetrics}, {@link dev.statekit.core.runtime.LastMinute}).
 *
 * <p>{@code TaskRuntime} is a façade over package-private parts with one duty each, sharing one
 * {@code RuntimeContext}. How a task moves through them: {@code Dispatcher} runs dispatch rounds
 * (its header says which thread touches what) and claims a batch for a free slot through the store,
 * by the claim rules each {@code Registration} compiled; {@code SlotLoop} runs each {@code Run}'s
 * worker under its lease, which {@code Heartbeats} renews; when the worker returns (or times out,
 * or the runtime stops, or the lease is lost), {@code Settlement} — a pure table — decides the
 * ordered completions of that end, and {@code ResultWriter} writes them through the engine's
 * kernel, trying the next one when the table refuses one. {@code LeaseRecovery} recovers expired
 * leases by each machine's policy, through the same table; {@code Waits} fires due waits,
 * {@code Preconditions} blocks and unblocks tasks, {@code GroupResolution} runs the store's group
 * passes, {@code RetentionPasses} archives or deletes finished trees, {@code SchedulePasses}
 * declares the builder's recurring schedules at start and creates their due occurrences as tasks
 * through the store's schedule passes (each occurrence once, across processes), {@code Cancels} stops the
 * tasks this runtime runs when their cancellation is asked, {@code Timers}, {@code Lifecycle},
 * {@code RuntimeEvents}, {@code MinuteWindow} and {@code MetricsReader} keep time, state and counts.
 *
 * <p>The runtime reaches the engine only through its public API and
 * {@link dev.statekit.core.internal.Kernel}; queue controls, retries and reorders are the
 * operator's ({@link dev.statekit.core.ops.TaskOperations}).
 */
@NullMarked
package dev.statekit.core.runtime;

import org.jspecify.annotations.NullMarked;
