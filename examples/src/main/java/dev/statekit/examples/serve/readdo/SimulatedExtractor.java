package dev.statekit.examples.serve.readdo;

import dev.statekit.examples.hosts.ReadDoHost.StepException;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;

/**
 * The extractor of the service: fetches nothing, makes up a page from its URL after
 * {@code latency}. A page on a host under {@code .invalid} (a name that never resolves) always
 * fails with {@code EXTRACTION_FETCH_FAILED}, not retryable; any other fails at the failure rate,
 * as a fetch that answered 503 (retryable) or a page without article text (not retryable).
 */
final class SimulatedExtractor implements Extractor {
    private final Chance failures;
    private final Duration latency;

    SimulatedExtractor(Chance failures, Duration latency) {
        this.failures = failures;
        this.latency = latency;
    }

    @Override
    public Page extract(String url) throws StepException, InterruptedException {
        SimulatedAi.pause(latency);
        URI uri = URI.create(url);
        String host = uri.getHost() == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
        if (host.endsWith(".invalid")) {
            throw new StepException("EXTRACTION_FETCH_FAILED", "the host " + host + " does not resolve", false);
        }
        if (failures.fails()) {
            if (Chance.pick(new Boolean[] {true, false})) {
                throw new StepException("EXTRACTION_FETCH_FAILED", "the page answered 503 Service Unavailable", true);
            }
            throw new StepException("EXTRACTION_PARSE_FAILED", "the page holds no article text", false);
        }
        String path = uri.getPath() == null ? "" : uri.getPath().replaceAll("/+$", "");
        String last = path.contains("/") ? path.substring(path.lastIndexOf('/') + 1) : path;
        String title = last.isBlank() ? host : last.replace('-', ' ').replace('_', ' ');
        String text = title + ". The page at " + url + " makes one claim and supports it with three examples. "
                + "It ends with what a reader could do next. It takes about " + (3 + Math.floorMod(url.hashCode(), 12))
                + " minutes to read.";
        return new Page(title, text);
    }
}
