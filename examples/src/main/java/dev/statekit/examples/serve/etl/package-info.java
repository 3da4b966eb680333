/**
 * {@code examples serve etl}: the chained ETL service of seed 003. A document's OCR job (MineRU,
 * simulated) writes its markdown under {@code <data>/artifacts/}, the chained post-processing job
 * (the skip wrapper, or a simulated LLM) writes the final JSON under {@code <data>/results/};
 * cancel and retry by stage, allowed to the submitter and the admins.
 */
@NullMarked
package dev.statekit.examples.serve.etl;

import org.jspecify.annotations.NullMarked;
