package dev.statekit.examples.serve;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.RefusalCode;
import dev.statekit.core.TransitionEngine;
import dev.statekit.store.TriggerSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

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
     * How a route words the refusals of its event where the machine's table has no row: the
     * code-of-state hook of {@link #refusal(Machine, long, Outcome.Refused, Wording)}.
     *
     * @param what    what a task is called in the API ({@code item}), for the 404 of an unknown id
     * @param codeOf  the route's error code for the task's state, where the table has no row and the machine names no refusal
     * @param rule    the states the route is allowed from, said in the message
     * @param allowed what a user may do in a state, for {@code "allowed"}
     * @param <S>     the machine's states
     */
    public record Wording<S extends Enum<S>>(String what, Function<S, String> codeOf, String rule, Function<S, List<String>> allowed) {}

    /**
     * Returns the error of a refusal as {@link #refusal(Machine, Outcome.Refused)} does, worded by
     * {@code wording}: 404 for an unknown task; the route's code ({@link Wording#codeOf}) and rule
     * for an event the table has no row for in the task's state (unless the machine names the
     * refusal); the refusal's own code and message otherwise; with {@link Wording#allowed}.
     */
    public static <S extends Enum<S>> ApiException refusal(Machine<S, ?> machine, long id, Outcome.Refused<S> refused, Wording<S> wording) {
        if (refused.code() == RefusalCode.NOT_FOUND) throw ApiException.notFound(wording.what(), id);
        S state = refused.state();
        String code = refused.reasonCode();
        String message = refused.message();
        if (refused.code() == RefusalCode.ILLEGAL_TRANSITION && state != null) {
            if (code.equals(RefusalCode.ILLEGAL_TRANSITION.name())) code = wording.codeOf().apply(state);
            message = wording.what() + " " + id + " is " + state + "; " + wording.rule();
        }
        List<String> allowed = state == null ? List.of() : wording.allowed().apply(state);
        return new ApiException(refused.code().httpStatus(), code, message, null, allowed);
    }

    /** Returns {@code outcome} when applied; throws its refusal worded by {@code wording} otherwise. */
    public static <S extends Enum<S>> Outcome.Applied<S> applied(Machine<S, ?> machine, long id, Outcome<S> outcome, Wording<S> wording) {
        if (outcome instanceof Outcome.Refused<S> refused) throw refusal(machine, id, refused, wording);
        return (Outcome.Applied<S>) outcome;
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
