package dev.statekit.test;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;


import dev.statekit.core.Machine;
import dev.statekit.core.RetryPolicy;
import dev.statekit.core.Verdict;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import java.time.Duration;

/** The machines the kit's own tests check. */
final class KitMachines {
    enum State { QUEUED, RUNNING, RETRYING, DONE, FAILED, CANCELED }

    enum Event { START, FINISH, RETRYABLE, FAIL, BACKOFF_OVER, RELEASE, CANCEL, RETRY, APPROVE }

    /** A job the runtime works: retries with backoff, failed jobs retried by a person, cancellation. */
    static final Machine<State, Event> JOB = Machine.builder("kit-job", State.class, Event.class)
            .initial(State.QUEUED)
            .terminal(State.DONE, State.CANCELED)
            .transition(State.QUEUED, Event.START, State.RUNNING, SYSTEM)
            .transition(State.RUNNING, Event.FINISH, State.DONE, SYSTEM)
            .transition(State.RUNNING, Event.RETRYABLE, State.RETRYING, SYSTEM)
            .transition(State.RUNNING, Event.FAIL, State.FAILED, SYSTEM)
            .transition(State.RUNNING, Event.RELEASE, State.QUEUED, SYSTEM)
            .transition(State.RETRYING, Event.BACKOFF_OVER, State.QUEUED, SYSTEM)
            .transition(State.QUEUED, Event.CANCEL, State.CANCELED, USER)
            .transition(State.RUNNING, Event.CANCEL, State.CANCELED, USER, SYSTEM)
            .transition(State.RETRYING, Event.CANCEL, State.CANCELED, USER)
            .transition(State.FAILED, Event.RETRY, State.QUEUED, USER)
            .run(r -> r.claim(State.QUEUED, Event.START).success(Event.FINISH).retryable(Event.RETRYABLE).fatal(Event.FAIL)
                    .release(Event.RELEASE).afterWait(State.RETRYING, Event.BACKOFF_OVER).cancel(Event.CANCEL)
                    .retry(RetryPolicy.exponential(3, Duration.ofSeconds(1), Duration.ofSeconds(4))).recoverByRequeue())
            .build();

    /** A review: a person approves a draft only when it has a reviewer. */
    static final Machine<State, Event> REVIEW = Machine.builder("kit-review", State.class, Event.class)
            .states(State.QUEUED, State.DONE, State.CANCELED)
            .initial(State.QUEUED)
            .terminal(State.DONE, State.CANCELED)
            .row(State.QUEUED, Event.APPROVE, State.DONE).by(USER)
            .guard("has-reviewer", (task, command) -> Verdict.when(command.attributes().containsKey("reviewer"),
                    "NO_REVIEWER", "a draft is approved by its reviewer"))
            .add()
            .transition(State.QUEUED, Event.CANCEL, State.CANCELED, USER)
            .build();

    /** A worker whose result depends only on the task and its attempt: every third task fails once, every fifth fails for good. */
    static final Worker<State> FLAKY = ctx -> {
        long id = ctx.task().id();
        int attempts = ctx.task().record().attempts();
        if (id % 5 == 0) return WorkResult.fatal("BROKEN", "task " + id + " is broken");
        if (id % 3 == 0 && attempts == 1) return WorkResult.retryable("BUSY", "try again");
        return WorkResult.success();
    };

    private KitMachines() {
    }
}
