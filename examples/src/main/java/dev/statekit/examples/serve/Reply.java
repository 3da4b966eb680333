package dev.statekit.examples.serve;

import org.jspecify.annotations.Nullable;

/**
 * What a route answers: a status and a body written as JSON (or, for {@link #text}, as text of a
 * content type).
 *
 * @param status      the HTTP status
 * @param body        the body: a value Jackson writes as JSON, a {@link String} for text, or null for none
 * @param contentType the content type of a text body, or null for JSON
 */
public record Reply(int status, @Nullable Object body, @Nullable String contentType) {
    /** A 200 with {@code body} as JSON. */
    public static Reply ok(Object body) {
        return new Reply(200, body, null);
    }

    /** A 201 with {@code body} as JSON. */
    public static Reply created(Object body) {
        return new Reply(201, body, null);
    }

    /** A reply of {@code status} with {@code body} as JSON. */
    public static Reply json(int status, Object body) {
        return new Reply(status, body, null);
    }

    /** A 200 with {@code text} of {@code contentType}. */
    public static Reply text(String contentType, String text) {
        return new Reply(200, text, contentType);
    }
}
