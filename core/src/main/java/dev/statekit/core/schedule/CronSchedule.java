package dev.statekit.core.schedule;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.Objects;
import java.util.Optional;

/**
 * A cron expression read on the wall clock of a time zone.
 *
 * <p>An occurrence is a wall-clock time the expression matches, at the instant that wall time
 * happens in {@code zone}. Where daylight saving makes a wall time ambiguous:
 * <ul>
 *   <li><b>Gap</b> (clocks go forward; the wall time does not exist): the occurrence fires once, at
 *       the first instant after the gap, the instant of the transition. {@code 30 2 * * *} in
 *       Europe/Berlin on 2026-03-29 fires at 03:00 CEST; several matching times in one gap still
 *       fire once.</li>
 *   <li><b>Overlap</b> (clocks go back; the wall time happens twice): the occurrence fires once, at
 *       the first pass (the earlier offset), unless the hour field matches every hour
 *       ({@link Cron#everyHour()}): then it fires in both passes, as an hourly sequence of
 *       instants demands. {@code 30 2 * * *} in Europe/Berlin on 2026-10-25 fires at 02:30 CEST only;
 *       {@code 30 * * * *} fires at 02:30 CEST and at 02:30 CET.</li>
 * </ul>
 *
 * @param cron the expression
 * @param zone the zone whose wall clock it is read on
 */
public record CronSchedule(Cron cron, ZoneId zone) implements Schedule {
    /** Checks the components. */
    public CronSchedule {
        Objects.requireNonNull(cron, "cron");
        Objects.requireNonNull(zone, "zone");
    }

    @Override
    public Instant next(Instant after) {
        Objects.requireNonNull(after, "after");
        ZoneRules rules = zone.getRules();
        ZoneOffset offset = rules.getOffset(after);
        // The time line is cut into segments of one offset each, at the zone's transitions; within a
        // segment wall time and instant map one to one, and a gap's matches fire at its end.
        LocalDateTime from = LocalDateTime.ofInstant(after, zone).truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
        LocalDateTime horizon = from.plusYears(Cron.HORIZON_YEARS);
        ZoneOffsetTransition end = rules.nextTransition(after);
        while (from.isBefore(horizon)) {
            LocalDateTime until = end == null || end.getDateTimeBefore().isAfter(horizon) ? horizon : end.getDateTimeBefore();
            LocalDateTime w = cron.nextMatch(from, until);
            while (w != null) {
                if (firesAt(rules, w, offset)) return w.toInstant(offset);
                ZoneOffsetTransition overlap = Objects.requireNonNull(rules.getTransition(w), "overlap");
                w = cron.nextMatch(overlap.getDateTimeBefore(), until);    // past the second pass of the repeated wall times
            }
            if (end == null) break;
            if (end.isGap() && cron.matchesWithin(end.getDateTimeBefore(), end.getDateTimeAfter())) return end.getInstant();
            offset = end.getOffsetAfter();
            from = end.getDateTimeAfter();
            end = rules.nextTransition(end.getInstant());
        }
        throw new IllegalStateException("no occurrence of " + describe() + " within " + Cron.HORIZON_YEARS + " years after " + after);
    }

    @Override
    public Optional<Instant> previous(Instant atOrBefore) {
        Objects.requireNonNull(atOrBefore, "atOrBefore");
        ZoneRules rules = zone.getRules();
        ZoneOffset offset = rules.getOffset(atOrBefore);
        LocalDateTime to = LocalDateTime.ofInstant(atOrBefore, zone);
        LocalDateTime horizon = to.minusYears(Cron.HORIZON_YEARS);
        ZoneOffsetTransition start = rules.previousTransition(atOrBefore.plusNanos(1));   // the one that began this segment
        while (!to.isBefore(horizon)) {
            LocalDateTime since = start == null || start.getDateTimeAfter().isBefore(horizon) ? horizon : start.getDateTimeAfter();
            LocalDateTime w = cron.previousMatch(to, since);
            // Repeated wall times open a segment: below one that must not fire, none in the segment fires.
            if (w != null && firesAt(rules, w, offset)) return Optional.of(w.toInstant(offset));
            if (start == null) break;
            if (start.isGap() && cron.matchesWithin(start.getDateTimeBefore(), start.getDateTimeAfter())) return Optional.of(start.getInstant());
            offset = start.getOffsetBefore();
            to = start.getDateTimeBefore().minusSeconds(1);
            start = rules.previousTransition(start.getInstant());
        }
        return Optional.empty();
    }

    /** Whether wall time {@code w}, valid at {@code offset}, fires there: always, but at the second pass of repeated wall times only for every-hour expressions. */
    private boolean firesAt(ZoneRules rules, LocalDateTime w, ZoneOffset offset) {
        return cron.everyHour() || rules.getValidOffsets(w).get(0).equals(offset);
    }

    /** Returns {@code cron 'EXPRESSION' in ZONE}. */
    @Override
    public String describe() {
        return "cron '" + cron.expression() + "' in " + zone.getId();
    }
}
