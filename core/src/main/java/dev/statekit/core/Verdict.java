package dev.statekit.core;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link Guard} decides: allow, or refuse with an application code and a message.
 *
 * @param allowed whether the transition may proceed
 * @param code    the application's code for a refusal (for example {@code ARTIFACTS_INCOMPLETE}); null when allowed
 * @param message a human-readable reason for a refusal; null when allowed
 */
public record Verdict(boolean allowed, @Nullable String code, @Nullable String message) {
    private static final Verdict ALLOW = new Verdict(true, null, null);

    /**
     * Creates a verdict.
     *
     * @throws IllegalArgumentException if a refusal lacks its code or message, or an allowance has one
     */
    public Verdict {
        if (allowed != (code == null) || allowed != (message == null)) {
            throw new IllegalArgumentException("a refusal needs a code and a message; an allowance has neither");
        }
    }

    /** Returns the shared allowing verdict. */
    public static Verdict allow() {
        return ALLOW;
    }

    /** Returns a refusal with {@code code} and {@code message}. */
    public static Verdict refuse(String code, String message) {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
        if (code.isBlank()) throw new IllegalArgumentException("refusal code must not be blank");
        return new Verdict(false, code, message);
    }

    /** Returns {@link #allow()} when {@code condition} holds, else a refusal. */
    public static Verdict when(boolean condition, String code, String message) {
        return condition ? ALLOW : refuse(code, message);
    }
}
