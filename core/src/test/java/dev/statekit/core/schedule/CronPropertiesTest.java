package dev.statekit.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.store.StatekitException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link CronSchedule#next} and {@link CronSchedule#previous} against {@link CronModel}'s brute
 * force, which walks the time line minute by minute: for generated expressions, in UTC and in
 * three zones with daylight saving (Lord Howe's shifts by 30 minutes), from instants anywhere in
 * 1975-2035 and from instants within hours of a transition.
 */
class CronPropertiesTest {
    static final List<ZoneId> ZONES = List.of(ZoneOffset.UTC, ZoneId.of("Europe/Berlin"), ZoneId.of("America/New_York"),
            ZoneId.of("Australia/Lord_Howe"));
    /** How far the brute force looks; beyond it, the implementation's answer must lie beyond it too. */
    static final Duration BOUND = Duration.ofDays(120);

    @Provide
    Arbitrary<CronModel> expressions() {
        return CronModel.expressions();
    }

    @Provide
    Arbitrary<ZoneId> zones() {
        return Arbitraries.of(ZONES);
    }

    @Provide
    Arbitrary<Instant> instants() {
        return Combinators.combine(Arbitraries.longs().between(Instant.parse("1975-01-01T00:00:00Z").getEpochSecond(),
                Instant.parse("2035-01-01T00:00:00Z").getEpochSecond()), Arbitraries.of(0, 0, 500_000_000)).as(Instant::ofEpochSecond);
    }

    /** Instants within four hours of one of the two transitions of a year (of the zone given by index in {@link #ZONES}). */
    @Provide
    Arbitrary<Instant[]> nearTransitions() {
        return Combinators.combine(Arbitraries.integers().between(1, 3), Arbitraries.integers().between(1980, 2034),
                Arbitraries.of(0, 1), Arbitraries.integers().between(-4 * 3600, 4 * 3600)).as((zone, year, which, shift) -> {
                    ZoneOffsetTransition t = ZONES.get(zone).getRules().nextTransition(Instant.parse(year + "-01-01T00:00:00Z"));
                    if (which == 1) t = ZONES.get(zone).getRules().nextTransition(t.getInstant());
                    return new Instant[] {Instant.ofEpochSecond(zone), t.getInstant().plusSeconds(shift)};
                });
    }

    @Property(tries = 400)
    void nextIsTheFirstOccurrenceTheBruteForceFinds(@ForAll("expressions") CronModel model, @ForAll("zones") ZoneId zone,
                                                    @ForAll("instants") Instant after) {
        Assume.that(model.feasible());
        checkNext(model, zone, after);
    }

    @Property(tries = 400)
    void nextAroundTransitionsIsTheFirstOccurrenceTheBruteForceFinds(@ForAll("expressions") CronModel model,
                                                                     @ForAll("nearTransitions") Instant[] zoneAndAfter) {
        Assume.that(model.feasible());
        checkNext(model, ZONES.get((int) zoneAndAfter[0].getEpochSecond()), zoneAndAfter[1]);
    }

    @Property(tries = 300)
    void previousIsTheLastOccurrenceTheBruteForceFinds(@ForAll("expressions") CronModel model,
                                                       @ForAll("nearTransitions") Instant[] zoneAndAfter) {
        Assume.that(model.feasible());
        ZoneId zone = ZONES.get((int) zoneAndAfter[0].getEpochSecond());
        Instant at = zoneAndAfter[1];
        Instant expected = model.previous(zone, at, at.minus(BOUND));
        Instant actual = Schedule.cron(model.text(), zone).previous(at).orElseThrow();
        if (expected != null) assertThat(actual).as(model + " in " + zone + " at or before " + at).isEqualTo(expected);
        else assertThat(actual).as(model + " in " + zone + " at or before " + at).isBefore(at.minus(BOUND));
    }

    @Property(tries = 200)
    void nextAndPreviousAreInverse(@ForAll("expressions") CronModel model, @ForAll("zones") ZoneId zone, @ForAll("instants") Instant after) {
        Assume.that(model.feasible());
        CronSchedule schedule = Schedule.cron(model.text(), zone);
        List<Instant> next = schedule.nextOccurrences(after, 5);
        for (int i = 1; i < next.size(); i++) {
            assertThat(next.get(i)).isAfter(next.get(i - 1));
            assertThat(schedule.previous(next.get(i).minusNanos(1))).as(model + " in " + zone).contains(next.get(i - 1));
            assertThat(schedule.previous(next.get(i))).contains(next.get(i));
        }
    }

    @Property(tries = 300)
    void anExpressionParsesExactlyWhenItsDaysCanOccur(@ForAll("expressions") CronModel model) {
        if (model.feasible()) {
            Cron cron = Cron.parse(model.text());
            assertThat(cron.hasSeconds()).isEqualTo(model.seconds());
            assertThat(cron.everyHour()).isEqualTo(model.everyHour());
        } else {
            assertThatThrownBy(() -> Cron.parse(model.text())).isInstanceOf(StatekitException.class)
                    .hasMessageContaining("the day-of-month and month fields never meet");
        }
    }

    @Property(tries = 300)
    void anIntervalsNextIsTheFirstMultipleAfter(@ForAll("instants") Instant anchor, @ForAll("instants") Instant after) {
        Duration interval = Duration.ofSeconds(1 + Math.floorMod(anchor.getEpochSecond() ^ after.getEpochSecond(), 86_400 * 3), 250_000_000);
        IntervalSchedule schedule = Schedule.every(interval, anchor);
        Instant next = schedule.next(after);
        assertThat(next).isAfter(after);
        assertThat(Duration.between(anchor, next).toNanos() % interval.toNanos()).isZero();
        assertThat(next).isAfterOrEqualTo(anchor);
        if (next.isAfter(anchor)) assertThat(next.minus(interval)).isBeforeOrEqualTo(after);
        if (after.isBefore(anchor)) assertThat(schedule.previous(after)).isEmpty();
        else assertThat(schedule.previous(after)).contains(next.minus(interval));
    }

    /** {@link Recurrence#due} against its definition, worked out by walking every occurrence from the last one created. */
    @Property(tries = 300)
    void dueCreatesWhatThePolicyPicksFromEveryOccurrenceSinceTheLast(@ForAll("instants") Instant anchor,
            @ForAll("intervals") Duration interval, @ForAll("misfires") Misfire misfire,
            @ForAll("lastOffsets") int lastIndex, @ForAll("nowOffsets") Duration sinceLast) {
        IntervalSchedule schedule = Schedule.every(interval, anchor);
        Instant last = lastIndex < 0 ? null : anchor.plus(interval.multipliedBy(lastIndex));
        Instant now = (last == null ? anchor : last).plus(sinceLast);
        List<Instant> missed = new ArrayList<>();
        List<Instant> onTime = new ArrayList<>();
        for (Instant t = schedule.next(last == null ? now.minus(misfire.threshold()).minusNanos(1) : last); !t.isAfter(now); t = schedule.next(t)) {
            (t.isBefore(now.minus(misfire.threshold())) ? missed : onTime).add(t);
        }
        List<Instant> picked = missed.subList(Math.max(0, missed.size() - misfire.limit()), missed.size());
        Due due = new Recurrence("r", schedule, misfire).due(last, now);
        List<Instant> expected = new ArrayList<>(picked);
        expected.addAll(onTime);
        assertThat(due.occurrences().stream().map(Occurrence::at).collect(Collectors.toList())).isEqualTo(expected);
        assertThat(due.occurrences().stream().filter(Occurrence::missed).count()).isEqualTo(picked.size());
        assertThat(due.skipped()).isEqualTo(picked.size() < missed.size());
        assertThat(due.nextDue()).isEqualTo(schedule.next(now)).isAfter(now);
    }

    @Provide
    Arbitrary<Duration> intervals() {
        return Arbitraries.longs().between(1, 7200).map(Duration::ofSeconds);
    }

    @Provide
    Arbitrary<Misfire> misfires() {
        return Combinators.combine(Arbitraries.of(Misfire.skip(), Misfire.runOnce(), Misfire.runEach(1), Misfire.runEach(3), Misfire.runEach(50)),
                Arbitraries.of(Duration.ZERO, Duration.ofSeconds(1), Duration.ofMinutes(1), Duration.ofMinutes(30))).as(Misfire::withThreshold);
    }

    @Provide
    Arbitrary<Integer> lastOffsets() {
        return Arbitraries.integers().between(-1, 100);
    }

    @Provide
    Arbitrary<Duration> nowOffsets() {
        return Arbitraries.longs().between(0, 86_400 * 2).map(Duration::ofSeconds);
    }

    private static void checkNext(CronModel model, ZoneId zone, Instant after) {
        Instant expected = model.next(zone, after, after.plus(BOUND));
        Instant actual = Schedule.cron(model.text(), zone).next(after);
        if (expected != null) assertThat(actual).as(model + " in " + zone + " after " + after).isEqualTo(expected);
        else assertThat(actual).as(model + " in " + zone + " after " + after).isAfter(after.plus(BOUND));
    }
}
