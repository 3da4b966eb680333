/**
 * Sample hosts, one per seed system, each a façade over the seed's machines and the worker a
 * {@link dev.statekit.core.runtime.TaskRuntime} runs, against a {@link dev.statekit.store.Store} given to
 * its constructor:
 * {@link dev.statekit.examples.hosts.NovelProoferHost} (a job's chunks proofread by an LLM that
 * sometimes answers 429, behind the merge gate), {@link dev.statekit.examples.hosts.ReadDoHost}
 * (items through the Read→Do pipeline, a failure, a retry and idempotent exports),
 * {@link dev.statekit.examples.hosts.EtlHost} (an OCR job chained with post-processing, and cancel
 * only while pending) and {@link dev.statekit.examples.hosts.CompressionHost} (a queue that runs
 * one compression at a time, with priorities, pause and retries).
 *
 * <p>The scripted sample run of each host is in {@link dev.statekit.examples.hosts.programs}.
 * Every host also accepts a {@link dev.statekit.core.spi.Clock} and an executor, so that tests
 * drive the very same code deterministically with a {@link dev.statekit.core.spi.ManualClock} and
 * a {@link dev.statekit.core.spi.ManualExecutor}.
 */
@NullMarked
package dev.statekit.examples.hosts;

import org.jspecify.annotations.NullMarked;
