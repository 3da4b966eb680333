package dev.statekit.core.internal;

import dev.statekit.store.TaskRecord;

/**
 * Adjusts the record a change writes beyond state and attributes (lease, counters, schedule, place
 * in the queue): the runtime's part of a change the engine decides. Not API.
 */
@FunctionalInterface
public interface Adjust {
    /** Gives the attempt of a task stopped from outside back (a snooze, a graceful stop, a cancellation to be run again). */
    Adjust GIVE_BACK_ATTEMPT = (cur, next) -> next.attempts(Math.max(0, cur.attempts() - 1));

    /** Sets on {@code next} what the change writes beyond the row's state and attributes, from {@code current}. */
    void adjust(TaskRecord current, TaskRecord.Builder next);
}
