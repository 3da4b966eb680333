package dev.statekit.core.spi;

/**
 * Application code that processes one claimed task and reports a {@link WorkResult}.
 *
 * <p>The runtime calls {@link #work} on its executor while it holds the task's lease and renews
 * it. A worker should check {@link WorkContext#cancelled()} at safe points and return promptly
 * when it is set. A worker that throws is classified by the runtime's {@link ErrorClassifier}
 * (retryable or fatal) and never harms the runtime. A result that arrives after the lease was
 * lost is discarded. Workers must be thread-safe: several tasks may run at once.
 *
 * @param <S> the state type of the machine
 */
@FunctionalInterface
public interface Worker<S extends Enum<S>> {
    /**
     * Processes one task.
     *
     * @param context the task, its lease, the cancellation signal and progress reporting
     * @return the result
     * @throws Exception classified by the runtime's {@link ErrorClassifier}
     */
    WorkResult work(WorkContext<S> context) throws Exception;
}
