package dev.statekit.store;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A recurring schedule as a store keeps it: the fixed parts of the task each occurrence creates,
 * when it recurs (as text a store need not understand: the core reads it), its misfire policy,
 * whether it is paused, and how far it has run.
 *
 * <p>The <em>timing</em> is {@link #kind}, {@link #expression}, {@link #zone}, {@link #interval} and
 * {@link #anchor}; the rest of the definition is the template ({@link #machine} to {@link #payload})
 * and the misfire policy. {@link Store#upsertSchedule} keeps {@link #last} and {@link #nextDue} while
 * the timing stays the same.
 *
 * @param name             the schedule's name, unique in the store; it prefixes each occurrence's idempotency key
 * @param machine          the machine of the tasks it creates
 * @param queue            their queue, or null for the machine's default
 * @param priority         their priority
 * @param attributes       their initial attributes
 * @param payload          their payload, if any
 * @param kind             {@link #CRON} or {@link #INTERVAL}
 * @param expression       the cron expression (cron only)
 * @param zone             the time zone id the expression is read in (cron only)
 * @param interval         the time between occurrences (interval only)
 * @param anchor           the first occurrence (interval only)
 * @param misfire          the misfire policy's name: {@code SKIP}, {@code RUN_ONCE} or {@code RUN_EACH}
 * @param misfireLimit     how many missed occurrences are created at most
 * @param misfireThreshold how old an occurrence may be and still be on time
 * @param paused           whether passes leave it alone
 * @param last             occurrences at or before this instant were created or passed over: the moment of the last
 *                         pass that took the schedule, or the moment its timing took effect; null when none counts yet
 * @param nextDue          when the next occurrence falls due: passes take the schedule from then on
 * @param version          incremented by every write of the row; 0 when first written
 */
public record ScheduleRecord(String name, String machine, @Nullable String queue, int priority, Attributes attributes,
                             @Nullable String payload, String kind, @Nullable String expression, @Nullable String zone,
                             @Nullable Duration interval, @Nullable Instant anchor, String misfire, int misfireLimit,
                             Duration misfireThreshold, boolean paused, @Nullable Instant last, Instant nextDue, long version) {
    /** The kind of a schedule on a cron expression. */
    public static final String CRON = "cron";
    /** The kind of a schedule at a fixed interval. */
    public static final String INTERVAL = "interval";

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException if a name is blank, the kind is unknown, or the timing's
     *                                  fields do not fit its kind
     */
    public ScheduleRecord {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(attributes, "attributes");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(misfire, "misfire");
        Objects.requireNonNull(misfireThreshold, "misfireThreshold");
        Objects.requireNonNull(nextDue, "nextDue");
        if (name.isBlank() || machine.isBlank()) throw new IllegalArgumentException("name and machine must not be blank");
        if (queue != null && queue.isBlank()) throw new IllegalArgumentException("queue must not be blank when given");
        if (kind.equals(CRON)) {
            if (expression == null || zone == null || interval != null || anchor != null) {
                throw new IllegalArgumentException("a cron schedule has an expression and a zone, and no interval or anchor");
            }
        } else if (kind.equals(INTERVAL)) {
            if (interval == null || anchor == null || expression != null || zone != null) {
                throw new IllegalArgumentException("an interval schedule has an interval and an anchor, and no expression or zone");
            }
        } else {
            throw new IllegalArgumentException("kind must be " + CRON + " or " + INTERVAL + ", was " + kind);
        }
        if (misfireLimit < 0) throw new IllegalArgumentException("misfireLimit must be >= 0, was " + misfireLimit);
    }

    /** Returns whether {@code other} recurs at the same times: same kind, expression, zone, interval and anchor. */
    public boolean sameTiming(ScheduleRecord other) {
        return kind.equals(other.kind) && Objects.equals(expression, other.expression) && Objects.equals(zone, other.zone)
                && Objects.equals(interval, other.interval) && Objects.equals(anchor, other.anchor);
    }

    /** Returns whether {@code other} has the same definition: the timing, the template and the misfire policy (the name aside). */
    public boolean sameDefinition(ScheduleRecord other) {
        return sameTiming(other) && machine.equals(other.machine) && Objects.equals(queue, other.queue) && priority == other.priority
                && attributes.equals(other.attributes) && Objects.equals(payload, other.payload) && misfire.equals(other.misfire)
                && misfireLimit == other.misfireLimit && misfireThreshold.equals(other.misfireThreshold);
    }

    /**
     * Returns the record {@link Store#upsertSchedule} writes when this one is stored and {@code given}
     * is declared: {@code given}'s definition at the next version, keeping whether this one is paused,
     * and keeping {@link #last} and {@link #nextDue} unless the timing changed (then {@code given}'s).
     * Every store upserts by this rule; it returns this record itself when the definitions are the same.
     */
    public ScheduleRecord upsertedWith(ScheduleRecord given) {
        if (sameDefinition(given)) return this;
        boolean keep = sameTiming(given);
        return new ScheduleRecord(name, given.machine, given.queue, given.priority, given.attributes, given.payload, given.kind,
                given.expression, given.zone, given.interval, given.anchor, given.misfire, given.misfireLimit, given.misfireThreshold,
                paused, keep ? last : given.last, keep ? nextDue : given.nextDue, version + 1);
    }

    /** Returns this record paused or resumed, at the next version (itself when it already is). */
    public ScheduleRecord withPaused(boolean value) {
        if (value == paused) return this;
        return new ScheduleRecord(name, machine, queue, priority, attributes, payload, kind, expression, zone, interval, anchor,
                misfire, misfireLimit, misfireThreshold, value, last, nextDue, version + 1);
    }

    /** Returns this record after a pass: {@code newLast} (null: kept) and {@code newNextDue}, at the next version. */
    public ScheduleRecord fired(@Nullable Instant newLast, Instant newNextDue) {
        return new ScheduleRecord(name, machine, queue, priority, attributes, payload, kind, expression, zone, interval, anchor,
                misfire, misfireLimit, misfireThreshold, paused, newLast != null ? newLast : last, newNextDue, version + 1);
    }
}
