package dev.statekit.core.ops;

import dev.statekit.core.schedule.Recurrence;
import dev.statekit.store.ScheduleRecord;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A recurring schedule as a dashboard shows it: the record the store keeps (template, paused,
 * progress, next due), the recurrence it describes, and its next occurrences.
 *
 * @param record     the schedule as stored
 * @param recurrence its schedule and misfire policy
 * @param next       its next occurrences, from its next due instant on (which may be past when it is
 *                   paused or overdue), oldest first
 */
public record ScheduleView(ScheduleRecord record, Recurrence recurrence, List<Instant> next) {
    /** Copies the list. */
    public ScheduleView {
        Objects.requireNonNull(record, "record");
        Objects.requireNonNull(recurrence, "recurrence");
        next = List.copyOf(next);
    }

    /** Returns the schedule's name. */
    public String name() {
        return record.name();
    }

    /** Returns whether the schedule is paused. */
    public boolean paused() {
        return record.paused();
    }
}
