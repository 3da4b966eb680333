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
 */
public record TaskError(String code, String message, boolean retryable, @Nullable String step) {
    /**
     * Creates an error record.
     *
     * @throws NullPointerException if {@code code} or {@code message} is null
     * @throws IllegalArgumentException if {@code code} is blank
     */
    public TaskError {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
        if (code.isBlank()) throw new IllegalArgumentException("error code must not be blank");
    }
}
