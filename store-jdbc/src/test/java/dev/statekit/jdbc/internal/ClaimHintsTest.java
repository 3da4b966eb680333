package dev.statekit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.Attributes;
import dev.statekit.store.Lease;
import dev.statekit.store.TaskRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Where a queue's at-once claims start reading: on from the last task claimed, moved back by every
 * write that leaves a claimable task before it, and from the first entry again when a delayed
 * task's time comes, after a write of groups, or when the last read from the first entry is old.
 * Times of the claims' clock are given; the time since the last read from the first entry is
 * given as {@link System#nanoTime()} values.
 */
class ClaimHintsTest {
    private static final Instant NOW = Instant.parse("2031-04-05T13:30:00Z");
    private static final List<String> STATES = List.of("READY");
    private static final long MS = 1_000_000L;

    private final ClaimHints hints = new ClaimHints();

    private static TaskRecord task(long id, int priority, long sequence, String state, @Nullable Instant notBefore, boolean leased) {
        return new TaskRecord(id, "job", 1, state, "q", priority, sequence, null, 0, 0,
                leased ? new Lease("w", 7, NOW.plusSeconds(30)) : null, notBefore, null, Attributes.EMPTY, null, null, NOW, NOW, 1, null);
    }

    private static TaskRecord ready(long id, int priority, long sequence) {
        return task(id, priority, sequence, "READY", null, false);
    }

    /** A claim that reads from the first entry at {@code nanos}, taking 1 ms, and claims up to {@code last}. */
    private void fullClaim(long nanos, ClaimHints.@Nullable Key last) {
        ClaimHints.Pass pass = hints.begin("job", "q", STATES, NOW, nanos);
        assertThat(pass.start()).as("a claim that reads from the first entry").isNull();
        hints.end(pass, last, MS, null, nanos);
    }

    private ClaimHints.@Nullable Key startAt(long nanos, Instant now) {
        ClaimHints.Pass pass = hints.begin("job", "q", STATES, now, nanos);
        ClaimHints.Key start = pass.start();
        if (pass.probe()) hints.probed(pass, null, null, MS, nanos);
        hints.end(pass, null, start == null ? MS : -1, null, nanos);
        return start;
    }

    @Test
    void aClaimReadsOnFromTheLastTaskTheLastClaimTook() {
        assertThat(startAt(0, NOW)).as("nothing claimed yet").isNull();
        fullClaim(0, new ClaimHints.Key(0, 40, 40));
        ClaimHints.Pass next = hints.begin("job", "q", STATES, NOW, 10 * MS);
        assertThat(next.start()).isEqualTo(new ClaimHints.Key(0, 40, 40));
        hints.end(next, new ClaimHints.Key(0, 90, 90), -1, null, 10 * MS);
        assertThat(startAt(20 * MS, NOW)).isEqualTo(new ClaimHints.Key(0, 90, 90));
    }

    @Test
    void aClaimThatTakesNothingLeavesTheStartWhereItWas() {
        fullClaim(0, new ClaimHints.Key(0, 40, 40));
        assertThat(startAt(MS, NOW)).isEqualTo(new ClaimHints.Key(0, 40, 40));
        assertThat(startAt(2 * MS, NOW)).isEqualTo(new ClaimHints.Key(0, 40, 40));
    }

    private boolean probeAt(long nanos) {
        ClaimHints.Pass pass = hints.begin("job", "q", STATES, NOW, nanos);
        hints.end(pass, null, -1, null, nanos);
        return pass.probe();
    }

    @Test
    void aLookBehindTheStartIsAskedForOnceTheLastReadFromTheFirstEntryIsAQuarterOfASecondOldOrTwentyTimesItsLength() {
        fullClaim(0, new ClaimHints.Key(0, 40, 40));
        assertThat(probeAt(249 * MS)).isFalse();
        ClaimHints.Pass asking = hints.begin("job", "q", STATES, NOW, 250 * MS);
        assertThat(asking.probe()).isTrue();
        assertThat(asking.start()).as("the claim itself still reads from the start").isEqualTo(new ClaimHints.Key(0, 40, 40));
        hints.end(asking, null, -1, null, 250 * MS);
        assertThat(probeAt(300 * MS)).as("one look at a time").isFalse();
        hints.probed(asking, null, null, 100 * MS, 1_000 * MS);                   // a look that took 100 ms
        assertThat(probeAt(2_999 * MS)).isFalse();
        assertThat(probeAt(3_000 * MS)).isTrue();
    }

    @Test
    void aTaskTheLookFindsMovesTheStartBackAlsoPastAClaimUnderWay() {
        fullClaim(0, new ClaimHints.Key(0, 40, 40));
        ClaimHints.Pass asking = hints.begin("job", "q", STATES, NOW, 300 * MS);
        hints.end(asking, new ClaimHints.Key(0, 50, 50), -1, null, 300 * MS);
        ClaimHints.Pass during = hints.begin("job", "q", STATES, NOW, 301 * MS);
        assertThat(during.start()).isEqualTo(new ClaimHints.Key(0, 50, 50));
        hints.probed(asking, new ClaimHints.Key(0, 12, 12), NOW.plusSeconds(9), MS, 300 * MS);
        hints.end(during, new ClaimHints.Key(0, 60, 60), -1, null, 301 * MS);
        assertThat(startAt(302 * MS, NOW)).isEqualTo(new ClaimHints.Key(0, 12, 12));
        assertThat(startAt(303 * MS, NOW.plusSeconds(9))).as("the not-before time the look saw").isNull();
    }

    @Test
    void aTaskOfAHigherPriorityTheLookFindsOrAFailedLookMakesTheNextClaimReadFromTheFirstEntry() {
        fullClaim(0, new ClaimHints.Key(0, 40, 40));
        ClaimHints.Pass asking = hints.begin("job", "q", STATES, NOW, 300 * MS);
        hints.end(asking, null, -1, null, 300 * MS);
        hints.probed(asking, new ClaimHints.Key(3, 90, 90), null, MS, 300 * MS);
        assertThat(startAt(301 * MS, NOW)).isNull();

        fullClaim(400 * MS, new ClaimHints.Key(0, 40, 40));
        ClaimHints.Pass failing = hints.begin("job", "q", STATES, NOW, 700 * MS);
        assertThat(failing.probe()).isTrue();
        hints.end(failing, null, -1, null, 700 * MS);
        hints.probeFailed(failing);
        assertThat(startAt(701 * MS, NOW)).isNull();
    }

    @Test
    void aWriteThatLeavesAClaimableTaskBeforeTheStartMovesTheStartBackToIt() {
        fullClaim(0, new ClaimHints.Key(0, 40, 40));
        hints.placed(ready(50, 0, 45));                                     // after the start: nothing moves
        assertThat(startAt(MS, NOW)).isEqualTo(new ClaimHints.Key(0, 40, 40));
        hints.placed(ready(7, 0, -3));                                      // put back at the front
        assertThat(startAt(MS, NOW)).isEqualTo(new ClaimHints.Key(0, -3, 7));
        hints.placed(ready(60, -1, 1));                                     // a lower priority is read after the start's range
        assertThat(startAt(MS, NOW)).isEqualTo(new ClaimHints.Key(0, -3, 7));
        hints.placed(ready(61, 2, 100));                                    // a higher priority: from the first entry
        assertThat(startAt(MS, NOW)).isNull();
    }

    @Test
    void leasedTasksStatesNoClaimTakesAndOtherQueuesMoveNothing() {
        fullClaim(0, new ClaimHints.Key(0, 40, 40));
        hints.placed(task(3, 0, 3, "READY", null, true));
        hints.placed(task(4, 0, 4, "DONE", null, false));
        hints.placed(new TaskRecord(5, "job", 1, "READY", "other", 0, 5, null, 0, 0, null, null, null, Attributes.EMPTY, null, null,
                NOW, NOW, 1, null));
        hints.placed(new TaskRecord(6, "mail", 1, "READY", "q", 0, 6, null, 0, 0, null, null, null, Attributes.EMPTY, null, null,
                NOW, NOW, 1, null));
        assertThat(startAt(MS, NOW)).isEqualTo(new ClaimHints.Key(0, 40, 40));
    }

    @Test
    void aTaskPlacedWhileAClaimRunsKeepsTheStartFromPassingIt() {
        fullClaim(0, new ClaimHints.Key(0, 10, 10));
        ClaimHints.Pass pass = hints.begin("job", "q", STATES, NOW, MS);
        assertThat(pass.start()).isEqualTo(new ClaimHints.Key(0, 10, 10));
        hints.placed(ready(20, 0, 20));          // committed while the claim read: it may not have seen it
        hints.end(pass, new ClaimHints.Key(0, 30, 30), -1, null, MS);
        assertThat(startAt(2 * MS, NOW)).isEqualTo(new ClaimHints.Key(0, 20, 20));
    }

    @Test
    void aDelayedTaskMakesTheClaimsAfterItsTimeReadFromTheFirstEntry() {
        fullClaim(0, new ClaimHints.Key(0, 40, 40));
        hints.placed(task(9, 0, 90, "READY", NOW.plusSeconds(5), false));   // after the start, due in 5 s
        assertThat(startAt(MS, NOW.plusSeconds(4))).isNotNull();
        assertThat(startAt(2 * MS, NOW.plusSeconds(5))).as("its time has come").isNull();
        // That read from the first entry saw no other delayed task: claims read on from the start again.
        assertThat(startAt(3 * MS, NOW.plusSeconds(5))).isEqualTo(new ClaimHints.Key(0, 40, 40));
    }

    @Test
    void theDelayedTasksAReadFromTheFirstEntrySawAreWaitedFor() {
        ClaimHints.Pass pass = hints.begin("job", "q", STATES, NOW, 0);
        hints.end(pass, new ClaimHints.Key(0, 40, 40), MS, NOW.plusSeconds(60), 0);
        assertThat(startAt(MS, NOW.plusSeconds(59))).isNotNull();
        assertThat(startAt(2 * MS, NOW.plusSeconds(60))).isNull();
    }

    @Test
    void aWriteOfGroupsForgetsEveryStartAlsoOfAClaimUnderWay() {
        fullClaim(0, new ClaimHints.Key(0, 40, 40));
        ClaimHints.Pass pass = hints.begin("job", "q", STATES, NOW, MS);
        hints.forgetAll();
        hints.end(pass, new ClaimHints.Key(0, 50, 50), -1, null, MS);
        assertThat(startAt(2 * MS, NOW)).isNull();
    }

    @Test
    void aClaimGivenUpForgetsTheStart() {
        fullClaim(0, new ClaimHints.Key(0, 40, 40));
        ClaimHints.Pass pass = hints.begin("job", "q", STATES, NOW, MS);
        hints.abandon(pass);
        assertThat(startAt(2 * MS, NOW)).isNull();
    }

    @Test
    void keysFollowClaimOrder() {
        assertThat(new ClaimHints.Key(2, 9, 9)).isLessThan(new ClaimHints.Key(1, 1, 1));
        assertThat(new ClaimHints.Key(1, 1, 9)).isLessThan(new ClaimHints.Key(1, 2, 1));
        assertThat(new ClaimHints.Key(1, 2, 1)).isLessThan(new ClaimHints.Key(1, 2, 2));
        assertThat(new ClaimHints(Duration.ZERO).fullEvery(MS)).isEqualTo(Duration.ofMillis(20));
    }
}
