package dev.statekit.examples.serve.etl;

/**
 * The OCR service a document is parsed by (MineRU in the seed): a real client would send the
 * document to the service and return the markdown it answers.
 */
@FunctionalInterface
interface Mineru {
    /**
     * One document to parse.
     *
     * @param taskId   the task
     * @param attempt  the task's OCR attempt (1 for the first)
     * @param fileName the document's name
     * @param content  the document's bytes
     */
    record Request(long taskId, int attempt, String fileName, byte[] content) {}

    /**
     * Parses the document and returns its markdown.
     *
     * @throws StageFailure when the service reports a failure
     * @throws Exception    anything else a call may throw (time-outs, I/O)
     */
    String parse(Request request) throws Exception;
}
