package dev.statekit.store;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The root of every exception statekit throws, carrying a stable {@link ErrorCode}.
 *
 * <p>Refusals of commands (illegal transitions, guard refusals, version conflicts) are not
 * exceptions: they are returned as values.
 */
public class StatekitException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;
    private final @Nullable Long taskId;

    /**
     * Creates an exception.
     *
     * @param code    the stable code
     * @param message a message that names what went wrong
     * @param taskId  the task concerned, if any
     * @param cause   the underlying cause, if any
     */
    public StatekitException(ErrorCode code, String message, @Nullable Long taskId, @Nullable Throwable cause) {
        super("[" + code + "] " + message, cause);
        this.code = Objects.requireNonNull(code, "code");
        this.taskId = taskId;
    }

    /** Creates an exception without task or cause. */
    public StatekitException(ErrorCode code, String message) {
        this(code, message, null, null);
    }

    /** Returns the stable code. */
    public ErrorCode code() {
        return code;
    }

    /** Returns the task concerned, or null. */
    public @Nullable Long taskId() {
        return taskId;
    }
}
