package dev.statekit.examples.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Predicate;

/** A test's HTTP client of a service: JSON in, status and JSON out. */
public final class ApiClient {
    private final String base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private String actor = "";

    /** A response: its status, its body as text and as JSON (missing when it is not JSON). */
    public record Response(int status, String text, JsonNode json) {
        /** Returns the body's field {@code name}, as text. */
        public String field(String name) {
            return json.path(name).asText();
        }
    }

    /** Creates a client of the service at {@code base}. */
    public ApiClient(String base) {
        this.base = base;
    }

    /** Returns a client sending {@code X-User: actor}. */
    public ApiClient as(String actor) {
        ApiClient c = new ApiClient(base);
        c.actor = actor;
        return c;
    }

    /** GETs {@code path}. */
    public Response get(String path) {
        return send(builder(path).GET().build());
    }

    /** POSTs {@code json} as {@code application/json} to {@code path}. */
    public Response post(String path, String json) {
        return send(builder(path).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    /** POSTs {@code body} with {@code contentType} (or none when null) to {@code path}. */
    public Response post(String path, String body, String contentType) {
        HttpRequest.Builder b = builder(path).POST(HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) b.header("Content-Type", contentType);
        return send(b.build());
    }

    /** Sends {@code request} as it is. */
    public Response send(HttpRequest request) {
        try {
            HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
            JsonNode json;
            try {
                json = Json.mapper().readTree(r.body());
                if (json == null) json = MissingNode.getInstance();
            } catch (IOException e) {
                json = MissingNode.getInstance();
            }
            return new Response(r.statusCode(), r.body(), json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Returns a request builder for {@code path} with this client's actor. */
    public HttpRequest.Builder builder(String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
        if (!actor.isEmpty()) b.header(Exchange.ACTOR_HEADER, actor);
        return b;
    }

    /**
     * GETs {@code path} until {@code done} holds for the response, at most {@code within}.
     *
     * @throws AssertionError with the last response when it never held
     */
    public Response awaitGet(String path, Predicate<Response> done, Duration within) {
        Instant deadline = Instant.now().plus(within);
        Response last = get(path);
        while (!done.test(last)) {
            if (Instant.now().isAfter(deadline)) throw new AssertionError("GET " + path + " did not reach the awaited answer within " + within + "; last: " + last);
            try {
                Thread.onSpinWait();
                java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
            } catch (RuntimeException e) {
                throw e;
            }
            last = get(path);
        }
        return last;
    }
}
