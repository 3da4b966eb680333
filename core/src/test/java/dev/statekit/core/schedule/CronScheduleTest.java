package dev.statekit.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Occurrences around daylight-saving changes: a gap fires once at its end, an overlap once at its
 * first pass, or at both for every-hour expressions; in Berlin (one hour at 02:00/03:00), New York
 * (one hour at 02:00/01:00), Lord Howe (30 minutes at 02:00) and UTC.
 */
class CronScheduleTest {
    static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
    static final ZoneId LORD_HOWE = ZoneId.of("Australia/Lord_Howe");

    static Stream<Arguments> occurrences() {
        return Stream.of(
                // Berlin: 2026-03-29 02:00 CET -> 03:00 CEST (01:00Z); 2026-10-25 03:00 CEST -> 02:00 CET (01:00Z)
                Arguments.of("30 2 * * *", BERLIN, "2026-03-28T12:00:00Z", "2026-03-29T01:00:00Z 2026-03-30T00:30:00Z"),
                Arguments.of("0 3 * * *", BERLIN, "2026-03-28T12:00:00Z", "2026-03-29T01:00:00Z 2026-03-30T01:00:00Z"),
                Arguments.of("0,30 2,3 * * *", BERLIN, "2026-03-29T00:00:00Z", "2026-03-29T01:00:00Z 2026-03-29T01:30:00Z 2026-03-30T00:00:00Z"),
                Arguments.of("30 * * * *", BERLIN, "2026-03-29T00:00:00Z", "2026-03-29T00:30:00Z 2026-03-29T01:00:00Z 2026-03-29T01:30:00Z"),
                Arguments.of("30 2 * * *", BERLIN, "2026-10-24T12:00:00Z", "2026-10-25T00:30:00Z 2026-10-26T01:30:00Z"),
                Arguments.of("30 * * * *", BERLIN, "2026-10-24T23:00:00Z",
                        "2026-10-24T23:30:00Z 2026-10-25T00:30:00Z 2026-10-25T01:30:00Z 2026-10-25T02:30:00Z"),
                Arguments.of("0 */2 * * *", BERLIN, "2026-10-24T21:30:00Z", "2026-10-24T22:00:00Z 2026-10-25T00:00:00Z 2026-10-25T03:00:00Z"),
                // New York: 2026-03-08 02:00 EST -> 03:00 EDT (07:00Z); 2026-11-01 02:00 EDT -> 01:00 EST (06:00Z)
                Arguments.of("15 2 * * *", NEW_YORK, "2026-03-07T12:00:00Z", "2026-03-08T07:00:00Z 2026-03-09T06:15:00Z"),
                Arguments.of("30 1 * * *", NEW_YORK, "2026-10-31T12:00:00Z", "2026-11-01T05:30:00Z 2026-11-02T06:30:00Z"),
                Arguments.of("0 * * * *", NEW_YORK, "2026-11-01T04:30:00Z", "2026-11-01T05:00:00Z 2026-11-01T06:00:00Z 2026-11-01T07:00:00Z"),
                // Lord Howe: 2026-04-05 02:00 (+11) -> 01:30 (+10:30) at 15:00Z; 2026-10-04 02:00 (+10:30) -> 02:30 (+11) at 15:30Z
                Arguments.of("45 1 * * *", LORD_HOWE, "2026-04-04T12:00:00Z", "2026-04-04T14:45:00Z 2026-04-05T15:15:00Z"),
                Arguments.of("45 * * * *", LORD_HOWE, "2026-04-04T14:00:00Z", "2026-04-04T14:45:00Z 2026-04-04T15:15:00Z 2026-04-04T16:15:00Z"),
                Arguments.of("15 2 * * *", LORD_HOWE, "2026-10-03T12:00:00Z", "2026-10-03T15:30:00Z 2026-10-04T15:15:00Z"),
                Arguments.of("*/20 * * * *", LORD_HOWE, "2026-10-03T15:00:00Z", "2026-10-03T15:10:00Z 2026-10-03T15:30:00Z 2026-10-03T15:40:00Z"),
                // UTC
                Arguments.of("0 0 29 2 *", ZoneOffset.UTC, "2026-01-01T00:00:00Z", "2028-02-29T00:00:00Z 2032-02-29T00:00:00Z"),
                Arguments.of("0 0 13 * FRI", ZoneOffset.UTC, "2026-04-01T00:00:00Z",
                        "2026-04-03T00:00:00Z 2026-04-10T00:00:00Z 2026-04-13T00:00:00Z 2026-04-17T00:00:00Z 2026-04-24T00:00:00Z"),
                Arguments.of("0 0 */2 * FRI", ZoneOffset.UTC, "2026-04-01T00:00:00Z", "2026-04-03T00:00:00Z 2026-04-17T00:00:00Z 2026-05-01T00:00:00Z"),
                Arguments.of("*/20 * * * * *", ZoneOffset.UTC, "2026-04-01T23:59:30.5Z", "2026-04-01T23:59:40Z 2026-04-02T00:00:00Z 2026-04-02T00:00:20Z"),
                Arguments.of("@weekly", ZoneOffset.UTC, "2026-04-05T00:00:00Z", "2026-04-12T00:00:00Z 2026-04-19T00:00:00Z"));
    }

    @ParameterizedTest(name = "{0} in {1} after {2}")
    @MethodSource
    void occurrences(String expression, ZoneId zone, String after, String expected) {
        CronSchedule schedule = Schedule.cron(expression, zone);
        List<Instant> want = Stream.of(expected.split(" ")).map(Instant::parse).collect(Collectors.toList());
        assertThat(schedule.nextOccurrences(Instant.parse(after), want.size())).isEqualTo(want);
        for (int i = want.size() - 1; i > 0; i--) {
            assertThat(schedule.previous(want.get(i).minusNanos(1))).contains(want.get(i - 1));
        }
    }

    @Test
    void nextIsStrictlyAfterAndPreviousIsAtOrBefore() {
        CronSchedule daily = Schedule.cron("0 10 * * *", ZoneOffset.UTC);
        Instant ten = Instant.parse("2026-11-28T10:00:00Z");
        assertThat(daily.next(ten)).isEqualTo(ten.plus(Duration.ofDays(1)));
        assertThat(daily.next(ten.minusNanos(1))).isEqualTo(ten);
        assertThat(daily.previous(ten)).contains(ten);
        assertThat(daily.previous(ten.minusNanos(1))).contains(ten.minus(Duration.ofDays(1)));
        assertThat(daily.nextOccurrences(ten, 0)).isEmpty();
        assertThatThrownBy(() -> daily.nextOccurrences(ten, -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("n must be >= 0, was -1");
        assertThat(daily.describe()).isEqualTo("cron '0 10 * * *' in Z");
        assertThat(Schedule.cron("@daily", BERLIN).describe()).isEqualTo("cron '@daily' in Europe/Berlin");
    }

    @Test
    void anIntervalCountsElapsedTimeFromItsAnchorWhateverTheClocksDo() {
        Instant anchor = Instant.parse("2026-03-29T00:15:00Z");
        IntervalSchedule every45 = Schedule.every(Duration.ofMinutes(45), anchor);
        assertThat(every45.next(anchor.minusSeconds(3600))).isEqualTo(anchor);
        assertThat(every45.nextOccurrences(anchor, 3)).containsExactly(Instant.parse("2026-03-29T01:00:00Z"),
                Instant.parse("2026-03-29T01:45:00Z"), Instant.parse("2026-03-29T02:30:00Z"));
        assertThat(every45.previous(anchor.minusNanos(1))).isEmpty();
        assertThat(every45.previous(Instant.parse("2026-03-29T01:44:59Z"))).contains(Instant.parse("2026-03-29T01:00:00Z"));
        assertThat(every45.describe()).isEqualTo("every PT45M from 2026-03-29T00:15:00Z");
        assertThatThrownBy(() -> Schedule.every(Duration.ZERO, anchor)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("interval must be positive, was PT0S");
    }
}
