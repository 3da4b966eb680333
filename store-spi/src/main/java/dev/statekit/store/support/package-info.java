/**
 * Helpers for {@link dev.statekit.store.Store} implementations: the rules of the store contract
 * that do not depend on how a store keeps its data, written once so that every store applies them
 * the same way. {@link dev.statekit.store.support.ClaimPicker} is the order in which a claim takes
 * runnable tasks; {@link dev.statekit.store.support.StoreChecks} holds the argument checks every
 * store makes, with one message each; {@link dev.statekit.store.support.GroupLedger} is the group
 * bookkeeping around {@link dev.statekit.store.Store#resolveGroups}: what a mark is, whom a change
 * marks, how marks become counts, and in which order a pass takes owners.
 *
 * <p>Applications that only use a store need nothing from this package.
 */
@NullMarked
package dev.statekit.store.support;

import org.jspecify.annotations.NullMarked;
