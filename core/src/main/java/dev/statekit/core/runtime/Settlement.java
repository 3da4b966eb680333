package dev.statekit.core.runtime;

import dev.statekit.core.Command;
import dev.statekit.core.RetryPolicy;
import dev.statekit.core.RunPolicy;
import dev.statekit.core.internal.Kernel;
import dev.statekit.core.internal.Adjust;

import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.DoubleSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The settlement table: what the end of a run means, for every way a run ends. A {@link Cause}
 * (the worker's result, a timeout, a refusal of that result, a stop, a lost lease…) under a run
 * policy, with the claimable state the task goes back to without a row ({@code backTo}, from
 * {@link Registration#backTo}) and the {@link Facts} the runtime holds, maps to an ordered list
 * of {@link Completion}s: the writer writes the first, and the next one only when the table refused
 * the one before. An empty list writes nothing (the task is left to lease recovery).
 *
 * <pre>
 * cause                               completions, in order
 * Result, a cancellation asked        CANCEL: the cancel event under the requester's command (the attempt given
 *   (or requested meanwhile for a     back when the cancel event leads to a claimable state)
 *   result that would run again)
 * Result of a run its stopping        as Shutdown, when it would run again (a retry or a snooze) and can be
 *   runtime stopped                     given back: the same end whether its write or the stop's comes first
 * Result, success                     SUCCESS: the success event with the worker's attributes, not-before cleared
 * Result, retryable failure within    RETRY: the retryable event, or back to backTo as RETRY, at now + back-off,
 *   the retries and the attempts        one retry more
 * Result, any other failure           FAIL: the fatal event with the worker's error
 * Result, snooze                      SNOOZE: the release event, or back to backTo as RELEASE, at now + delay,
 *                                       the attempt given back and the retries kept; FAIL SNOOZE_UNSUPPORTED
 *                                       without either
 * Result, rate limited                SNOOZE as a snooze, "rate limited; retry after D"; the runtime holds the
 *                                       task's rate key until now + D before it writes the completion
 * Timeout                             as Result with a retryable TIMEOUT failure
 * Refused                             FAIL RESULT_REFUSED; then RELEASE: the release event, or back to backTo
 * Shutdown                            RELEASE: the release event, or back to backTo, the attempt given back; none
 * Unready                             as Shutdown (the claimed task's precondition does not hold)
 *                                       without either
 * LeaseExpired                        CancelRequested's when a cancellation was requested; then
 *                                       AttemptsExhausted's when its attempts are used up (not with FAIL recovery),
 *                                       else by the recovery policy: FAIL LEASE_EXPIRED, INTERRUPT (the lease kept;
 *                                       the writer then settles Interrupted on the record it wrote), or RELEASE;
 *                                       Interrupted's when INTERRUPT finds the task interrupted already
 * AttemptsExhausted                   FAIL ATTEMPTS_EXHAUSTED
 * Interrupted(n)                      RECOVER: the interrupt requeue event at the front of the queue, lease ended,
 *                                       n + 1 recorded, with automatic recovery, n &lt; 1 and attempts left;
 *                                       else FAIL: the interrupt give-up event with INTERRUPTED, lease ended
 * CancelRequested                     CANCEL: the cancel event; none without one
 * </pre>
 *
 * <p>Pure: it reads no store and no clock. The time, the jitter of a back-off and whether a
 * cancellation was requested are inputs; the jitter and the cancellation are asked only when the
 * table needs them (a back-off, a result that would run the task again, a lost lease).
 */
final class Settlement {
    /** Error codes the runtime writes itself, next to the codes of worker failures. */
    static final String NO_RESULT = "NO_RESULT";
    static final String WORKER_ERROR = "WORKER_ERROR";
    static final String SNOOZE_UNSUPPORTED = "SNOOZE_UNSUPPORTED";
    static final String RESULT_REFUSED = "RESULT_REFUSED";
    static final String LEASE_EXPIRED = "LEASE_EXPIRED";
    static final String INTERRUPTED = "INTERRUPTED";
    static final String TIMEOUT = "TIMEOUT";
    static final String ATTEMPTS_EXHAUSTED = "ATTEMPTS_EXHAUSTED";

    private Settlement() {}

    /** Why a run ends. */
    sealed interface Cause permits Result, Timeout, Refused, Shutdown, Unready, LeaseExpired, AttemptsExhausted, Interrupted, CancelRequested {}

    /**
     * The worker returned {@code result}. {@code stop} is why the worker was asked to stop, if it
     * was; {@code cancelledBy} the command that asked a cancellation, if any; {@code cancelGivesBack}
     * whether the cancel event puts the task back to be claimed again (a pause), which gives its
     * attempt back.
     */
    record Result(WorkResult result, Run.@Nullable StopReason stop, @Nullable Command cancelledBy, boolean cancelGivesBack)
            implements Cause {
        /** A result of a worker nobody asked to stop. */
        Result(WorkResult result) {
            this(result, null, null, false);
        }
    }

    /** The attempt ran past its run policy's timeout {@code limit}, whatever the worker returned. */
    record Timeout(Duration limit) implements Cause {}

    /**
     * The table refused the completion of a result, for {@code reasonCode}: {@code message} (a
     * guard said no). A result refused for a lost lease is discarded, not settled.
     */
    record Refused(String reasonCode, String message) implements Cause {}

    /** The runtime stopped past its grace while the worker still ran. */
    record Shutdown() implements Cause {}

    /**
     * A task claimed while its precondition did not hold ({@code reason}): it became runnable after
     * the claim's look at the next tasks, and is given back before its work starts.
     */
    record Unready(String reason) implements Cause {}

    /**
     * The task's holder is gone: its lease expired, or this owner restarted ({@code why}).
     * {@code holding}: the task still stands in a state that holds the lease (false: its
     * interruption was written already, and its recoverer died before putting it back).
     */
    record LeaseExpired(String why, boolean holding) implements Cause {}

    /** The task's holder is gone ({@code why}) and it has used up its attempts. */
    record AttemptsExhausted(String why) implements Cause {}

    /** The task was interrupted after {@code interruptions} automatic recoveries. */
    record Interrupted(int interruptions) implements Cause {}

    /** A cancellation was requested while the task ran, and its holder is gone ({@code why}) before applying it. */
    record CancelRequested(String why) implements Cause {}

    /** What a completion does: what the runtime counts, tells and logs of it. */
    enum Kind {
        /** The work succeeded. */
        SUCCESS,
        /** The work failed and is retried later. */
        RETRY,
        /** The task fails. */
        FAIL,
        /** The worker snoozed the task until later. */
        SNOOZE,
        /** The task is cancelled. */
        CANCEL,
        /** The task is given back to be claimed again. */
        RELEASE,
        /** The task is interrupted (its recovery follows). */
        INTERRUPT,
        /** An interrupted task goes back to the front of its queue. */
        RECOVER
    }

    /** How a completion adjusts the record the table writes, beyond the row's own change. */
    enum Adjustment {
        /** Nothing beyond the row. */
        NONE,
        /** A success: the not-before time is cleared. */
        CLEAR_NOT_BEFORE,
        /** A retry: one retry more, not before the completion's wake time. */
        RETRY_LATER,
        /** A snooze: the attempt given back, the retries kept, not before the completion's wake time. */
        SNOOZE,
        /** The attempt given back (a stop, a cancellation to be run again). */
        GIVE_BACK_ATTEMPT,
        /** The lease kept: the queue stays occupied until the task is put back. */
        KEEP_LEASE,
        /** The lease ended, and the task at the front of its queue (the sequence the writer takes). */
        END_LEASE_AT_FRONT,
        /** The lease ended. */
        END_LEASE
    }

    /**
     * What the runtime knows when it settles: the task's record as it holds it, the command every
     * completion starts from ({@code base}: the owner as actor, under the lease or the version, with
     * the run's progress), the time, the jitter of a back-off, and whether a cancellation was
     * requested (both asked only when needed).
     */
    record Facts(TaskRecord task, Command base, Instant now, DoubleSupplier jitter, BooleanSupplier cancelRequested) {}

    /**
     * One write of a settlement: {@code event} (or, with {@code requeueTo}, a move back to that
     * claimable state without a row, recorded as {@code eventName}) under {@code command}, with
     * the record {@code adjustment}, and the time the runtime should look again ({@code wakeAt},
     * for a retry or a snooze). {@code cause} is the cause it settles.
     */
    record Completion<S extends Enum<S>, E extends Enum<E>>(Cause cause, Kind kind, @Nullable E event, @Nullable S requeueTo,
            String eventName, Command command, Adjustment adjustment, @Nullable Instant wakeAt) {

        /** The engine's adjustment of this completion; {@code front} is the sequence of the front of the queue, read by {@link Adjustment#END_LEASE_AT_FRONT} only. */
        @Nullable Adjust adjust(long front) {
            switch (adjustment) {
                case CLEAR_NOT_BEFORE:
                    return CLEAR_NOT_BEFORE;
                case RETRY_LATER: {
                    Instant at = Objects.requireNonNull(wakeAt);
                    return (cur, next) -> next.retries(cur.retries() + 1).notBefore(at);
                }
                case SNOOZE: {
                    Instant at = Objects.requireNonNull(wakeAt);
                    return (cur, next) -> {
                        Adjust.GIVE_BACK_ATTEMPT.adjust(cur, next);
                        next.retries(cur.retries()).notBefore(at);      // a snooze stays inside the processing
                    };
                }
                case GIVE_BACK_ATTEMPT:
                    return Adjust.GIVE_BACK_ATTEMPT;
                case KEEP_LEASE:
                    return KEEP_LEASE;
                case END_LEASE_AT_FRONT:
                    return (cur, next) -> next.lease(null).sequence(front);
                case END_LEASE:
                    return END_LEASE;
                case NONE:
                default:
                    return null;
            }
        }
    }

    private static final Adjust CLEAR_NOT_BEFORE = (cur, next) -> next.notBefore(null);
    private static final Adjust KEEP_LEASE = (cur, next) -> next.lease(cur.lease());
    private static final Adjust END_LEASE = (cur, next) -> next.lease(null);

    /** Returns the completions {@code cause} settles to under {@code p}, in the order to try them. */
    static <S extends Enum<S>, E extends Enum<E>> List<Completion<S, E>> settle(Cause cause, RunPolicy<S, E> p, @Nullable S backTo,
                                                                              Facts f) {
        if (cause instanceof Result r) return List.of(result(r, p, backTo, f));
        if (cause instanceof Timeout t) {
            return List.of(failure(t, new WorkResult.Failure(TIMEOUT, "the attempt ran past its timeout of " + t.limit(), true, null),
                    p, backTo, f));
        }
        if (cause instanceof Refused r) return refused(r, p, backTo, f);
        if (cause instanceof Shutdown s) {
            return listOf(giveBack(s, Kind.RELEASE, p, backTo, f.base().reason("runtime stopping"), Adjustment.GIVE_BACK_ATTEMPT, null));
        }
        if (cause instanceof Unready u) {
            return listOf(giveBack(u, Kind.RELEASE, p, backTo, f.base().reason("precondition does not hold: " + u.reason()),
                    Adjustment.GIVE_BACK_ATTEMPT, null));
        }
        if (cause instanceof LeaseExpired l) return leaseExpired(l, p, backTo, f);
        if (cause instanceof AttemptsExhausted a) return List.of(exhausted(a, p, f));
        if (cause instanceof Interrupted i) return List.of(interrupted(i, p, f));
        CancelRequested c = (CancelRequested) cause;
        E cancel = p.cancel();
        if (cancel == null) return List.of();
        return List.of(fire(c, Kind.CANCEL, cancel, f.base().reason("cancellation requested; " + c.why()), Adjustment.NONE, null));
    }

    /** Returns whether {@code result} would run the task again (a retry or a snooze). */
    static boolean runsAgain(WorkResult result) {
        return result instanceof WorkResult.Snooze || (result instanceof WorkResult.Failure f && f.retryable());
    }

    /** Returns the automatic recoveries after interruptions recorded on {@code task} (0 when none or unreadable). */
    static int interruptions(TaskRecord task) {
        String n = task.attributes().get(TaskRuntime.ATTR_INTERRUPTIONS);
        try {
            return n == null ? 0 : Integer.parseInt(n);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static <S extends Enum<S>, E extends Enum<E>> Completion<S, E> result(Result r, RunPolicy<S, E> p, @Nullable S backTo,
                                                                                Facts f) {
        WorkResult result = r.result();
        E cancel = p.cancel();
        if (cancel != null && (r.stop() == Run.StopReason.CANCELLED
                || (r.stop() == null && runsAgain(result) && f.cancelRequested().getAsBoolean()))) {
            // Cancelled while it ran, or requested elsewhere after the last heartbeat: not to run again.
            Command requested = r.cancelledBy();
            Command c = requested != null ? requested.underLease(f.base().leaseToken().orElseThrow()) : f.base().reason("cancelled");
            return fire(r, Kind.CANCEL, cancel, c, r.cancelGivesBack() ? Adjustment.GIVE_BACK_ATTEMPT : Adjustment.NONE, null);
        }
        if (r.stop() == Run.StopReason.SHUTDOWN && runsAgain(result)) {
            // Stopped by its stopping runtime, which releases it too: whichever write comes first, the task goes back the same way.
            Completion<S, E> back = giveBack(r, Kind.RELEASE, p, backTo, f.base().reason("runtime stopping"), Adjustment.GIVE_BACK_ATTEMPT,
                    null);
            if (back != null) return back;
        }
        if (result instanceof WorkResult.Success s) {
            Command c = f.base();
            for (Map.Entry<String, @Nullable String> e : s.attributes().entrySet()) {
                c = e.getValue() == null ? c.remove(e.getKey()) : c.set(e.getKey(), e.getValue());
            }
            return fire(r, Kind.SUCCESS, Objects.requireNonNull(p.success()), c, Adjustment.CLEAR_NOT_BEFORE, null);
        }
        if (result instanceof WorkResult.Failure x) return failure(r, x, p, backTo, f);
        WorkResult.Snooze z = (WorkResult.Snooze) result;
        Instant at = f.now().plus(z.delay());
        String why = z.rateLimited() ? "rate limited; retry after " + z.delay() : "snoozed for " + z.delay();
        Completion<S, E> later = giveBack(r, Kind.SNOOZE, p, backTo, f.base().reason(why), Adjustment.SNOOZE, at);
        if (later != null) return later;
        TaskError error = new TaskError(SNOOZE_UNSUPPORTED, "machine " + f.task().machine() + " has no release event", false, null);
        return fail(r, p, f.base().error(error));
    }

    private static <S extends Enum<S>, E extends Enum<E>> Completion<S, E> failure(Cause cause, WorkResult.Failure x, RunPolicy<S, E> p,
                                                                                 @Nullable S backTo, Facts f) {
        TaskError error = new TaskError(x.code(), x.message(), x.retryable(), x.step(), x.detail());
        int retries = f.task().retries();
        int attempts = f.task().attempts();
        RetryPolicy retry = p.retry();
        E retryable = p.retryable();
        if (x.retryable() && (retryable != null || backTo != null) && retries < retry.maxRetries() && attempts < p.maxAttempts()) {
            Instant at = f.now().plus(retry.delay(retries, f.jitter().getAsDouble()));
            Command c = f.base().reason(x.code() + ": " + x.message()).error(error);
            if (retryable != null) return fire(cause, Kind.RETRY, retryable, c, Adjustment.RETRY_LATER, at);
            return new Completion<>(cause, Kind.RETRY, null, Objects.requireNonNull(backTo), Kernel.RETRY, c,
                    Adjustment.RETRY_LATER, at);      // waits in place
        }
        String why = !x.retryable() ? x.code() + ": " + x.message()
                : retries < retry.maxRetries() && attempts >= p.maxAttempts()
                        ? x.code() + " on attempt " + attempts + " of " + p.maxAttempts() + ": " + x.message()
                        : x.code() + " after " + retries + " retries: " + x.message();
        return fail(cause, p, f.base().reason(why).error(error));
    }

    private static <S extends Enum<S>, E extends Enum<E>> List<Completion<S, E>> refused(Refused r, RunPolicy<S, E> p, @Nullable S backTo,
                                                                                       Facts f) {
        TaskError error = new TaskError(RESULT_REFUSED, r.reasonCode() + ": " + r.message(), false, null);
        Command c = f.base().reason("result refused").error(error);
        List<Completion<S, E>> out = new ArrayList<>(2);
        out.add(fail(r, p, c));
        Completion<S, E> back = giveBack(r, Kind.RELEASE, p, backTo, c, Adjustment.NONE, null);
        if (back != null) out.add(back);
        return out;
    }

    private static <S extends Enum<S>, E extends Enum<E>> List<Completion<S, E>> leaseExpired(LeaseExpired l, RunPolicy<S, E> p,
                                                                                            @Nullable S backTo, Facts f) {
        RunPolicy.Recovery recovery = p.recovery();
        if (recovery == RunPolicy.Recovery.INTERRUPT && !l.holding()) {
            return settle(new Interrupted(interruptions(f.task())), p, backTo, f);
        }
        List<Completion<S, E>> out = new ArrayList<>(2);
        if (p.cancel() != null && f.cancelRequested().getAsBoolean()) out.addAll(settle(new CancelRequested(l.why()), p, backTo, f));
        if (recovery != RunPolicy.Recovery.FAIL && f.task().attempts() >= p.maxAttempts()) {
            // Its attempts are used up (a worker that crashes its process every time): failed, not put back again.
            out.add(exhausted(new AttemptsExhausted(l.why()), p, f));
            return out;
        }
        Command c = f.base().reason(l.why());
        switch (recovery) {
            case FAIL:
                out.add(fail(l, p, c.error(new TaskError(LEASE_EXPIRED, l.why(), true, null))));
                break;
            case INTERRUPT:
                out.add(fire(l, Kind.INTERRUPT, Objects.requireNonNull(p.interrupt()), c, Adjustment.KEEP_LEASE, null));
                break;
            case REQUEUE:
            default:
                out.add(Objects.requireNonNull(giveBack(l, Kind.RELEASE, p, backTo, c, Adjustment.NONE, null), "no state to requeue to"));
        }
        return out;
    }

    private static <S extends Enum<S>, E extends Enum<E>> Completion<S, E> exhausted(AttemptsExhausted a, RunPolicy<S, E> p, Facts f) {
        String used = "lease lost on attempt " + f.task().attempts() + " of " + p.maxAttempts() + "; " + a.why();
        return fail(a, p, f.base().reason(used).error(new TaskError(ATTEMPTS_EXHAUSTED, used, false, null)));
    }

    private static <S extends Enum<S>, E extends Enum<E>> Completion<S, E> interrupted(Interrupted i, RunPolicy<S, E> p, Facts f) {
        int n = i.interruptions();
        int attempts = f.task().attempts();
        if (p.autoRecover() && n < 1 && attempts < p.maxAttempts()) {
            Command c = f.base().reason("automatic recovery after an interruption").set(TaskRuntime.ATTR_INTERRUPTIONS, Integer.toString(n + 1));
            return fire(i, Kind.RECOVER, Objects.requireNonNull(p.interruptRequeue()), c, Adjustment.END_LEASE_AT_FRONT, null);
        }
        String why = !p.autoRecover() ? "interrupted; automatic recovery is off"
                : n < 1 ? "interrupted on its last attempt (" + attempts + " of " + p.maxAttempts() + ")"
                : "interrupted again after its automatic retry";
        Command c = f.base().reason(why).error(new TaskError(INTERRUPTED, "the task was interrupted by a crash", true, null));
        return fire(i, Kind.FAIL, Objects.requireNonNull(p.interruptFail()), c, Adjustment.END_LEASE, null);
    }

    /** Gives the task back: by the release event when the policy declares one, else back to {@code backTo} as RELEASE; null without either. */
    private static <S extends Enum<S>, E extends Enum<E>> @Nullable Completion<S, E> giveBack(Cause cause, Kind kind, RunPolicy<S, E> p,
            @Nullable S backTo, Command c, Adjustment adjustment, @Nullable Instant wakeAt) {
        E release = p.release();
        if (release != null) return fire(cause, kind, release, c, adjustment, wakeAt);
        if (backTo != null) return new Completion<>(cause, kind, null, backTo, Kernel.RELEASE, c, adjustment, wakeAt);
        return null;
    }

    /** Fails the task by the fatal event. */
    private static <S extends Enum<S>, E extends Enum<E>> Completion<S, E> fail(Cause cause, RunPolicy<S, E> p, Command c) {
        return fire(cause, Kind.FAIL, Objects.requireNonNull(p.fatal()), c, Adjustment.NONE, null);
    }

    private static <S extends Enum<S>, E extends Enum<E>> Completion<S, E> fire(Cause cause, Kind kind, E event, Command c,
                                                                              Adjustment adjustment, @Nullable Instant wakeAt) {
        return new Completion<>(cause, kind, event, null, event.name(), c, adjustment, wakeAt);
    }

    private static <T> List<T> listOf(@Nullable T one) {
        return one == null ? List.of() : List.of(one);
    }
}
