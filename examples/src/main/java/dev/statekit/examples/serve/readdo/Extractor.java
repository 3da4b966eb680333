package dev.statekit.examples.serve.readdo;

import dev.statekit.examples.hosts.ReadDoHost.StepException;

/**
 * Fetches a captured page and extracts its text: the pipeline's first step. A real client fetches
 * the URL and parses the article; {@link SimulatedExtractor} stands in for it.
 */
public interface Extractor {
    /** The extracted page: its title and its text. */
    record Page(String title, String text) {}

    /**
     * Extracts the page at {@code url}.
     *
     * @throws InterruptedException when the call is interrupted
     * @throws StepException {@code EXTRACTION_FETCH_FAILED} when the page cannot be fetched,
     *                       {@code EXTRACTION_PARSE_FAILED} when it holds no text to extract
     */
    Page extract(String url) throws StepException, InterruptedException;
}
