package dev.statekit.core.runtime;

import dev.statekit.core.*;
import dev.statekit.core.internal.Kernel;

import dev.statekit.store.Lease;
import dev.statekit.store.Page;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's commands: pause, stop after current, resume, cancel, retry, retry all, move to
 * the front, set priority, move before. All but cancellation write only through the store and the
 * engine; a retry that places its task writes the new place with the transition, in one write.
 */
final class Control {
    private static final Logger log = LoggerFactory.getLogger(TaskRuntime.class);

    /** Pause reasons a queue record carries. */
    static final String PAUSED = "PAUSED";
    static final String STOP_AFTER_CURRENT = "STOP_AFTER_CURRENT";

    private final RuntimeContext ctx;
    private final Runnable wake;

    /** @param wake asks the runtime for a dispatch round (work may have become runnable) */
    Control(RuntimeContext ctx, Runnable wake) {
        this.ctx = ctx;
        this.wake = wake;
    }

    void pause(String queue, String reason) {
        ctx.store.pauseQueue(queue, reason);
        log.info("queue {} paused ({})", queue, reason);
    }

    void resume(String queue) {
        ctx.store.resumeQueue(queue);
        log.info("queue {} resumed", queue);
        wake.run();
    }

    <S extends Enum<S>, E extends Enum<E>> CancelResult<S> cancel(Machine<S, E> machine, long taskId, Command command) {
        E cancel = machine.cancelEvent();
        if (cancel == null) throw new IllegalArgumentException("machine " + machine.name() + " declares no cancel event");
        Task<S> task = ctx.engine.find(machine, taskId).orElse(null);
        if (task == null || task.record().lease() == null || !machine.permits(task.state(), cancel)) {
            Outcome<S> o = ctx.kernel.fire(machine, taskId, cancel, command, null);
            return new CancelResult<>(o.isApplied() ? CancelResult.Status.CANCELLED : CancelResult.Status.REFUSED, o);
        }
        Outcome.Refused<S> forbidden = ctx.kernel.forbidden(machine, task.record(), cancel, command);
        if (forbidden != null) return new CancelResult<>(CancelResult.Status.REFUSED, forbidden);
        Lease lease = Objects.requireNonNull(task.record().lease());
        @SuppressWarnings("unchecked")
        Run<S, E> local = (Run<S, E>) ctx.running.get(taskId);
        ctx.store.requestCancel(taskId);      // kept in the store, so a recovery of the lease cancels the task too
        if (local != null && local.lease.fencingToken() == lease.fencingToken()) {
            local.cancelCommand = command;
            local.signal(Run.StopReason.CANCELLED);
        }
        ctx.timers.once(ctx.clock.now().plus(ctx.cancelGrace), () -> forceCancel(machine, taskId, lease.fencingToken(), cancel, command));
        return new CancelResult<>(CancelResult.Status.REQUESTED, null);
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

    <S extends Enum<S>, E extends Enum<E>> Outcome<S> retry(Machine<S, E> machine, long taskId, E retryEvent, boolean front,
                                                            Command command) {
        long sequence = ctx.store.nextSequence(front);
        return ctx.kernel.fire(machine, taskId, retryEvent, command, (cur, next) -> next.retries(0).attempts(0).notBefore(null).sequence(sequence));
    }

    <S extends Enum<S>, E extends Enum<E>> List<Outcome<S>> retryAll(Machine<S, E> machine, S state, E retryEvent,
            @Nullable Long parentId, @Nullable String queue, boolean front, Command command) {
        TaskQuery q = TaskQuery.all().machine(machine.name()).states(List.of(state.name())).limit(TaskQuery.MAX_LIMIT);
        if (parentId != null) q = q.parent(parentId);
        if (queue != null) q = q.queue(queue);
        List<TaskRecord> found = all(q);
        found.sort(Comparator.comparingInt(TaskRecord::priority).reversed().thenComparingLong(TaskRecord::sequence));
        long[] sequences = new long[found.size()];
        if (front) {
            for (int i = found.size() - 1; i >= 0; i--) sequences[i] = ctx.store.nextSequence(true);
        } else {
            for (int i = 0; i < found.size(); i++) sequences[i] = ctx.store.nextSequence(false);
        }
        List<Outcome<S>> outcomes = new ArrayList<>(found.size());
        for (int i = 0; i < found.size(); i++) {
            TaskRecord t = found.get(i);
            long sequence = sequences[i];
            outcomes.add(ctx.kernel.fire(machine, t.id(), retryEvent, command.expectVersion(t.version()),
                    (cur, next) -> next.retries(0).attempts(0).notBefore(null).sequence(sequence)));
        }
        return outcomes;
    }

    boolean moveToFront(long taskId) {
        TaskRecord t = ctx.store.find(taskId).orElse(null);
        if (t == null) return false;
        boolean moved = ctx.store.reorder(taskId, t.priority(), ctx.store.nextSequence(true));
        wake.run();
        return moved;
    }

    boolean setPriority(long taskId, int priority) {
        TaskRecord t = ctx.store.find(taskId).orElse(null);
        if (t == null) return false;
        boolean changed = ctx.store.reorder(taskId, priority, t.sequence());
        wake.run();
        return changed;
    }

    boolean moveBefore(long taskId, long beforeId) {
        TaskRecord moved = ctx.store.find(taskId).orElse(null);
        TaskRecord before = ctx.store.find(beforeId).orElse(null);
        if (moved == null || before == null || taskId == beforeId) return false;
        if (moved.lease() != null || before.lease() != null) return false;      // a running task has no place in the queue
        if (!moved.machine().equals(before.machine()) || !moved.queue().equals(before.queue()) || moved.priority() != before.priority()) {
            throw new IllegalArgumentException("tasks " + taskId + " and " + beforeId + " are not in one machine, queue and priority");
        }
        List<TaskRecord> peers = new ArrayList<>();
        for (TaskRecord t : all(TaskQuery.all().machine(moved.machine()).queue(moved.queue()).limit(TaskQuery.MAX_LIMIT))) {
            if (t.priority() == moved.priority() && t.lease() == null) peers.add(t);
        }
        peers.sort(Comparator.comparingLong(TaskRecord::sequence));
        long lo = Math.min(moved.sequence(), before.sequence());
        long hi = Math.max(moved.sequence(), before.sequence());
        List<TaskRecord> span = new ArrayList<>();
        for (TaskRecord t : peers) if (t.sequence() >= lo && t.sequence() <= hi) span.add(t);
        List<Long> numbers = new ArrayList<>();
        for (TaskRecord t : span) numbers.add(t.sequence());
        span.removeIf(t -> t.id() == taskId);
        int at = 0;
        while (at < span.size() && span.get(at).id() != beforeId) at++;
        span.add(at, moved);
        for (int i = 0; i < span.size(); i++) {
            if (span.get(i).sequence() != numbers.get(i)) ctx.store.reorder(span.get(i).id(), span.get(i).priority(), numbers.get(i));
        }
        return true;
    }

    /** Returns every task matching {@code q}, page after page. */
    private List<TaskRecord> all(TaskQuery q) {
        List<TaskRecord> found = new ArrayList<>();
        for (Page<TaskRecord> page = ctx.store.query(q); ; page = ctx.store.query(q.after(Objects.requireNonNull(page.nextAfterId())))) {
            found.addAll(page.items());
            if (!page.hasNext()) break;
        }
        return found;
    }
}
