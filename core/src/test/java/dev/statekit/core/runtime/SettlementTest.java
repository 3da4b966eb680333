package dev.statekit.core.runtime;

import dev.statekit.core.Command;
import dev.statekit.core.RetryPolicy;
import dev.statekit.core.RunPolicy;
import dev.statekit.core.TestPolicies;
import dev.statekit.core.internal.Adjust;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.test.fixtures.Jobs.Event;
import dev.statekit.test.fixtures.Jobs.State;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.Attributes;
import dev.statekit.store.Lease;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The settlement table without a runtime: each cause under each kind of run policy, with and
 * without a state to go back to, at and below the limits, settles to exactly these completions,
 * in this order, asking for the jitter and the cancellation only when it needs them.
 */
class SettlementTest {
    static final Instant T0 = Instant.parse("2026-10-25T00:59:59Z");
    static final int MAX_ATTEMPTS = 3;
    static final int MAX_RETRIES = 2;
    static final String WHY = "lease 9 of dead expired";

    /** The kinds of run policy a machine can declare. */
    enum Policy {
        /** Release and retryable rows, a cancel event, recovery by requeue. */
        FULL,
        /** Neither a release nor a retryable row: the runtime moves the task back itself. */
        ROWLESS,
        /** A full policy without a cancel event. */
        UNCANCELLABLE,
        /** A full policy that fails a task whose lease expired. */
        FAILING,
        /** Interrupt recovery with one automatic retry. */
        INTERRUPT_AUTO,
        /** Interrupt recovery without automatic retry. */
        INTERRUPT_MANUAL;

        RunPolicy<State, Event> build() {
            RunPolicy.Builder<State, Event> b = TestPolicies.<State, Event>builder(State.class)
                    .claim(State.QUEUED, Event.START).success(Event.COMPLETE).fatal(Event.FAIL)
                    .maxAttempts(MAX_ATTEMPTS).retry(RetryPolicy.exponential(MAX_RETRIES, Duration.ofSeconds(10), Duration.ofMinutes(1))
                            .withJitter(0.5));
            if (this != ROWLESS) b.release(Event.RELEASE).retryable(Event.RETRYABLE);
            if (this != UNCANCELLABLE) b.cancel(Event.CANCEL);
            if (this == FAILING) b.recoverByFailing();
            if (this == INTERRUPT_AUTO || this == INTERRUPT_MANUAL) {
                b.recoverByInterrupt(Event.INTERRUPT, Event.RECOVER, Event.GIVE_UP, this == INTERRUPT_AUTO);
            }
            return TestPolicies.build(b);
        }
    }

    /** A task of machine "jobs" at version 4 under lease 9, with {@code attempts} and {@code retries} used. */
    static TaskRecord task(int attempts, int retries, Attributes attributes) {
        return new TaskRecord(3, "jobs", 1, "RUNNING", "q", 0, 1, null, attempts, retries, new Lease("r", 9, T0.plusSeconds(30)),
                null, null, attributes, null, null, T0, T0, 4);
    }

    static TaskRecord task(int attempts, int retries) {
        return task(attempts, retries, Attributes.EMPTY);
    }

    /** One row of the table: the cause, what is known, and what it settles to. */
    record Row(String name, Settlement.Cause cause, Policy policy, @Nullable State backTo, TaskRecord task, boolean cancelRequested,
               List<String> expected, List<String> asked) {
        @Override
        public String toString() {
            return name;
        }
    }

    static final List<Row> ROWS = new ArrayList<>();

    static void row(String name, Settlement.Cause cause, Policy policy, @Nullable State backTo, TaskRecord task, boolean cancelRequested,
                    List<String> asked, String... expected) {
        ROWS.add(new Row(name, cause, policy, backTo, task, cancelRequested, List.of(expected), asked));
    }

    static final List<String> NOTHING = List.of();
    static final List<String> JITTER = List.of("jitter");
    static final List<String> CANCEL = List.of("cancel");
    static final List<String> CANCEL_JITTER = List.of("cancel", "jitter");

    static Settlement.Result result(WorkResult r) {
        return new Settlement.Result(r);
    }

    static Settlement.Result cancelled(WorkResult r, @Nullable Command by, boolean givesBack) {
        return new Settlement.Result(r, Run.StopReason.CANCELLED, by, givesBack);
    }

    static {
        WorkResult rate = WorkResult.retryable("RATE", "429");
        String rateRetry = "RETRY RETRYABLE \"RATE: 429\" error RATE retryable \"429\" RETRY_LATER at +PT7.5S";
        WorkResult snooze = WorkResult.snooze(Duration.ofMinutes(5));
        Command ana = Command.user("ana").reason("no longer needed");

        // --- a worker's result
        row("success", result(WorkResult.success(Map.of("out", "ok"))), Policy.FULL, State.QUEUED, task(1, 0), false, NOTHING,
                "SUCCESS COMPLETE {out=ok} CLEAR_NOT_BEFORE");
        row("success removing an attribute", result(WorkResult.success(java.util.Collections.singletonMap("tmp", null))), Policy.FULL,
                State.QUEUED, task(1, 0), false, NOTHING, "SUCCESS COMPLETE {tmp=null} CLEAR_NOT_BEFORE");
        row("retryable failure, first retry", result(rate), Policy.FULL, State.QUEUED, task(1, 0), false, CANCEL_JITTER, rateRetry);
        row("retryable failure, last retry", result(rate), Policy.FULL, State.QUEUED, task(2, MAX_RETRIES - 1), false, CANCEL_JITTER,
                "RETRY RETRYABLE \"RATE: 429\" error RATE retryable \"429\" RETRY_LATER at +PT15S");
        row("retryable failure without a retryable row waits in place", result(rate), Policy.ROWLESS, State.QUEUED, task(1, 0), false,
                CANCEL_JITTER, "RETRY to QUEUED as RETRY \"RATE: 429\" error RATE retryable \"429\" RETRY_LATER at +PT7.5S");
        row("retryable failure with nowhere to wait fails", result(rate), Policy.ROWLESS, null, task(1, 0), false, CANCEL,
                "FAIL FAIL \"RATE after 0 retries: 429\" error RATE retryable \"429\"");
        row("retryable failure past its retries fails", result(rate), Policy.FULL, State.QUEUED, task(1, MAX_RETRIES), false, CANCEL,
                "FAIL FAIL \"RATE after 2 retries: 429\" error RATE retryable \"429\"");
        row("retryable failure on the last attempt fails", result(rate), Policy.FULL, State.QUEUED, task(MAX_ATTEMPTS, 0), false, CANCEL,
                "FAIL FAIL \"RATE on attempt 3 of 3: 429\" error RATE retryable \"429\"");
        row("retryable failure past its retries and attempts fails", result(rate), Policy.FULL, State.QUEUED,
                task(MAX_ATTEMPTS, MAX_RETRIES), false, CANCEL, "FAIL FAIL \"RATE after 2 retries: 429\" error RATE retryable \"429\"");
        row("fatal failure", result(new WorkResult.Failure("BAD", "bad input", false, "parse")), Policy.FULL, State.QUEUED, task(1, 0),
                false, NOTHING, "FAIL FAIL \"BAD: bad input\" error BAD fatal \"bad input\" step parse");
        row("snooze", result(snooze), Policy.FULL, State.QUEUED, task(1, 1), false, CANCEL,
                "SNOOZE RELEASE \"snoozed for PT5M\" SNOOZE at +PT5M");
        row("rate limited", result(WorkResult.rateLimited(Duration.ofMinutes(5))), Policy.FULL, State.QUEUED, task(1, 1), false, CANCEL,
                "SNOOZE RELEASE \"rate limited; retry after PT5M\" SNOOZE at +PT5M");
        row("snooze without a release row", result(snooze), Policy.ROWLESS, State.QUEUED, task(1, 1), false, CANCEL,
                "SNOOZE to QUEUED as RELEASE \"snoozed for PT5M\" SNOOZE at +PT5M");
        row("snooze with nowhere to go fails", result(snooze), Policy.ROWLESS, null, task(1, 1), false, CANCEL,
                "FAIL FAIL error SNOOZE_UNSUPPORTED fatal \"machine jobs has no release event\"");
        row("cancelled while running", cancelled(WorkResult.success(), ana, false), Policy.FULL, State.QUEUED, task(1, 0), false,
                NOTHING, "CANCEL CANCEL by ana \"no longer needed\"");
        row("cancelled back to a claimable state", cancelled(rate, ana, true), Policy.FULL, State.QUEUED, task(1, 0), false, NOTHING,
                "CANCEL CANCEL by ana \"no longer needed\" GIVE_BACK_ATTEMPT");
        row("cancelled by the runtime", cancelled(snooze, null, false), Policy.FULL, State.QUEUED, task(1, 0), false, NOTHING,
                "CANCEL CANCEL \"cancelled\"");
        row("cancelled without a cancel event", cancelled(WorkResult.success(), ana, false), Policy.UNCANCELLABLE, State.QUEUED,
                task(1, 0), false, NOTHING, "SUCCESS COMPLETE CLEAR_NOT_BEFORE");
        row("retry whose cancellation was requested meanwhile", result(rate), Policy.FULL, State.QUEUED, task(1, 0), true, CANCEL,
                "CANCEL CANCEL \"cancelled\"");
        row("snooze whose cancellation was requested meanwhile", result(snooze), Policy.ROWLESS, State.QUEUED, task(1, 0), true, CANCEL,
                "CANCEL CANCEL \"cancelled\"");
        row("success stands over a requested cancellation", result(WorkResult.success()), Policy.FULL, State.QUEUED, task(1, 0), true,
                NOTHING, "SUCCESS COMPLETE CLEAR_NOT_BEFORE");
        row("fatal failure stands over a requested cancellation", result(WorkResult.fatal("BAD", "no")), Policy.FULL, State.QUEUED,
                task(1, 0), true, NOTHING, "FAIL FAIL \"BAD: no\" error BAD fatal \"no\"");
        row("retry of a run stopped for another reason asks for no cancellation",
                new Settlement.Result(rate, Run.StopReason.LEASE_LOST, null, false), Policy.FULL, State.QUEUED, task(1, 0), true, JITTER,
                rateRetry);
        row("retry of a run its stopping runtime stopped is given back, as the stop's own release",
                new Settlement.Result(rate, Run.StopReason.SHUTDOWN, null, false), Policy.FULL, State.QUEUED, task(1, 0), true, NOTHING,
                "RELEASE RELEASE \"runtime stopping\" GIVE_BACK_ATTEMPT");
        row("snooze of a run its stopping runtime stopped goes back without a release row",
                new Settlement.Result(snooze, Run.StopReason.SHUTDOWN, null, false), Policy.ROWLESS, State.QUEUED, task(1, 0), false, NOTHING,
                "RELEASE to QUEUED as RELEASE \"runtime stopping\" GIVE_BACK_ATTEMPT");
        row("success of a run its stopping runtime stopped stands", new Settlement.Result(WorkResult.success(), Run.StopReason.SHUTDOWN,
                null, false), Policy.FULL, State.QUEUED, task(1, 0), false, NOTHING, "SUCCESS COMPLETE CLEAR_NOT_BEFORE");
        row("retry of an uncancellable machine asks for no cancellation", result(rate), Policy.UNCANCELLABLE, State.QUEUED, task(1, 0),
                true, JITTER, rateRetry);

        // --- a timeout
        Settlement.Timeout timeout = new Settlement.Timeout(Duration.ofMinutes(1));
        row("timeout retries", timeout, Policy.FULL, State.QUEUED, task(1, 0), true, JITTER,
                "RETRY RETRYABLE \"TIMEOUT: the attempt ran past its timeout of PT1M\" error TIMEOUT retryable"
                        + " \"the attempt ran past its timeout of PT1M\" RETRY_LATER at +PT7.5S");
        row("timeout past its retries fails", timeout, Policy.FULL, State.QUEUED, task(1, MAX_RETRIES), false, NOTHING,
                "FAIL FAIL \"TIMEOUT after 2 retries: the attempt ran past its timeout of PT1M\" error TIMEOUT retryable"
                        + " \"the attempt ran past its timeout of PT1M\"");

        // --- a result the table refused
        Settlement.Refused refused = new Settlement.Refused("OUTPUT_MISSING", "no output was reported");
        String refusedFail = "FAIL FAIL \"result refused\" error RESULT_REFUSED fatal \"OUTPUT_MISSING: no output was reported\"";
        row("refused result fails, else releases", refused, Policy.FULL, State.QUEUED, task(1, 0), false, NOTHING, refusedFail,
                "RELEASE RELEASE \"result refused\" error RESULT_REFUSED fatal \"OUTPUT_MISSING: no output was reported\"");
        row("refused result fails, else goes back", refused, Policy.ROWLESS, State.QUEUED, task(1, 0), false, NOTHING, refusedFail,
                "RELEASE to QUEUED as RELEASE \"result refused\" error RESULT_REFUSED fatal \"OUTPUT_MISSING: no output was reported\"");
        row("refused result with nowhere to go only fails", refused, Policy.ROWLESS, null, task(1, 0), false, NOTHING, refusedFail);

        // --- a stop past the grace
        row("shutdown releases", new Settlement.Shutdown(), Policy.FULL, State.QUEUED, task(1, 0), true, NOTHING,
                "RELEASE RELEASE \"runtime stopping\" GIVE_BACK_ATTEMPT");
        row("shutdown without a release row goes back", new Settlement.Shutdown(), Policy.ROWLESS, State.QUEUED, task(1, 0), false, NOTHING,
                "RELEASE to QUEUED as RELEASE \"runtime stopping\" GIVE_BACK_ATTEMPT");
        row("shutdown with nowhere to go leaves the task to recovery", new Settlement.Shutdown(), Policy.ROWLESS, null, task(1, 0), false,
                NOTHING);

        // --- a lost lease
        Settlement.LeaseExpired lost = new Settlement.LeaseExpired(WHY, true);
        String exhausted = "FAIL FAIL \"lease lost on attempt 3 of 3; " + WHY + "\" error ATTEMPTS_EXHAUSTED fatal \"lease lost on attempt 3 of 3; "
                + WHY + "\"";
        row("lost lease releases", lost, Policy.FULL, State.QUEUED, task(1, 0), false, CANCEL, "RELEASE RELEASE \"" + WHY + "\"");
        row("lost lease without a release row goes back", lost, Policy.ROWLESS, State.QUEUED, task(1, 0), false, CANCEL,
                "RELEASE to QUEUED as RELEASE \"" + WHY + "\"");
        row("lost lease on the last attempt fails", lost, Policy.FULL, State.QUEUED, task(MAX_ATTEMPTS, 0), false, CANCEL, exhausted);
        row("lost lease fails by the policy", lost, Policy.FAILING, State.QUEUED, task(1, 0), false, CANCEL,
                "FAIL FAIL \"" + WHY + "\" error LEASE_EXPIRED retryable \"" + WHY + "\"");
        row("lost lease fails by the policy on the last attempt too", lost, Policy.FAILING, State.QUEUED, task(MAX_ATTEMPTS, 0), false,
                CANCEL, "FAIL FAIL \"" + WHY + "\" error LEASE_EXPIRED retryable \"" + WHY + "\"");
        row("lost lease interrupts, keeping the lease", lost, Policy.INTERRUPT_AUTO, State.QUEUED, task(1, 0), false, CANCEL,
                "INTERRUPT INTERRUPT \"" + WHY + "\" KEEP_LEASE");
        row("lost lease on the last attempt fails instead of interrupting", lost, Policy.INTERRUPT_MANUAL, State.QUEUED,
                task(MAX_ATTEMPTS, 0), false, CANCEL, exhausted);
        row("lost lease of a task interrupted already puts it back", new Settlement.LeaseExpired(WHY, false), Policy.INTERRUPT_AUTO,
                State.QUEUED, task(1, 0), true, NOTHING,
                "RECOVER RECOVER \"automatic recovery after an interruption\" {interruptions=1} END_LEASE_AT_FRONT");
        row("lost lease of a task interrupted again fails it", new Settlement.LeaseExpired(WHY, false), Policy.INTERRUPT_AUTO,
                State.QUEUED, task(1, 0, Attributes.of(TaskRuntime.ATTR_INTERRUPTIONS, "1")), false, NOTHING,
                "FAIL GIVE_UP \"interrupted again after its automatic retry\" error INTERRUPTED retryable"
                        + " \"the task was interrupted by a crash\" END_LEASE");
        row("lost lease not holding, without interrupt recovery, releases", new Settlement.LeaseExpired(WHY, false), Policy.FULL,
                State.QUEUED, task(1, 0), false, CANCEL, "RELEASE RELEASE \"" + WHY + "\"");
        row("lost lease with a requested cancellation cancels, else releases", lost, Policy.FULL, State.QUEUED, task(1, 0), true, CANCEL,
                "CANCEL CANCEL \"cancellation requested; " + WHY + "\"", "RELEASE RELEASE \"" + WHY + "\"");
        row("lost lease with a requested cancellation cancels, else fails by the policy", lost, Policy.FAILING, State.QUEUED, task(1, 0),
                true, CANCEL, "CANCEL CANCEL \"cancellation requested; " + WHY + "\"",
                "FAIL FAIL \"" + WHY + "\" error LEASE_EXPIRED retryable \"" + WHY + "\"");
        row("lost lease with a requested cancellation on the last attempt cancels, else fails", lost, Policy.FULL, State.QUEUED,
                task(MAX_ATTEMPTS, 0), true, CANCEL, "CANCEL CANCEL \"cancellation requested; " + WHY + "\"", exhausted);
        row("lost lease of an uncancellable machine asks for no cancellation", lost, Policy.UNCANCELLABLE, State.QUEUED, task(1, 0), true,
                NOTHING, "RELEASE RELEASE \"" + WHY + "\"");

        // --- used-up attempts, interruptions, cancellations on their own
        row("attempts exhausted", new Settlement.AttemptsExhausted(WHY), Policy.FULL, State.QUEUED, task(MAX_ATTEMPTS, 0), true, NOTHING,
                exhausted);
        row("first interruption goes to the front", new Settlement.Interrupted(0), Policy.INTERRUPT_AUTO, null, task(1, 0), false, NOTHING,
                "RECOVER RECOVER \"automatic recovery after an interruption\" {interruptions=1} END_LEASE_AT_FRONT");
        row("second interruption fails", new Settlement.Interrupted(1), Policy.INTERRUPT_AUTO, null, task(1, 0), false, NOTHING,
                "FAIL GIVE_UP \"interrupted again after its automatic retry\" error INTERRUPTED retryable"
                        + " \"the task was interrupted by a crash\" END_LEASE");
        row("interruption on the last attempt fails", new Settlement.Interrupted(0), Policy.INTERRUPT_AUTO, null, task(MAX_ATTEMPTS, 0),
                false, NOTHING, "FAIL GIVE_UP \"interrupted on its last attempt (3 of 3)\" error INTERRUPTED retryable"
                        + " \"the task was interrupted by a crash\" END_LEASE");
        row("interruption without automatic recovery fails", new Settlement.Interrupted(0), Policy.INTERRUPT_MANUAL, null, task(1, 0),
                false, NOTHING, "FAIL GIVE_UP \"interrupted; automatic recovery is off\" error INTERRUPTED retryable"
                        + " \"the task was interrupted by a crash\" END_LEASE");
        row("requested cancellation", new Settlement.CancelRequested(WHY), Policy.FULL, State.QUEUED, task(1, 0), false, NOTHING,
                "CANCEL CANCEL \"cancellation requested; " + WHY + "\"");
        row("requested cancellation without a cancel event", new Settlement.CancelRequested(WHY), Policy.UNCANCELLABLE, State.QUEUED,
                task(1, 0), true, NOTHING);
    }

    static Stream<Arguments> table() {
        return ROWS.stream().map(Arguments::of);
    }

    /** The command every completion of {@code task} starts from: the owner, under the lease for a run's result, by the version otherwise. */
    static Command base(Settlement.Cause cause, TaskRecord task) {
        Command owner = Command.system().actor("r");
        boolean ofARun = cause instanceof Settlement.Result || cause instanceof Settlement.Timeout || cause instanceof Settlement.Refused;
        return ofARun ? owner.underLease(task.lease().fencingToken()) : owner.expectVersion(task.version());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void eachCauseSettlesToItsCompletionsInOrder(Row row) {
        List<String> asked = new ArrayList<>();
        Settlement.Facts facts = new Settlement.Facts(row.task(), base(row.cause(), row.task()), T0, () -> {
            asked.add("jitter");
            return 0.5;
        }, () -> {
            asked.add("cancel");
            return row.cancelRequested();
        });
        List<Settlement.Completion<State, Event>> settled = Settlement.settle(row.cause(), row.policy().build(), row.backTo(), facts);
        assertThat(settled).as(row.name()).extracting(SettlementTest::show).containsExactlyElementsOf(row.expected());
        assertThat(asked).as(row.name() + ": inputs asked").containsExactlyElementsOf(row.asked());
        for (Settlement.Completion<State, Event> c : settled) {
            Command expected = base(row.cause(), row.task());
            if ("r".equals(c.command().actor())) {
                assertThat(c.command().leaseToken()).isEqualTo(expected.leaseToken());
                assertThat(c.command().expectedVersion()).isEqualTo(expected.expectedVersion());
            }
        }
    }

    @Test
    void theTableCoversEveryCauseAndEveryPolicy() {
        assertThat(ROWS).extracting(r -> r.cause().getClass().getSimpleName()).containsAll(List.of("Result", "Timeout", "Refused",
                "Shutdown", "LeaseExpired", "AttemptsExhausted", "Interrupted", "CancelRequested"));
        assertThat(ROWS).extracting(Row::policy).containsAll(List.of(Policy.values()));
        assertThat(ROWS).extracting(Row::name).doesNotHaveDuplicates();
    }

    @Test
    void eachCompletionNamesTheCauseItSettles() {
        Settlement.Facts facts = new Settlement.Facts(task(MAX_ATTEMPTS, 0), Command.system(), T0, () -> 0.5, () -> true);
        Settlement.LeaseExpired lost = new Settlement.LeaseExpired(WHY, true);
        assertThat(Settlement.settle(lost, Policy.FULL.build(), State.QUEUED, facts)).extracting(Settlement.Completion::cause)
                .containsExactly(new Settlement.CancelRequested(WHY), new Settlement.AttemptsExhausted(WHY));
        Settlement.Facts early = new Settlement.Facts(task(1, 0), Command.system(), T0, () -> 0.5, () -> false);
        assertThat(Settlement.settle(lost, Policy.INTERRUPT_AUTO.build(), State.QUEUED, early)).extracting(Settlement.Completion::cause)
                .containsExactly(lost);
        assertThat(Settlement.settle(new Settlement.LeaseExpired(WHY, false), Policy.INTERRUPT_AUTO.build(), State.QUEUED, early))
                .extracting(Settlement.Completion::cause).containsExactly(new Settlement.Interrupted(0));
        Settlement.Timeout timeout = new Settlement.Timeout(Duration.ofMinutes(1));
        assertThat(Settlement.settle(timeout, Policy.FULL.build(), State.QUEUED, early)).extracting(Settlement.Completion::cause)
                .containsExactly(timeout);
    }

    @Test
    void aCancellationAskedWhileRunningIsWrittenUnderTheRunsLease() {
        Command base = Command.system().actor("r").underLease(9);
        Settlement.Facts facts = new Settlement.Facts(task(1, 0), base, T0, () -> 0.5, () -> false);
        Settlement.Completion<State, Event> c = Settlement.settle(cancelled(WorkResult.success(), Command.user("ana"), false),
                Policy.FULL.build(), State.QUEUED, facts).get(0);
        assertThat(c.command().actor()).isEqualTo("ana");
        assertThat(c.command().leaseToken()).hasValue(9);
    }

    @Test
    void aLostLeaseWithNowhereToGoBackIsAnError() {
        Settlement.Facts facts = new Settlement.Facts(task(1, 0), Command.system(), T0, () -> 0.5, () -> false);
        assertThatThrownBy(() -> Settlement.settle(new Settlement.LeaseExpired(WHY, true), Policy.ROWLESS.build(), null, facts))
                .isInstanceOf(NullPointerException.class).hasMessage("no state to requeue to");
    }

    @Test
    void eachAdjustmentChangesTheRecordAsItSays() {
        TaskRecord cur = task(2, 1);
        Instant later = T0.plusSeconds(60);
        assertThat(adjusted(Settlement.Adjustment.NONE, null, cur)).isNull();
        TaskRecord waiting = cur.toBuilder().notBefore(later).build();
        assertThat(adjusted(Settlement.Adjustment.CLEAR_NOT_BEFORE, null, waiting)).isEqualTo(cur.toBuilder().notBefore(null).build());
        assertThat(adjusted(Settlement.Adjustment.RETRY_LATER, later, cur)).isEqualTo(cur.toBuilder().retries(2).notBefore(later).build());
        TaskRecord reset = cur.toBuilder().retries(0).build();     // a row that would end the processing keeps a snooze's retries
        assertThat(adjusted(Settlement.Adjustment.SNOOZE, later, cur, reset))
                .isEqualTo(cur.toBuilder().attempts(1).retries(1).notBefore(later).build());
        assertThat(adjusted(Settlement.Adjustment.GIVE_BACK_ATTEMPT, null, cur)).isEqualTo(cur.toBuilder().attempts(1).build());
        TaskRecord released = cur.toBuilder().lease(null).build();
        assertThat(adjusted(Settlement.Adjustment.KEEP_LEASE, null, cur, released)).isEqualTo(cur);
        assertThat(adjusted(Settlement.Adjustment.END_LEASE_AT_FRONT, null, cur)).isEqualTo(cur.toBuilder().lease(null).sequence(-5).build());
        assertThat(adjusted(Settlement.Adjustment.END_LEASE, null, cur)).isEqualTo(released);
    }

    /** Applies {@code adjustment} (front of the queue: sequence -5) to {@code cur} changed by a row into {@code next}; null for no adjustment. */
    static @Nullable TaskRecord adjusted(Settlement.Adjustment adjustment, @Nullable Instant wakeAt, TaskRecord cur, TaskRecord next) {
        Settlement.Completion<State, Event> c = new Settlement.Completion<>(new Settlement.Shutdown(), Settlement.Kind.RELEASE, Event.RELEASE,
                null, "RELEASE", Command.system(), adjustment, wakeAt);
        Adjust a = c.adjust(-5);
        if (a == null) return null;
        TaskRecord.Builder b = next.toBuilder();
        a.adjust(cur, b);
        return b.build();
    }

    static @Nullable TaskRecord adjusted(Settlement.Adjustment adjustment, @Nullable Instant wakeAt, TaskRecord cur) {
        return adjusted(adjustment, wakeAt, cur, cur);
    }

    /** A completion in one line: kind, event (or the move back), who if not the owner, reason, error, attributes, adjustment, wake time. */
    static String show(Settlement.Completion<?, ?> c) {
        Command k = c.command();
        StringBuilder b = new StringBuilder(c.kind().name()).append(' ');
        Enum<?> event = c.event();
        b.append(event != null ? event.name() : "to " + c.requeueTo() + " as " + c.eventName());
        if (event != null) assertThat(c.eventName()).isEqualTo(event.name());
        if (!"r".equals(k.actor())) b.append(" by ").append(k.actor());
        if (k.reason() != null) b.append(" \"").append(k.reason()).append('"');
        TaskError e = k.error();
        if (e != null) {
            b.append(" error ").append(e.code()).append(e.retryable() ? " retryable" : " fatal").append(" \"").append(e.message()).append('"');
            if (e.step() != null) b.append(" step ").append(e.step());
        }
        if (!k.attributes().isEmpty()) b.append(' ').append(k.attributes());
        if (c.adjustment() != Settlement.Adjustment.NONE) b.append(' ').append(c.adjustment());
        if (c.wakeAt() != null) b.append(" at +").append(Duration.between(T0, c.wakeAt()));
        return b.toString();
    }
}
