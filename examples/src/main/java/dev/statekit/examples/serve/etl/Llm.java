package dev.statekit.examples.serve.etl;

import java.util.List;

/**
 * The large language model a document's markdown is post-processed by: a real client would send
 * the chunks with the strategy's prompt and return the JSON the model answers.
 */
@FunctionalInterface
interface Llm {
    /**
     * One post-processing call.
     *
     * @param taskId   the task
     * @param attempt  the task's post-processing attempt (1 for the first)
     * @param strategy {@code direct-json}, {@code chunked-summarize} or {@code chunked-extract}
     * @param chunks   the markdown, whole ({@code direct-json}) or in chunks
     */
    record Request(long taskId, int attempt, String strategy, List<String> chunks) {}

    /**
     * Returns the model's answer, a JSON object as text.
     *
     * @throws StageFailure when the model reports a failure
     * @throws Exception    anything else a call may throw (time-outs, I/O)
     */
    String complete(Request request) throws Exception;
}
