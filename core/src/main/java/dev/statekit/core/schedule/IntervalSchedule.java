package dev.statekit.core.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Occurrences every {@code interval} from {@code anchor}: occurrence {@code k} (k = 0, 1, …) at
 * {@code anchor + k × interval}, the anchor itself the first. Time zones and daylight saving play
 * no part: an interval is elapsed time.
 *
 * @param interval the time between occurrences, positive
 * @param anchor   the first occurrence
 */
public record IntervalSchedule(Duration interval, Instant anchor) implements Schedule {
    /**
     * Checks the interval.
     *
     * @throws IllegalArgumentException when {@code interval} is not positive
     */
    public IntervalSchedule {
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(anchor, "anchor");
        if (interval.isNegative() || interval.isZero()) throw new IllegalArgumentException("interval must be positive, was " + interval);
    }

    @Override
    public Instant next(Instant after) {
        if (after.isBefore(anchor)) return anchor;
        long k = Duration.between(anchor, after).dividedBy(interval) + 1;
        return anchor.plus(interval.multipliedBy(k));
    }

    @Override
    public Optional<Instant> previous(Instant atOrBefore) {
        if (atOrBefore.isBefore(anchor)) return Optional.empty();
        return Optional.of(anchor.plus(interval.multipliedBy(Duration.between(anchor, atOrBefore).dividedBy(interval))));
    }

    @Override
    public String describe() {
        return "every " + interval + " from " + anchor;
    }
}
