package dev.statekit.examples.serve.etl;

/** A stage's failure with the code the task's {@code error_code} shows, for example {@code MINERU_FAILED}. */
final class StageFailure extends Exception {
    private static final long serialVersionUID = 1L;

    private final String code;

    /** Creates a failure with {@code code} and {@code message}. */
    StageFailure(String code, String message) {
        super(message);
        this.code = code;
    }

    /** Returns the code. */
    String code() {
        return code;
    }
}
