package dev.statekit.core.spi;

/**
 * Hears what a {@link dev.statekit.core.runtime.TaskRuntime} does: each claim, each result it applies,
 * each recovery, each stage a task enters and each group resolved, as {@link RuntimeEvent}s with
 * their durations; the place to bridge to a metrics or tracing library. Registered with
 * {@code TaskRuntimeBuilder.listener}.
 *
 * <p>Called on the runtime's threads (a worker slot, a dispatch round, a caller firing an event),
 * after the change the event describes was written, never for a write the store or the table
 * refused. A listener that throws is logged at WARN and changes nothing. Listeners must be
 * thread-safe and quick: they run on the path of every task, so hand slow work to an executor.
 */
@FunctionalInterface
public interface RuntimeListener {
    /**
     * Called once per event, after its change was written.
     *
     * @param event what happened
     */
    void onEvent(RuntimeEvent event);
}
