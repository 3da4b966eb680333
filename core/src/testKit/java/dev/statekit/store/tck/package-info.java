/**
 * The store contract test kit: {@link dev.statekit.store.tck.StoreContract}, the tests every
 * {@link dev.statekit.store.Store} implementation must pass.
 *
 * <p>A store's test class subclasses {@code StoreContract}, which opens a new store for each test
 * and runs the contract's parts as its nested classes, one per area: creation, changes, metadata,
 * queries, claims, anti-starvation, concurrent claims, renewal, scans, batches, peek, queues,
 * groups, resolution passes, dependencies, purge, counts by state and the archive. Each part
 * ({@code CreateContract} to {@code ArchiveContract}, over {@code ContractPart}) uses the store the
 * contract opened; the constants and helpers they share are in
 * {@link dev.statekit.store.tck.ContractFixtures}. The property over random scripts runs each
 * script on a store of its own against {@code ScriptModel}.
 */
@NullMarked
package dev.statekit.store.tck;

import org.jspecify.annotations.NullMarked;
