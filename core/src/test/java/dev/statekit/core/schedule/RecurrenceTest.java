package dev.statekit.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.store.ErrorCode;
import dev.statekit.store.StatekitException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The misfire policies as a table: every ten minutes from midnight, threshold one minute unless
 * said; each row gives the last occurrence created, {@code now}, and what is created (a trailing
 * {@code !} marks a missed one), whether some were skipped, and the next due time.
 */
class RecurrenceTest {
    static final Instant MIDNIGHT = Instant.parse("2026-01-01T00:00:00Z");
    static final Schedule EVERY_10 = Schedule.every(Duration.ofMinutes(10), MIDNIGHT);

    static Stream<Arguments> policies() {
        Misfire skip = Misfire.skip(), once = Misfire.runOnce(), each2 = Misfire.runEach(2), each3 = Misfire.runEach(3), each10 = Misfire.runEach(10);
        return Stream.of(
                // on time: created whatever the policy
                Arguments.of(skip, "00:00", "00:10:30", "00:10", false, "00:20"),
                Arguments.of(once, "00:00", "00:10:30", "00:10", false, "00:20"),
                Arguments.of(each3, "00:00", "00:10:30", "00:10", false, "00:20"),
                Arguments.of(skip, "00:00", "00:11", "00:10", false, "00:20"),             // exactly the threshold old
                Arguments.of(skip, "00:00", "00:05", "", false, "00:10"),                   // nothing due yet
                // 00:10 .. 00:50 missed, none on time
                Arguments.of(skip, "00:00", "00:55", "", true, "01:00"),
                Arguments.of(once, "00:00", "00:55", "00:50!", true, "01:00"),
                Arguments.of(each3, "00:00", "00:55", "00:30! 00:40! 00:50!", true, "01:00"),
                Arguments.of(each10, "00:00", "00:55", "00:10! 00:20! 00:30! 00:40! 00:50!", false, "01:00"),
                Arguments.of(once, "00:40", "00:55", "00:50!", false, "01:00"),            // one missed: nothing skipped
                // 00:10 .. 00:50 missed, 01:00 on time
                Arguments.of(skip, "00:00", "01:00:20", "01:00", true, "01:10"),
                Arguments.of(once, "00:00", "01:00:20", "00:50! 01:00", true, "01:10"),
                Arguments.of(each2, "00:00", "01:00:20", "00:40! 00:50! 01:00", true, "01:10"),
                Arguments.of(each10, "00:00", "01:00:20", "00:10! 00:20! 00:30! 00:40! 00:50! 01:00", false, "01:10"),
                // never created: nothing counts as missed
                Arguments.of(once, null, "00:55", "", false, "01:00"),
                Arguments.of(each10, null, "01:00:20", "01:00", false, "01:10"),
                // the last created lies after now (another process's clock ran ahead)
                Arguments.of(each10, "01:00", "00:55", "", false, "01:10"),
                // threshold zero: only what falls due at now itself is on time
                Arguments.of(skip.withThreshold(Duration.ZERO), "00:00", "00:10", "00:10", false, "00:20"),
                Arguments.of(skip.withThreshold(Duration.ZERO), "00:00", "00:10:01", "", true, "00:20"),
                Arguments.of(each3.withThreshold(Duration.ofMinutes(25)), "00:00", "00:40", "00:10! 00:20 00:30 00:40", false, "00:50"));
    }

    @ParameterizedTest(name = "{0}, last {1}, now {2}: {3}")
    @MethodSource
    void policies(Misfire misfire, @Nullable String last, String now, String created, boolean skipped, String nextDue) {
        Recurrence r = new Recurrence("poll", EVERY_10, misfire);
        Due due = r.due(last == null ? null : at(last), at(now));
        String shown = due.occurrences().stream().map(o -> o.at().toString().substring(11, 16) + (o.missed() ? "!" : ""))
                .collect(Collectors.joining(" "));
        assertThat(shown).isEqualTo(created);
        assertThat(due.skipped()).isEqualTo(skipped);
        assertThat(due.nextDue()).isEqualTo(at(nextDue));
    }

    static Instant at(String time) {
        return Instant.parse("2026-01-01T" + (time.length() == 5 ? time + ":00" : time) + "Z");
    }

    @Test
    void anHourlyCronCatchesUpOnBothPassesOfTheRepeatedHourWithKeysInUtc() {
        Recurrence hourly = Recurrence.builder("hourly").cron("0 * * * *").zone(ZoneId.of("Europe/Berlin")).misfire(Misfire.runEach(10)).build();
        Due due = hourly.due(Instant.parse("2026-10-24T23:00:00Z"), Instant.parse("2026-10-25T02:30:00Z"));
        assertThat(due.occurrences().stream().map(Occurrence::key)).containsExactly(
                "hourly@2026-10-25T00:00:00Z", "hourly@2026-10-25T01:00:00Z", "hourly@2026-10-25T02:00:00Z");
        assertThat(due.occurrences()).allMatch(Occurrence::missed);
        assertThat(due.nextDue()).isEqualTo(Instant.parse("2026-10-25T03:00:00Z"));
    }

    @Test
    void dueIsAFunctionOfItsArgumentsAlone() {
        Recurrence daily = Recurrence.builder("report").cron("0 10 * * *").zone(ZoneOffset.UTC).misfire(Misfire.runOnce()).build();
        Instant last = Instant.parse("2026-11-20T10:00:00Z");
        Instant now = Instant.parse("2026-11-28T10:00:30Z");
        Due due = daily.due(last, now);
        assertThat(due).isEqualTo(daily.due(last, now));
        assertThat(due.occurrences()).containsExactly(new Occurrence("report", Instant.parse("2026-11-27T10:00:00Z"), true),
                new Occurrence("report", Instant.parse("2026-11-28T10:00:00Z"), false));
        assertThat(due.occurrences().get(1).key()).isEqualTo("report@2026-11-28T10:00:00Z");
        assertThat(due.skipped()).isTrue();
        assertThat(due.nextDue()).isEqualTo(Instant.parse("2026-11-29T10:00:00Z"));
    }

    @Test
    void misfireValuesCheckTheirArguments() {
        assertThat(Misfire.skip()).isEqualTo(Misfire.of(Misfire.Policy.SKIP, 0)).hasToString("SKIP after PT1M");
        assertThat(Misfire.runOnce()).isEqualTo(Misfire.of(Misfire.Policy.RUN_ONCE, 1)).hasSameHashCodeAs(Misfire.runOnce());
        assertThat(Misfire.runEach(4).withThreshold(Duration.ofSeconds(5))).hasToString("RUN_EACH(4) after PT5S")
                .isNotEqualTo(Misfire.runEach(4));
        assertThat(Misfire.of(Misfire.Policy.RUN_EACH, 4).limit()).isEqualTo(4);
        assertThat(Misfire.runEach(4).threshold()).isEqualTo(Misfire.DEFAULT_THRESHOLD);
        assertThatThrownBy(() -> Misfire.runEach(0)).isInstanceOf(IllegalArgumentException.class).hasMessage("limit must be >= 1, was 0");
        assertThatThrownBy(() -> Misfire.of(Misfire.Policy.SKIP, 2)).isInstanceOf(IllegalArgumentException.class).hasMessage("SKIP takes limit 0, was 2");
        assertThatThrownBy(() -> Misfire.of(Misfire.Policy.RUN_ONCE, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("RUN_ONCE takes limit 1, was 0");
        assertThatThrownBy(() -> Misfire.skip().withThreshold(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("threshold must not be negative, was PT-1S");
    }

    @Test
    void theBuilderMakesEitherKindOfSchedule() {
        Recurrence cron = Recurrence.builder("nightly").cron("0 2 * * *").zone(ZoneId.of("Europe/Berlin")).build();
        assertThat(cron.schedule()).isEqualTo(new CronSchedule(Cron.parse("0 2 * * *"), ZoneId.of("Europe/Berlin")));
        assertThat(cron.misfire()).isEqualTo(Misfire.skip());
        Recurrence interval = Recurrence.builder("poll").every(Duration.ofMinutes(5)).anchor(MIDNIGHT).misfire(Misfire.runOnce()).build();
        assertThat(interval.schedule()).isEqualTo(new IntervalSchedule(Duration.ofMinutes(5), MIDNIGHT));
        assertThat(interval.name()).isEqualTo("poll");
        assertThatThrownBy(() -> new Recurrence(" ", EVERY_10, Misfire.skip())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("name must not be blank");
    }

    static Stream<Arguments> defects() {
        return Stream.of(
                Arguments.of(Recurrence.builder(" "), "schedule ' ' has 2 defects: the name is blank; "
                        + "it has neither a cron expression nor an interval: call cron(...) or every(...)"),
                Arguments.of(Recurrence.builder("x").cron("0 61 * * *").anchor(MIDNIGHT), "schedule 'x' has 3 defects: "
                        + "invalid cron expression '0 61 * * *': field 2 (hour) at position 3: value 61 is out of range 0-23; "
                        + "the cron expression has no zone: call zone(ZoneId.of(...)), or zone(ZoneOffset.UTC); "
                        + "an anchor is for an interval; a cron expression has none"),
                Arguments.of(Recurrence.builder("x").every(Duration.ofSeconds(-5)).zone(ZoneOffset.UTC), "schedule 'x' has 3 defects: "
                        + "the interval must be positive, was PT-5S; the interval has no anchor: call anchor(Instant) with its first occurrence; "
                        + "a zone is for a cron expression; an interval is elapsed time and takes none"),
                Arguments.of(Recurrence.builder("x").cron("@daily").zone(ZoneOffset.UTC).every(Duration.ofMinutes(1)).anchor(MIDNIGHT),
                        "schedule 'x' has 2 defects: it has both a cron expression and an interval: keep one; "
                                + "an anchor is for an interval; a cron expression has none"));
    }

    @ParameterizedTest(name = "[{index}] {1}")
    @MethodSource
    void defects(Recurrence.Builder builder, String message) {
        assertThatThrownBy(builder::build).isInstanceOfSatisfying(StatekitException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_DEFINITION)).hasMessage("[INVALID_DEFINITION] " + message);
    }

    @Test
    void nextOccurrencesListsWhatADashboardShows() {
        Recurrence r = Recurrence.builder("poll").every(Duration.ofMinutes(10)).anchor(MIDNIGHT).build();
        List<Instant> next = r.schedule().nextOccurrences(at("00:05"), 3);
        assertThat(next).containsExactly(at("00:10"), at("00:20"), at("00:30"));
    }
}
