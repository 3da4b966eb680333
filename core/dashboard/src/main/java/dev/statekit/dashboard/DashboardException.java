package dev.statekit.dashboard;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A request the dashboard answers with an error status and a JSON body
 * {@code {"error_code": …, "message": …}}, plus {@code "field"} when one field of the request is at
 * fault and {@code "allowed"} when a refused change has alternatives. A host's {@link Actions} and
 * identity function throw it to answer with a status and code of their own.
 */
public final class DashboardException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String errorCode;
    private final @Nullable String field;
    private final @Nullable List<String> allowed;

    /**
     * Creates an error answer.
     *
     * @param status    the HTTP status, 100 to 599
     * @param errorCode the stable code of the error, e.g. {@code NOT_FOUND}
     * @param message   what went wrong, for a person
     */
    public DashboardException(int status, String errorCode, String message) {
        this(status, errorCode, message, null, null);
    }

    /**
     * Creates an error answer.
     *
     * @param status    the HTTP status, 100 to 599
     * @param errorCode the stable code of the error, e.g. {@code NOT_FOUND}
     * @param message   what went wrong, for a person
     * @param field     the request field at fault, or null
     * @param allowed   what is allowed instead (user events), or null to leave it out
     */
    public DashboardException(int status, String errorCode, String message, @Nullable String field, @Nullable List<String> allowed) {
        super(message, null, false, false);
        if (status < 100 || status > 599) throw new IllegalArgumentException("an HTTP status is 100 to 599, not " + status);
        this.status = status;
        this.errorCode = errorCode;
        this.field = field;
        this.allowed = allowed == null ? null : List.copyOf(allowed);
    }

    static DashboardException badField(String field, String message) {
        return new DashboardException(400, "INVALID_FIELD", field + ": " + message, field, null);
    }

    static DashboardException notFound(String what, Object id) {
        return new DashboardException(404, "NOT_FOUND", what + " " + id + " does not exist");
    }

    static String truncate(String text) {
        return text.length() <= 80 ? text : text.substring(0, 80) + "…";
    }

    /**
     * Returns the HTTP status.
     *
     * @return the status
     */
    public int status() {
        return status;
    }

    /**
     * Returns the stable error code.
     *
     * @return the code, e.g. {@code NOT_FOUND}
     */
    public String errorCode() {
        return errorCode;
    }

    /**
     * Returns the request field at fault.
     *
     * @return the field, or null
     */
    public @Nullable String field() {
        return field;
    }

    /**
     * Returns what is allowed instead.
     *
     * @return the user events allowed, or null when the answer does not say
     */
    public @Nullable List<String> allowed() {
        return allowed;
    }

    Map<String, Object> body() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error_code", errorCode);
        body.put("message", getMessage());
        if (field != null) body.put("field", field);
        if (allowed != null) body.put("allowed", allowed);
        return body;
    }
}
