package com.example.tickets;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;

import dev.statekit.core.Machine;
import dev.statekit.core.RetryPolicy;
import dev.statekit.core.Verdict;
import dev.statekit.core.spi.WorkContext;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import java.time.Duration;

/** This project's machine: support tickets answered by a worker, escalated when it cannot, closed by a person. */
final class Tickets {
    enum State { OPEN, ANSWERING, LATER, ANSWERED, ESCALATED, CLOSED }

    enum Event { ANSWER, DONE, TRY_LATER, WAKE, ESCALATE, PUT_BACK, CLOSE, REOPEN }

    static final Machine<State, Event> TICKETS = Machine.builder("ticket", State.class, Event.class)
            .initial(State.OPEN)
            .terminal(State.CLOSED)
            .transition(State.OPEN, Event.ANSWER, State.ANSWERING, SYSTEM)
            .transition(State.ANSWERING, Event.DONE, State.ANSWERED, SYSTEM)
            .transition(State.ANSWERING, Event.TRY_LATER, State.LATER, SYSTEM)
            .transition(State.LATER, Event.WAKE, State.OPEN, SYSTEM)
            .transition(State.ANSWERING, Event.ESCALATE, State.ESCALATED, SYSTEM)
            .transition(State.ANSWERING, Event.PUT_BACK, State.OPEN, SYSTEM)
            .transition(State.ANSWERING, Event.CLOSE, State.CLOSED, USER, SYSTEM)
            .transition(State.OPEN, Event.CLOSE, State.CLOSED, USER)
            .transition(State.LATER, Event.CLOSE, State.CLOSED, USER)
            .transition(State.ANSWERED, Event.CLOSE, State.CLOSED, USER)
            .transition(State.ESCALATED, Event.CLOSE, State.CLOSED, USER)
            .row(State.ANSWERED, Event.REOPEN, State.OPEN).by(USER)
            .guard("has-comment", (task, command) -> Verdict.when(command.reason() != null, "NO_COMMENT",
                    "a ticket is reopened with a comment"))
            .add()
            .run(r -> r.claim(State.OPEN, Event.ANSWER).success(Event.DONE).retryable(Event.TRY_LATER).fatal(Event.ESCALATE)
                    .afterWait(State.LATER, Event.WAKE).release(Event.PUT_BACK).cancel(Event.CLOSE)
                    .retry(RetryPolicy.exponential(2, Duration.ofSeconds(2), Duration.ofSeconds(8))).recoverByRequeue())
            .build();

    /** Answers a ticket: every fourth needs a person, every odd one waits once for the knowledge base. */
    static final class AnsweringWorker implements Worker<State> {
        @Override
        public WorkResult work(WorkContext<State> ctx) {
            long id = ctx.task().id();
            if (id % 4 == 0) return WorkResult.fatal("NEEDS_PERSON", "ticket " + id + " needs a person");
            if (id % 2 == 1 && ctx.task().record().attempts() == 1) return WorkResult.retryable("KB_BUSY", "the knowledge base is busy");
            return WorkResult.success();
        }
    }

    private Tickets() {
    }
}
