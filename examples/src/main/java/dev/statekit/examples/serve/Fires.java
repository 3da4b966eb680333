package dev.statekit.examples.serve;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.TransitionEngine;
import dev.statekit.store.TriggerSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Events fired by name, and outcomes turned into replies. */
public final class Fires {
    private Fires() {}

    /** Fires {@code eventName} on task {@code id} of {@code machine} as a user command of {@code actor}; 400 when the machine has no such event. */
    public static Outcome<?> user(TransitionEngine engine, Machine<?, ?> machine, long id, String eventName, String actor) {
        return fire(engine, machine, id, eventName, Command.user(actor));
    }

    /** Fires {@code eventName} with {@code command}; 400 when the machine has no such event. */
    public static <S extends Enum<S>, E extends Enum<E>> Outcome<S> fire(TransitionEngine engine, Machine<S, E> machine, long id,
                                                                         String eventName, Command command) {
        E event = machine.event(eventName);
        if (event == null) {
            throw ApiException.badField("event", "'" + Router.truncate(eventName) + "' is not an event of " + machine.name());
        }
        return engine.fire(machine, id, event, command);
    }

    /** Returns the events a user may fire in the state named {@code stateName}. */
    public static <S extends Enum<S>> List<String> userEvents(Machine<S, ?> machine, String stateName) {
        S state = machine.state(stateName);
        List<String> events = new ArrayList<>();
        if (state == null) return events;
        for (Enum<?> e : machine.allowedEvents(state, TriggerSource.USER)) events.add(e.name());
        return events;
    }

    /**
     * Returns the error of a refusal, with the refusal's HTTP status: 409 (or 403, 404) and
     * {@code {"error_code": reasonCode, "message", "allowed": [events a user may fire now]}}.
     */
    public static ApiException refusal(Machine<?, ?> machine, Outcome.Refused<?> refused) {
        List<String> allowed = refused.state() == null ? List.of() : userEvents(machine, refused.state().name());
        return new ApiException(refused.code().httpStatus(), refused.reasonCode(), refused.message(), null, allowed);
    }

    /**
     * Returns {@code outcome} as a reply: {@code status} with {@code body} when applied, the
     * refusal's error otherwise.
     */
    public static Reply reply(Machine<?, ?> machine, Outcome<?> outcome, int status, Object body) {
        if (outcome instanceof Outcome.Refused<?> refused) throw refusal(machine, refused);
        return Reply.json(status, body);
    }

    /** Returns a small JSON map of an applied change: the task's id, state and version. */
    public static Map<String, Object> applied(Outcome<?> outcome) {
        Outcome.Applied<?> applied = (Outcome.Applied<?>) outcome;
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("id", applied.task().id());
        body.put("state", applied.task().state().name());
        body.put("version", applied.task().version());
        body.put("replayed", applied.replayed());
        return body;
    }
}
