/**
 * The statekit API: {@link dev.statekit.core.Machine machines as data} and the
 * {@link dev.statekit.core.TransitionEngine} that applies their transitions to persisted tasks.
 *
 * <p>What a user reads first: {@link dev.statekit.core.Machine} and {@link dev.statekit.core.MachineBuilder}
 * (the table, validated when built), {@link dev.statekit.core.RunPolicy} (how a machine runs),
 * {@link dev.statekit.core.TransitionEngine} with {@link dev.statekit.core.TransitionEngineBuilder},
 * {@link dev.statekit.core.Command}, {@link dev.statekit.core.TaskSpec}, and the values they answer
 * with ({@link dev.statekit.core.Outcome}, {@link dev.statekit.core.Task}, {@link dev.statekit.core.RefusalCode}).
 *
 * <p>The kernel, package-private beside them, and how a change moves through it: the engine (a
 * switchboard) hands every change of a task to {@code Commit}, the one write pipeline, which
 * reads the task (or takes the record the caller holds), asks the {@link dev.statekit.core.Authorizer},
 * replays a repeated idempotency key, lets {@code Decider} decide the {@code Move} (a row's event,
 * the runtime's requeue, a migration, a new place in the queue) into one {@code Decision}, adds the
 * hold a parent's change writes for its children ({@code Groups}), writes with compare-and-set,
 * and tells {@code Listeners} after the write. {@code Records} creates tasks and reads histories in
 * a machine's terms; {@code Groups} and {@code GroupDecider} create children and decide, inside the
 * store's resolution pass, what a group's counts mean for its owner; {@code Awaits} completes waits
 * for a state; {@code MachineIndex} and {@code MachineValidator} index and check a table.
 *
 * <p>This package uses nothing of {@link dev.statekit.core.runtime} or {@link dev.statekit.core.ops}:
 * they reach the kernel through {@link dev.statekit.core.internal.Kernel}, which {@code KernelAccess}
 * implements (a test on the compiled classes checks it).
 */
@NullMarked
package dev.statekit.core;

import org.jspecify.annotations.NullMarked;
