package dev.statekit.store;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The last error recorded on a task: kept after a later success as diagnostic history.
 *
 * @param code      a stable, machine-readable code such as {@code AI_RATE_LIMITED}
 * @param message   a human-readable message
 * @param retryable whether the failure was classified as retryable
 * @param step      the step of the work that failed, if the application names steps
 * @param detail    what else explains the failure, such as the stack trace of the exception a worker
 *                  threw; cut to {@value #MAX_DETAIL} characters; null when there is none
 */
public record TaskError(String code, String message, boolean retryable, @Nullable String step, @Nullable String detail) {
    /** The most characters of {@link #detail} kept, {@value}: a longer detail is cut and ends with {@link #CUT}. */
    public static final int MAX_DETAIL = 8192;
    /** The end of a detail that was cut to {@link #MAX_DETAIL} characters. */
    public static final String CUT = "\n... (cut)";

    /**
     * Creates an error record; a {@code detail} longer than {@link #MAX_DETAIL} characters is cut.
     *
     * @throws NullPointerException if {@code code} or {@code message} is null
     * @throws IllegalArgumentException if {@code code} is blank
     */
    public TaskError {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
        if (code.isBlank()) throw new IllegalArgumentException("error code must not be blank");
        if (detail != null && detail.length() > MAX_DETAIL) {
            int keep = MAX_DETAIL - CUT.length();
            if (Character.isHighSurrogate(detail.charAt(keep - 1))) keep--;
            detail = detail.substring(0, keep) + CUT;
        }
    }

    /** Creates an error record without a detail. */
    public TaskError(String code, String message, boolean retryable, @Nullable String step) {
        this(code, message, retryable, step, null);
    }

    /** Returns this error with {@code text} as its detail (cut as the constructor cuts it), or none when null. */
    public TaskError withDetail(@Nullable String text) {
        return new TaskError(code, message, retryable, step, text);
    }
}
