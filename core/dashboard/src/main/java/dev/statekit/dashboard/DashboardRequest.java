package dev.statekit.dashboard;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One HTTP request as the dashboard reads it, whatever server received it. The dashboard's own
 * adapters ({@link Dashboard#httpHandler()}, {@link DashboardServlet}) make it; a host on another
 * server makes it with {@link #of} and writes the {@link DashboardResponse} back.
 */
public interface DashboardRequest {
    /**
     * Returns the method.
     *
     * @return the method in upper case, e.g. {@code GET}
     */
    String method();

    /**
     * Returns the path as sent, still percent-encoded, from the server's root (or from the servlet
     * context's path): {@code /statekit/api/tasks/12}.
     *
     * @return the raw path
     */
    String rawPath();

    /**
     * Returns the query string as sent, still percent-encoded, without the {@code ?}.
     *
     * @return the raw query, or null when the request has none
     */
    @Nullable String rawQuery();

    /**
     * Returns a header.
     *
     * @param name the header's name, in any case
     * @return its first value, or null when the request has none
     */
    @Nullable String header(String name);

    /**
     * Returns who the server authenticated, if it did.
     *
     * @return the principal, or null
     */
    @Nullable Principal principal();

    /**
     * Returns the body as received. The adapter reads it whole, within its size limit, before it
     * hands the request over.
     *
     * @return the body's bytes, empty when there is none
     */
    byte[] body();

    /**
     * Returns a request of the given parts.
     *
     * @param method    the method
     * @param rawPath   the path as sent, percent-encoded
     * @param rawQuery  the query as sent, or null
     * @param headers   a header's first value by name (in any case), or null
     * @param principal who the server authenticated, or null
     * @param body      the body's bytes
     * @return the request
     */
    static DashboardRequest of(String method, String rawPath, @Nullable String rawQuery, Function<String, @Nullable String> headers,
                               @Nullable Principal principal, byte[] body) {
        byte[] copy = body.clone();
        return new DashboardRequest() {
            @Override
            public String method() {
                return method;
            }

            @Override
            public String rawPath() {
                return rawPath;
            }

            @Override
            public @Nullable String rawQuery() {
                return rawQuery;
            }

            @Override
            public @Nullable String header(String name) {
                return headers.apply(name);
            }

            @Override
            public @Nullable Principal principal() {
                return principal;
            }

            @Override
            public byte[] body() {
                return copy.clone();
            }
        };
    }

    /**
     * Returns the query's parameters, decoded, in their order.
     *
     * @return each parameter's values by name
     * @throws DashboardException 400 {@code INVALID_QUERY} when the query cannot be decoded
     */
    default Map<String, List<String>> query() {
        Map<String, List<String>> query = new LinkedHashMap<>();
        String raw = rawQuery();
        if (raw == null || raw.isEmpty()) return query;
        try {
            for (String pair : raw.split("&")) {
                if (pair.isEmpty()) continue;
                int eq = pair.indexOf('=');
                String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                query.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
            }
        } catch (IllegalArgumentException e) {
            throw new DashboardException(400, "INVALID_QUERY", "the query string cannot be decoded");
        }
        return query;
    }
}
