package dev.statekit.core.spi;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.util.Locale;
import java.util.concurrent.TimeoutException;

/**
 * Decides what an exception thrown by a {@link Worker} means: a retryable or a fatal failure,
 * with a stable code. Implementations must be thread-safe and must not throw.
 */
@FunctionalInterface
public interface ErrorClassifier {

    /** Classifies {@code error} as a {@link WorkResult.Failure}. */
    WorkResult.Failure classify(Throwable error);

    /**
     * Returns the default classifier. Retryable: timeouts ({@link TimeoutException},
     * {@code SocketTimeoutException}, {@code HttpTimeoutException}, or any exception whose class
     * name contains "Timeout"), other {@link IOException}s (temporary I/O), and
     * {@link StatusException}s with status 408, 429 or 5xx. Fatal: missing input
     * ({@link FileNotFoundException}, {@link NoSuchFileException}), {@link AccessDeniedException},
     * bad input ({@link IllegalArgumentException}), other 4xx statuses, and everything else.
     */
    static ErrorClassifier defaults() {
        return error -> {
            String message = String.valueOf(error.getMessage());
            if (error instanceof StatusException s) {
                int status = s.status();
                boolean retryable = status == 408 || status == 429 || status >= 500;
                return new WorkResult.Failure("HTTP_" + status, message, retryable, null);
            }
            if (error instanceof TimeoutException || error.getClass().getSimpleName().toLowerCase(Locale.ROOT).contains("timeout")) {
                return new WorkResult.Failure("TIMEOUT", message, true, null);
            }
            if (error instanceof FileNotFoundException || error instanceof NoSuchFileException) {
                return new WorkResult.Failure("INPUT_MISSING", message, false, null);
            }
            if (error instanceof AccessDeniedException) {
                return new WorkResult.Failure("ACCESS_DENIED", message, false, null);
            }
            if (error instanceof IOException) {
                return new WorkResult.Failure("IO_ERROR", message, true, null);
            }
            if (error instanceof IllegalArgumentException) {
                return new WorkResult.Failure("BAD_INPUT", message, false, null);
            }
            return new WorkResult.Failure(error.getClass().getSimpleName().toUpperCase(Locale.ROOT), message, false, null);
        };
    }

    /** An exception carrying an HTTP-like status code, for workers that call remote services. */
    class StatusException extends Exception {
        private static final long serialVersionUID = 1L;
        private final int status;

        /** Creates an exception with {@code status} (for example 429) and a message. */
        public StatusException(int status, String message) {
            super(message);
            this.status = status;
        }

        /** Returns the status code. */
        public int status() {
            return status;
        }
    }
}
