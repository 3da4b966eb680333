package dev.statekit.core.schedule;

import java.time.Instant;
import java.util.Objects;

/**
 * One occurrence of a named schedule to create: its scheduled instant, and whether it was missed
 * (older than the misfire threshold) or on time.
 *
 * @param schedule the name of the {@link Recurrence}
 * @param at       the scheduled instant
 * @param missed   whether it is created late, by the misfire policy
 */
public record Occurrence(String schedule, Instant at, boolean missed) {
    /** Checks the components. */
    public Occurrence {
        Objects.requireNonNull(schedule, "schedule");
        Objects.requireNonNull(at, "at");
    }

    /**
     * Returns the idempotency key of this occurrence, {@code schedule@instant} with the instant in
     * UTC ({@link Instant#toString()}), such as {@code nightly-report@2026-11-28T01:00:00Z}: the same
     * for every process that computes it, so a store creates each occurrence once.
     */
    public String key() {
        return schedule + "@" + at;
    }
}
