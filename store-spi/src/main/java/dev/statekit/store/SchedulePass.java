package dev.statekit.store;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What one schedule pass ({@link Store#fireSchedules}) committed, as {@link Claimed} is what a
 * claim committed.
 *
 * @param fired   the schedules the pass took, as stored after it, each with the tasks it created
 * @param nextDue the earliest {@link ScheduleRecord#nextDue} of the unpaused schedules of the pass's
 *                machines after the pass, or null when there is none
 */
public record SchedulePass(List<Fired> fired, @Nullable Instant nextDue) {
    /** Copies the list. */
    public SchedulePass {
        fired = List.copyOf(fired);
    }

    /** Returns every task the pass created, schedule by schedule, oldest occurrence first. */
    public List<TaskRecord> created() {
        List<TaskRecord> all = new ArrayList<>();
        for (Fired f : fired) all.addAll(f.created());
        return all;
    }

    /**
     * One schedule a pass took.
     *
     * @param schedule the schedule as stored after the pass
     * @param created  the tasks the pass created for it (an occurrence whose key a task already held is absent)
     */
    public record Fired(ScheduleRecord schedule, List<TaskRecord> created) {
        /** Copies the list. */
        public Fired {
            Objects.requireNonNull(schedule, "schedule");
            created = List.copyOf(created);
        }
    }
}
