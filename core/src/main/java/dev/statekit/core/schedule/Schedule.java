package dev.statekit.core.schedule;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * When something recurs: a {@link CronSchedule} (a cron expression read on the wall clock of a
 * time zone) or an {@link IntervalSchedule} (a fixed duration from an anchor instant).
 *
 * <p>Every method is a pure function of its arguments: no clock is read. Implementations are
 * immutable and thread-safe.
 */
public sealed interface Schedule permits CronSchedule, IntervalSchedule {
    /**
     * Returns a cron schedule.
     *
     * @throws dev.statekit.store.StatekitException with {@code INVALID_ARGUMENT} when the expression does not parse
     * @see Cron#parse(String)
     */
    static CronSchedule cron(String expression, ZoneId zone) {
        return new CronSchedule(Cron.parse(expression), zone);
    }

    /**
     * Returns a schedule with an occurrence every {@code interval} from {@code anchor}: occurrence
     * {@code k} (from 0) at {@code anchor + k × interval}.
     *
     * @throws IllegalArgumentException when {@code interval} is not positive
     */
    static IntervalSchedule every(Duration interval, Instant anchor) {
        return new IntervalSchedule(interval, anchor);
    }

    /**
     * Returns the first occurrence strictly after {@code after}.
     *
     * @throws IllegalStateException only when none lies within a hundred years (no accepted cron
     *                               expression is that sparse) or beyond the range of {@link Instant}
     */
    Instant next(Instant after);

    /** Returns the last occurrence at or before {@code atOrBefore}, or empty when there is none (before an interval's anchor). */
    Optional<Instant> previous(Instant atOrBefore);

    /**
     * Returns the first {@code n} occurrences strictly after {@code after}, in order: what a
     * dashboard shows as "next runs".
     *
     * @throws IllegalArgumentException when {@code n} is negative
     */
    default List<Instant> nextOccurrences(Instant after, int n) {
        Objects.requireNonNull(after, "after");
        if (n < 0) throw new IllegalArgumentException("n must be >= 0, was " + n);
        List<Instant> next = new ArrayList<>(n);
        Instant t = after;
        for (int i = 0; i < n; i++) {
            t = next(t);
            next.add(t);
        }
        return List.copyOf(next);
    }

    /** Returns the schedule in words, such as {@code cron '0 2 * * *' in Europe/Berlin} or {@code every PT5M from 2026-01-01T00:00:00Z}. */
    String describe();
}
