package dev.statekit.examples.serve;

/** Answers one request of a route. */
@FunctionalInterface
public interface Route {
    /**
     * Answers {@code exchange}.
     *
     * @throws ApiException for an answer with an error status
     * @throws Exception    anything else, answered with 500 and logged
     */
    Reply handle(Exchange exchange) throws Exception;
}
