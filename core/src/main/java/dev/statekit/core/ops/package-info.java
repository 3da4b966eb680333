/**
 * What an operator does and sees, apart from the runtime: {@link dev.statekit.core.ops.TaskOperations},
 * built from an engine, with queue controls, retries, cancellation requests, a task's place in its
 * queue, bulk operations, recurring schedules changed at run time, the reads a dashboard needs, and
 * {@link dev.statekit.core.ops.CancelResult} and {@link dev.statekit.core.ops.ScheduleView}. Every change
 * of a task it makes goes through the engine's one write pipeline (through
 * {@link dev.statekit.core.internal.Kernel}) as a recorded change with a history entry and an actor.
 *
 * <p>A bulk operation moves a selection through these parts: a {@link dev.statekit.core.ops.TaskFilter}
 * names the tasks (one machine; states, queue, parent, last error code, time ranges, and the
 * {@link dev.statekit.core.ops.BulkCount} of a count as an upper id); {@code Bulk} reads them page
 * after page by id, decides each page as a batch on the records read and writes it through the
 * kernel (a stale record is read again and decided again while it still matches), and tallies each
 * task once into a {@link dev.statekit.core.ops.BulkResult}.
 */
@NullMarked
package dev.statekit.core.ops;

import org.jspecify.annotations.NullMarked;
