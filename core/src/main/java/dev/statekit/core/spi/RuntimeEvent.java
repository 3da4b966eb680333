package dev.statekit.core.spi;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One thing a {@link dev.statekit.core.runtime.TaskRuntime} did to one task, as a {@link RuntimeListener}
 * hears it: its {@link Kind}, the task, the change written, and the duration the kind measures.
 * Times and durations are on the engine's {@link Clock}.
 *
 * @param kind      what happened
 * @param machine   the task's machine
 * @param queue     the queue the runtime served the task on (for {@link Kind#STAGE_CHANGED}, the
 *                  queue of the stage entered; for {@link Kind#GROUP_RESOLVED}, the owner's queue)
 * @param taskId    the task (for {@link Kind#GROUP_RESOLVED}, the group's owner)
 * @param from      the task's state before the change
 * @param state     the task's state after it (the same as {@code from} when a group was resolved
 *                  without a change of its owner: a dependent released to run)
 * @param event     the event written in the task's history ({@code RETRY} or {@code RELEASE} for the
 *                  runtime's own moves); for {@link Kind#GROUP_RESOLVED}, the group's resolution
 * @param attempt   for {@link Kind#CLAIMED} and a worker's result, the attempt that ran (counting from 1);
 *                  else the task's attempts after the change (0 after entering a stage, which counts its own)
 * @param duration  what the kind measures (see {@link Kind}); null for {@link Kind#STAGE_CHANGED}
 * @param errorCode the code of the error the change wrote, for {@link Kind#FAILED}, {@link Kind#RETRIED},
 *                  {@link Kind#TIMED_OUT} and a {@link Kind#RECOVERED} that failed the task; else null
 * @param stage     for {@link Kind#STAGE_CHANGED}, the stage entered; else null
 * @param at        when the change was written (the time of its history entry)
 */
public record RuntimeEvent(Kind kind, String machine, String queue, long taskId, String from, String state, String event,
                           int attempt, @Nullable Duration duration, @Nullable String errorCode, @Nullable String stage, Instant at) {

    /** What happened. */
    public enum Kind {
        /**
         * A worker slot of this runtime claimed the task. Duration: how long the task had been
         * ready (from the later of its last change and its not-before time) until the claim,
         * including any time a paused or full queue kept it back.
         */
        CLAIMED,
        /** The worker's success was written. Duration: how long the worker ran. */
        SUCCEEDED,
        /**
         * A failure that ends the task was written: a fatal failure, a retryable one past its
         * retries or its stage's attempts, or a result the machine refused (the task failed
         * instead). Duration: how long the worker ran.
         */
        FAILED,
        /** A retryable failure was written and the task will run again after its back-off. Duration: how long the worker ran. */
        RETRIED,
        /**
         * The attempt ran past its run policy's timeout; reported before the {@link #RETRIED} or
         * {@link #FAILED} that its timeout failure led to. Duration: how long the worker ran.
         */
        TIMED_OUT,
        /**
         * The task's holder was gone (its lease expired, or this owner restarted) and this runtime
         * recovered it by its machine's recovery policy: put it back, interrupted it, failed it (then
         * with the error code written, such as {@code LEASE_EXPIRED} or {@code ATTEMPTS_EXHAUSTED}),
         * or cancelled it when that had been requested. Duration: from the lease's expiry to the
         * recovery (zero when recovered before the expiry, at a restart).
         */
        RECOVERED,
        /**
         * A change written by this process moved the task into another stage of its machine.
         * Duration: none.
         */
        STAGE_CHANGED,
        /**
         * A resolution pass of this runtime resolved the group the task owns: its children ended
         * (or failed fast), or its dependencies did. Duration: how long the owner had waited since
         * its last change before the resolution.
         */
        GROUP_RESOLVED;

        /** Returns the kind's name in lower case ({@code "timed_out"}), ready for a metric's tag. */
        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * Creates an event.
     *
     * @throws NullPointerException if a non-nullable component is null
     */
    public RuntimeEvent {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(at, "at");
    }
}
