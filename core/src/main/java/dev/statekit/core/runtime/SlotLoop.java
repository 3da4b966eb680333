package dev.statekit.core.runtime;

import dev.statekit.core.Ending;

import dev.statekit.core.spi.Cancellable;
import dev.statekit.core.spi.TaskInterceptor;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.TaskError;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs batches on one worker slot: each task's worker, then the batch's results written together;
 * then further batches of the same registration while any are runnable, for one poll interval at
 * most when other registrations share the runtime (then the slot goes back to the dispatcher, so a
 * busy queue cannot starve the others). The slot is given back whatever a worker throws.
 *
 * <p>Adaptive batches ({@link RuntimeContext#adaptiveBatches}): a slot starts with one task, doubles
 * its claim (up to the batch size) after a full batch that ran within {@link RuntimeContext#BATCH_WINDOW}
 * on the clock, and halves it after one that took longer. Short tasks are claimed many at once, so
 * one claim serves many tasks; long tasks are claimed one at a time, and a task claimed ahead waits
 * for about two windows at most. Each result of an adaptive batch is written when its worker returns.
 */
final class SlotLoop {
    private static final Logger log = LoggerFactory.getLogger(TaskRuntime.class);

    private final RuntimeContext ctx;
    private final Dispatcher dispatcher;
    private final ResultWriter writer;

    SlotLoop(RuntimeContext ctx, Dispatcher dispatcher, ResultWriter writer) {
        this.ctx = ctx;
        this.dispatcher = dispatcher;
        this.writer = writer;
    }

    /**
     * Runs {@code first}, claimed with room for {@code size} tasks, and the batches after it on the
     * slot the caller reserved; gives the slot back at the end.
     */
    <S extends Enum<S>, E extends Enum<E>> void run(Registration<S, E> r, List<Run<S, E>> first, int size) {
        List<Run<S, E>> batch = first;
        Instant yieldAt = ctx.registrations.size() > 1 ? ctx.clock.now().plus(ctx.pollInterval) : null;
        try {
            while (!batch.isEmpty()) {
                Instant began = ctx.adaptiveBatches ? ctx.clock.now() : null;
                runBatch(batch);
                if (began != null) size = nextSize(size, batch.size(), Duration.between(began, ctx.clock.now()));
                batch = next(r, yieldAt, size);
            }
        } finally {      // a batch leaves the running map in runBatch, whatever happens there
            dispatcher.release();
            dispatcher.requestDispatch();
            dispatcher.idle();
        }
    }

    /** The size of an adaptive slot's next claim, after a batch of {@code ran} tasks claimed with room for {@code size} took {@code took}. */
    int nextSize(int size, int ran, Duration took) {
        if (took.compareTo(RuntimeContext.BATCH_WINDOW) > 0) return Math.max(1, size / 2);
        return ran >= size ? Math.min(ctx.batchSize, size * 2) : size;
    }

    private <S extends Enum<S>, E extends Enum<E>> void runBatch(List<Run<S, E>> batch) {
        if (ctx.adaptiveBatches) {
            runEach(batch);
            return;
        }
        boolean unrecorded = false;
        try {
            List<ResultWriter.Ending<S, E>> done = new ArrayList<>(batch.size());
            for (Run<S, E> run : batch) {
                WorkResult result = work(run);
                holdIfRateLimited(run, result);
                Instant now = ctx.clock.now();
                run.finished(now);
                done.add(writer.settle(run, result, now));
            }
            unrecorded = !ctx.life.halted() && !writer.write(done);
        } finally {
            for (Run<S, E> run : batch) {
                ctx.running.remove(run.id(), run);
                ctx.completed.incrementAndGet();
            }
            if (unrecorded) ctx.unheldLeases.set(true);     // once no run holds them
        }
    }

    /**
     * Runs an adaptive batch: each task's result is written as soon as its worker returns, so a
     * finished task never waits for the workers after it in its batch.
     */
    private <S extends Enum<S>, E extends Enum<E>> void runEach(List<Run<S, E>> batch) {
        int i = 0;
        try {
            for (; i < batch.size(); i++) {
                Run<S, E> run = batch.get(i);
                boolean unrecorded = false;
                try {
                    WorkResult result = work(run);
                    holdIfRateLimited(run, result);
                    Instant now = ctx.clock.now();
                    run.finished(now);
                    ResultWriter.Ending<S, E> done = writer.settle(run, result, now);
                    unrecorded = !ctx.life.halted() && !writer.write(List.of(done));
                } finally {
                    ctx.running.remove(run.id(), run);
                    ctx.completed.incrementAndGet();
                    if (unrecorded) ctx.unheldLeases.set(true);     // once no run holds it
                }
            }
        } finally {      // after a failure at i, the runs behind it leave too (their leases are left to recovery)
            for (int j = i + 1; j < batch.size(); j++) {
                ctx.running.remove(batch.get(j).id(), batch.get(j));
                ctx.completed.incrementAndGet();
            }
        }
    }

    /**
     * A rate-limited answer holds its rate key at once, under its queue's claim turn, before the
     * run's end is timed: a claim of this runtime then either read the clock before that time or
     * sees the hold, so no other task of the key starts here after the answer. (Another process's
     * claim sees the hold once it is written.)
     */
    private void holdIfRateLimited(Run<?, ?> run, WorkResult result) {
        if (result instanceof WorkResult.Snooze z && z.rateLimited() && !ctx.life.halted()) {
            dispatcher.withClaimTurn(run.reg.queue, () -> writer.holdAtOnce(run, z, ctx.clock.now()));
        }
    }

    /** Claims the next batch of {@code r} for this slot, or none when the runtime stops, the slot should yield, or the claim fails. */
    private <S extends Enum<S>, E extends Enum<E>> List<Run<S, E>> next(Registration<S, E> r, @Nullable Instant yieldAt, int size) {
        if (!ctx.life.running() || (yieldAt != null && !ctx.clock.now().isBefore(yieldAt))) return List.of();
        ctx.life.enter();
        try {
            // A stop between the test above and this claim waits for it; the tasks it claims then
            // are given back before they start (see Dispatcher#claimBatch).
            return ctx.life.running() ? dispatcher.claimBatch(r, ctx.clock.now(), size) : List.of();
        } catch (RuntimeException e) {
            log.warn("runtime {}: claim on queue {} failed: {}", ctx.owner, r.queue, e.toString());
            return List.of();
        } finally {
            ctx.life.exit();
        }
    }

    /** What a timed attempt's timers may still do to its thread. */
    private static final class Deadline {
        boolean finished;
        boolean interrupted;
    }

    /**
     * Runs the worker of {@code run} under its run policy's timeout, if any: past the deadline the
     * run is signalled ({@code TIMEOUT}), after the cancel grace its thread is interrupted, and the
     * attempt is settled as a {@link Settlement.Timeout} whatever the worker returns.
     */
    private <S extends Enum<S>, E extends Enum<E>> WorkResult work(Run<S, E> run) {
        if (ctx.events.listening) run.began = ctx.clock.now();      // a run time only listeners are told
        Duration timeout = run.reg.policy.timeout();
        if (timeout == null) return call(run);
        Instant deadline = ctx.clock.now().plus(timeout);
        run.deadline = deadline;
        Thread thread = Thread.currentThread();
        Deadline state = new Deadline();
        Cancellable stop = ctx.clock.schedule(deadline, () -> run.signal(Run.StopReason.TIMEOUT));
        Cancellable interrupt = ctx.clock.schedule(deadline.plus(ctx.cancelGrace), () -> {
            synchronized (state) {
                if (state.finished) return;
                state.interrupted = true;
            }
            log.warn("runtime {}: task {} ran past its timeout of {} and the grace of {}; interrupting its worker", ctx.owner,
                    run.id(), timeout, ctx.cancelGrace);
            thread.interrupt();
        });
        WorkResult result;
        try {
            result = call(run);
        } finally {
            boolean interrupted;
            synchronized (state) {
                state.finished = true;
                interrupted = state.interrupted;
            }
            stop.cancel();
            interrupt.cancel();
            if (interrupted) Thread.interrupted();      // the slot's thread goes on without the interrupt
        }
        if (run.stopReason() == Run.StopReason.TIMEOUT) log.info("runtime {}: task {} timed out after {}", ctx.owner, run.id(), timeout);
        return result;
    }

    /**
     * Calls the worker of {@code run} inside the engine's interceptors; whatever they throw, an
     * {@code Error} included, becomes a failure.
     */
    private <S extends Enum<S>, E extends Enum<E>> WorkResult call(Run<S, E> run) {
        try {
            WorkResult result = intercepted(run, 0);
            return result != null ? result : WorkResult.fatal(Settlement.NO_RESULT, "the worker returned no result");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return WorkResult.retryable(Settlement.INTERRUPTED, "the worker was interrupted");
        } catch (Throwable e) {      // an Error past work() must not take the slot or leave the task running
            return classify(run, e);
        }
    }

    /** Runs the interceptors from {@code index} on around the worker of {@code run}. */
    private <S extends Enum<S>, E extends Enum<E>> WorkResult intercepted(Run<S, E> run, int index) throws Exception {
        List<TaskInterceptor> interceptors = ctx.kernel.interceptors();
        if (index == interceptors.size()) return run.reg.worker.work(run);
        return interceptors.get(index).aroundWork(run, () -> intercepted(run, index + 1));
    }

    private WorkResult classify(Run<?, ?> run, Throwable e) {
        WorkResult.Failure f;
        try {
            f = Objects.requireNonNull(ctx.classifier.classify(e));
        } catch (RuntimeException broken) {
            log.warn("error classifier failed on {}; treating it as fatal", e, broken);
            f = new WorkResult.Failure(Settlement.WORKER_ERROR, String.valueOf(e), false, null);
        }
        if (f.detail() == null) f = f.withDetail(stackTrace(e));
        if (e instanceof Error) {
            log.warn("worker of task {} threw {}; classified {} {}", run.id(), e, f.code(), f.retryable() ? "retryable" : "fatal", e);
        } else {
            log.debug("worker of task {} threw {}; classified {} {}", run.id(), e.toString(), f.code(), f.retryable() ? "retryable" : "fatal");
        }
        return f;
    }

    /** The most frames of one exception of a cause chain that a recorded stack trace shows, {@value}. */
    static final int TRACE_FRAMES = 24;

    /**
     * Returns the stack trace of {@code e} and its causes, as {@link Throwable#printStackTrace()}
     * writes it but with at most {@link #TRACE_FRAMES} frames of each exception, so that the causes
     * fit in {@link TaskError#MAX_DETAIL} characters (the error record cuts what is longer).
     */
    static String stackTrace(Throwable e) {
        StringBuilder b = new StringBuilder();
        java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        String prefix = "";
        for (Throwable t = e; t != null && seen.add(t) && b.length() <= TaskError.MAX_DETAIL; t = t.getCause()) {
            b.append(prefix).append(describe(t)).append('\n');
            StackTraceElement[] frames = t.getStackTrace();
            int shown = Math.min(frames.length, TRACE_FRAMES);
            for (int i = 0; i < shown; i++) b.append("\tat ").append(frames[i]).append('\n');
            if (frames.length > shown) b.append("\t... ").append(frames.length - shown).append(" more\n");
            prefix = "Caused by: ";
        }
        return b.toString();
    }

    private static String describe(Throwable t) {
        try {
            return t.toString();
        } catch (RuntimeException broken) {      // a toString that throws must not lose the failure
            return t.getClass().getName();
        }
    }
}
