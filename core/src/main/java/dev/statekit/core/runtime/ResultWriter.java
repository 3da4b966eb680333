package dev.statekit.core.runtime;

import dev.statekit.core.Command;
import dev.statekit.core.Ending;
import dev.statekit.core.Fire;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.RefusalCode;
import dev.statekit.core.RunPolicy;
import dev.statekit.core.internal.Kernel;

import dev.statekit.core.spi.RuntimeEvent;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.RateLimit;
import dev.statekit.store.StatekitException;
import dev.statekit.store.Store;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;
import java.util.function.LongPredicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Settles the ends of runs by the {@link Settlement} table and writes what it returns: the results
 * of a batch through the engine, decided on the records the runtime holds (one store write for the
 * batch, no read), then the next completions of a result the table refused (fail the task, or
 * release it), so that no task stays in a running state under a lease nobody renews. Whether a
 * cancellation was requested elsewhere is asked through {@code cancelRequested}, only for a result
 * that would run the task again. A rate-limited answer holds the task's rate key through
 * {@code holdKey} before its snooze is written: the hold is about the key (the service said
 * "not before"), whatever becomes of the task's own write, and a hold that fails to be written is
 * logged and leaves the snooze of the task itself.
 */
final class ResultWriter {
    private static final Logger log = LoggerFactory.getLogger(TaskRuntime.class);

    /** A run's end as settled, to be written: its completion, and the facts a refusal of it is settled on. */
    record Ending<S extends Enum<S>, E extends Enum<E>>(Run<S, E> run, Settlement.Facts facts, Settlement.Completion<S, E> completion) {}

    private final Kernel kernel;
    private final String owner;
    private final Command asOwner;
    private final Consumer<Instant> wakeAt;
    private final RuntimeEvents events;
    private final LongPredicate cancelRequested;
    private final DoubleSupplier jitter;
    private final BiConsumer<TaskRecord, Instant> holdKey;

    ResultWriter(Kernel kernel, String owner, Consumer<Instant> wakeAt, RuntimeEvents events, LongPredicate cancelRequested,
                 DoubleSupplier jitter, BiConsumer<TaskRecord, Instant> holdKey) {
        this.holdKey = holdKey;
        this.kernel = kernel;
        this.owner = owner;
        this.asOwner = Command.system().actor(owner);
        this.wakeAt = wakeAt;
        this.events = events;
        this.cancelRequested = cancelRequested;
        this.jitter = jitter;
    }

    /**
     * Settles what {@code result}, returned at {@code now}, means for {@code run}: a timeout when
     * the run was stopped for one, else the result itself (or the cancellation asked while it ran).
     * The completion is written under the run's lease, with its progress.
     */
    <S extends Enum<S>, E extends Enum<E>> Ending<S, E> settle(Run<S, E> run, WorkResult result, Instant now) {
        RunPolicy<S, E> p = run.reg.policy;
        Command base = asOwner.underLease(run.lease.fencingToken());
        if (!run.progress.isEmpty()) for (Map.Entry<String, String> e : run.progress.entrySet()) base = base.set(e.getKey(), e.getValue());
        Run.StopReason stop = run.stopReason();
        Settlement.Cause cause;
        if (stop == Run.StopReason.TIMEOUT) {
            cause = new Settlement.Timeout(Objects.requireNonNull(p.timeout()));
        } else {
            E cancel = p.cancel();
            boolean givesBack = cancel != null && Kernel.givesBackOnCancel(run.reg.machine, run.task.state(), cancel) != null;
            cause = new Settlement.Result(result, stop, run.cancelCommand, givesBack);
        }
        Settlement.Facts facts = new Settlement.Facts(run.task.record(), base, now, jitter, () -> cancelRequested.test(run.id()));
        Settlement.Completion<S, E> c = Settlement.settle(cause, p, run.reg.backTo(run.task.state()), facts).get(0);
        if (c.kind() == Settlement.Kind.CANCEL) run.signal(Run.StopReason.CANCELLED);      // not to run again
        return new Ending<>(run, facts, c);
    }

    /** Returns the holds written to {@code store}: the task's rate key under its queue's rate limit, held until the time given. */
    static BiConsumer<TaskRecord, Instant> holdsIn(Store store) {
        return (task, until) -> store.holdKey(task.queue(), RateLimit.keyOf(store.queue(task.queue()).rateLimit(), task), until);
    }

    /**
     * Holds the rate key of {@code run}'s task for the retry-after of a rate-limited answer, from
     * {@code now}; called as the worker returns, before its end is settled (see {@link SlotLoop}).
     */
    void holdAtOnce(Run<?, ?> run, WorkResult.Snooze answer, Instant now) {
        try {
            holdKey.accept(run.task.record(), now.plus(answer.delay()));
        } catch (RuntimeException e) {
            log.warn("runtime {}: could not hold the rate key of task {}; only the task waits", owner, run.id(), e);
        }
    }

    /** Holds the rate key of the task of {@code d} until its wake time when its worker answered rate limited. */
    private void holdIfRateLimited(Ending<?, ?> d) {
        Settlement.Completion<?, ?> c = d.completion();
        if (c.kind() != Settlement.Kind.SNOOZE || !(c.cause() instanceof Settlement.Result r)
                || !(r.result() instanceof WorkResult.Snooze z) || !z.rateLimited()) {
            return;
        }
        try {
            holdKey.accept(d.run().task.record(), Objects.requireNonNull(c.wakeAt()));
        } catch (RuntimeException e) {
            log.warn("runtime {}: could not hold the rate key of task {}; only the task waits", owner, d.run().id(), e);
        }
    }

    /**
     * How many times a write of results is tried when the store answers that it is unavailable
     * ({@link ErrorCode#STORE_UNAVAILABLE}: a lost connection, a server restarting): the tasks ran,
     * and writing their results again at once, on another connection, spares running them again once
     * their leases expire. The tries follow each other without waiting; a store down for longer
     * leaves the leases to recovery.
     */
    static final int WRITE_ATTEMPTS = 3;

    /**
     * Writes {@code done}; a store that answers unavailable is asked again (up to
     * {@link #WRITE_ATTEMPTS} times in all), and a failure left is logged, the tasks' leases left to
     * recovery. Writing a result again is safe: a result the store applied before its answer was lost
     * is turned down the second time because the lease it was written under is gone.
     *
     * @return false when a failure left the tasks' leases to recovery
     */
    <S extends Enum<S>, E extends Enum<E>> boolean write(List<Ending<S, E>> done) {
        try {
            List<Kernel.Fire<?, ?>> requests = new ArrayList<>(done.size());
            List<Ending<S, E>> fired = new ArrayList<>(done.size());
            for (Ending<S, E> d : done) {
                Settlement.Completion<S, E> c = d.completion();
                Run<S, E> run = d.run();
                holdIfRateLimited(d);
                if (c.requeueTo() != null) {            // the runtime's own move, without a row: one write of its own
                    after(d, retried(() -> apply(kernel, run.reg.machine, run.id(), c, 0)));
                } else {
                    requests.add(new Kernel.Fire<>(run.reg.machine, run.id(), Objects.requireNonNull(c.event()),
                            c.command(), c.adjust(0), run.task.record()));
                    fired.add(d);
                }
            }
            List<Outcome<?>> outcomes = requests.isEmpty() ? List.of() : retried(() -> kernel.fireEach(requests));
            for (int i = 0; i < fired.size(); i++) {
                @SuppressWarnings("unchecked")
                Outcome<S> o = (Outcome<S>) outcomes.get(i);
                after(fired.get(i), o);
            }
            return true;
        } catch (RuntimeException e) {
            log.warn("runtime {}: could not record the results of {} task(s); their leases will be recovered", owner, done.size(), e);
            return false;
        }
    }

    /** Returns what {@code write} returns, asking again while the store answers unavailable, up to {@link #WRITE_ATTEMPTS} times. */
    private <T> T retried(Supplier<T> write) {
        for (int attempt = 1; ; attempt++) {
            try {
                return write.get();
            } catch (StatekitException e) {
                if (e.code() != ErrorCode.STORE_UNAVAILABLE || attempt >= WRITE_ATTEMPTS) throw e;
                log.debug("runtime {}: writing results failed ({}); writing them again", owner, e.getMessage());
            }
        }
    }

    /**
     * Writes the completion {@code c} of task {@code id}: fires its event, or moves the task back
     * without a row. {@code front} is the sequence of the front of the queue, read only by a
     * completion that puts the task there.
     */
    static <S extends Enum<S>, E extends Enum<E>> Outcome<S> apply(Kernel kernel, Machine<S, E> machine, long id,
                                                                  Settlement.Completion<S, E> c, long front) {
        S to = c.requeueTo();
        return to != null ? kernel.requeue(machine, id, to, c.eventName(), c.command(), c.adjust(front))
                : kernel.fire(machine, id, Objects.requireNonNull(c.event()), c.command(), c.adjust(front));
    }

    private <S extends Enum<S>, E extends Enum<E>> void after(Ending<S, E> d, Outcome<S> outcome) {
        Run<S, E> run = d.run();
        if (outcome instanceof Outcome.Refused<S> refused) {
            if (refused.code() == RefusalCode.LEASE_LOST) {
                log.info("runtime {}: result of task {} discarded: {}", owner, run.id(), refused.message());
            } else {
                settleRefused(d, refused);
            }
        } else if (outcome instanceof Outcome.Applied<S> applied) {
            Settlement.Completion<S, E> c = d.completion();
            RuntimeEvent.Kind kind = events.completed(run, c, applied);
            if (kind == RuntimeEvent.Kind.FAILED) logFailed(run, applied);
            else if (kind == RuntimeEvent.Kind.RETRIED && log.isDebugEnabled()) logRetried(run, applied);
            if (c.wakeAt() != null) wakeAt.accept(c.wakeAt());
        }
    }

    private void logFailed(Run<?, ?> run, Outcome.Applied<?> applied) {
        TaskError e = applied.task().record().lastError();
        log.warn("runtime {}: task {} of {} failed in {}: {}", owner, run.id(), run.reg.machine.name(), applied.entry().from(),
                e == null ? "no error recorded" : e.code() + " (" + e.message() + ")");
    }

    private void logRetried(Run<?, ?> run, Outcome.Applied<?> applied) {
        TaskRecord t = applied.task().record();
        TaskError e = t.lastError();
        log.debug("runtime {}: task {} of {} will be retried (retry {}) at {}: {}", owner, run.id(), run.reg.machine.name(),
                t.retries(), t.notBefore(), e == null ? "no error recorded" : e.code() + " (" + e.message() + ")");
    }

    /**
     * The machine refused the event a result maps to (a guard said no): writes the refusal's
     * settlement, each completion when the one before was refused (the task fails, else it is
     * released); if all are refused, lease recovery takes it.
     */
    private <S extends Enum<S>, E extends Enum<E>> void settleRefused(Ending<S, E> d, Outcome.Refused<S> refused) {
        Run<S, E> run = d.run();
        long id = run.id();
        log.warn("runtime {}: result of task {} was refused ({}); failing the task", owner, id, refused.message());
        List<Settlement.Completion<S, E>> settled = Settlement.settle(new Settlement.Refused(refused.reasonCode(), refused.message()),
                run.reg.policy, run.reg.backTo(run.task.state()), d.facts());
        for (Settlement.Completion<S, E> c : settled) {
            if (apply(kernel, run.reg.machine, id, c, 0) instanceof Outcome.Applied<S> applied) {
                if (c.kind() == Settlement.Kind.FAIL) events.failedInstead(run, applied);     // logged above
                return;
            }
        }
        log.warn("runtime {}: task {} could be neither failed nor released; lease recovery will take it", owner, id);
    }
}
