package dev.statekit.examples.serve;

import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Where a route reads the key that makes a repeated request answer as the first did: the
 * {@value #HEADER} header by default ({@link #header()}), or a field of the body where the seed
 * names one ({@link #field}: compression's {@code idempotency_key}, read-do's {@code capture_id},
 * {@code process_request_id} and {@code export_key}).
 */
public final class Idempotency {
    /** The header of a request's idempotency key. */
    public static final String HEADER = "Idempotency-Key";

    private static final Pattern KEY = Pattern.compile("[A-Za-z0-9._:-]{1,100}");
    private static final Idempotency HEADER_KEY = new Idempotency(null, 0, false);

    private final @Nullable String field;
    private final int maxLength;
    private final boolean required;

    private Idempotency(@Nullable String field, int maxLength, boolean required) {
        this.field = field;
        this.maxLength = maxLength;
        this.required = required;
    }

    /** The {@value #HEADER} header: 1 to 100 letters, digits or {@code . _ : -}, else 400 {@code INVALID_IDEMPOTENCY_KEY}. */
    public static Idempotency header() {
        return HEADER_KEY;
    }

    /** The optional body field {@code name}: a string of at most {@code maxLength} characters, else 400 naming the field. */
    public static Idempotency field(String name, int maxLength) {
        return new Idempotency(name, maxLength, false);
    }

    /** Returns this body field, required (400 naming it when missing). */
    public Idempotency required() {
        if (field == null) throw new IllegalStateException("the header key is optional");
        return new Idempotency(field, maxLength, true);
    }

    /** Returns the body field the key is read from, or empty for the header. */
    public Optional<String> bodyField() {
        return Optional.ofNullable(field);
    }

    /** Returns the key of {@code x}, if it carries one. */
    public Optional<String> key(Exchange x) {
        String name = field;
        if (name != null) return required ? Optional.of(x.body().requireString(name, maxLength)) : x.body().string(name, maxLength);
        Optional<String> key = x.header(HEADER);
        if (key.isEmpty() || key.get().isEmpty()) return Optional.empty();
        if (!KEY.matcher(key.get()).matches()) {
            throw new ApiException(400, "INVALID_IDEMPOTENCY_KEY", HEADER + " must be 1 to 100 letters, digits or . _ : -", HEADER, null);
        }
        return key;
    }
}
