/**
 * The in-memory store: {@link dev.statekit.store.memory.InMemoryStore}, the thread-safe reference
 * implementation of {@link dev.statekit.store.Store}, for tests, simulations and single-process
 * hosts that need no durability. Only that class is API.
 *
 * <p>It is a façade over package-private parts with one duty each: {@code InMemorySlots} holds the
 * tasks by id, each in a slot guarded by its own monitor, with its history; {@code ClaimIndex} the
 * indexes of runnable tasks and the scans that read them; {@code InMemoryCreations} new tasks (ids,
 * sequences, idempotency keys, the monitors of a parent or of dependencies) and group writes;
 * {@code InMemoryClaims} the claims; {@code InMemoryQueues} the queue records, whose monitors
 * serialise claims per queue; {@code InMemoryGroups} the groups, their marks and who depends on
 * whom; {@code InMemoryPasses} the resolution passes over them; {@code InMemoryArchive} the archived
 * tasks and the purges; {@code InMemorySchedules} the recurring schedules and their passes.
 *
 * <p>How a task moves through them: its creation ({@code InMemoryCreations}) puts a slot in
 * {@code InMemorySlots}, indexes it in {@code ClaimIndex} and marks its parent's or dependents'
 * groups in {@code InMemoryGroups}. A claim ({@code InMemoryClaims}) takes the queue's monitor,
 * asks {@code ClaimIndex} for candidates in the order of
 * {@link dev.statekit.store.support.ClaimPicker}, and writes {@link dev.statekit.store.ClaimRule}'s
 * snapshot and entry under the slot's monitor. Every later change is checked and written by
 * {@code InMemoryStore} under the slot's monitor (several in ascending id order), re-indexed, and
 * marks the groups it concerns by {@link dev.statekit.store.support.GroupLedger#marks}. A
 * resolution pass ({@code InMemoryPasses}) takes an owner's marks, counts them and writes the
 * resolver's decision. A finished tree leaves for {@code InMemoryArchive}, or is deleted. A task
 * may also begin in a schedule pass ({@code InMemorySchedules}), which creates an occurrence's task
 * through {@code InMemoryCreations} and records the schedule's progress under one monitor.
 */
@NullMarked
package dev.statekit.store.memory;

import org.jspecify.annotations.NullMarked;
