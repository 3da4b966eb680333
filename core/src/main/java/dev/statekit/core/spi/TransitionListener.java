package dev.statekit.core.spi;

import dev.statekit.store.HistoryEntry;
import dev.statekit.store.QueueRecord;
import dev.statekit.store.TaskRecord;
import org.jspecify.annotations.Nullable;

/**
 * Hears of every change the engine applied, after it was written. Called on the thread that
 * fired the command; a listener that throws is logged and changes nothing. Listeners must be
 * thread-safe and should be quick: hand slow work to an executor.
 */
@FunctionalInterface
public interface TransitionListener {
    /**
     * Called once per applied change (never for refusals or idempotent replays).
     *
     * @param machine the machine's name
     * @param task    the task after the change
     * @param entry   the history entry written with it
     */
    void onTransition(String machine, TaskRecord task, HistoryEntry entry);

    /**
     * Called once per task created (never when an idempotency key returned an existing task).
     * Does nothing by default.
     *
     * @param machine the machine's name
     * @param task    the new task, at version 0
     */
    default void onCreated(String machine, TaskRecord task) {}

    /**
     * Called once per change of a queue's control record made through this engine's operations
     * (pause, stop after current, resume, concurrency limit). Does nothing by default.
     *
     * @param queue the queue's record after the change
     * @param actor who changed it, or null for the system
     */
    default void onQueueChanged(QueueRecord queue, @Nullable String actor) {}
}
