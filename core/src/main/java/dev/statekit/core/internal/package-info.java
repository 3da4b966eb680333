/**
 * Implementation details of statekit core. Not API: anything here may change without notice,
 * and no public signature outside this package mentions its types.
 *
 * <p>{@link dev.statekit.core.internal.Kernel} is the engine's door for the runtime and the
 * operations: changes with the runtime's {@link dev.statekit.core.internal.Adjust}ments, requeues
 * and reorders, writes of known records, listener announcements, group passes that report each
 * {@link dev.statekit.core.internal.GroupResolved}, and the machine facts the runtime acts on.
 * {@link dev.statekit.core.internal.SystemClock} is the clock of {@code Clock.system()}.
 * {@link dev.statekit.core.internal.ScheduleRecords} turns a recurrence and its task template into
 * the record a store keeps and back, and decides what a schedule pass creates for one record: the
 * runtime's passes and the operations share it.
 */
@NullMarked
package dev.statekit.core.internal;

import org.jspecify.annotations.NullMarked;
