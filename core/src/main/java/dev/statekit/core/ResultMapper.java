package dev.statekit.core;

/**
 * The history names of the runtime's own moves back to a claimable state without a row of the
 * table ({@link Decider#requeue}): a retry that waits in place, and a release. What a run's end
 * means is decided by {@link Settlement}.
 */
final class ResultMapper {
    /** The history event of a retry that waits in place (no retryable row). */
    static final String RETRY = "RETRY";
    /** The history event of a release without a release row. */
    static final String RELEASE = "RELEASE";

    private ResultMapper() {}
}
