package dev.statekit.core.runtime;

/**
 * What one runtime did for one machine on one queue over the last minute on the engine's clock
 * (the current second and the 59 before it): counts of this process's own work, unlike the state
 * counts of {@link QueueMetrics}, which are the whole store's.
 *
 * @param started   tasks claimed by this runtime's worker slots
 * @param succeeded successes written
 * @param failed    failures written that ended their task
 * @param retried   retryable failures written that scheduled another attempt
 * @param timedOut  attempts that ran past their timeout (each also counted as retried or failed)
 * @param recovered tasks this runtime recovered after their holder was gone
 */
public record LastMinute(long started, long succeeded, long failed, long retried, long timedOut, long recovered) {
    /** Nothing happened. */
    public static final LastMinute NONE = new LastMinute(0, 0, 0, 0, 0, 0);

    /**
     * Creates counts.
     *
     * @throws IllegalArgumentException if a count is negative
     */
    public LastMinute {
        if (started < 0 || succeeded < 0 || failed < 0 || retried < 0 || timedOut < 0 || recovered < 0) {
            throw new IllegalArgumentException("counts must be >= 0");
        }
    }
}
