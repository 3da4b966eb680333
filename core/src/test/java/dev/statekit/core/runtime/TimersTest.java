package dev.statekit.core.runtime;


import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.spi.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A runtime's timers on a manual clock. */
class TimersTest {
    final ManualClock clock = new ManualClock();
    final Timers timers = new Timers(clock, "t");
    final List<String> fired = new ArrayList<>();

    @Test
    void periodicTimersRunEveryPeriodUntilCancelledAndSurviveAFailingRun() {
        int[] n = {0};
        var handle = timers.every(Duration.ofSeconds(1), () -> {
            fired.add("tick" + ++n[0]);
            if (n[0] == 1) throw new IllegalStateException("first run fails");
        });
        clock.advance(Duration.ofSeconds(3));
        assertThat(fired).containsExactly("tick1", "tick2", "tick3");
        handle.cancel();
        clock.advance(Duration.ofSeconds(3));
        assertThat(fired).hasSize(3);
    }

    @Test
    void theEarliestWakeUpWinsAndALaterOneIsDroppedWhileItIsPending() {
        timers.wakeAt(clock.now().plusSeconds(5), () -> fired.add("five"));
        timers.wakeAt(clock.now().plusSeconds(9), () -> fired.add("nine"));
        timers.wakeAt(clock.now().plusSeconds(2), () -> fired.add("two"));
        clock.advance(Duration.ofSeconds(10));
        assertThat(fired).containsExactly("two");
        timers.wakeAt(clock.now().plusSeconds(1), () -> fired.add("again"));
        clock.advance(Duration.ofSeconds(1));
        assertThat(fired).containsExactly("two", "again");
    }

    @Test
    void cancelAllLeavesNothingScheduledAndRefusesNewTimers() {
        timers.every(Duration.ofSeconds(1), () -> fired.add("tick"));
        timers.once(clock.now().plusSeconds(30), () -> fired.add("grace"));
        timers.wakeAt(clock.now().plusSeconds(2), () -> fired.add("wake"));
        timers.cancelAll();
        timers.once(clock.now().plusSeconds(1), () -> fired.add("late"));
        clock.advance(Duration.ofMinutes(1));
        assertThat(fired).isEmpty();
        assertThat(clock.pendingTimers()).isEmpty();
    }

    @Test
    void replacedWakeUpsAndCancelledTimersAreForgotten() throws Exception {
        for (int i = 0; i < 1000; i++) timers.wakeAt(clock.now().plusSeconds(1000 - i), () -> fired.add("wake"));
        for (int i = 0; i < 100; i++) timers.once(clock.now().plusSeconds(5), () -> fired.add("once")).cancel();
        assertThat(clock.pendingTimers()).hasSize(1);
        java.lang.reflect.Field live = Timers.class.getDeclaredField("live");      // the leak has no other visible effect
        live.setAccessible(true);
        assertThat((java.util.Set<?>) live.get(timers)).hasSize(1);
        clock.advance(Duration.ofSeconds(1000));
        assertThat(fired).containsExactly("wake");
        assertThat((java.util.Set<?>) live.get(timers)).isEmpty();
    }
}
