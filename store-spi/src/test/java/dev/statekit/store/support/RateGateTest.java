package dev.statekit.store.support;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.RateLimit;
import dev.statekit.store.support.ClaimPickerTest.Listed;
import dev.statekit.store.support.ClaimPickerTest.Task;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A rate limit and key holds over one claim's candidates, without a store. */
class RateGateTest {
    /** Odd ids have key "a", even ids key "b". */
    private static final RateGate.Keys<Task> KEYS = t -> t.id() % 2 == 1 ? "a" : "b";
    private static final RateLimit TWO_PER_MINUTE = RateLimit.perKey(2, Duration.ofMinutes(1), "k");

    @Test
    void aKeyTakesItsRoomThenTheClaimMovesToTheOtherKeys() {
        Listed c = new Listed(0, 0, 0, 0, 0, 0);
        RateGate<Task, RuntimeException> gate = new RateGate<>(c, KEYS, TWO_PER_MINUTE, Map.of("a", 1), Set.of());
        ClaimPicker.pick(gate, 10, 0, 0);
        assertThat(c.taken).containsExactly(1, 2, 4);
        assertThat(gate.started()).isEqualTo(Map.of("a", 1, "b", 2));
    }

    @Test
    void aHeldKeyIsPassedOverAndDoesNotCountAsStarvedLowerWork() {
        Listed c = new Listed(5, 5, 1);   // task 3 (key "a", lower priority) waits behind 1 and 2
        RateGate<Task, RuntimeException> gate = new RateGate<>(c, KEYS, null, Map.of(), Set.of("a"));
        int skipped = ClaimPicker.pick(gate, 10, 0, 1);
        assertThat(c.taken).containsExactly(2);
        assertThat(skipped).isZero();
        assertThat(gate.started()).isEqualTo(Map.of("b", 1));
    }

    @Test
    void holdsApplyOnlyBeforeTheirEnd() {
        java.time.Instant t = java.time.Instant.parse("2025-01-01T00:00:00Z");
        assertThat(RateGate.holdsApply(null, t)).isFalse();
        assertThat(RateGate.holdsApply(t, t)).isFalse();
        assertThat(RateGate.holdsApply(t.plusMillis(1), t)).isTrue();
    }
}
