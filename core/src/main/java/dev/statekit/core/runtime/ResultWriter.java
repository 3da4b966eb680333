package dev.statekit.core.runtime;

import dev.statekit.core.*;
import dev.statekit.core.internal.Kernel;

import dev.statekit.core.spi.RuntimeEvent;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the results of a batch through the engine, decided on the records the runtime holds
 * (one store write for the batch, no read), then settles what the table refused: a result the
 * machine refuses fails the task, or releases it, so that no task stays in a running state under
 * a lease nobody renews.
 */
final class ResultWriter {
    private static final Logger log = LoggerFactory.getLogger(TaskRuntime.class);

    private final Kernel kernel;
    private final String owner;
    private final Consumer<Instant> wakeAt;
    private final RuntimeEvents events;

    ResultWriter(Kernel kernel, String owner, Consumer<Instant> wakeAt, RuntimeEvents events) {
        this.kernel = kernel;
        this.owner = owner;
        this.wakeAt = wakeAt;
        this.events = events;
    }

    /** Writes {@code done}; a store failure is logged, and the tasks' leases are left to recovery. */
    <S extends Enum<S>, E extends Enum<E>> void write(List<ResultMapper.Completion<S, E>> done) {
        try {
            List<Kernel.Fire<?, ?>> requests = new ArrayList<>(done.size());
            List<ResultMapper.Completion<S, E>> fired = new ArrayList<>(done.size());
            for (ResultMapper.Completion<S, E> c : done) {
                E event = c.event();
                S back = c.requeueTo();
                if (back != null) {            // the runtime's own move, without a row: one write of its own
                    after(c, kernel.requeue(c.run().reg.machine, c.run().id(), back, c.eventName(), c.command(), c.adjust()));
                } else {
                    requests.add(new Kernel.Fire<>(c.run().reg.machine, c.run().id(), Objects.requireNonNull(event),
                            c.command(), c.adjust(), c.run().task.record()));
                    fired.add(c);
                }
            }
            List<Outcome<?>> outcomes = requests.isEmpty() ? List.of() : kernel.fireEach(requests);
            for (int i = 0; i < fired.size(); i++) {
                @SuppressWarnings("unchecked")
                Outcome<S> o = (Outcome<S>) outcomes.get(i);
                after(fired.get(i), o);
            }
        } catch (RuntimeException e) {
            log.warn("runtime {}: could not record the results of {} task(s); their leases will be recovered", owner, done.size(), e);
        }
    }

    private <S extends Enum<S>, E extends Enum<E>> void after(ResultMapper.Completion<S, E> c, Outcome<S> outcome) {
        if (outcome instanceof Outcome.Refused<S> refused) {
            if (refused.code() == RefusalCode.LEASE_LOST) {
                log.info("runtime {}: result of task {} discarded: {}", owner, c.run().id(), refused.message());
            } else {
                settleRefused(c.run(), refused, c.base());
            }
        } else if (outcome instanceof Outcome.Applied<S> applied) {
            RuntimeEvent.Kind kind = events.completed(c, applied);
            if (kind == RuntimeEvent.Kind.FAILED) logFailed(c.run(), applied);
            else if (kind == RuntimeEvent.Kind.RETRIED && log.isDebugEnabled()) logRetried(c.run(), applied);
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
     * The machine refused the event a result maps to (a guard said no): the task fails; if even
     * that is refused, it is released; if that is refused too, lease recovery takes it.
     */
    private <S extends Enum<S>, E extends Enum<E>> void settleRefused(Run<S, E> run, Outcome.Refused<S> refused, Command base) {
        RunPolicy<S, E> p = run.reg.policy;
        long id = run.id();
        log.warn("runtime {}: result of task {} was refused ({}); failing the task", owner, id, refused.message());
        TaskError error = new TaskError(ResultMapper.RESULT_REFUSED, refused.reasonCode() + ": " + refused.message(), false, null);
        Command settle = base.reason("result refused").error(error);
        Outcome<S> failed = kernel.fire(run.reg.machine, id, Objects.requireNonNull(p.fatal()), settle, null);
        if (failed instanceof Outcome.Applied<S> applied) {
            events.failedInstead(run, applied);     // logged above
            return;
        }
        E release = p.release();
        if (release != null && kernel.fire(run.reg.machine, id, release, settle, null).isApplied()) return;
        S back = run.reg.backTo(run.task.state());
        if (release == null && back != null
                && kernel.requeue(run.reg.machine, id, back, ResultMapper.RELEASE, settle, null).isApplied()) return;
        log.warn("runtime {}: task {} could be neither failed nor released; lease recovery will take it", owner, id);
    }
}
