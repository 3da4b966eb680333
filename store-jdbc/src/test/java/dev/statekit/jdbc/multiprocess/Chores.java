package dev.statekit.jdbc.multiprocess;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;

import dev.statekit.core.Machine;

/** The machine of the failure tests: claimed, completed, retried, released when a lease is recovered. */
final class Chores {
    enum State { QUEUED, RUNNING, RETRYING, DONE, FAILED }

    enum Event { START, COMPLETE, RETRYABLE, FAIL, BACKOFF_OVER, RELEASE, RETRY }

    static final Machine<State, Event> MACHINE = Machine.builder("chore", State.class, Event.class)
            .initial(State.QUEUED)
            .terminal(State.DONE)
            .transition(State.QUEUED, Event.START, State.RUNNING, SYSTEM)
            .transition(State.RUNNING, Event.COMPLETE, State.DONE, SYSTEM)
            .transition(State.RUNNING, Event.RETRYABLE, State.RETRYING, SYSTEM)
            .transition(State.RUNNING, Event.FAIL, State.FAILED, SYSTEM)
            .transition(State.RETRYING, Event.BACKOFF_OVER, State.QUEUED, SYSTEM)
            .transition(State.RUNNING, Event.RELEASE, State.QUEUED, SYSTEM)
            .transition(State.FAILED, Event.RETRY, State.QUEUED, USER)
            .run(r -> r.claim(State.QUEUED, Event.START).success(Event.COMPLETE).retryable(Event.RETRYABLE)
                    .fatal(Event.FAIL).release(Event.RELEASE).afterWait(State.RETRYING, Event.BACKOFF_OVER))
            .build();

    private Chores() {
    }
}
