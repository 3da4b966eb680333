/**
 * The statekit test kit for users' machines and workers: {@link dev.statekit.test.MachineChecker}
 * fires every event from every trigger source in every reachable state of a machine and reports
 * the {@link dev.statekit.test.MachineMatrix}; {@link dev.statekit.test.EventSequences} draws
 * jqwik event sequences from a machine's table; {@link dev.statekit.test.RuntimeSimulation} runs a
 * machine and its worker on a manual clock and executor, with crashes, restarts and lease expiry,
 * checking the runtime's invariants after every step. The store contract for users' stores is
 * {@link dev.statekit.store.tck.StoreContract}.
 */
@NullMarked
package dev.statekit.test;

import org.jspecify.annotations.NullMarked;
