package dev.statekit.core.spi;

import dev.statekit.core.Attribute;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link Worker} reports for one claimed task. The runtime maps it onto the machine's
 * run policy: success, retryable failure (retried with backoff until the policy's limit, then
 * fatal), fatal failure, or snooze (run again after a delay without using an attempt), which a
 * rate-limited answer extends to every task of the same rate key.
 */
public sealed interface WorkResult {

    /** Returns a success without attribute changes. */
    static WorkResult success() {
        return Success.EMPTY;
    }

    /** Returns a success recording {@code attributes} on the task (a null value removes a key). */
    static WorkResult success(Map<String, ? extends @Nullable String> attributes) {
        return new Success(java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(attributes)));
    }

    /** Returns a success recording typed attribute {@code key} as {@code value}; {@link Success#with} adds more. */
    static <T> Success success(Attribute<T> key, T value) {
        return Success.EMPTY.with(key, value);
    }

    /** Returns a retryable failure with a stable code (for example {@code AI_RATE_LIMITED}) and a message. */
    static Failure retryable(String code, String message) {
        return new Failure(code, message, true, null);
    }

    /** Returns a fatal failure: the task fails without further automatic retries. */
    static Failure fatal(String code, String message) {
        return new Failure(code, message, false, null);
    }

    /** Returns a snooze: the task runs again after {@code delay}, without using an attempt. */
    static WorkResult snooze(Duration delay) {
        Objects.requireNonNull(delay, "delay");
        if (delay.isNegative()) throw new IllegalArgumentException("snooze delay must be >= 0, was " + delay);
        return new Snooze(delay);
    }

    /**
     * Returns a rate-limited answer (an HTTP 429 with Retry-After {@code retryAfter}, for example):
     * the task is snoozed for {@code retryAfter} as {@link #snooze} does, and its rate key
     * ({@link dev.statekit.store.RateLimit#keyOf}: the value of the queue's rate-limit key
     * attribute, or the whole queue) is held for as long, so that no process starts another task of
     * that key before then.
     */
    static WorkResult rateLimited(Duration retryAfter) {
        Objects.requireNonNull(retryAfter, "retryAfter");
        if (retryAfter.isNegative()) throw new IllegalArgumentException("retry-after must be >= 0, was " + retryAfter);
        return new Snooze(retryAfter, true);
    }

    /**
     * The work succeeded.
     *
     * @param attributes attribute changes to record; a null value removes its key
     */
    record Success(Map<String, @Nullable String> attributes) implements WorkResult {
        static final Success EMPTY = new Success(Map.of());

        /** Creates a success. */
        public Success {
            Objects.requireNonNull(attributes, "attributes");
        }

        /** Returns this success also recording typed attribute {@code key} as {@code value}. */
        public <T> Success with(Attribute<T> key, T value) {
            LinkedHashMap<String, @Nullable String> copy = new LinkedHashMap<>(attributes);
            copy.put(key.name(), key.encode(value));
            return new Success(Collections.unmodifiableMap(copy));
        }
    }

    /**
     * The work failed.
     *
     * @param code      a stable code
     * @param message   a human-readable message
     * @param retryable whether a retry may succeed
     * @param step      the step that failed, if the application names steps
     * @param detail    what else explains the failure, recorded with the task's error
     *                  ({@link dev.statekit.store.TaskError#detail()}): the runtime sets the stack trace
     *                  of the exception a worker threw; null when there is none
     */
    record Failure(String code, String message, boolean retryable, @Nullable String step, @Nullable String detail) implements WorkResult {
        /** Creates a failure. */
        public Failure {
            Objects.requireNonNull(code, "code");
            Objects.requireNonNull(message, "message");
            if (code.isBlank()) throw new IllegalArgumentException("failure code must not be blank");
        }

        /** Creates a failure without a detail. */
        public Failure(String code, String message, boolean retryable, @Nullable String step) {
            this(code, message, retryable, step, null);
        }

        /** Returns this failure attributed to {@code stepName}. */
        public Failure atStep(String stepName) {
            return new Failure(code, message, retryable, Objects.requireNonNull(stepName, "step"), detail);
        }

        /** Returns this failure with {@code text} as its detail, or none when null. */
        public Failure withDetail(@Nullable String text) {
            return new Failure(code, message, retryable, step, text);
        }
    }

    /**
     * Run the task again after {@code delay} without using an attempt.
     *
     * @param delay       how long to wait
     * @param rateLimited whether the work was rate limited ({@link #rateLimited}): the task's rate
     *                    key is held for {@code delay} too
     */
    record Snooze(Duration delay, boolean rateLimited) implements WorkResult {
        /** Creates a snooze. */
        public Snooze {
            Objects.requireNonNull(delay, "delay");
        }

        /** Creates a snooze that holds nothing else back. */
        public Snooze(Duration delay) {
            this(delay, false);
        }
    }
}
