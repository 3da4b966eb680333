/**
 * The persistence contract of statekit: immutable {@link dev.statekit.store.TaskRecord task} and
 * {@link dev.statekit.store.HistoryEntry history} records, the {@link dev.statekit.store.Store}
 * interface every store implements. Its reference implementation, the thread-safe
 * {@link dev.statekit.store.memory.InMemoryStore}, lives in {@code dev.statekit.store.memory}.
 *
 * <p>This package knows nothing of user enums: states and events are stored by name.
 */
@NullMarked
package dev.statekit.store;

import org.jspecify.annotations.NullMarked;
