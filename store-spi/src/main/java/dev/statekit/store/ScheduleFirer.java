package dev.statekit.store;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Decides, inside a store's schedule pass ({@link Store#fireSchedules}), which occurrences of one
 * schedule to create and how far the schedule has run: the schedule's logic (cron, time zones,
 * misfire policies) stays with the caller, as {@link GroupResolver} keeps a group's. Called with the
 * schedule's row locked; must not block or call the store.
 */
@FunctionalInterface
public interface ScheduleFirer {

    /**
     * Returns what to write for one due schedule.
     *
     * @param schedule the schedule as stored, locked by the pass
     * @return the tasks to create and the schedule's new progress
     */
    Firing fire(ScheduleRecord schedule);

    /**
     * What one pass writes for one schedule, atomically with the tasks it creates.
     *
     * @param creates the tasks to create, oldest occurrence first, each with its occurrence's
     *                idempotency key (so that no pass creates one twice)
     * @param last    the schedule's new {@link ScheduleRecord#last}, or null to keep it
     * @param nextDue when the next occurrence falls due
     */
    record Firing(List<NewTask> creates, @Nullable Instant last, Instant nextDue) {
        /** Copies the list. */
        public Firing {
            creates = List.copyOf(creates);
            Objects.requireNonNull(nextDue, "nextDue");
        }
    }
}
