package dev.statekit.examples.serve;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A request the service answers with an error status and a JSON body
 * {@code {"error_code": …, "message": …}}, plus {@code "field"} when one field of the request is
 * at fault and {@code "allowed"} when a refused change has alternatives.
 */
public final class ApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String errorCode;
    private final @Nullable String field;
    private final @Nullable List<String> allowed;

    /** Creates an error reply with {@code status}, {@code errorCode} and {@code message}. */
    public ApiException(int status, String errorCode, String message) {
        this(status, errorCode, message, null, null);
    }

    /**
     * Creates an error reply.
     *
     * @param field   the request field at fault, or null
     * @param allowed what is allowed instead, or null to leave it out
     */
    public ApiException(int status, String errorCode, String message, @Nullable String field, @Nullable List<String> allowed) {
        super(message, null, false, false);
        this.status = status;
        this.errorCode = errorCode;
        this.field = field;
        this.allowed = allowed == null ? null : List.copyOf(allowed);
    }

    /** A 400 for the request field {@code field}. */
    public static ApiException badField(String field, String message) {
        return new ApiException(400, "INVALID_FIELD", field + ": " + message, field, null);
    }

    /** A 404 for an unknown id. */
    public static ApiException notFound(String what, Object id) {
        return new ApiException(404, "NOT_FOUND", what + " " + id + " does not exist");
    }

    /** Returns this error as a reply. */
    public Reply asReply() {
        return Reply.json(status, body());
    }

    /** Returns the HTTP status. */
    public int status() {
        return status;
    }

    /** Returns the stable error code. */
    public String errorCode() {
        return errorCode;
    }

    /** Returns the JSON body of the reply. */
    public Map<String, Object> body() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error_code", errorCode);
        body.put("message", getMessage());
        if (field != null) body.put("field", field);
        if (allowed != null) body.put("allowed", allowed);
        return body;
    }
}
