/**
 * statekit sample hosts: the five seed machines declared with the statekit API
 * ({@link dev.statekit.examples.NovelProoferJob}, {@link dev.statekit.examples.NovelProoferChunk},
 * {@link dev.statekit.examples.ReadDoItem}, {@link dev.statekit.examples.EtlTask},
 * {@link dev.statekit.examples.CompressionTask}) and the command-line entry
 * {@link dev.statekit.examples.Main}.
 */
@NullMarked
package dev.statekit.examples;

import org.jspecify.annotations.NullMarked;
