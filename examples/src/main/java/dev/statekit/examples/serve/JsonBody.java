package dev.statekit.examples.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collection;
import java.util.Iterator;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * A request's JSON object, read field by field: every reader throws a 400 naming the field when the
 * value has the wrong type or is out of range, and {@link #requireOnly} refuses unknown fields.
 */
public final class JsonBody {
    /** The longest string a field may hold unless a reader says otherwise. */
    public static final int MAX_STRING = 4096;

    private final ObjectNode object;

    JsonBody(ObjectNode object) {
        this.object = object;
    }

    /** Returns an empty body: the body of a request that sent none. */
    static JsonBody empty() {
        return new JsonBody(JsonNodeFactory.instance.objectNode());
    }

    /** Returns {@code node} as a body; 400 when it is not an object. */
    static JsonBody of(JsonNode node) {
        if (!(node instanceof ObjectNode o)) throw new ApiException(400, "INVALID_BODY", "the body must be a JSON object, not " + kind(node));
        return new JsonBody(o);
    }

    /** Returns the object as read. */
    public ObjectNode node() {
        return object;
    }

    /** Returns whether {@code field} is present and not null. */
    public boolean has(String field) {
        JsonNode n = object.get(field);
        return n != null && !n.isNull();
    }

    /** Refuses the body (400) when it holds a field not in {@code known}. */
    public JsonBody requireOnly(Collection<String> known) {
        for (Iterator<String> it = object.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!known.contains(name)) {
                throw new ApiException(400, "UNKNOWN_FIELD", Router.truncate(name) + ": unknown field; known fields: "
                        + String.join(", ", known), Router.truncate(name), null);
            }
        }
        return this;
    }

    /** Returns the string {@code field}, if present, at most {@value #MAX_STRING} characters. */
    public Optional<String> string(String field) {
        return string(field, MAX_STRING);
    }

    /** Returns the string {@code field}, if present, at most {@code maxLength} characters and not blank. */
    public Optional<String> string(String field, int maxLength) {
        JsonNode n = object.get(field);
        if (n == null || n.isNull()) return Optional.empty();
        if (!n.isTextual()) throw ApiException.badField(field, "must be a string, not " + kind(n));
        String value = n.textValue();
        if (value.isBlank()) throw ApiException.badField(field, "must not be blank");
        if (value.length() > maxLength) throw ApiException.badField(field, "must be at most " + maxLength + " characters, not " + value.length());
        return Optional.of(value);
    }

    /** Returns the string {@code field}; 400 when missing. */
    public String requireString(String field, int maxLength) {
        return string(field, maxLength).orElseThrow(() -> ApiException.badField(field, "is required"));
    }

    /** Returns the string {@code field}, if present, when it is one of {@code values} (compared ignoring case, returned as given in {@code values}). */
    public Optional<String> oneOf(String field, Set<String> values) {
        Optional<String> value = string(field, 200);
        if (value.isEmpty()) return value;
        for (String v : values) if (v.equalsIgnoreCase(value.get())) return Optional.of(v);
        throw ApiException.badField(field, "must be one of " + String.join(", ", values) + ", not '" + Router.truncate(value.get()) + "'");
    }

    /** Returns the integer {@code field}, if present, between {@code min} and {@code max}. */
    public Optional<Long> integer(String field, long min, long max) {
        JsonNode n = object.get(field);
        if (n == null || n.isNull()) return Optional.empty();
        if (!n.isIntegralNumber() || !n.canConvertToLong()) throw ApiException.badField(field, "must be an integer, not " + kind(n));
        long value = n.longValue();
        if (value < min || value > max) throw ApiException.badField(field, "must be between " + min + " and " + max + ", not " + value);
        return Optional.of(value);
    }

    /** Returns the number {@code field}, if present, between {@code min} and {@code max}. */
    public Optional<Double> number(String field, double min, double max) {
        JsonNode n = object.get(field);
        if (n == null || n.isNull()) return Optional.empty();
        if (!n.isNumber()) throw ApiException.badField(field, "must be a number, not " + kind(n));
        double value = n.doubleValue();
        if (!(value >= min && value <= max)) throw ApiException.badField(field, "must be between " + min + " and " + max + ", not " + value);
        return Optional.of(value);
    }

    /** Returns the boolean {@code field}, if present. */
    public Optional<Boolean> bool(String field) {
        JsonNode n = object.get(field);
        if (n == null || n.isNull()) return Optional.empty();
        if (!n.isBoolean()) throw ApiException.badField(field, "must be true or false, not " + kind(n));
        return Optional.of(n.booleanValue());
    }

    static String kind(JsonNode n) {
        return n.getNodeType().name().toLowerCase(Locale.ROOT);
    }
}
