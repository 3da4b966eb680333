/**
 * The statekit API: {@link dev.statekit.core.Machine machines as data} and the
 * {@link dev.statekit.core.TransitionEngine} that applies their transitions to persisted tasks.
 */
@NullMarked
package dev.statekit.core;

import org.jspecify.annotations.NullMarked;
