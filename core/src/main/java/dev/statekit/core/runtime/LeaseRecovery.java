package dev.statekit.core.runtime;

import dev.statekit.core.*;

import dev.statekit.store.Lease;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskRecord;
import java.time.Instant;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recovers tasks whose holder is gone, by each machine's {@link RunPolicy.Recovery}: expired
 * leases found at housekeeping, and at start the tasks this owner held before a restart. A task
 * whose cancellation was requested while it ran is cancelled instead.
 *
 * <p>Interrupt recovery takes two changes (running → interrupted, then back to the queue at its
 * front, or failed); the first keeps the expired lease, so the task still counts against its
 * queue's concurrency limit in every process until the second is written (with its new place in
 * the same write). Nothing else of a limited queue is claimed in between, and a task left
 * interrupted with its lease by a crash between the two is found again as an expired lease and
 * finished from where it stood.
 */
final class LeaseRecovery {
    private static final Logger log = LoggerFactory.getLogger(TaskRuntime.class);

    private final RuntimeContext ctx;

    LeaseRecovery(RuntimeContext ctx) {
        this.ctx = ctx;
    }

    /** Recovers the tasks whose lease expired by {@code now}; tells a local run of such a task that it lost its lease. */
    void recoverExpired(Instant now) {
        for (TaskRecord t : ctx.store.expiredLeases(ctx.registrations.machines(), now, RuntimeContext.SCAN_BATCH)) {
            Registration<?, ?> r = ctx.registrations.of(t);
            if (r == null) continue;
            Run<?, ?> local = ctx.running.get(t.id());
            if (local != null) local.signal(Run.StopReason.LEASE_LOST);
            Lease lease = Objects.requireNonNull(t.lease());
            recover(r, t, "lease " + lease.fencingToken() + " of " + lease.owner() + " expired at " + lease.expiresAt());
        }
    }

    /** Recovers the tasks this owner held before a restart. */
    void healRestart() {
        for (TaskRecord t : ctx.store.leasedBy(ctx.owner, Integer.MAX_VALUE)) {
            Registration<?, ?> r = ctx.registrations.of(t);
            if (r != null) {
                log.info("task {} was held by {} before a restart; recovering it", t.id(), ctx.owner);
                recover(r, t, "restart of " + ctx.owner);
            }
        }
    }

    <S extends Enum<S>, E extends Enum<E>> void recover(Registration<S, E> r, TaskRecord t, String why) {
        RunPolicy<S, E> p = r.policy;
        Command c = ctx.command().reason(why).expectVersion(t.version());
        S state = r.machine.state(t.state());
        if (p.recovery() == RunPolicy.Recovery.INTERRUPT && state != null && !r.machine.holdsLease(state)) {
            afterInterrupt(r, t, why);      // interrupted already: its recoverer died before putting it back
            return;
        }
        if (p.cancel() != null && ctx.store.cancelRequested(t.id())) {
            // Its cancellation was requested while it ran: the holder died before applying it.
            Outcome<S> cancelled = ctx.kernel.fire(r.machine, t.id(), p.cancel(), c.reason("cancellation requested; " + why), null);
            if (cancelled instanceof Outcome.Applied<S> a) {
                log.info("runtime {}: cancelled task {} on recovery ({})", ctx.owner, t.id(), why);
                ctx.events.recovered(t, a);
                return;
            }
        }
        if (p.recovery() != RunPolicy.Recovery.FAIL && t.attempts() >= p.maxAttempts()) {
            // Its attempts are used up (a worker that crashes its process every time): failed, not put back again.
            String used = "lease lost on attempt " + t.attempts() + " of " + p.maxAttempts() + "; " + why;
            Outcome<S> o = ctx.kernel.fire(r.machine, t.id(), Objects.requireNonNull(p.fatal()),
                    c.reason(used).error(new TaskError(ResultMapper.ATTEMPTS_EXHAUSTED, used, false, null)), null);
            if (o instanceof Outcome.Applied<S> a) {
                log.warn("runtime {}: failed task {} ({}): {}", ctx.owner, t.id(), r.machine.name(), used);
                ctx.events.recovered(t, a);
            } else {
                log.info("runtime {}: task {} was not failed after its last attempt: {}", ctx.owner, t.id(), o);
            }
            return;
        }
        Outcome<S> o;
        switch (p.recovery()) {
            case FAIL:
                o = ctx.kernel.fire(r.machine, t.id(), Objects.requireNonNull(p.fatal()),
                        c.error(new TaskError(ResultMapper.LEASE_EXPIRED, why, true, null)), null);
                break;
            case INTERRUPT:
                o = ctx.kernel.fire(r.machine, t.id(), Objects.requireNonNull(p.interrupt()), c,
                        (cur, next) -> next.lease(cur.lease()));      // the queue stays occupied until the task is put back
                if (o instanceof Outcome.Applied<S> a) afterInterrupt(r, a.task().record(), why);
                break;
            case REQUEUE:
            default:
                S back = state == null ? null : r.backTo(state);
                o = p.release() != null ? ctx.kernel.fire(r.machine, t.id(), p.release(), c, null)
                        : ctx.kernel.requeue(r.machine, t.id(), Objects.requireNonNull(back, "no state to requeue to"), ResultMapper.RELEASE, c, null);
        }
        log.info("runtime {}: recovered task {} ({}): {}", ctx.owner, t.id(), why, o.isApplied() ? "applied" : o);
        if (o instanceof Outcome.Applied<S> a) ctx.events.recovered(t, a);
    }

    /** Puts an interrupted task back at the front of its queue once, or fails it; either write ends its lease. */
    private <S extends Enum<S>, E extends Enum<E>> void afterInterrupt(Registration<S, E> r, TaskRecord task, String why) {
        RunPolicy<S, E> p = r.policy;
        int interruptions = interruptions(task);
        Command c = ctx.command().expectVersion(task.version());
        Outcome<S> o;
        if (p.autoRecover() && interruptions < 1 && task.attempts() < p.maxAttempts()) {
            long front = ctx.store.nextSequence(true);
            o = ctx.kernel.fire(r.machine, task.id(), Objects.requireNonNull(p.interruptRequeue()),
                    c.reason("automatic recovery after an interruption")
                            .set(TaskRuntime.ATTR_INTERRUPTIONS, Integer.toString(interruptions + 1)),
                    (cur, next) -> next.lease(null).sequence(front));
        } else {
            o = ctx.kernel.fire(r.machine, task.id(), Objects.requireNonNull(p.interruptFail()),
                    c.reason(!p.autoRecover() ? "interrupted; automatic recovery is off"
                                    : interruptions < 1 ? "interrupted on its last attempt (" + task.attempts() + " of " + p.maxAttempts() + ")"
                                    : "interrupted again after its automatic retry")
                            .error(new TaskError(ResultMapper.INTERRUPTED, "the task was interrupted by a crash", true, null)),
                    (cur, next) -> next.lease(null));
        }
        if (!o.isApplied()) log.warn("runtime {}: interrupted task {} ({}) was not put back: {}", ctx.owner, task.id(), why, o);
    }

    private static int interruptions(TaskRecord task) {
        String n = task.attributes().get(TaskRuntime.ATTR_INTERRUPTIONS);
        try {
            return n == null ? 0 : Integer.parseInt(n);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
