package dev.statekit.core;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;

/** The five-state chunk machine used across core tests. */
public final class Chunk {
    public enum State { PENDING, PROCESSING, RETRYING, DONE, ERROR }

    public enum Event { START, SUCCEED, FAIL, RETRYABLE_ERROR, BACKOFF_DONE, RETRY_FAILED, RELEASE }

    public static final Machine<State, Event> MACHINE = Machine.builder("chunk", State.class, Event.class)
            .initial(State.PENDING)
            .terminal(State.DONE)
            .transition(State.PENDING, Event.START, State.PROCESSING, SYSTEM)
            .transition(State.PROCESSING, Event.SUCCEED, State.DONE, SYSTEM)
            .transition(State.PROCESSING, Event.FAIL, State.ERROR, SYSTEM)
            .row(State.PROCESSING, Event.RETRYABLE_ERROR, State.RETRYING).by(SYSTEM)
                .effect((task, command, changes) -> changes.put("retries",
                        Integer.toString(Integer.parseInt(task.attributes().getOrDefault("retries", "0")) + 1)))
                .add()
            .transition(State.RETRYING, Event.BACKOFF_DONE, State.PROCESSING, SYSTEM)
            .transition(State.RETRYING, Event.SUCCEED, State.DONE, SYSTEM)
            .transition(State.RETRYING, Event.FAIL, State.ERROR, SYSTEM)
            .transition(State.ERROR, Event.RETRY_FAILED, State.PENDING, USER, SYSTEM)
            .transition(State.PROCESSING, Event.RELEASE, State.PENDING, SYSTEM)
            .transition(State.RETRYING, Event.RELEASE, State.PENDING, SYSTEM)
            .build();

    private Chunk() {}
}
