package dev.statekit.core.runtime;


import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The last minute's counts: one-second buckets over the clock, reused as the seconds go round, exact under concurrent adds. */
class MinuteWindowTest {
    final Instant t0 = Instant.parse("2031-04-05T13:30:00.250Z");

    @Test
    void countsOfTheCurrentSecondAndTheFiftyNineBeforeItAreSummed() {
        MinuteWindow w = new MinuteWindow();
        w.add(MinuteWindow.STARTED, 3, t0);
        w.add(MinuteWindow.SUCCEEDED, 2, t0.plusMillis(500));
        w.add(MinuteWindow.STARTED, 1, t0.plusSeconds(30));
        w.add(MinuteWindow.FAILED, 1, t0.plusSeconds(30));
        w.add(MinuteWindow.RETRIED, 4, t0.plusSeconds(59));
        w.add(MinuteWindow.TIMED_OUT, 1, t0.plusSeconds(59));
        w.add(MinuteWindow.RECOVERED, 5, t0.plusSeconds(59));
        assertThat(w.read(t0.plusSeconds(59))).isEqualTo(new LastMinute(4, 2, 1, 4, 1, 5));
        assertThat(w.read(t0.plusSeconds(60))).as("the first second has left the window").isEqualTo(new LastMinute(1, 0, 1, 4, 1, 5));
        assertThat(w.read(t0.plusSeconds(89))).isEqualTo(new LastMinute(1, 0, 1, 4, 1, 5));
        assertThat(w.read(t0.plusSeconds(90))).isEqualTo(new LastMinute(0, 0, 0, 4, 1, 5));
        assertThat(w.read(t0.plus(Duration.ofMinutes(5)))).isEqualTo(LastMinute.NONE);
        assertThat(w.read(t0.minusSeconds(1))).as("nothing counted yet at an earlier time").isEqualTo(LastMinute.NONE);
    }

    @Test
    void aBucketReusedAMinuteLaterStartsFromNothingAndDropsOlderCounts() {
        MinuteWindow w = new MinuteWindow();
        w.add(MinuteWindow.STARTED, 7, t0);
        w.add(MinuteWindow.STARTED, 2, t0.plusSeconds(60));      // the same bucket, a minute later
        assertThat(w.read(t0.plusSeconds(60)).started()).isEqualTo(2);
        w.add(MinuteWindow.STARTED, 100, t0);                    // older than what the bucket holds: dropped
        assertThat(w.read(t0.plusSeconds(60)).started()).isEqualTo(2);
        assertThat(w.read(t0).started()).as("the earlier second's counts are gone").isZero();
    }

    @Test
    void concurrentAddsAreAllCounted() throws Exception {
        MinuteWindow w = new MinuteWindow();
        int threads = 4;
        int adds = 20_000;
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Thread> all = new ArrayList<>();
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                try {
                    start.await(10, TimeUnit.SECONDS);
                    for (int n = 0; n < adds; n++) w.add(MinuteWindow.SUCCEEDED, 1, t0.plusSeconds(n % 3));
                } catch (Exception e) {
                    failures.add(e);
                }
            });
            all.add(t);
            t.start();
        }
        for (Thread t : all) t.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(failures).isEmpty();
        assertThat(w.read(t0.plusSeconds(2)).succeeded()).isEqualTo((long) threads * adds);
    }
}
