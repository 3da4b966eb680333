/**
 * The persistence contract of statekit: immutable {@link dev.statekit.store.TaskRecord task} and
 * {@link dev.statekit.store.HistoryEntry history} records, the {@link dev.statekit.store.Store}
 * interface every store implements, and {@link dev.statekit.store.InMemoryStore}, the thread-safe
 * reference implementation.
 *
 * <p>This package knows nothing of user enums: states and events are stored by name.
 */
@NullMarked
package dev.statekit.store;

import org.jspecify.annotations.NullMarked;
