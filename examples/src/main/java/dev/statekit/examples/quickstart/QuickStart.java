package dev.statekit.examples.quickstart;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.TransitionEngine;
import dev.statekit.store.memory.InMemoryStore;
import java.io.PrintStream;

/** The quick start shown in README.md; {@code QuickStartTest} runs it and checks README against it. */
public final class QuickStart {
    private QuickStart() {}

    /** Runs the quick start, printing to standard output. */
    public static void main(String[] args) {
        run(System.out);
    }

    /** Runs the quick start, printing to {@code out}. */
    public static void run(PrintStream out) {
        // quick-start:begin
        enum State { QUEUED, RUNNING, DONE, FAILED }
        enum Event { START, FINISH, FAIL, RETRY }

        Machine<State, Event> job = Machine.builder("report-job", State.class, Event.class)
                .initial(State.QUEUED)
                .terminal(State.DONE)
                .transition(State.QUEUED, Event.START, State.RUNNING, SYSTEM)
                .transition(State.RUNNING, Event.FINISH, State.DONE, SYSTEM)
                .transition(State.RUNNING, Event.FAIL, State.FAILED, SYSTEM)
                .transition(State.FAILED, Event.RETRY, State.QUEUED, USER)
                .build();

        TransitionEngine engine = TransitionEngine.builder().store(new InMemoryStore()).build();
        long id = engine.create(job).task().id();
        engine.fire(job, id, Event.START);                                    // QUEUED -> RUNNING, version 1
        Outcome<State> outcome = engine.fire(job, id, Event.RETRY, Command.user("ana").reason("looks stuck"));
        if (outcome instanceof Outcome.Refused<State> refused) {             // nothing was changed
            out.println(refused.code() + " (HTTP " + refused.code().httpStatus() + "): " + refused.message());
        }
        out.println(job.allowedEvents(State.RUNNING) + " " + engine.history(id).size() + " change(s)");
        // quick-start:end
    }
}
