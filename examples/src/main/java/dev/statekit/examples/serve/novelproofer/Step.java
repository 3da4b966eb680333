package dev.statekit.examples.serve.novelproofer;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;

import dev.statekit.core.Machine;
import dev.statekit.core.RetryPolicy;
import java.time.Duration;

/**
 * A background step of a job that the seed's pool runs: the start of a queued job (validation, or
 * processing again after {@code /retry-failed}) or the merge a user asked for. A step is a task of
 * its own so that it runs under a lease: a process that dies in the middle of one leaves it to the
 * next process, which runs it again (every step is safe to run again: the job's changes expect the
 * version they were decided on, and the output file is written once).
 *
 * <p>A step is created with an idempotency key naming the job and what it does ({@link #startKey},
 * {@link #mergeKey}), so that asking for it again, from a request or from the service's sweep in
 * any process, creates it once.
 */
final class Step {
    /** The queue of the steps. */
    static final String QUEUE = "novel-proofer-steps";
    /** The attribute naming the step's job. */
    static final String JOB = "job";
    /** The attribute naming what the step does: {@value #START} or {@value #MERGE}. */
    static final String KIND = "kind";
    /** The attribute naming the user the step acts for. */
    static final String ACTOR = "actor";
    /** Kind: start a queued job. */
    static final String START = "start";
    /** Kind: merge a job's output. */
    static final String MERGE = "merge";

    /** A failed step is retried automatically 8 times, after 1 s, 2 s, 4 s … at most 30 s. */
    static final RetryPolicy RETRY_POLICY = RetryPolicy.exponential(8, Duration.ofSeconds(1), Duration.ofSeconds(30)).withJitter(0.2);

    /** The state of a step. */
    enum State {
        /** Waiting for a worker (or for its back-off after a failure). */
        PENDING,
        /** A worker runs it. */
        RUNNING,
        /** Done. */
        DONE,
        /** Failed after its retries; a user may retry it. */
        FAILED
    }

    /** What happens to a step. */
    enum Event {
        /** A worker starts it. */
        START,
        /** It succeeded. */
        SUCCEED,
        /** It failed for good. */
        FAIL,
        /** A user retries a failed step. */
        RETRY
    }

    /** The step machine. */
    static final Machine<State, Event> MACHINE = Machine.builder("novel-proofer-step", State.class, Event.class)
            .version(1)
            .initial(State.PENDING)
            .terminal(State.DONE)
            .succeeded(State.DONE).failed(State.FAILED)
            .row(State.PENDING, Event.START, State.RUNNING).by(SYSTEM).label("worker starts").add()
            .row(State.RUNNING, Event.SUCCEED, State.DONE).by(SYSTEM).label("done").add()
            .row(State.RUNNING, Event.FAIL, State.FAILED).by(SYSTEM).label("failed after its retries").add()
            .row(State.FAILED, Event.RETRY, State.PENDING).by(USER).label("retry").add()
            .run(r -> r.claim(State.PENDING, Event.START)
                    .success(Event.SUCCEED)
                    .fatal(Event.FAIL)
                    .recoverByRequeue()
                    .retry(RETRY_POLICY))
            .build();

    private Step() {}

    /** Returns the key of the start of {@code job} while it is queued at {@code version}. */
    static String startKey(long job, long version) {
        return "start-" + job + "-v" + version;
    }

    /** Returns the key of the merge of {@code job}. */
    static String mergeKey(long job) {
        return "merge-" + job;
    }
}
