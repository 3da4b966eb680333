package dev.statekit.core.schedule;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What {@link Recurrence#due} decides at one moment: the occurrences to create now, in order, and
 * when the next one falls due.
 *
 * @param occurrences the occurrences to create, oldest first; empty when none is due
 * @param nextDue     the first occurrence after {@code now} (and after the last one created)
 * @param skipped     whether missed occurrences were left out (by SKIP, or beyond RUN_ONCE's one or RUN_EACH's limit)
 */
public record Due(List<Occurrence> occurrences, Instant nextDue, boolean skipped) {
    /** Copies the list. */
    public Due {
        occurrences = List.copyOf(occurrences);
        Objects.requireNonNull(nextDue, "nextDue");
    }
}
