package dev.statekit.core;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;

/**
 * A document review machine used by engine tests: guarded rows with and without a fallback,
 * user-only and system-only rows, effects and a named refusal.
 */
public final class Review {
    enum State { DRAFT, SUBMITTED, APPROVED, REJECTED, PUBLISHED }

    enum Event { SUBMIT, APPROVE, REJECT, PUBLISH, EDIT }

    static final String TITLE_MISSING = "TITLE_MISSING";
    static final String REVIEW_IN_PROGRESS = "REVIEW_IN_PROGRESS";

    static final Machine<State, Event> MACHINE = Machine.builder("review", State.class, Event.class)
            .version(2)
            .initial(State.DRAFT)
            .terminal(State.PUBLISHED)
            // guarded, no fallback: refused when the guard refuses
            .row(State.DRAFT, Event.SUBMIT, State.SUBMITTED).by(USER)
                .guard("hasTitle", (task, command) -> Verdict.when(task.attributes().contains("title"),
                        TITLE_MISSING, "a document needs a title before it is submitted"))
                .add()
            // guarded row in front of a fallback to another state
            .row(State.SUBMITTED, Event.APPROVE, State.PUBLISHED).by(USER, SYSTEM)
                .guard("autoPublish", (task, command) -> Verdict.when("yes".equals(task.attribute("auto")),
                        "NOT_AUTO", "the document is not published automatically"))
                .effect((task, command, changes) -> changes.put("publishedBy", String.valueOf(command.actor())))
                .add()
            .transition(State.SUBMITTED, Event.APPROVE, State.APPROVED, USER, SYSTEM)
            .transition(State.SUBMITTED, Event.REJECT, State.REJECTED, USER)
            .transition(State.APPROVED, Event.PUBLISH, State.PUBLISHED, SYSTEM)
            .row(State.REJECTED, Event.EDIT, State.DRAFT).by(USER)
                .effect((task, command, changes) -> changes.put("title", null))
                .add()
            .refuse(State.SUBMITTED, Event.EDIT, REVIEW_IN_PROGRESS, "a submitted document cannot be edited")
            .build();

    private Review() {}
}
