package dev.statekit.core.runtime;

import dev.statekit.store.RenewResult;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews the leases of the runs this runtime holds, and tells a run's worker when its lease was
 * lost (it expired, another process holds it) or its cancellation was requested elsewhere; first
 * refreshes the runtime's process record.
 */
final class Heartbeats implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(TaskRuntime.class);

    private final RuntimeContext ctx;
    private final @Nullable ProcessRecords process;

    /** Renews leases only, with no process record to refresh. */
    Heartbeats(RuntimeContext ctx) {
        this(ctx, null);
    }

    Heartbeats(RuntimeContext ctx, @Nullable ProcessRecords process) {
        this.ctx = ctx;
        this.process = process;
    }

    @Override
    public void run() {
        Instant now = ctx.clock.now();
        if (process != null) process.beat(now);
        Instant until = now.plus(ctx.leaseDuration);
        for (Run<?, ?> run : ctx.running.values()) {
            Instant deadline = run.deadline;
            // Past its timeout and the grace, an attempt's lease runs out: another process takes the task over.
            if (deadline != null && now.isAfter(deadline.plus(ctx.cancelGrace))) continue;
            RenewResult r;
            try {
                r = ctx.store.renew(run.id(), run.lease.fencingToken(), now, until);
            } catch (RuntimeException e) {
                log.warn("runtime {}: could not renew the lease of task {}: {}", ctx.owner, run.id(), e.toString());
                continue;
            }
            if (r == RenewResult.LOST) {
                log.info("runtime {}: lost the lease of task {}", ctx.owner, run.id());
                run.signal(Run.StopReason.LEASE_LOST);
            } else if (r == RenewResult.RENEWED_CANCEL_REQUESTED) {
                run.signal(Run.StopReason.CANCELLED);
            }
        }
    }
}
