package dev.statekit.examples.serve;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * One request as a route sees it: its path parameters, query parameters, headers, JSON body and
 * actor, each read through a method that answers 400 naming the parameter when the value is not
 * valid.
 */
public final class Exchange {
    /** The longest query parameter value accepted. */
    public static final int MAX_QUERY_VALUE = 200;
    /** The header naming the user a request acts for. */
    public static final String ACTOR_HEADER = "X-User";
    /** The actor of a request without {@value #ACTOR_HEADER}. */
    public static final String ANONYMOUS = "anonymous";

    private static final Pattern ACTOR = Pattern.compile("[A-Za-z0-9._@:-]{1,64}");
    private static final Pattern DIGITS = Pattern.compile("[0-9]{1,18}");

    private final String method;
    private final String path;
    private final Map<String, String> parameters;
    private final Map<String, List<String>> query;
    private final Function<String, @Nullable String> headers;
    private final byte[] body;
    private @Nullable JsonBody json;

    Exchange(String method, String path, Map<String, String> parameters, Map<String, List<String>> query,
             Function<String, @Nullable String> headers, byte[] body) {
        this.method = method;
        this.path = path;
        this.parameters = parameters;
        this.query = query;
        this.headers = headers;
        this.body = body;
    }

    /** Returns the request's method. */
    public String method() {
        return method;
    }

    /** Returns the request's path. */
    public String path() {
        return path;
    }

    /** Returns the query parameters, decoded, each with its values. */
    Map<String, List<String>> queryParameters() {
        return query;
    }

    /** Returns the header {@code name}, or null. */
    @Nullable String headerOrNull(String name) {
        return headers.apply(name);
    }

    /** Returns the body's bytes as received. */
    byte[] rawBody() {
        return body.clone();
    }

    /** Returns the path parameter {@code name} as written. */
    public String parameter(String name) {
        String value = parameters.get(name);
        if (value == null) throw new IllegalArgumentException("the route has no parameter " + name);
        return value;
    }

    /** Returns the path parameter {@code name} as a positive id; 400 when it is not one. */
    public long id(String name) {
        String value = parameter(name);
        if (!DIGITS.matcher(value).matches() || Long.parseLong(value) == 0) {
            throw new ApiException(400, "INVALID_ID", name + " must be a positive integer of at most 18 digits, not '"
                    + Router.truncate(value) + "'", name, null);
        }
        return Long.parseLong(value);
    }

    /** Returns the query parameter {@code name}, if present and not empty; 400 when repeated or longer than {@value #MAX_QUERY_VALUE}. */
    public Optional<String> query(String name) {
        List<String> values = query.get(name);
        if (values == null || values.isEmpty()) return Optional.empty();
        if (values.size() > 1) throw new ApiException(400, "INVALID_QUERY", name + " is given " + values.size() + " times", name, null);
        String value = values.get(0);
        if (value.length() > MAX_QUERY_VALUE) {
            throw new ApiException(400, "INVALID_QUERY", name + " must be at most " + MAX_QUERY_VALUE + " characters", name, null);
        }
        return value.isEmpty() ? Optional.empty() : Optional.of(value);
    }

    /** Returns the query parameter {@code name} as a number between {@code min} and {@code max}, or {@code fallback}; 400 when it is not one. */
    public long queryLong(String name, long fallback, long min, long max) {
        Optional<String> value = query(name);
        if (value.isEmpty()) return fallback;
        String v = value.get();
        long parsed;
        if (!Pattern.matches("-?[0-9]{1,18}", v)) {
            throw new ApiException(400, "INVALID_QUERY", name + " must be an integer, not '" + Router.truncate(v) + "'", name, null);
        }
        parsed = Long.parseLong(v);
        if (parsed < min || parsed > max) {
            throw new ApiException(400, "INVALID_QUERY", name + " must be between " + min + " and " + max + ", not " + parsed, name, null);
        }
        return parsed;
    }

    /** Returns the header {@code name}, if present. */
    public Optional<String> header(String name) {
        return Optional.ofNullable(headers.apply(name));
    }

    /**
     * Returns the user the request acts for: the {@value #ACTOR_HEADER} header, or
     * {@value #ANONYMOUS}; 400 when the header is not 1 to 64 letters, digits or {@code ._@:-}.
     */
    public String actor() {
        String value = headers.apply(ACTOR_HEADER);
        if (value == null || value.isEmpty()) return ANONYMOUS;
        if (!ACTOR.matcher(value).matches()) {
            throw new ApiException(400, "INVALID_ACTOR", ACTOR_HEADER + " must be 1 to 64 letters, digits or . _ @ : -", ACTOR_HEADER, null);
        }
        return value;
    }

    /** Returns the JSON object of the body; an empty object when the request has no body; 400 when it is not a JSON object. */
    public JsonBody body() {
        JsonBody j = json;
        if (j == null) {
            String text = new String(body, StandardCharsets.UTF_8);
            j = text.isBlank() ? JsonBody.empty() : JsonBody.of(Json.read(text));
            json = j;
        }
        return j;
    }
}
