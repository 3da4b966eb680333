/**
 * The sample programs, one per seed system: each runs its host from
 * {@link dev.statekit.examples.hosts} on the system clock and a thread pool, through a scripted
 * run that waits for its own conditions with deadlines, prints what happens with a closing
 * {@code summary:} line, and returns 0 when the run ended as expected.
 * {@link dev.statekit.examples.Main} runs them.
 */
@NullMarked
package dev.statekit.examples.hosts.programs;

import org.jspecify.annotations.NullMarked;
