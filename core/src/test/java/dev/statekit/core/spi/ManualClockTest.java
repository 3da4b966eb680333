package dev.statekit.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ManualClockTest {
    static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

    final ManualClock clock = new ManualClock(T0);
    final List<String> log = new ArrayList<>();

    private Runnable record(String name) {
        return () -> log.add(name + "@" + Duration.between(T0, clock.now()).toSeconds());
    }

    @Test
    void startsAtTheGivenInstantOrTheDefault() {
        assertThat(clock.now()).isEqualTo(T0);
        assertThat(new ManualClock().now()).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
        assertThat(clock.nextTimer()).isNull();
        assertThat(clock.pendingTimers()).isEmpty();
    }

    @Test
    void advanceRunsDueTimersInDueTimeOrderAndTiesInSchedulingOrder() {
        clock.schedule(T0.plusSeconds(10), record("late"));
        clock.schedule(T0.plusSeconds(5), record("first-at-5"));
        clock.schedule(T0.plusSeconds(30), record("beyond"));
        clock.schedule(T0.plusSeconds(5), record("second-at-5"));
        clock.schedule(T0.plusSeconds(1), record("early"));
        clock.schedule(T0.plusSeconds(5), record("third-at-5"));
        assertThat(clock.pendingTimers()).containsExactly(T0.plusSeconds(1), T0.plusSeconds(5), T0.plusSeconds(5),
                T0.plusSeconds(5), T0.plusSeconds(10), T0.plusSeconds(30));

        clock.advance(Duration.ofSeconds(10));
        assertThat(log).containsExactly("early@1", "first-at-5@5", "second-at-5@5", "third-at-5@5", "late@10");
        assertThat(clock.now()).isEqualTo(T0.plusSeconds(10));
        assertThat(clock.pendingTimers()).containsExactly(T0.plusSeconds(30));
        assertThat(clock.nextTimer()).isEqualTo(T0.plusSeconds(30));

        clock.advance(Duration.ofSeconds(19));
        assertThat(log).hasSize(5);
        assertThat(clock.now()).isEqualTo(T0.plusSeconds(29));
        clock.advanceTo(T0.plusSeconds(45));
        assertThat(log).endsWith("beyond@30");
        assertThat(clock.now()).isEqualTo(T0.plusSeconds(45));
        assertThat(clock.nextTimer()).isNull();
    }

    @Test
    void aTimerReadsItsOwnDueTimeAndTheClockEndsAtTheTarget() {
        List<Instant> seen = new ArrayList<>();
        clock.schedule(T0.plusMillis(1500), () -> seen.add(clock.now()));
        clock.schedule(T0.plusSeconds(3), () -> seen.add(clock.now()));
        clock.advance(Duration.ofMinutes(1));
        assertThat(seen).containsExactly(T0.plusMillis(1500), T0.plusSeconds(3));
        assertThat(clock.now()).isEqualTo(T0.plusSeconds(60));
    }

    @Test
    void timersScheduledByTimersRunInTheSameAdvanceWhenDueWithinIt() {
        clock.schedule(T0.plusSeconds(2), () -> {
            record("outer").run();
            clock.schedule(clock.now().plusSeconds(3), record("inner-in-window"));
            clock.schedule(clock.now().plusSeconds(100), record("inner-beyond"));
            clock.schedule(clock.now().minusSeconds(1), record("inner-overdue"));
        });
        clock.schedule(T0.plusSeconds(4), record("other"));
        clock.advance(Duration.ofSeconds(10));
        assertThat(log).containsExactly("outer@2", "inner-overdue@2", "other@4", "inner-in-window@5");
        assertThat(clock.pendingTimers()).containsExactly(T0.plusSeconds(102));
    }

    @Test
    void aChainOfTimersRunsToTheEndOfTheWindow() {
        int[] ticks = {0};
        Runnable[] tick = new Runnable[1];
        tick[0] = () -> {
            ticks[0]++;
            clock.schedule(clock.now().plusSeconds(1), tick[0]);
        };
        clock.schedule(T0.plusSeconds(1), tick[0]);
        clock.advance(Duration.ofSeconds(100));
        assertThat(ticks[0]).isEqualTo(100);
        assertThat(clock.nextTimer()).isEqualTo(T0.plusSeconds(101));
    }

    @Test
    void cancelledTimersDoNotRun() {
        Cancellable a = clock.schedule(T0.plusSeconds(1), record("a"));
        Cancellable b = clock.schedule(T0.plusSeconds(2), record("b"));
        assertThat(a.cancel()).isTrue();
        assertThat(a.cancel()).isFalse();
        assertThat(clock.pendingTimers()).containsExactly(T0.plusSeconds(2));
        clock.advance(Duration.ofSeconds(5));
        assertThat(log).containsExactly("b@2");
        assertThat(b.cancel()).as("a timer that ran can no longer be cancelled").isFalse();
    }

    @Test
    void aTimerMayCancelALaterOneDueInTheSameAdvance() {
        Cancellable[] later = new Cancellable[1];
        clock.schedule(T0.plusSeconds(1), () -> assertThat(later[0].cancel()).isTrue());
        later[0] = clock.schedule(T0.plusSeconds(2), record("later"));
        clock.advance(Duration.ofSeconds(3));
        assertThat(log).isEmpty();
    }

    @Test
    void cannotGoBackwards() {
        clock.advance(Duration.ofSeconds(10));
        assertThatThrownBy(() -> clock.advance(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> clock.advanceTo(T0.plusSeconds(9))).isInstanceOf(IllegalArgumentException.class);
        assertThat(clock.now()).isEqualTo(T0.plusSeconds(10));
        clock.advanceTo(T0.plusSeconds(10));
        clock.advance(Duration.ZERO);
        assertThat(clock.now()).isEqualTo(T0.plusSeconds(10));
    }

    @Test
    void aTimerInThePastRunsAtTheNextAdvanceNotInsideSchedule() {
        clock.advance(Duration.ofSeconds(10));
        clock.schedule(T0, record("overdue"));
        clock.schedule(T0.plusSeconds(10), record("due-now"));
        assertThat(log).isEmpty();
        assertThat(clock.nextTimer()).isEqualTo(T0.plusSeconds(10));
        clock.advance(Duration.ZERO);
        assertThat(log).containsExactly("overdue@10", "due-now@10");
        assertThat(clock.now()).isEqualTo(T0.plusSeconds(10));

        clock.schedule(T0.minusSeconds(60), record("again"));
        assertThat(log).hasSize(2);
        clock.runDue();
        assertThat(log).endsWith("again@10");
        assertThat(clock.now()).isEqualTo(T0.plusSeconds(10));
    }

    @Test
    void aFailingTimerDoesNotDisturbTheOthers() {
        clock.schedule(T0.plusSeconds(1), () -> {
            throw new IllegalStateException("timer failure (expected by the test)");
        });
        clock.schedule(T0.plusSeconds(2), record("next"));
        clock.advance(Duration.ofSeconds(2));
        assertThat(log).containsExactly("next@2");
        assertThat(clock.now()).isEqualTo(T0.plusSeconds(2));
    }

    @Test
    void rejectsNulls() {
        assertThatThrownBy(() -> clock.schedule(null, () -> {})).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> clock.schedule(T0, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new ManualClock(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void theSystemClockIsShared() {
        assertThat(Clock.system()).isSameAs(Clock.system());
    }
}
