package dev.statekit.core.runtime;

import dev.statekit.core.internal.Adjust;
import dev.statekit.core.*;
import dev.statekit.core.internal.Kernel;

import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.TaskError;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.function.DoubleSupplier;
import java.util.function.LongPredicate;
import org.jspecify.annotations.Nullable;

/**
 * Maps a worker's result to the write it means by the machine's run policy: success, a retry
 * with its back-off (while the retry budget lasts), a failure, a snooze, or the cancellation that
 * was requested while the worker ran. Reads no store itself: whether a cancellation was requested
 * elsewhere is asked through {@code cancelRequested}, and time and jitter are handed in.
 */
final class ResultMapper {
    /** Error codes the runtime writes itself, next to the codes of worker failures. */
    static final String NO_RESULT = "NO_RESULT";
    static final String WORKER_ERROR = "WORKER_ERROR";
    static final String SNOOZE_UNSUPPORTED = "SNOOZE_UNSUPPORTED";
    static final String RESULT_REFUSED = "RESULT_REFUSED";
    static final String LEASE_EXPIRED = "LEASE_EXPIRED";
    static final String INTERRUPTED = "INTERRUPTED";
    static final String TIMEOUT = "TIMEOUT";
    static final String ATTEMPTS_EXHAUSTED = "ATTEMPTS_EXHAUSTED";

    /**
     * The write a worker's result maps to: {@code event} under {@code command} with the record
     * adjustment, the time the runtime should look again ({@code wakeAt}, for a retry or a snooze),
     * and the command a refusal of it is settled with ({@code base}).
     */
    record Completion<S extends Enum<S>, E extends Enum<E>>(Run<S, E> run, @Nullable E event, @Nullable S requeueTo, String eventName,
            Command command, @Nullable Adjust adjust, @Nullable Instant wakeAt, Command base) {
        /** A completion that fires {@code event}. */
        Completion(Run<S, E> run, E event, Command command, @Nullable Adjust adjust, @Nullable Instant wakeAt, Command base) {
            this(run, event, null, event.name(), command, adjust, wakeAt, base);
        }

        /** A completion that moves the task back to the claimable state {@code to} without a row of the table ({@link Decider#requeue}). */
        static <S extends Enum<S>, E extends Enum<E>> Completion<S, E> requeue(Run<S, E> run, S to, String eventName, Command command,
                                                                              @Nullable Adjust adjust, @Nullable Instant wakeAt, Command base) {
            return new Completion<>(run, null, to, eventName, command, adjust, wakeAt, base);
        }
    }

    /** The history event of a retry that waits in place (no retryable row). */
    static final String RETRY = "RETRY";
    /** The history event of a release without a release row. */
    static final String RELEASE = "RELEASE";

    private final Command asOwner;
    private final LongPredicate cancelRequested;
    private final DoubleSupplier jitter;

    ResultMapper(String owner, LongPredicate cancelRequested, DoubleSupplier jitter) {
        this.asOwner = Command.system().actor(owner);
        this.cancelRequested = cancelRequested;
        this.jitter = jitter;
    }

    <S extends Enum<S>, E extends Enum<E>> Completion<S, E> map(Run<S, E> run, WorkResult result, Instant now) {
        RunPolicy<S, E> p = run.reg.policy;
        Command base = asOwner.underLease(run.lease.fencingToken());
        if (!run.progress.isEmpty()) for (Map.Entry<String, String> e : run.progress.entrySet()) base = base.set(e.getKey(), e.getValue());
        boolean again = result instanceof WorkResult.Snooze || (result instanceof WorkResult.Failure f && f.retryable());
        if (again && run.stopReason() == null && p.cancel() != null && cancelRequested.test(run.id())) {
            run.signal(Run.StopReason.CANCELLED);      // requested elsewhere after the last heartbeat: not to run again
        }
        if (run.stopReason() == Run.StopReason.CANCELLED && p.cancel() != null) {
            Command requested = run.cancelCommand;
            Command c = requested != null ? requested.underLease(run.lease.fencingToken()) : base.reason("cancelled");
            return new Completion<>(run, p.cancel(), c, Kernel.givesBackOnCancel(run.reg.machine, run.task.state(), p.cancel()), null, base);
        }
        if (result instanceof WorkResult.Success s) return success(run, s, base);
        if (result instanceof WorkResult.Failure f) return failure(run, f, base, now);
        return snooze(run, (WorkResult.Snooze) result, base, now);
    }

    private static <S extends Enum<S>, E extends Enum<E>> Completion<S, E> success(Run<S, E> run, WorkResult.Success s, Command base) {
        Command c = base;
        for (Map.Entry<String, @Nullable String> e : s.attributes().entrySet()) {
            c = e.getValue() == null ? c.remove(e.getKey()) : c.set(e.getKey(), e.getValue());
        }
        return new Completion<>(run, Objects.requireNonNull(run.reg.policy.success()), c, (cur, next) -> next.notBefore(null), null, base);
    }

    private <S extends Enum<S>, E extends Enum<E>> Completion<S, E> failure(Run<S, E> run, WorkResult.Failure f, Command base,
                                                                            Instant now) {
        RunPolicy<S, E> p = run.reg.policy;
        TaskError error = new TaskError(f.code(), f.message(), f.retryable(), f.step());
        int retries = run.task.record().retries();
        int attempts = run.task.record().attempts();
        S back = run.reg.backTo(run.task.state());
        if (f.retryable() && (p.retryable() != null || back != null) && retries < p.retry().maxRetries() && attempts < p.maxAttempts()) {
            Duration delay = p.retry().delay(retries, jitter.getAsDouble());
            Instant notBefore = now.plus(delay);
            Command c = base.reason(f.code() + ": " + f.message()).error(error);
            Adjust later = (cur, next) -> next.retries(cur.retries() + 1).notBefore(notBefore);
            if (p.retryable() != null) return new Completion<>(run, p.retryable(), c, later, notBefore, base);
            return Completion.requeue(run, Objects.requireNonNull(back), RETRY, c, later, notBefore, base);    // waits in place
        }
        String why = !f.retryable() ? f.code() + ": " + f.message()
                : retries < p.retry().maxRetries() && attempts >= p.maxAttempts()
                        ? f.code() + " on attempt " + attempts + " of " + p.maxAttempts() + ": " + f.message()
                        : f.code() + " after " + retries + " retries: " + f.message();
        return new Completion<>(run, Objects.requireNonNull(p.fatal()), base.reason(why).error(error), null, null, base);
    }

    private static <S extends Enum<S>, E extends Enum<E>> Completion<S, E> snooze(Run<S, E> run, WorkResult.Snooze z, Command base,
                                                                                  Instant now) {
        RunPolicy<S, E> p = run.reg.policy;
        E release = p.release();
        S back = run.reg.backTo(run.task.state());
        if (release == null && back == null) {
            TaskError error = new TaskError(SNOOZE_UNSUPPORTED, "machine " + run.reg.machine.name() + " has no release event", false, null);
            return new Completion<>(run, Objects.requireNonNull(p.fatal()), base.error(error), null, null, base);
        }
        Instant notBefore = now.plus(z.delay());
        Command c = base.reason("snoozed for " + z.delay());
        // A snooze gives its attempt back and stays inside the processing: its retry count is kept.
        Adjust later = (cur, next) -> {
            Adjust.GIVE_BACK_ATTEMPT.adjust(cur, next);
            next.retries(cur.retries()).notBefore(notBefore);
        };
        if (release != null) return new Completion<>(run, release, c, later, notBefore, base);
        return Completion.requeue(run, Objects.requireNonNull(back), RELEASE, c, later, notBefore, base);
    }
}
