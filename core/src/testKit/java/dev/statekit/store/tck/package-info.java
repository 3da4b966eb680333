/**
 * The store contract test kit: {@link dev.statekit.store.tck.StoreContract}, the tests every
 * {@link dev.statekit.store.Store} implementation must pass.
 */
@NullMarked
package dev.statekit.store.tck;

import org.jspecify.annotations.NullMarked;
