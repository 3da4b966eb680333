package dev.statekit.core.spi;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Code that sees each task created and each piece of work run, to carry a context from the one to
 * the other: a trace context from the request that created a task to the worker that runs it, in
 * whichever process that is ({@code statekit-opentelemetry} is one), or a tenant or request id
 * for the logs. Register one with {@code TransitionEngineBuilder.interceptor}; runtimes over the
 * engine use the engine's.
 *
 * <p>What the context is made of travels as attributes of the task, written with the task in the
 * same write, so it survives a restart and reaches any process that claims the task: the carrier is
 * the store, never memory. Both methods must be thread-safe and quick; neither may block on I/O.
 */
public interface TaskInterceptor {

    /**
     * Returns attributes to write with a task about to be created, on the thread that creates it
     * (an application's thread for a create, a worker's or a caller's for the children a parent's
     * change creates, a runtime's for a schedule's occurrence). An attribute the task's own
     * description already has wins over the one returned. Called before the write; a task whose
     * write is then refused, or whose transaction rolls back, does not exist, whatever this did.
     * Returns none by default.
     *
     * @param machine  the machine of the new task
     * @param parentId the parent of the new task, or null
     * @return the attributes to add; never null
     */
    default Map<String, String> onCreate(String machine, @Nullable Long parentId) {
        return Map.of();
    }

    /**
     * Runs one attempt of a claimed task: calls {@code work.run()} exactly once, on the calling
     * thread, and returns its result or throws what it throws. Called by the runtime on the
     * worker's thread, under the task's lease, with the task as claimed (its attributes carry what
     * {@link #onCreate} wrote). What this throws is classified as a worker's exception would be.
     * Calls {@code work} by default.
     *
     * @param context the claimed task, its lease and its cancellation signal
     * @param work    the worker's call (and the interceptors registered after this one)
     * @return the attempt's result
     * @throws Exception what the worker threw
     */
    default WorkResult aroundWork(WorkContext<?> context, Work work) throws Exception {
        return work.run();
    }

    /** One attempt of a worker, as {@link #aroundWork} is handed it. */
    @FunctionalInterface
    interface Work {
        /**
         * Runs the attempt.
         *
         * @return the worker's result
         * @throws Exception what the worker threw
         */
        WorkResult run() throws Exception;
    }
}
