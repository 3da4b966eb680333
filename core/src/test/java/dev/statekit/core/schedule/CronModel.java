package dev.statekit.core.schedule;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.Month;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import org.jspecify.annotations.Nullable;

/**
 * A cron expression as the tests generate it: its text, and per field the set of values it stands
 * for, worked out while generating the text rather than by parsing it. {@link #next} and
 * {@link #previous} are the reference the implementation is compared with: they walk the time line
 * minute by minute (and second by second inside a matching minute) and test each instant against
 * the documented rules, in terms of instants only. They assume the zone's offsets and transitions
 * fall on whole minutes, true of every zone the tests use since 1970.
 *
 * @param text    the expression
 * @param seconds whether it has a seconds field
 * @param sets    per field (second, minute, hour, day-of-month, month, day-of-week with Sunday 0) a
 *                bit set of the values it matches
 * @param domStar whether the day-of-month field starts with {@code *} or is {@code ?}
 * @param dowStar the same for day-of-week
 */
record CronModel(String text, boolean seconds, long[] sets, boolean domStar, boolean dowStar) {
    static final int[] MIN = {0, 0, 0, 1, 1, 0};
    static final int[] MAX = {59, 59, 23, 31, 12, 7};

    /** One field's text and values. */
    record Field(String text, long bits, boolean star) {}

    boolean has(int field, int value) {
        return (sets[field] & (1L << value)) != 0;
    }

    boolean everyHour() {
        return Long.bitCount(sets[2]) == 24;
    }

    /** Whether the minute of wall time {@code w} matches every field but the second. */
    boolean minuteMatches(LocalDateTime w) {
        boolean dom = has(3, w.getDayOfMonth());
        boolean dow = has(5, w.getDayOfWeek() == DayOfWeek.SUNDAY ? 0 : w.getDayOfWeek().getValue());
        boolean day = domStar || dowStar ? dom && dow : dom || dow;
        return day && has(4, w.getMonthValue()) && has(2, w.getHour()) && has(1, w.getMinute());
    }

    /** Whether some day can match: when day-of-month must match, some selected month has a selected day. */
    boolean feasible() {
        if (!domStar && !dowStar) return true;
        for (int m = 1; m <= 12; m++) {
            for (int d = 1; d <= Month.of(m).maxLength(); d++) if (has(4, m) && has(3, d)) return true;
        }
        return false;
    }

    /** Whether some minute of the wall times in [from, until) matches (a gap's wall times). */
    boolean anyMinuteIn(LocalDateTime from, LocalDateTime until) {
        for (LocalDateTime w = from; w.isBefore(until); w = w.plusMinutes(1)) if (minuteMatches(w)) return true;
        return false;
    }

    /** The reference for {@link Schedule#next}: the first occurrence after {@code after} up to {@code bound}, or null. */
    @Nullable Instant next(ZoneId zone, Instant after, Instant bound) {
        ZoneRules rules = zone.getRules();
        long minute = Math.floorDiv(after.getEpochSecond(), 60) * 60;
        ZoneOffsetTransition transition = rules.nextTransition(Instant.ofEpochSecond(minute).minusSeconds(1));
        for (; minute <= bound.getEpochSecond(); minute += 60) {
            Instant m = Instant.ofEpochSecond(minute);
            while (transition != null && transition.getInstant().isBefore(m)) transition = rules.nextTransition(transition.getInstant());
            if (transition != null && transition.getInstant().equals(m) && transition.isGap() && m.isAfter(after)
                    && anyMinuteIn(transition.getDateTimeBefore(), transition.getDateTimeAfter())) {
                return m;
            }
            ZoneOffset offset = rules.getOffset(m);
            LocalDateTime wall = LocalDateTime.ofEpochSecond(minute, 0, offset);
            if (!minuteMatches(wall) || !firesAt(zone, wall, offset)) continue;
            for (int s = 0; s < 60; s++) {
                Instant t = m.plusSeconds(s);
                if (has(0, s) && t.isAfter(after) && !t.isAfter(bound)) return t;
            }
        }
        return null;
    }

    /** The reference for {@link Schedule#previous}: the last occurrence at or before {@code atOrBefore} down to {@code bound}, or null. */
    @Nullable Instant previous(ZoneId zone, Instant atOrBefore, Instant bound) {
        ZoneRules rules = zone.getRules();
        for (long minute = Math.floorDiv(atOrBefore.getEpochSecond(), 60) * 60; minute >= bound.getEpochSecond() - 60; minute -= 60) {
            Instant m = Instant.ofEpochSecond(minute);
            ZoneOffset offset = rules.getOffset(m);
            LocalDateTime wall = LocalDateTime.ofEpochSecond(minute, 0, offset);
            if (minuteMatches(wall) && firesAt(zone, wall, offset)) {
                for (int s = 59; s >= 0; s--) {
                    Instant t = m.plusSeconds(s);
                    if (has(0, s) && !t.isAfter(atOrBefore) && !t.isBefore(bound)) return t;
                }
            }
            ZoneOffsetTransition transition = rules.previousTransition(m.plusSeconds(1));
            if (transition != null && transition.getInstant().equals(m) && transition.isGap() && !m.isAfter(atOrBefore) && !m.isBefore(bound)
                    && anyMinuteIn(transition.getDateTimeBefore(), transition.getDateTimeAfter())) {
                return m;
            }
        }
        return null;
    }

    /** Whether wall time {@code wall}, met at {@code offset}, fires: at its first pass, or at each for every-hour expressions. */
    boolean firesAt(ZoneId zone, LocalDateTime wall, ZoneOffset offset) {
        return everyHour() || ZonedDateTime.ofLocal(wall, zone, null).getOffset().equals(offset);
    }

    // ---- generation

    /** Expressions with five or six fields, their day fields mostly open so that matches come within weeks. */
    static Arbitrary<CronModel> expressions() {
        Arbitrary<Field> second = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, field(0, 0, 59)), net.jqwik.api.Tuple.of(1, Arbitraries.just(new Field("*", all(0, 59), true))));
        Arbitrary<Field> minute = field(1, 0, 59);
        Arbitrary<Field> hour = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(2, Arbitraries.just(new Field("*", all(0, 23), true))),
                net.jqwik.api.Tuple.of(3, field(2, 0, 4)),              // the hours clocks change in
                net.jqwik.api.Tuple.of(2, field(2, 0, 23)));
        Arbitrary<Field> dom = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(5, Arbitraries.of(new Field("*", all(1, 31), true), new Field("?", all(1, 31), true))),
                net.jqwik.api.Tuple.of(2, field(3, 1, 31)));
        Arbitrary<Field> month = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(4, Arbitraries.just(new Field("*", all(1, 12), true))),
                net.jqwik.api.Tuple.of(1, field(4, 1, 12)));
        Arbitrary<Field> dow = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(4, Arbitraries.of(new Field("*", all(0, 6), true), new Field("?", all(0, 6), true))),
                net.jqwik.api.Tuple.of(2, field(5, 0, 7)));
        return Combinators.combine(Arbitraries.of(true, false), second, minute, hour, dom, month, dow)
                .as((withSeconds, s, mi, h, d, mo, w) -> {
                    Field sec = withSeconds ? s : new Field("0", 1L, false);
                    String text = (withSeconds ? s.text() + " " : "") + String.join(" ", mi.text(), h.text(), d.text(), mo.text(), w.text());
                    long dowBits = w.bits();
                    if ((dowBits & (1L << 7)) != 0) dowBits = (dowBits | 1L) & ~(1L << 7);
                    return new CronModel(text, withSeconds, new long[] {sec.bits(), mi.bits(), h.bits(), d.bits(), mo.bits(), dowBits},
                            d.star(), w.star());
                });
    }

    static long all(int lo, int hi) {
        long bits = 0;
        for (int v = lo; v <= hi; v++) bits |= 1L << v;
        return bits;
    }

    /** A field of {@code f} whose values lie mostly within [lo, hi]: a value, a range, a step or a list of them. */
    static Arbitrary<Field> field(int f, int lo, int hi) {
        Arbitrary<Field> item = item(f, lo, hi);
        Arbitrary<Field> list = item.list().ofMinSize(2).ofMaxSize(3).map(items -> {
            List<String> texts = new ArrayList<>();
            long bits = 0;
            for (Field i : items) {
                texts.add(i.text());
                bits |= i.bits();
            }
            return new Field(String.join(",", texts), bits, items.get(0).star());
        });
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(3, item), net.jqwik.api.Tuple.of(1, list));
    }

    private static Arbitrary<Field> item(int f, int lo, int hi) {
        int top = f == 5 ? 6 : MAX[f];                     // where a step or a star ends
        int width = top - MIN[f];
        Arbitrary<Integer> v = Arbitraries.integers().between(lo, hi);
        Arbitrary<Integer> step = Arbitraries.integers().between(1, Math.max(1, Math.min(width, 20)));
        Arbitrary<Boolean> named = Arbitraries.of(true, false);
        Arbitrary<Field> single = Combinators.combine(v, named).as((a, n) -> new Field(render(f, a, n, false), 1L << a, false));
        Arbitrary<Field> range = Combinators.combine(v, v, named).as((a, b, n) -> {
            int x = Math.min(a, b), y = Math.max(a, b);
            boolean sundays = f == 5 && x == 0 && y == 7;        // SUN-SUN is Sunday alone: write 0-7 or SUN-7
            return new Field(render(f, x, n, false) + "-" + render(f, y, n && !sundays, true), stepped(x, y, 1), false);
        });
        Arbitrary<Field> rangeStep = Combinators.combine(v, v, step).as((a, b, s) -> {
            int x = Math.min(a, b), y = Math.max(a, b);
            return new Field(x + "-" + y + "/" + s, stepped(x, y, s), false);
        });
        Arbitrary<Field> starStep = step.map(s -> new Field("*/" + s, stepped(MIN[f], top, s), true));
        Arbitrary<Field> fromStep = Combinators.combine(v.filter(a -> a <= top), step).as((a, s) -> new Field(a + "/" + s, stepped(a, top, s), false));
        return Arbitraries.oneOf(single, range, rangeStep, starStep, fromStep);
    }

    private static long stepped(int from, int to, int step) {
        long bits = 0;
        for (int x = from; x <= to; x += step) bits |= 1L << x;
        return bits;
    }

    /** The value as a number, or as a name where one has the same meaning at this place. */
    private static String render(int f, int value, boolean named, boolean rangeEnd) {
        if (!named) return Integer.toString(value);
        if (f == 4) return Month.of(value).name().substring(0, 3).toLowerCase(Locale.ROOT);
        if (f == 5 && !(value == 0 && rangeEnd) && !(value == 7 && !rangeEnd)) {
            return value == 0 || value == 7 ? "SUN" : DayOfWeek.of(value).name().substring(0, 3);
        }
        return Integer.toString(value);
    }

    @Override
    public String toString() {
        return text;
    }
}
