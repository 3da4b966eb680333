package dev.statekit.core.runtime;

import dev.statekit.core.Outcome;
import dev.statekit.core.RunPolicy;

import dev.statekit.store.Lease;
import dev.statekit.store.StatekitException;
import dev.statekit.store.TaskRecord;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recovers tasks whose holder is gone, by each machine's {@link RunPolicy.Recovery}: expired
 * leases found at housekeeping, and at start the tasks this owner held before a restart. A task
 * whose cancellation was requested while it ran is cancelled instead. What each such task's end
 * means is the {@link Settlement} of its lost lease; this part writes its completions in order,
 * each when the one before was refused, and reports them.
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
            recover(r, t, "lease " + lease.fencingToken() + " of " + lease.owner() + " expired at " + lease.expiresAt(), now);
        }
    }

    /**
     * Recovers the tasks this owner held before a restart, at once; with {@code soleOwner} (this
     * process alone uses the store) every lease on a task of a registered machine, whoever held it.
     */
    void healRestart(boolean soleOwner) {
        for (TaskRecord t : ctx.store.leasedBy(ctx.owner, Integer.MAX_VALUE)) {
            Registration<?, ?> r = ctx.registrations.of(t);
            if (r != null) {
                log.info("task {} was held by {} before a restart; recovering it", t.id(), ctx.owner);
                recover(r, t, "restart of " + ctx.owner, ctx.clock.now());
            }
        }
        if (!soleOwner) return;
        Instant now = ctx.clock.now();
        Instant everyLease = now.plus(java.time.Duration.ofDays(36_500));     // every lease expires before then
        java.util.Set<Long> seen = new java.util.HashSet<>();
        while (true) {
            boolean progress = false;
            for (TaskRecord t : ctx.store.expiredLeases(ctx.registrations.machines(), everyLease, RuntimeContext.SCAN_BATCH)) {
                Registration<?, ?> r = ctx.registrations.of(t);
                if (r == null || !seen.add(t.id())) continue;      // a task recovery left leased is not tried again
                progress = true;
                Lease lease = Objects.requireNonNull(t.lease());
                log.info("task {} was held by {} when the sole owner of the store started; recovering it", t.id(), lease.owner());
                recover(r, t, "lease " + lease.fencingToken() + " of " + lease.owner() + " found at the start of the sole owner "
                        + ctx.owner, now);
            }
            if (!progress) return;
        }
    }

    /**
     * Gives back the tasks leased to this owner that no run of this runtime holds: those a claim
     * took whose answer was lost (the store committed it, the runtime heard only that the store was
     * unavailable), and those whose results could not be recorded. Each is recovered as an expired
     * lease would be (by its machine's recovery policy, at its version as read), now instead of
     * when its lease expires. Each is looked at again under its queue's claim turn, where a claim
     * of this runtime has either not yet reached the store or holds what it claimed in a run.
     *
     * @param underClaimTurn runs an action holding a queue's claim turn
     * @return false when the store failed for some of them (they are left for the next call)
     * @throws dev.statekit.store.StatekitException when the store cannot list them
     */
    boolean recoverUnheld(BiConsumer<String, Runnable> underClaimTurn) {
        Instant now = ctx.clock.now();
        boolean all = true;
        for (TaskRecord t : ctx.store.leasedBy(ctx.owner, Integer.MAX_VALUE)) {
            Registration<?, ?> r = ctx.registrations.of(t);
            if (r == null || ctx.running.containsKey(t.id())) continue;
            try {
                underClaimTurn.accept(t.queue(), () -> {
                    if (ctx.running.containsKey(t.id())) return;
                    Lease lease = Objects.requireNonNull(t.lease());
                    log.info("task {} is leased to {} with no run holding it; recovering it", t.id(), ctx.owner);
                    recover(r, t, "lease " + lease.fencingToken() + " of " + ctx.owner
                            + " held by no run (a claim's answer or a result was lost)", now);
                });
            } catch (StatekitException e) {
                // one task's failure (the store away again) does not keep the others waiting for their leases
                log.debug("runtime {}: task {} held by no run was not recovered this time: {}", ctx.owner, t.id(), e.getMessage());
                all = false;
            }
        }
        return all;
    }

    /** Recovers {@code t}, whose holder is gone ({@code why}), by the settlement of its lost lease. */
    <S extends Enum<S>, E extends Enum<E>> void recover(Registration<S, E> r, TaskRecord t, String why, Instant now) {
        S state = r.machine.state(t.state());
        boolean holding = state == null || r.machine.holdsLease(state);
        write(r, t, Settlement.settle(new Settlement.LeaseExpired(why, holding), r.policy, state == null ? null : r.backTo(state),
                facts(t, now)), why, now);
    }

    private Settlement.Facts facts(TaskRecord t, Instant now) {
        return new Settlement.Facts(t, ctx.command().expectVersion(t.version()), now, ctx::nextRandom, () -> ctx.store.cancelRequested(t.id()));
    }

    /** Writes {@code completions} of {@code t} in order until one is applied, reporting each. */
    private <S extends Enum<S>, E extends Enum<E>> void write(Registration<S, E> r, TaskRecord t, List<Settlement.Completion<S, E>> completions,
                                                              String why, Instant now) {
        for (Settlement.Completion<S, E> c : completions) {
            long front = c.adjustment() == Settlement.Adjustment.END_LEASE_AT_FRONT ? ctx.store.nextSequence(true) : 0;
            Outcome<S> o = ResultWriter.apply(ctx.kernel, r.machine, t.id(), c, front);
            report(r, t, c, o, why, now);
            if (o.isApplied()) return;
        }
    }

    private <S extends Enum<S>, E extends Enum<E>> void report(Registration<S, E> r, TaskRecord t, Settlement.Completion<S, E> c,
                                                               Outcome<S> o, String why, Instant now) {
        Settlement.Cause cause = c.cause();
        if (cause instanceof Settlement.CancelRequested) {
            // Its cancellation was requested while it ran: the holder died before applying it.
            if (o instanceof Outcome.Applied<S> a) {
                log.info("runtime {}: cancelled task {} on recovery ({})", ctx.owner, t.id(), why);
                ctx.events.recovered(t, a);
            }
        } else if (cause instanceof Settlement.AttemptsExhausted) {
            if (o instanceof Outcome.Applied<S> a) {
                log.warn("runtime {}: failed task {} ({}): {}", ctx.owner, t.id(), r.machine.name(), c.command().reason());
                ctx.events.recovered(t, a);
            } else {
                log.info("runtime {}: task {} was not failed after its last attempt: {}", ctx.owner, t.id(), o);
            }
        } else if (cause instanceof Settlement.Interrupted) {
            if (!o.isApplied()) log.warn("runtime {}: interrupted task {} ({}) was not put back: {}", ctx.owner, t.id(), why, o);
        } else {
            if (c.kind() == Settlement.Kind.INTERRUPT && o instanceof Outcome.Applied<S> a) {
                // Interrupted, still holding its lease: put back at the front of its queue once, or failed.
                TaskRecord interrupted = a.task().record();
                write(r, interrupted, Settlement.settle(new Settlement.Interrupted(Settlement.interruptions(interrupted)), r.policy, null,
                        facts(interrupted, now)), why, now);
            }
            log.info("runtime {}: recovered task {} ({}): {}", ctx.owner, t.id(), why, o.isApplied() ? "applied" : o);
            if (o instanceof Outcome.Applied<S> a) ctx.events.recovered(t, a);
        }
    }
}
