package dev.statekit.core.runtime;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.Task;
import dev.statekit.core.internal.Kernel;
import dev.statekit.core.ops.CancelResult;
import dev.statekit.core.ops.TaskOperations;
import dev.statekit.store.Lease;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cancellation asked of this runtime: requested through the operations (kept in the store, so
 * a recovery of the lease cancels the task too, and any runtime that holds it learns of it at its
 * heartbeat), then, for a task this runtime runs, its worker told at once; past the grace period
 * the cancel event is applied anyway and the worker fenced, when the runtime forces cancellations.
 */
final class Cancels {
    private static final Logger log = LoggerFactory.getLogger(TaskRuntime.class);

    private final RuntimeContext ctx;
    private final TaskOperations operations;

    Cancels(RuntimeContext ctx) {
        this.ctx = ctx;
        this.operations = TaskOperations.of(ctx.engine);
    }

    <S extends Enum<S>, E extends Enum<E>> CancelResult<S> cancel(Machine<S, E> machine, long taskId, Command command) {
        CancelResult<S> result = operations.cancel(machine, taskId, command);
        if (result.status() != CancelResult.Status.REQUESTED) return result;
        E cancel = Objects.requireNonNull(machine.cancelEvent());
        Lease lease = ctx.engine.find(machine, taskId).map(t -> t.record().lease()).orElse(null);
        if (lease == null) return result;      // it ended meanwhile: the request is moot
        @SuppressWarnings("unchecked")
        Run<S, E> local = (Run<S, E>) ctx.running.get(taskId);
        if (local != null && local.lease.fencingToken() == lease.fencingToken()) {
            local.cancelCommand = command;
            local.signal(Run.StopReason.CANCELLED);
        }
        long token = lease.fencingToken();
        ctx.timers.once(ctx.clock.now().plus(ctx.cancelGrace), () -> forceCancel(machine, taskId, token, cancel, command));
        return result;
    }

    private <S extends Enum<S>, E extends Enum<E>> void forceCancel(Machine<S, E> machine, long taskId, long token, E cancel, Command command) {
        Task<S> task = ctx.engine.find(machine, taskId).orElse(null);
        if (task == null) return;
        Lease lease = task.record().lease();
        if (lease == null || lease.fencingToken() != token) return;      // finished, or cancelled cooperatively
        if (!ctx.forceCancel) {
            log.warn("runtime {}: task {} did not stop within {} of its cancellation; it keeps running", ctx.owner, taskId, ctx.cancelGrace);
            return;
        }
        Outcome<S> o = ctx.kernel.fire(machine, taskId, cancel, command.reason("cancelled after the grace period")
                .expectVersion(task.version()), Kernel.givesBackOnCancel(machine, task.state(), cancel));
        log.info("runtime {}: task {} did not stop within {}; cancelled it: {}", ctx.owner, taskId, ctx.cancelGrace,
                o.isApplied() ? "applied" : o);
    }
}
