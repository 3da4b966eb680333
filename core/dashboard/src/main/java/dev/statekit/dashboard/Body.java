package dev.statekit.dashboard;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A request's JSON object, read field by field: every reader throws a 400 naming the field when the
 * value has the wrong type or is out of range, and {@link #requireOnly} refuses unknown fields.
 */
final class Body {
    private final Map<String, Object> object;

    private Body(Map<String, Object> object) {
        this.object = object;
    }

    /** Returns the body of {@code text}: an empty object when blank; 400 when it is not a JSON object. */
    static Body parse(String text) {
        if (text.isBlank()) return new Body(Map.of());
        Object value;
        try {
            value = JsonText.read(text);
        } catch (JsonText.MalformedException e) {
            throw new DashboardException(400, "MALFORMED_JSON", "the body is not valid JSON: " + e.getMessage());
        }
        if (!(value instanceof Map<?, ?>)) throw new DashboardException(400, "INVALID_BODY", "the body must be a JSON object, not " + kind(value));
        @SuppressWarnings("unchecked")
        Map<String, Object> map = (Map<String, Object>) value;
        return new Body(map);
    }

    /** Returns the object as read. */
    Map<String, Object> fields() {
        return object;
    }

    /** Refuses the body (400) when it holds a field not in {@code known}. */
    Body requireOnly(Collection<String> known) {
        for (String name : object.keySet()) {
            if (!known.contains(name)) {
                throw new DashboardException(400, "UNKNOWN_FIELD", DashboardException.truncate(name) + ": unknown field; known fields: "
                        + String.join(", ", known.stream().sorted().toList()), DashboardException.truncate(name), null);
            }
        }
        return this;
    }

    /** Returns the string {@code field}, if present, at most {@code maxLength} characters and not blank. */
    Optional<String> string(String field, int maxLength) {
        Object n = object.get(field);
        if (n == null) return Optional.empty();
        if (!(n instanceof String value)) throw DashboardException.badField(field, "must be a string, not " + kind(n));
        if (value.isBlank()) throw DashboardException.badField(field, "must not be blank");
        if (value.length() > maxLength) throw DashboardException.badField(field, "must be at most " + maxLength + " characters, not " + value.length());
        return Optional.of(value);
    }

    /** Returns the string {@code field}; 400 when missing. */
    String requireString(String field, int maxLength) {
        return string(field, maxLength).orElseThrow(() -> DashboardException.badField(field, "is required"));
    }

    /** Returns the integer {@code field}, if present, between {@code min} and {@code max}. */
    Optional<Long> integer(String field, long min, long max) {
        Object n = object.get(field);
        if (n == null) return Optional.empty();
        if (!(n instanceof Long value)) throw DashboardException.badField(field, "must be an integer, not " + kind(n));
        if (value < min || value > max) throw DashboardException.badField(field, "must be between " + min + " and " + max + ", not " + value);
        return Optional.of(value);
    }

    static String kind(@org.jspecify.annotations.Nullable Object n) {
        if (n == null) return "null";
        if (n instanceof String) return "string";
        if (n instanceof Boolean) return "boolean";
        if (n instanceof Long) return "integer";
        if (n instanceof BigInteger) return "an integer beyond 64 bits";
        if (n instanceof BigDecimal) return "number";
        if (n instanceof List<?>) return "array";
        return "object";
    }
}
