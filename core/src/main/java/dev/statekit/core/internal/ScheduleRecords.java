package dev.statekit.core.internal;

import dev.statekit.core.Machine;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.schedule.CronSchedule;
import dev.statekit.core.schedule.Due;
import dev.statekit.core.schedule.IntervalSchedule;
import dev.statekit.core.schedule.Misfire;
import dev.statekit.core.schedule.Occurrence;
import dev.statekit.core.schedule.Recurrence;
import dev.statekit.core.schedule.Schedule;
import dev.statekit.store.NewTask;
import dev.statekit.store.ScheduleFirer;
import dev.statekit.store.ScheduleRecord;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Between a {@link Recurrence} with its task template and the {@link ScheduleRecord} a store keeps:
 * the record of a declaration, the recurrence of a stored record, and what a schedule pass creates
 * for one record ({@link #fire}). Used by the runtime's passes and by the operations. Not API.
 */
public final class ScheduleRecords {
    /** The attribute naming the schedule that created a task. */
    public static final String ATTR_SCHEDULE = "schedule";
    /** The attribute holding the scheduled instant (UTC, ISO-8601) of the occurrence a task is. */
    public static final String ATTR_SCHEDULED_AT = "scheduled_at";

    private ScheduleRecords() {
    }

    /**
     * Returns the record declaring {@code recurrence} for {@code machine} with {@code template} at
     * {@code now}: not paused, starting from {@code now} (occurrences after it count), next due at
     * the first occurrence after it.
     *
     * @throws IllegalArgumentException if the template has a parent, dependencies, an idempotency key
     *                                  or a not-before time: each occurrence is a task of its own, keyed by the occurrence
     */
    public static ScheduleRecord declare(Machine<?, ?> machine, Recurrence recurrence, TaskSpec template, Instant now) {
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(recurrence, "recurrence");
        Objects.requireNonNull(template, "template");
        if (template.parentId() != null || !template.dependsOn().isEmpty() || template.idempotencyKey() != null
                || template.notBefore() != null) {
            throw new IllegalArgumentException("the task template of schedule " + recurrence.name() + " may set the queue, priority,"
                    + " attributes and payload only: a parent, dependencies, an idempotency key or a not-before time do not repeat");
        }
        Misfire m = recurrence.misfire();
        Schedule s = recurrence.schedule();
        Instant next = s.next(now);
        if (s instanceof CronSchedule c) {
            return new ScheduleRecord(recurrence.name(), machine.name(), template.queue(), template.priority(), template.attributes(),
                    template.payload(), ScheduleRecord.CRON, c.cron().expression(), c.zone().getId(), null, null, m.policy().name(),
                    m.limit(), m.threshold(), false, now, next, 0);
        }
        IntervalSchedule i = (IntervalSchedule) s;
        return new ScheduleRecord(recurrence.name(), machine.name(), template.queue(), template.priority(), template.attributes(),
                template.payload(), ScheduleRecord.INTERVAL, null, null, i.interval(), i.anchor(), m.policy().name(), m.limit(),
                m.threshold(), false, now, next, 0);
    }

    /** Returns the recurrence a stored record describes. */
    public static Recurrence recurrence(ScheduleRecord record) {
        Schedule schedule = record.kind().equals(ScheduleRecord.CRON)
                ? Schedule.cron(Objects.requireNonNull(record.expression()), ZoneId.of(Objects.requireNonNull(record.zone())))
                : Schedule.every(Objects.requireNonNull(record.interval()), Objects.requireNonNull(record.anchor()));
        Misfire misfire = Misfire.of(Misfire.Policy.valueOf(record.misfire()), record.misfireLimit()).withThreshold(record.misfireThreshold());
        return new Recurrence(record.name(), schedule, misfire);
    }

    /** Returns the task template a stored record describes. */
    public static TaskSpec template(ScheduleRecord record) {
        TaskSpec spec = TaskSpec.defaults().priority(record.priority()).attributes(record.attributes().asMap());
        if (record.queue() != null) spec = spec.queue(record.queue());
        if (record.payload() != null) spec = spec.payload(record.payload());
        return spec;
    }

    /**
     * Returns what a pass at {@code now} writes for {@code record}: a task per occurrence
     * {@link Recurrence#due} picks, described by {@code newTask} from the template with the
     * occurrence's key as idempotency key and the attributes {@link #ATTR_SCHEDULE} and
     * {@link #ATTR_SCHEDULED_AT}; {@code now} as the new progress (every occurrence up to it was
     * created or passed over by the policy); and the next due instant.
     */
    public static ScheduleFirer.Firing fire(ScheduleRecord record, Instant now, Function<TaskSpec, NewTask> newTask) {
        Due due = recurrence(record).due(record.last(), now);
        TaskSpec template = template(record);
        List<NewTask> creates = new ArrayList<>(due.occurrences().size());
        for (Occurrence o : due.occurrences()) {
            creates.add(newTask.apply(template.idempotencyKey(o.key()).attribute(ATTR_SCHEDULE, o.schedule())
                    .attribute(ATTR_SCHEDULED_AT, o.at().toString())));
        }
        Instant last = record.last();
        return new ScheduleFirer.Firing(creates, last == null || now.isAfter(last) ? now : null, due.nextDue());
    }
}
