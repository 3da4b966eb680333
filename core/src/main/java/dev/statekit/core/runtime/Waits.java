package dev.statekit.core.runtime;

import dev.statekit.store.TaskRecord;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Fires the run policy's wait events (a task waiting in a state until its not-before time, such as
 * a back-off) once they are due, and finds the next time anything of this runtime falls due.
 */
final class Waits {
    private final RuntimeContext ctx;

    Waits(RuntimeContext ctx) {
        this.ctx = ctx;
    }

    /** Fires the wait event of every task whose wait is over at {@code now}. */
    void fireDue(Instant now) {
        for (Registration<?, ?> r : ctx.registrations.onePerMachine()) fireDue(r, now);
    }

    private <S extends Enum<S>, E extends Enum<E>> void fireDue(Registration<S, E> r, Instant now) {
        if (r.policy.waits().isEmpty()) return;
        for (TaskRecord t : ctx.store.due(r.machine.name(), r.waitStates, now, RuntimeContext.SCAN_BATCH)) {
            S state = r.machine.state(t.state());
            E event = state == null ? null : r.policy.waits().get(state);
            if (event == null) continue;
            ctx.kernel.fire(r.machine, t.id(), event, ctx.command().reason("wait over").expectVersion(t.version()), null);
        }
    }

    /** Returns the earliest not-before time after {@code now} of a claimable or waiting task, or null. */
    @Nullable Instant nextDue(Instant now) {
        Instant earliest = null;
        for (Registration<?, ?> r : ctx.registrations.all()) {
            Instant due = ctx.store.nextDue(r.machine.name(), r.timedStates, now);
            if (due != null && (earliest == null || due.isBefore(earliest))) earliest = due;
        }
        return earliest;
    }
}
