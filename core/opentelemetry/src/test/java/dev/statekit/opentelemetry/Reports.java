package dev.statekit.opentelemetry;

import static dev.statekit.store.TriggerSource.SYSTEM;

import dev.statekit.core.Machine;

/** The machine of the tracing tests: a report queued, run once, done or failed. */
final class Reports {
    enum State { QUEUED, RUNNING, DONE, FAILED }

    enum Event { START, COMPLETE, FAIL }

    static final Machine<State, Event> MACHINE = Machine.builder("report", State.class, Event.class)
            .initial(State.QUEUED)
            .terminal(State.DONE, State.FAILED)
            .transition(State.QUEUED, Event.START, State.RUNNING, SYSTEM)
            .transition(State.RUNNING, Event.COMPLETE, State.DONE, SYSTEM)
            .transition(State.RUNNING, Event.FAIL, State.FAILED, SYSTEM)
            .run(r -> r.claim(State.QUEUED, Event.START).success(Event.COMPLETE).fatal(Event.FAIL))
            .build();

    private Reports() {}
}
