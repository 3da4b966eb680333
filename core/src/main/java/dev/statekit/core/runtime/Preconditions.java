package dev.statekit.core.runtime;

import dev.statekit.core.spi.Precondition;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.Page;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps tasks whose precondition does not hold out of the claim: the next tasks of a queue are
 * moved to the blocked state with the reason before a claim, and blocked tasks whose precondition
 * holds again go back at housekeeping, a page per round. Each move is one fire with the version it was read at.
 */
final class Preconditions {
    private final RuntimeContext ctx;
    /** Per registration, the id after which the next round re-checks blocked tasks; absent: from the start. */
    private final Map<Registration<?, ?>, Long> cursors = new ConcurrentHashMap<>();

    Preconditions(RuntimeContext ctx) {
        this.ctx = ctx;
    }

    /** Blocks those of the next {@code max} tasks {@code r} would claim whose precondition does not hold. */
    <S extends Enum<S>, E extends Enum<E>> void blockUnready(Registration<S, E> r, Instant now, int max) {
        Precondition check = Objects.requireNonNull(r.options.precondition());
        E block = r.policy.block();
        if (block == null) return;
        ClaimRequest next = new ClaimRequest(r.machine.name(), r.queue, r.rules, ctx.owner, now, ctx.leaseDuration, Math.max(1, max), 0);
        for (TaskRecord t : ctx.store.peek(next)) {
            String reason = check.blockedReason(t);
            if (reason != null) {
                ctx.kernel.fire(r.machine, t.id(), block, ctx.command().reason(reason)
                        .set(TaskRuntime.ATTR_BLOCKED_REASON, reason).expectVersion(t.version()), null);
            }
        }
    }

    /**
     * Unblocks the blocked tasks whose precondition holds now, one page of each registration with a
     * precondition per call, the next call going on where this one stopped.
     */
    void unblockReady() {
        for (Registration<?, ?> r : ctx.registrations.all()) {
            if (r.options.precondition() != null) unblockReady(r);
        }
    }

    private <S extends Enum<S>, E extends Enum<E>> void unblockReady(Registration<S, E> r) {
        Precondition check = Objects.requireNonNull(r.options.precondition());
        S blocked = r.policy.blockedState();
        E unblock = r.policy.unblock();
        if (blocked == null || unblock == null) return;
        TaskQuery q = TaskQuery.all().machine(r.machine.name()).queue(r.queue).states(List.of(blocked.name()))
                .limit(RuntimeContext.SCAN_BATCH);
        // One page a round, each round after the last: tasks that stay blocked never hide the ones
        // after them, and a round's work stays bounded however many tasks are blocked.
        Long after = cursors.get(r);
        Page<TaskRecord> page = ctx.store.query(after == null ? q : q.after(after));
        for (TaskRecord t : page.items()) {
            if (check.blockedReason(t) == null) {
                ctx.kernel.fire(r.machine, t.id(), unblock, ctx.command().reason("precondition holds")
                        .remove(TaskRuntime.ATTR_BLOCKED_REASON).expectVersion(t.version()), null);
            }
        }
        Long next = page.nextAfterId();
        if (next == null) cursors.remove(r);
        else cursors.put(r, next);
    }
}
