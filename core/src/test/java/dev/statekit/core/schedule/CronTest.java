package dev.statekit.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.store.ErrorCode;
import dev.statekit.store.StatekitException;
import java.time.LocalDateTime;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Parsing: what each piece of the syntax matches, and the exact refusal of each kind of defect. */
class CronTest {
    static LocalDateTime at(String text) {
        return LocalDateTime.parse(text);
    }

    static Stream<Arguments> matches() {
        return Stream.of(
                Arguments.of("*/15 9-17 * * MON-FRI", "2026-04-01T09:45", true),
                Arguments.of("*/15 9-17 * * MON-FRI", "2026-04-01T09:50", false),
                Arguments.of("*/15 9-17 * * MON-FRI", "2026-04-04T10:00", false),        // a Saturday
                Arguments.of("0 12 * * mon-sun", "2026-04-05T12:00", true),             // SUN ending a range is 7
                Arguments.of("0 12 * * SUN-SUN", "2026-04-06T12:00", false),            // Sunday alone
                Arguments.of("0 12 * * 7", "2026-04-05T12:00", true),                   // 7 is Sunday
                Arguments.of("0 12 * * 0", "2026-04-05T12:00", true),
                Arguments.of("0 0 1 jan,Jul *", "2026-07-01T00:00", true),
                Arguments.of("0 0 1 JAN-MAR/2 *", "2026-02-01T00:00", false),
                Arguments.of("0 0 1 JAN-MAR/2 *", "2026-03-01T00:00", true),
                Arguments.of("5/20 * * * *", "2026-03-01T07:45", true),                 // 5, 25, 45
                Arguments.of("5/20 * * * *", "2026-03-01T07:55", false),
                Arguments.of("0 0 13 * FRI", "2026-04-13T00:00", true),                 // both restricted: either
                Arguments.of("0 0 13 * FRI", "2026-04-17T00:00", true),
                Arguments.of("0 0 13 * FRI", "2026-04-14T00:00", false),
                Arguments.of("0 0 */2 * FRI", "2026-04-17T00:00", true),                // day-of-month starts with *: both
                Arguments.of("0 0 */2 * FRI", "2026-04-10T00:00", false),
                Arguments.of("0 0 */2 * FRI", "2026-04-13T00:00", false),
                Arguments.of("0 0 ? * FRI", "2026-04-17T00:00", true),
                Arguments.of("0 0 ? * FRI", "2026-04-13T00:00", false),
                Arguments.of("30 0 0 * * *", "2026-04-13T00:00:30", true),              // six fields: seconds first
                Arguments.of("30 0 0 * * *", "2026-04-13T00:00", false),
                Arguments.of("0 0 * * *", "2026-04-13T00:00:01", false),                // five fields: second 0
                Arguments.of("@yearly", "2027-01-01T00:00", true),
                Arguments.of("@annually", "2027-02-01T00:00", false),
                Arguments.of("@monthly", "2027-02-01T00:00", true),
                Arguments.of("@weekly", "2026-04-05T00:00", true),
                Arguments.of("@weekly", "2026-04-06T00:00", false),
                Arguments.of("@daily", "2026-04-06T00:00", true),
                Arguments.of("@midnight", "2026-04-06T01:00", false),
                Arguments.of("@hourly", "2026-04-06T17:00", true),
                Arguments.of("@HOURLY", "2026-04-06T17:01", false),
                Arguments.of("  1,2,3-5,50-59/3   *\t* * *  ", "2026-04-06T17:53", true));
    }

    @ParameterizedTest(name = "{0} at {1}: {2}")
    @MethodSource
    void matches(String expression, String wall, boolean expected) {
        assertThat(Cron.parse(expression).matches(at(wall))).isEqualTo(expected);
    }

    @Test
    void anExpressionKnowsItsFormAndIsEqualByItsText() {
        Cron cron = Cron.parse("0 */5 * * * *");
        assertThat(cron.hasSeconds()).isTrue();
        assertThat(cron.everyHour()).isTrue();
        assertThat(cron.expression()).isEqualTo("0 */5 * * * *");
        assertThat(cron).hasToString("0 */5 * * * *").isEqualTo(Cron.parse("0 */5 * * * *")).isNotEqualTo(Cron.parse("0 0/5 * * * *"));
        assertThat(Cron.parse("0 0/5 * * * *").hashCode()).isEqualTo("0 0/5 * * * *".hashCode());
        assertThat(Cron.parse("@daily").hasSeconds()).isFalse();
        assertThat(Cron.parse("@daily").everyHour()).isFalse();
        assertThat(Cron.parse("0 0-23 * * *").everyHour()).isTrue();
        assertThat(Cron.parse("0 */2 * * *").everyHour()).isFalse();
    }

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of("0 61 * * *", "field 2 (hour) at position 3: value 61 is out of range 0-23"),
                Arguments.of("61 0 * * *", "field 1 (minute) at position 1: value 61 is out of range 0-59"),
                Arguments.of("60 * * * * *", "field 1 (second) at position 1: value 60 is out of range 0-59"),
                Arguments.of("  0   25 * * *", "field 2 (hour) at position 7: value 25 is out of range 0-23"),
                Arguments.of("0 0 0 * *", "field 3 (day-of-month) at position 5: value 0 is out of range 1-31"),
                Arguments.of("0 0 * 13 *", "field 4 (month) at position 7: value 13 is out of range 1-12 or JAN-DEC"),
                Arguments.of("0 0 * * 8", "field 5 (day-of-week) at position 9: value 8 is out of range 0-7 (0 and 7 are Sunday) or SUN-SAT"),
                Arguments.of("0 0 * FOO *", "field 4 (month) at position 7: 'FOO' is not a value; allowed 1-12 or JAN-DEC"),
                Arguments.of("0 0 * * FUNDAY", "field 5 (day-of-week) at position 9: 'FUNDAY' is not a value; allowed 0-7 (0 and 7 are Sunday) or SUN-SAT"),
                Arguments.of("x/5 * * * *", "field 1 (minute) at position 1: 'x' is not a value; allowed 0-59"),
                Arguments.of("*/x * * * *", "field 1 (minute) at position 3: step 'x' is not a number 1-59"),
                Arguments.of("*/0 * * * *", "field 1 (minute) at position 3: step 0 is out of range 1-59"),
                Arguments.of("*/60 * * * *", "field 1 (minute) at position 3: step 60 is out of range 1-59"),
                Arguments.of("10-5 * * * *", "field 1 (minute) at position 1: range 10-5 runs backwards; write it from low to high, or as a list where it wraps"),
                Arguments.of("5- * * * *", "field 1 (minute) at position 3: missing value; allowed 0-59"),
                Arguments.of("1,,2 * * * *", "field 1 (minute) at position 3: empty list item"),
                Arguments.of("0 0 * * *,", "field 5 (day-of-week) at position 11: empty list item"),
                Arguments.of("? 0 * * *", "field 1 (minute) at position 1: '?' is allowed only in day-of-month and day-of-week"),
                Arguments.of("0 0 ?/2 * *", "field 3 (day-of-month) at position 5: '?' takes no step"),
                Arguments.of("0 0 L * *", "field 3 (day-of-month) at position 5: 'L' (last) is not supported; allowed 1-31"),
                Arguments.of("0 0 15W * *", "field 3 (day-of-month) at position 5: 'W' (nearest weekday) is not supported; allowed 1-31"),
                Arguments.of("0 0 * * MON#2", "field 5 (day-of-week) at position 9: '#' (nth day of the week) is not supported; allowed 0-7 (0 and 7 are Sunday) or SUN-SAT"),
                Arguments.of("0 0 * * 5L", "field 5 (day-of-week) at position 9: 'L' (last) is not supported; allowed 0-7 (0 and 7 are Sunday) or SUN-SAT"),
                Arguments.of("", "expected 5 fields (minute hour day-of-month month day-of-week) or 6 (second first), found 0"),
                Arguments.of("* * * *", "expected 5 fields (minute hour day-of-month month day-of-week) or 6 (second first), found 4"),
                Arguments.of("0 0 0 1 1 * 2026", "7 fields: a year field is not supported; write 5 fields (minute hour day-of-month month day-of-week) or 6 (second first)"),
                Arguments.of("0 0 30 2 *", "the day-of-month and month fields never meet: no selected month has a day 30"),
                Arguments.of("0 0 30,31 2 *", "the day-of-month and month fields never meet: no selected month has a day 30 or later"),
                Arguments.of("0 0 31 4,6,9,11 *", "the day-of-month and month fields never meet: no selected month has a day 31"),
                Arguments.of("@reboot", "unknown macro '@reboot'; known: @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly"));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource
    void refusals(String expression, String problem) {
        assertThatThrownBy(() -> Cron.parse(expression)).isInstanceOfSatisfying(StatekitException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
                .hasMessage("[INVALID_ARGUMENT] invalid cron expression '" + expression + "': " + problem);
    }

    @Test
    void bothDayFieldsRestrictedMatchOnEitherSoFebruaryThirtiethWithAWeekdayIsAccepted() {
        assertThat(Cron.parse("0 0 30 2 MON").matches(at("2026-02-02T00:00"))).isTrue();
        assertThat(Cron.parse("0 0 29 2 *").matches(at("2028-02-29T00:00"))).isTrue();
    }
}
