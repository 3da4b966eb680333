package dev.statekit.core.schedule;

import dev.statekit.store.ErrorCode;
import dev.statekit.store.StatekitException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A parsed cron expression: which wall-clock times match, with no time zone of its own (a
 * {@link CronSchedule} puts it in one).
 *
 * <p>Syntax: five fields, {@code minute hour day-of-month month day-of-week}, or six with
 * {@code second} first. Each field is {@code *}, a value, a range {@code a-b}, a step
 * {@code *&#47;s}, {@code a-b/s} or {@code a/s} (from {@code a} to the field's end), or a list of
 * these joined by commas. Months take {@code JAN}–{@code DEC}, days of the week {@code SUN}–{@code SAT}
 * (case-insensitive); day-of-week 0 and 7 are both Sunday, and {@code SUN} ending a range means 7
 * ({@code MON-SUN}; {@code SUN-SUN} is Sunday alone). {@code ?} stands for {@code *} in day-of-month and day-of-week only. The macros
 * {@code @yearly} ({@code @annually}), {@code @monthly}, {@code @weekly}, {@code @daily}
 * ({@code @midnight}) and {@code @hourly} stand for their five-field forms. {@code L}, {@code W} and
 * {@code #} are refused, as is a seventh (year) field.
 *
 * <p>Day-of-month and day-of-week combine as in Vixie cron: when both are restricted (neither
 * starts with {@code *} nor is {@code ?}) a day matches if either matches; otherwise it must match
 * both. So {@code 0 0 13 * FRI} runs on every 13th and every Friday, {@code 0 0 *&#47;2 * FRI} only on
 * Fridays with an odd day of the month.
 *
 * <p>Immutable and thread-safe. Equal when their expressions, as given, are equal.
 */
public final class Cron {
    static final String[] FIELD_NAMES = {"second", "minute", "hour", "day-of-month", "month", "day-of-week"};
    private static final int[] MIN = {0, 0, 0, 1, 1, 0};
    private static final int[] MAX = {59, 59, 23, 31, 12, 7};
    private static final String[] MONTHS = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
    private static final String[] DAYS = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};
    private static final Map<String, String> MACROS = Map.of(
            "@yearly", "0 0 1 1 *", "@annually", "0 0 1 1 *", "@monthly", "0 0 1 * *", "@weekly", "0 0 * * 0",
            "@daily", "0 0 * * *", "@midnight", "0 0 * * *", "@hourly", "0 * * * *");
    private static final int SECOND = 0, MINUTE = 1, HOUR = 2, DAY_OF_MONTH = 3, MONTH = 4, DAY_OF_WEEK = 5;
    /** How far a search for a matching time goes: every accepted expression matches within it. */
    static final int HORIZON_YEARS = 100;

    private final String expression;
    private final boolean seconds;
    private final long[] bits = new long[6];
    private final boolean dayOfMonthStar;
    private final boolean dayOfWeekStar;

    private Cron(String expression, boolean seconds, boolean dayOfMonthStar, boolean dayOfWeekStar) {
        this.expression = expression;
        this.seconds = seconds;
        this.dayOfMonthStar = dayOfMonthStar;
        this.dayOfWeekStar = dayOfWeekStar;
    }

    /**
     * Parses a cron expression.
     *
     * @param expression five or six fields separated by blanks, or a macro such as {@code @daily}
     * @return the parsed expression
     * @throws StatekitException with {@link ErrorCode#INVALID_ARGUMENT} naming the field, its number,
     *                           the position (1-based column) of the defect and the values allowed; or
     *                           when day-of-month and month never meet ({@code 0 0 30 2 *})
     */
    public static Cron parse(String expression) {
        Objects.requireNonNull(expression, "expression");
        String text = expression.strip();
        if (text.startsWith("@")) {
            String fields = MACROS.get(text.toLowerCase(Locale.ROOT));
            if (fields == null) {
                throw invalid(expression, "unknown macro '" + text + "'; known: @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly");
            }
            return parseFields(expression, fields);
        }
        return parseFields(expression, expression);
    }

    /** Parses the fields of {@code text}: the expression itself, or the fields a macro stands for. */
    private static Cron parseFields(String expression, String text) {
        List<int[]> spans = new ArrayList<>();   // start and end of each field in text
        int i = 0;
        while (i < text.length()) {
            while (i < text.length() && Character.isWhitespace(text.charAt(i))) i++;
            if (i == text.length()) break;
            int start = i;
            while (i < text.length() && !Character.isWhitespace(text.charAt(i))) i++;
            spans.add(new int[] {start, i});
        }
        if (spans.size() == 7) {
            throw invalid(expression, "7 fields: a year field is not supported; write 5 fields (minute hour day-of-month month day-of-week) or 6 (second first)");
        }
        if (spans.size() != 5 && spans.size() != 6) {
            throw invalid(expression, "expected 5 fields (minute hour day-of-month month day-of-week) or 6 (second first), found " + spans.size());
        }
        boolean withSeconds = spans.size() == 6;
        String[] texts = new String[6];
        int[] starts = new int[6];
        for (int f = withSeconds ? 0 : 1, s = 0; f < 6; f++, s++) {
            texts[f] = text.substring(spans.get(s)[0], spans.get(s)[1]);
            starts[f] = spans.get(s)[0];
        }
        if (!withSeconds) {
            texts[SECOND] = "0";
            starts[SECOND] = -1;
        }
        Cron cron = new Cron(expression, withSeconds, star(texts[DAY_OF_MONTH]), star(texts[DAY_OF_WEEK]));
        for (int f = 0; f < 6; f++) {
            cron.bits[f] = new FieldParser(expression, f, withSeconds ? f + 1 : f, texts[f], starts[f]).parse();
        }
        long dow = cron.bits[DAY_OF_WEEK];
        if ((dow & (1L << 7)) != 0) cron.bits[DAY_OF_WEEK] = (dow | 1L) & ~(1L << 7);
        cron.checkDaysMeetMonths(expression);
        return cron;
    }

    private static boolean star(String field) {
        return field.startsWith("*") || field.equals("?");
    }

    /** Refuses an expression whose days can never occur: day-of-month alone decides and no selected month has a selected day. */
    private void checkDaysMeetMonths(String expression) {
        if (!dayOfMonthStar && !dayOfWeekStar) return;         // either field may match: every week has a matching day
        int[] longest = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        int first = Long.numberOfTrailingZeros(bits[DAY_OF_MONTH]);
        for (int m = 1; m <= 12; m++) {
            if ((bits[MONTH] & (1L << m)) != 0 && first <= longest[m - 1]) return;
        }
        throw invalid(expression, "the day-of-month and month fields never meet: no selected month has a day " + first
                + (Long.bitCount(bits[DAY_OF_MONTH]) > 1 ? " or later" : ""));
    }

    static StatekitException invalid(String expression, String problem) {
        return new StatekitException(ErrorCode.INVALID_ARGUMENT, "invalid cron expression '" + expression + "': " + problem);
    }

    /** Parses one field into a bit set of its values. */
    private static final class FieldParser {
        final String expression;
        final int field;
        final int number;
        final String text;
        final int offset;

        FieldParser(String expression, int field, int number, String text, int offset) {
            this.expression = expression;
            this.field = field;
            this.number = number;
            this.text = text;
            this.offset = offset;
        }

        long parse() {
            long bits = 0;
            int start = 0;
            while (true) {
                int comma = text.indexOf(',', start);
                int end = comma < 0 ? text.length() : comma;
                bits |= item(start, end);
                if (comma < 0) return bits;
                start = comma + 1;
            }
        }

        private long item(int start, int end) {
            String item = text.substring(start, end);
            if (item.isEmpty()) throw fail(start, "empty list item");
            int slash = item.indexOf('/');
            String range = slash < 0 ? item : item.substring(0, slash);
            int lo;
            int hi;
            if (range.equals("*") || range.equals("?")) {
                if (range.equals("?") && field != DAY_OF_MONTH && field != DAY_OF_WEEK) {
                    throw fail(start, "'?' is allowed only in day-of-month and day-of-week");
                }
                if (range.equals("?") && slash >= 0) throw fail(start, "'?' takes no step");
                lo = MIN[field];
                hi = field == DAY_OF_WEEK ? 6 : MAX[field];
            } else {
                int dash = range.indexOf('-');
                if (dash < 0) {
                    lo = value(range, start, false);
                    hi = slash < 0 ? lo : (field == DAY_OF_WEEK ? 6 : MAX[field]);
                } else {
                    lo = value(range.substring(0, dash), start, false);
                    hi = value(range.substring(dash + 1), start + dash + 1, true);
                    if (field == DAY_OF_WEEK && lo == 0 && hi == 7 && !Character.isDigit(range.charAt(dash + 1))) hi = 0;   // SUN-SUN
                    if (lo > hi) {
                        throw fail(start, "range " + range + " runs backwards; write it from low to high, or as a list where it wraps");
                    }
                }
            }
            int step = 1;
            if (slash >= 0) {
                String s = item.substring(slash + 1);
                int width = MAX[field] - MIN[field] - (field == DAY_OF_WEEK ? 1 : 0);
                if (!s.chars().allMatch(c -> c >= '0' && c <= '9') || s.isEmpty() || s.length() > 4) {
                    throw fail(start + slash + 1, "step '" + s + "' is not a number 1-" + width);
                }
                step = Integer.parseInt(s);
                if (step < 1 || step > width) throw fail(start + slash + 1, "step " + step + " is out of range 1-" + width);
            }
            long bits = 0;
            for (int v = lo; v <= hi; v += step) bits |= 1L << v;
            return bits;
        }

        private int value(String token, int at, boolean rangeEnd) {
            if (token.isEmpty()) throw fail(at, "missing value; allowed " + allowed());
            if (token.chars().allMatch(c -> c >= '0' && c <= '9')) {
                int v = token.length() > 4 ? Integer.MAX_VALUE : Integer.parseInt(token);
                if (v < MIN[field] || v > MAX[field]) throw fail(at, "value " + token + " is out of range " + allowed());
                return v;
            }
            String upper = token.toUpperCase(Locale.ROOT);
            String[] names = field == MONTH ? MONTHS : field == DAY_OF_WEEK ? DAYS : null;
            if (names != null) {
                for (int n = 0; n < names.length; n++) {
                    if (names[n].equals(upper)) {
                        if (field == MONTH) return n + 1;
                        return n == 0 && rangeEnd ? 7 : n;
                    }
                }
            }
            if (upper.contains("#")) throw fail(at, "'#' (nth day of the week) is not supported; allowed " + allowed());
            if (upper.matches("\\d*L|LW")) throw fail(at, "'L' (last) is not supported; allowed " + allowed());
            if (upper.matches("\\d*W")) throw fail(at, "'W' (nearest weekday) is not supported; allowed " + allowed());
            throw fail(at, "'" + token + "' is not a value; allowed " + allowed());
        }

        private String allowed() {
            String range = MIN[field] + "-" + MAX[field];
            if (field == MONTH) return range + " or JAN-DEC";
            if (field == DAY_OF_WEEK) return range + " (0 and 7 are Sunday) or SUN-SAT";
            return range;
        }

        private StatekitException fail(int at, String problem) {
            return invalid(expression, "field " + number + " (" + FIELD_NAMES[field] + ") at position " + (offset + at + 1) + ": " + problem);
        }
    }

    /** Returns the expression as given to {@link #parse}. */
    public String expression() {
        return expression;
    }

    /** Returns whether the expression has a seconds field (six fields); without one, second 0 matches. */
    public boolean hasSeconds() {
        return seconds;
    }

    /**
     * Returns whether the hour field matches every hour ({@code *}, {@code *&#47;1}, {@code 0-23}):
     * such an expression fires in both passes of a wall-clock hour repeated when clocks go back.
     */
    public boolean everyHour() {
        return bits[HOUR] == (1L << 24) - 1;
    }

    /** Returns whether the wall-clock time {@code time} matches every field (its nanoseconds are ignored). */
    public boolean matches(LocalDateTime time) {
        return dayMatches(time.toLocalDate()) && has(HOUR, time.getHour()) && has(MINUTE, time.getMinute()) && has(SECOND, time.getSecond());
    }

    private boolean has(int field, int value) {
        return (bits[field] & (1L << value)) != 0;
    }

    boolean dayMatches(LocalDate date) {
        if (!has(MONTH, date.getMonthValue())) return false;
        boolean dom = has(DAY_OF_MONTH, date.getDayOfMonth());
        boolean dow = has(DAY_OF_WEEK, date.getDayOfWeek().getValue() % 7);
        return dayOfMonthStar || dayOfWeekStar ? dom && dow : dom || dow;
    }

    /**
     * Returns the first matching wall-clock time at or after {@code from} (rounded up to a whole
     * second) and before {@code until}, or null.
     */
    @Nullable LocalDateTime nextMatch(LocalDateTime from, LocalDateTime until) {
        LocalDateTime start = from.getNano() == 0 ? from : from.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
        LocalDate date = start.toLocalDate();
        LocalTime time = start.toLocalTime();
        LocalDate last = until.toLocalDate();
        while (!date.isAfter(last)) {
            if (!has(MONTH, date.getMonthValue())) {
                date = date.withDayOfMonth(1).plusMonths(1);
                time = LocalTime.MIDNIGHT;
                continue;
            }
            if (dayMatches(date)) {
                LocalTime t = timeAtOrAfter(time);
                if (t != null) {
                    LocalDateTime found = date.atTime(t);
                    return found.isBefore(until) ? found : null;
                }
            }
            date = date.plusDays(1);
            time = LocalTime.MIDNIGHT;
        }
        return null;
    }

    /** Returns the last matching wall-clock time at or before {@code to} (rounded down to a whole second) and at or after {@code since}, or null. */
    @Nullable LocalDateTime previousMatch(LocalDateTime to, LocalDateTime since) {
        LocalDate date = to.toLocalDate();
        LocalTime time = to.toLocalTime().truncatedTo(ChronoUnit.SECONDS);
        LocalDate first = since.toLocalDate();
        while (!date.isBefore(first)) {
            if (!has(MONTH, date.getMonthValue())) {
                date = date.withDayOfMonth(1).minusDays(1);
                time = LocalTime.MAX.truncatedTo(ChronoUnit.SECONDS);
                continue;
            }
            if (dayMatches(date)) {
                LocalTime t = timeAtOrBefore(time);
                if (t != null) {
                    LocalDateTime found = date.atTime(t);
                    return found.isBefore(since) ? null : found;
                }
            }
            date = date.minusDays(1);
            time = LocalTime.MAX.truncatedTo(ChronoUnit.SECONDS);
        }
        return null;
    }

    private @Nullable LocalTime timeAtOrAfter(LocalTime from) {
        for (int h = up(HOUR, from.getHour()); h < 24; h = up(HOUR, h + 1)) {
            boolean sameHour = h == from.getHour();
            for (int m = up(MINUTE, sameHour ? from.getMinute() : 0); m < 60; m = up(MINUTE, m + 1)) {
                int s = up(SECOND, sameHour && m == from.getMinute() ? from.getSecond() : 0);
                if (s < 60) return LocalTime.of(h, m, s);
            }
        }
        return null;
    }

    private @Nullable LocalTime timeAtOrBefore(LocalTime to) {
        for (int h = down(HOUR, to.getHour()); h >= 0; h = down(HOUR, h - 1)) {
            boolean sameHour = h == to.getHour();
            for (int m = down(MINUTE, sameHour ? to.getMinute() : 59); m >= 0; m = down(MINUTE, m - 1)) {
                int s = down(SECOND, sameHour && m == to.getMinute() ? to.getSecond() : 59);
                if (s >= 0) return LocalTime.of(h, m, s);
            }
        }
        return null;
    }

    /** The least value of the field at or above {@code from}, or 64 when none. */
    private int up(int field, int from) {
        return from > 63 ? 64 : Long.numberOfTrailingZeros(bits[field] & (-1L << from));
    }

    /** The greatest value of the field at or below {@code to}, or -1 when none. */
    private int down(int field, int to) {
        return to < 0 ? -1 : 63 - Long.numberOfLeadingZeros(bits[field] & (-1L >>> (63 - to)));
    }

    /** Returns whether some wall-clock time in [{@code from}, {@code until}) matches. */
    boolean matchesWithin(LocalDateTime from, LocalDateTime until) {
        return nextMatch(from, until) != null;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof Cron && ((Cron) o).expression.equals(expression);
    }

    @Override
    public int hashCode() {
        return expression.hashCode();
    }

    /** Returns the expression as given. */
    @Override
    public String toString() {
        return expression;
    }
}
