package dev.statekit.examples;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;

import dev.statekit.core.Command;
import dev.statekit.core.Guard;
import dev.statekit.core.Machine;
import dev.statekit.core.RetryPolicy;
import dev.statekit.core.Verdict;
import java.time.Duration;

/**
 * The novel-proofer chunk: one slice of a proofreading job, from {@code pending} through
 * {@code processing} (with {@code retrying} as the automatic back-off inside one processing
 * attempt, not a retry queue) to {@code done} or {@code error}.
 *
 * <p>The seed's {@code retries} and {@code last_error_code} / {@code last_error_message} are the
 * task record's {@code retries()} and {@code lastError()}: an error report carries its error as
 * {@link Command#error()} (the guard {@value #ERROR_REPORTED} refuses one without, with
 * {@value #ERROR_MISSING}), the engine records it as the last error, and the runtime counts the
 * automatic retries. Later successes keep both: they are the chunk's diagnostic history, not a
 * current error. The only attribute is {@value #LLM_MODEL}. A manual retry of failed chunks
 * ({@link Event#RETRY_FAILED}) puts them back to {@code pending} to be scheduled again.
 *
 * <p>Run policy: a runtime claims pending chunks ({@link Event#START}) and retrying chunks whose
 * back-off is over ({@link Event#BACKOFF_DONE}), both into {@code processing}. A worker's success
 * is {@link Event#SUCCEED}, a retryable error {@link Event#RETRYABLE_ERROR} (the runtime sets the
 * not-before time of the next attempt by {@link #RETRY_POLICY}), a fatal error or the last retry's
 * error {@link Event#FAIL}. {@link Event#RELEASE} puts a chunk back to {@code pending}: it is the
 * release (graceful shutdown, snooze), the recovery of an expired lease and of a restart, and the
 * cancel event, so that stopping a chunk's work for a pause or a reset returns it to
 * {@code pending} rather than ending it. A worker's failure reaches the table as the error of the
 * runtime's command.
 */
public final class NovelProoferChunk {
    /** The name of the guard that makes an error report carry its error. */
    public static final String ERROR_REPORTED = "error-reported";
    /** The refusal code of an error report without an error. */
    public static final String ERROR_MISSING = "ERROR_MISSING";
    /** The attribute naming the model of the latest (or next) processing of the chunk. */
    public static final String LLM_MODEL = "llm_model";

    /**
     * The automatic retries of one processing: at most 3, after 1 s, 2 s, 4 s (at most 30 s), each
     * shortened by up to a fifth at random so that chunks limited at once do not retry at once.
     */
    public static final RetryPolicy RETRY_POLICY =
            RetryPolicy.exponential(3, Duration.ofSeconds(1), Duration.ofSeconds(30)).withJitter(0.2);

    /** The state of a chunk. */
    public enum State {
        /** Scheduled and waiting for a worker; no attempt running. */
        PENDING,
        /** A worker is processing the chunk. */
        PROCESSING,
        /** Backing off after a retryable LLM error, within the same processing. */
        RETRYING,
        /** Processed; the output passed validation and was written. */
        DONE,
        /** Failed: retries exhausted, a non-retryable error or a local exception. */
        ERROR
    }

    /** What happens to a chunk. */
    public enum Event {
        /** A worker starts processing. */
        START,
        /** The attempt (or one of its retries) succeeded and the output passed validation. */
        SUCCEED,
        /** A non-recoverable error, or the retries are exhausted. */
        FAIL,
        /** A retryable LLM error (429, 5xx, timeout): back off. */
        RETRYABLE_ERROR,
        /** The back-off elapsed: the next attempt starts. */
        BACKOFF_DONE,
        /** The user retries the failed chunks ({@code /retry-failed}). */
        RETRY_FAILED,
        /** Pause, reset or restart heal: the in-flight chunk goes back to pending. */
        RELEASE
    }

    /** An error report must carry its error, which becomes the chunk's last error. */
    private static final Guard<State> REPORTED = (task, command) ->
            Verdict.when(command.error() != null, ERROR_MISSING, "an error report needs its error (code and message)");

    /** The chunk machine. */
    public static final Machine<State, Event> MACHINE = Machine.builder("novel-proofer-chunk", State.class, Event.class)
            .version(1)
            .initial(State.PENDING)
            .terminal(State.DONE)
            .succeeded(State.DONE).failed(State.ERROR)
            .row(State.PENDING, Event.START, State.PROCESSING).by(SYSTEM).label("worker starts").add()
            .row(State.PROCESSING, Event.SUCCEED, State.DONE).by(SYSTEM).label("success, output validated").add()
            .row(State.PROCESSING, Event.FAIL, State.ERROR).by(SYSTEM).guard(ERROR_REPORTED, REPORTED)
                .label("non-retryable or max retries").add()
            .row(State.PROCESSING, Event.RETRYABLE_ERROR, State.RETRYING).by(SYSTEM).guard(ERROR_REPORTED, REPORTED)
                .label("retryable LLM error (429/5xx/timeout), back off").add()
            .row(State.RETRYING, Event.BACKOFF_DONE, State.PROCESSING).by(SYSTEM).label("backoff done, next attempt").add()
            .row(State.RETRYING, Event.SUCCEED, State.DONE).by(SYSTEM).label("a retry succeeded").add()
            .row(State.RETRYING, Event.FAIL, State.ERROR).by(SYSTEM).guard(ERROR_REPORTED, REPORTED).label("final failure").add()
            .row(State.ERROR, Event.RETRY_FAILED, State.PENDING).by(USER).label("manual /retry-failed").add()
            .row(State.PROCESSING, Event.RELEASE, State.PENDING).by(SYSTEM).label("pause, reset or restart heal").add()
            .row(State.RETRYING, Event.RELEASE, State.PENDING).by(SYSTEM).label("pause, reset or restart heal").add()
            .run(r -> r.claim(State.PENDING, Event.START)
                    .claim(State.RETRYING, Event.BACKOFF_DONE)
                    .success(Event.SUCCEED)
                    .retryable(Event.RETRYABLE_ERROR)
                    .fatal(Event.FAIL)
                    .release(Event.RELEASE)
                    .cancel(Event.RELEASE)
                    .recoverByRequeue()
                    .retry(RETRY_POLICY))
            .build();

    private NovelProoferChunk() {}
}
