/**
 * The novel-proofer service ({@code examples serve novel-proofer}): proofreading jobs of seeds 000
 * and 001 (validate, process the chunks with a simulated LLM, merge into an output file) over
 * HTTP, on the {@link dev.statekit.examples.hosts.NovelProoferHost}.
 */
@NullMarked
package dev.statekit.examples.serve.novelproofer;

import org.jspecify.annotations.NullMarked;
