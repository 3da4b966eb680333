package dev.statekit.core.schedule;

import dev.statekit.store.ErrorCode;
import dev.statekit.store.StatekitException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A named {@link Schedule} with its {@link Misfire} policy, and the pure function that says which
 * occurrences to create at a given moment ({@link #due}).
 *
 * <pre>{@code
 * Recurrence nightly = Recurrence.builder("nightly-report")
 *         .cron("0 2 * * *").zone(ZoneId.of("Europe/Berlin"))
 *         .misfire(Misfire.runEach(3))
 *         .build();
 * }</pre>
 *
 * <p>Immutable and thread-safe; the builder is not thread-safe.
 *
 * @param name     the name, which prefixes each occurrence's key
 * @param schedule when it recurs
 * @param misfire  what to do about missed occurrences
 */
public record Recurrence(String name, Schedule schedule, Misfire misfire) {
    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException when {@code name} is blank
     */
    public Recurrence {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(schedule, "schedule");
        Objects.requireNonNull(misfire, "misfire");
        if (name.isBlank()) throw new IllegalArgumentException("name must not be blank");
    }

    /** Returns a builder for a recurrence named {@code name}. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /**
     * Returns the occurrences to create at {@code now} and the next due instant: a pure function,
     * the same for every process given the same arguments.
     *
     * <p>The occurrences considered are those after {@code last}. Those at most
     * {@link Misfire#threshold()} before {@code now} (or at {@code now}) are on time and all created;
     * older ones are missed and the policy picks: none (SKIP), the latest (RUN_ONCE), the latest
     * {@code limit} (RUN_EACH). With no {@code last}, nothing counts as missed: a new schedule does
     * not catch up, it creates only what is on time.
     *
     * @param last the latest occurrence already created, or null when none was
     * @param now  the moment of the decision
     * @return the occurrences to create, oldest first, and the next due instant
     */
    public Due due(@Nullable Instant last, Instant now) {
        Objects.requireNonNull(now, "now");
        Instant cutoff = now.minus(misfire.threshold());     // before it: missed; at or after it: on time
        List<Occurrence> create = new ArrayList<>();
        boolean skipped = false;
        if (last != null) {
            Optional<Instant> latestMissed = schedule.previous(cutoff.minusNanos(1)).filter(t -> t.isAfter(last));
            if (latestMissed.isPresent()) {
                Deque<Instant> picked = new ArrayDeque<>();
                Instant t = latestMissed.get();
                while (picked.size() < misfire.limit()) {
                    picked.addFirst(t);
                    Optional<Instant> before = schedule.previous(t.minusNanos(1)).filter(p -> p.isAfter(last));
                    if (before.isEmpty()) break;
                    t = before.get();
                }
                Instant first = picked.isEmpty() ? latestMissed.get() : picked.getFirst();
                skipped = picked.isEmpty() || schedule.next(last).isBefore(first);
                for (Instant p : picked) create.add(new Occurrence(name, p, true));
            }
        }
        Instant from = cutoff.minusNanos(1);
        if (last != null && last.isAfter(from)) from = last;
        for (Instant t = schedule.next(from); !t.isAfter(now); t = schedule.next(t)) create.add(new Occurrence(name, t, false));
        Instant nextDue = schedule.next(last != null && last.isAfter(now) ? last : now);
        return new Due(create, nextDue, skipped);
    }

    /**
     * Builds a {@link Recurrence}, checking the whole definition in {@link #build()}. Not thread-safe.
     */
    public static final class Builder {
        private final String name;
        private @Nullable String cron;
        private @Nullable ZoneId zone;
        private @Nullable Duration interval;
        private @Nullable Instant anchor;
        private Misfire misfire = Misfire.skip();

        private Builder(String name) {
            this.name = Objects.requireNonNull(name, "name");
        }

        /** Recurs on the cron expression {@code expression} (see {@link Cron}); needs a {@link #zone}. */
        public Builder cron(String expression) {
            this.cron = Objects.requireNonNull(expression, "expression");
            return this;
        }

        /** Reads the cron expression on the wall clock of {@code zone} ({@code ZoneOffset.UTC} for UTC). */
        public Builder zone(ZoneId zone) {
            this.zone = Objects.requireNonNull(zone, "zone");
            return this;
        }

        /** Recurs every {@code interval} from an {@link #anchor}. */
        public Builder every(Duration interval) {
            this.interval = Objects.requireNonNull(interval, "interval");
            return this;
        }

        /** Sets the first occurrence of an interval schedule. */
        public Builder anchor(Instant anchor) {
            this.anchor = Objects.requireNonNull(anchor, "anchor");
            return this;
        }

        /** Sets the misfire policy; the default is {@link Misfire#skip()}. */
        public Builder misfire(Misfire misfire) {
            this.misfire = Objects.requireNonNull(misfire, "misfire");
            return this;
        }

        /**
         * Returns the recurrence.
         *
         * @throws StatekitException with {@link ErrorCode#INVALID_DEFINITION} listing every defect:
         *                           a blank name, neither or both of a cron expression and an
         *                           interval, a cron expression that does not parse or has no zone,
         *                           an interval that is not positive or has no anchor, a zone for an
         *                           interval or an anchor for a cron expression
         */
        public Recurrence build() {
            List<String> defects = new ArrayList<>();
            if (name.isBlank()) defects.add("the name is blank");
            Schedule schedule = null;
            if (cron == null && interval == null) defects.add("it has neither a cron expression nor an interval: call cron(...) or every(...)");
            if (cron != null && interval != null) defects.add("it has both a cron expression and an interval: keep one");
            if (cron != null) {
                Cron parsed = null;
                try {
                    parsed = Cron.parse(cron);
                } catch (StatekitException e) {
                    defects.add(e.getMessage().substring(("[" + e.code() + "] ").length()));
                }
                if (zone == null) defects.add("the cron expression has no zone: call zone(ZoneId.of(...)), or zone(ZoneOffset.UTC)");
                if (anchor != null) defects.add("an anchor is for an interval; a cron expression has none");
                if (parsed != null && zone != null && interval == null) schedule = new CronSchedule(parsed, zone);
            }
            if (interval != null) {
                boolean positive = !interval.isNegative() && !interval.isZero();
                if (!positive) defects.add("the interval must be positive, was " + interval);
                if (anchor == null) defects.add("the interval has no anchor: call anchor(Instant) with its first occurrence");
                if (zone != null && cron == null) defects.add("a zone is for a cron expression; an interval is elapsed time and takes none");
                if (positive && anchor != null && cron == null && zone == null) schedule = new IntervalSchedule(interval, anchor);
            }
            if (!defects.isEmpty() || schedule == null) {
                throw new StatekitException(ErrorCode.INVALID_DEFINITION, "schedule '" + name + "' has " + defects.size()
                        + (defects.size() == 1 ? " defect: " : " defects: ") + String.join("; ", defects));
            }
            return new Recurrence(name, schedule, misfire);
        }
    }
}
