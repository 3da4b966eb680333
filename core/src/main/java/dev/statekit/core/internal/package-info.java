/**
 * Implementation details of statekit core. Not API: anything here may change without notice,
 * and no public signature outside this package mentions its types.
 */
@NullMarked
package dev.statekit.core.internal;

import org.jspecify.annotations.NullMarked;
