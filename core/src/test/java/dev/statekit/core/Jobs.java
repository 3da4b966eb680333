package dev.statekit.core;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;

/** Run-policy machines used by the runtime tests. */
public final class Jobs {
    /** A compression-like task: retries wait in RETRYING, then go back to QUEUED. */
    public enum State { QUEUED, RUNNING, RETRYING, INTERRUPTED, BLOCKED, DONE, FAILED, CANCELED }

    public enum Event { START, COMPLETE, RETRYABLE, FAIL, BACKOFF_OVER, RELEASE, INTERRUPT, RECOVER, GIVE_UP, CANCEL, RETRY, BLOCK, UNBLOCK }

    public static Machine<State, Event> machine(String name, boolean interruptRecovery, boolean auto) {
        MachineBuilder<State, Event> b = Machine.builder(name, State.class, Event.class)
                .initial(State.QUEUED)
                .terminal(State.DONE, State.CANCELED)
                .transition(State.QUEUED, Event.START, State.RUNNING, SYSTEM)
                .transition(State.RUNNING, Event.COMPLETE, State.DONE, SYSTEM)
                .transition(State.RUNNING, Event.RETRYABLE, State.RETRYING, SYSTEM)
                .transition(State.RUNNING, Event.FAIL, State.FAILED, SYSTEM)
                .transition(State.RETRYING, Event.BACKOFF_OVER, State.QUEUED, SYSTEM)
                .transition(State.RUNNING, Event.RELEASE, State.QUEUED, SYSTEM)
                .transition(State.RUNNING, Event.INTERRUPT, State.INTERRUPTED, SYSTEM)
                .transition(State.INTERRUPTED, Event.RECOVER, State.QUEUED, SYSTEM)
                .transition(State.INTERRUPTED, Event.GIVE_UP, State.FAILED, SYSTEM)
                .transition(State.QUEUED, Event.CANCEL, State.CANCELED, USER)
                .transition(State.RUNNING, Event.CANCEL, State.CANCELED, USER, SYSTEM)
                .transition(State.RETRYING, Event.CANCEL, State.CANCELED, USER)
                .transition(State.BLOCKED, Event.CANCEL, State.CANCELED, USER)
                .transition(State.FAILED, Event.RETRY, State.QUEUED, USER)
                .transition(State.QUEUED, Event.BLOCK, State.BLOCKED, SYSTEM)
                .transition(State.BLOCKED, Event.UNBLOCK, State.QUEUED, SYSTEM);
        return b.run(r -> {
            r.claim(State.QUEUED, Event.START).success(Event.COMPLETE).retryable(Event.RETRYABLE).fatal(Event.FAIL)
                    .release(Event.RELEASE).afterWait(State.RETRYING, Event.BACKOFF_OVER).cancel(Event.CANCEL)
                    .blocked(State.BLOCKED, Event.BLOCK, Event.UNBLOCK);
            if (interruptRecovery) r.recoverByInterrupt(Event.INTERRUPT, Event.RECOVER, Event.GIVE_UP, auto);
        }).build();
    }

    public static final Machine<State, Event> MACHINE = machine("job", false, false);

    private Jobs() {}
}
