/**
 * What an operator does and sees, apart from the runtime: {@link dev.statekit.core.ops.TaskOperations},
 * built from an engine, with queue controls, retries, cancellation requests, a task's place in its
 * queue, recurring schedules changed at run time, the reads a dashboard needs, and
 * {@link dev.statekit.core.ops.CancelResult} and {@link dev.statekit.core.ops.ScheduleView}. Every change
 * of a task it makes goes through the engine's one write pipeline (through
 * {@link dev.statekit.core.internal.Kernel}) as a recorded change with a history entry and an actor.
 */
@NullMarked
package dev.statekit.core.ops;

import org.jspecify.annotations.NullMarked;
