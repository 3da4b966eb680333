package dev.statekit.jdbc.bench.pressure;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counts of microsecond values in buckets of about three significant figures (values below 2,048
 * exactly, larger ones in 1,024 buckets per power of two), up to about 12 days: bounded memory
 * however many values are recorded. Recording is thread-safe; reading while others record sees
 * some of their values.
 */
final class Histogram {
    private static final int SUB_BITS = 10;
    private static final int SUB = 1 << SUB_BITS;
    /** The largest value kept apart; larger ones count as this. */
    static final long MAX = 1L << 40;
    private static final int SIZE = index(MAX) + 1;

    private final AtomicLongArray counts = new AtomicLongArray(SIZE);

    static int index(long value) {
        long v = Math.max(0, Math.min(MAX, value));
        if (v < 2 * SUB) return (int) v;
        int shift = 63 - Long.numberOfLeadingZeros(v) - SUB_BITS;
        return (shift + 1) * SUB + (int) ((v >> shift) - SUB);
    }

    /** The smallest value of bucket {@code index}. */
    static long lowest(int index) {
        if (index < 2 * SUB) return index;
        int shift = index / SUB - 1;
        return (long) (index % SUB + SUB) << shift;
    }

    /** The value a bucket stands for: its middle. */
    static long middle(int index) {
        if (index < 2 * SUB) return index;
        return lowest(index) + ((1L << (index / SUB - 1)) >> 1);
    }

    void record(long micros) {
        counts.incrementAndGet(index(micros));
    }

    void add(Histogram other) {
        for (int i = 0; i < SIZE; i++) {
            long n = other.counts.get(i);
            if (n != 0) counts.addAndGet(i, n);
        }
    }

    long count() {
        long n = 0;
        for (int i = 0; i < SIZE; i++) n += counts.get(i);
        return n;
    }

    /** Returns the {@code q} quantile (0..1) in microseconds, or -1 without values. */
    long quantile(double q) {
        long total = count();
        if (total == 0) return -1;
        long rank = Math.max(1, (long) Math.ceil(q * total));
        long seen = 0;
        for (int i = 0; i < SIZE; i++) {
            seen += counts.get(i);
            if (seen >= rank) return middle(i);
        }
        return middle(SIZE - 1);
    }

    /** Returns the {@code q} quantile in milliseconds, or NaN without values. */
    double quantileMillis(double q) {
        long us = quantile(q);
        return us < 0 ? Double.NaN : us / 1e3;
    }
}
