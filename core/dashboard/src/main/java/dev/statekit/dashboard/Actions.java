package dev.statekit.dashboard;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.TransitionEngine;
import org.jspecify.annotations.Nullable;

/**
 * How the dashboard's task buttons act, for a host whose events mean more than one change
 * (cancelling running work, pausing a job's parts). The default, {@link #engine}, fires each user
 * event through the engine and has no retry of failed children.
 *
 * <p>A method may throw {@link DashboardException} to answer with a status and code of its own.
 */
public interface Actions {
    /**
     * Fires the user event {@code event} on task {@code id} of {@code machine}.
     *
     * @param machine the task's machine
     * @param id      the task's id
     * @param event   the event's name, one of the machine's
     * @param command a user command of the request's user (its actor is written in the history)
     * @return the outcome: applied, or refused with its code (answered 409 and the events allowed)
     */
    Outcome<?> fire(Machine<?, ?> machine, long id, String event, Command command);

    /**
     * Retries the failed children of parent {@code id} of {@code machine}.
     *
     * @param machine the parent's machine
     * @param id      the parent's id
     * @param command a user command of the request's user
     * @return the answer's JSON: maps with string keys, lists, strings, numbers, booleans, nulls
     * @throws DashboardException 409 {@code NOT_SUPPORTED} by default
     */
    default Object retryFailedChildren(Machine<?, ?> machine, long id, Command command) {
        throw new DashboardException(409, "NOT_SUPPORTED", "tasks of " + machine.name() + " have no children to retry here");
    }

    /**
     * Returns what firing {@code event} on task {@code id} deletes, in words naming it (e.g.
     * {@code "job #12 with its 40 chunks and their results"}), or null when it deletes nothing. The
     * page asks for a confirmation that names it before it sends the event. By default nothing is
     * deleted by an event.
     *
     * @param machine the task's machine
     * @param id      the task's id
     * @param event   the event's name, one of the machine's user events
     * @return what it deletes, or null
     */
    default @Nullable String deletes(Machine<?, ?> machine, long id, String event) {
        return null;
    }

    /**
     * Returns the actions that fire every event through {@code engine}.
     *
     * @param engine the engine
     * @return the default actions
     */
    static Actions engine(TransitionEngine engine) {
        return (machine, id, event, command) -> fire(engine, machine, id, event, command);
    }

    /**
     * Fires the event named {@code eventName} on task {@code id} through {@code engine}.
     *
     * @param engine    the engine
     * @param machine   the task's machine
     * @param id        the task's id
     * @param eventName the event's name
     * @param command   the command
     * @param <S>       the machine's states
     * @param <E>       the machine's events
     * @return the engine's outcome
     * @throws DashboardException 400 {@code INVALID_FIELD} ({@code event}) when the machine has no such event
     */
    static <S extends Enum<S>, E extends Enum<E>> Outcome<S> fire(TransitionEngine engine, Machine<S, E> machine, long id, String eventName,
                                                                  Command command) {
        E event = machine.event(eventName);
        if (event == null) {
            throw DashboardException.badField("event", "'" + DashboardException.truncate(eventName) + "' is not an event of " + machine.name());
        }
        return engine.fire(machine, id, event, command);
    }
}
