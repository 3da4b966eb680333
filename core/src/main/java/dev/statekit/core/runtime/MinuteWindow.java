package dev.statekit.core.runtime;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts of one machine on one queue over the last minute on the clock: 60 buckets of one second,
 * each with one counter per {@link LastMinute} count, reused as the seconds go round.
 *
 * <p>Concurrency: any thread adds (worker slots, dispatch rounds, the timer thread). Adding reads
 * the bucket's second without a lock and adds to a {@link LongAdder}, so slots that finish tasks at
 * once do not contend on one counter; only the first add of a new second takes the monitor, to
 * clear the bucket's counters and then stamp it with that second. An add is dropped when its bucket
 * already holds a later second (an event older than the window). A thread that paused for a whole
 * minute between reading the stamp and adding could count into the next minute's bucket: a metric
 * may be off by that one event, nothing else depends on it.
 */
final class MinuteWindow {
    /** The counts, as indexes of a bucket's counters: the components of {@link LastMinute} in order. */
    static final int STARTED = 0;
    static final int SUCCEEDED = 1;
    static final int FAILED = 2;
    static final int RETRIED = 3;
    static final int TIMED_OUT = 4;
    static final int RECOVERED = 5;
    private static final int COUNTS = 6;
    /** How many one-second buckets the window has. */
    static final int SECONDS = 60;

    /** The second each bucket counts, in epoch seconds; {@code Long.MIN_VALUE} before its first use. */
    private final AtomicLongArray seconds = new AtomicLongArray(SECONDS);
    private final LongAdder[] counters = new LongAdder[SECONDS * COUNTS];

    MinuteWindow() {
        for (int i = 0; i < SECONDS; i++) seconds.set(i, Long.MIN_VALUE);
        for (int i = 0; i < counters.length; i++) counters[i] = new LongAdder();
    }

    /** Adds {@code n} to count {@code count} (one of the constants above) in the second of {@code at}. */
    void add(int count, long n, Instant at) {
        long second = at.getEpochSecond();
        int bucket = (int) Math.floorMod(second, (long) SECONDS);
        long stamp = seconds.get(bucket);
        if (stamp != second) {
            if (stamp > second) return;      // older than the window
            roll(bucket, second);
        }
        counters[bucket * COUNTS + count].add(n);
    }

    private synchronized void roll(int bucket, long second) {
        if (seconds.get(bucket) >= second) return;      // another thread rolled it first
        for (int c = 0; c < COUNTS; c++) counters[bucket * COUNTS + c].reset();
        seconds.set(bucket, second);
    }

    /** Returns the counts of the second of {@code now} and the 59 before it. */
    LastMinute read(Instant now) {
        long last = now.getEpochSecond();
        long[] sum = new long[COUNTS];
        for (int b = 0; b < SECONDS; b++) {
            long second = seconds.get(b);
            if (second > last - SECONDS && second <= last) {
                for (int c = 0; c < COUNTS; c++) sum[c] += counters[b * COUNTS + c].sum();
            }
        }
        return new LastMinute(sum[STARTED], sum[SUCCEEDED], sum[FAILED], sum[RETRIED], sum[TIMED_OUT], sum[RECOVERED]);
    }
}
