package dev.statekit.core;

import dev.statekit.store.Lease;
import dev.statekit.store.TaskRecord;
import org.jspecify.annotations.Nullable;

/** The refusals of the engine, each with its stable code and the message that names the task. */
final class Refusals {
    private Refusals() {}

    static <S extends Enum<S>, E extends Enum<E>> Outcome.Refused<S> notFound(Machine<S, E> machine, long taskId, E event) {
        return new Outcome.Refused<>(RefusalCode.NOT_FOUND, RefusalCode.NOT_FOUND.name(),
                "no task " + taskId + " in machine " + machine.name(), taskId, null, event.name());
    }

    static <S extends Enum<S>> Outcome.Refused<S> notFound(String machine, long taskId, String event) {
        return new Outcome.Refused<>(RefusalCode.NOT_FOUND, RefusalCode.NOT_FOUND.name(), "no task " + taskId + " in machine " + machine,
                taskId, null, event);
    }

    static <S extends Enum<S>> Outcome.Refused<S> notRunning(TaskRecord current, S from, String event) {
        return new Outcome.Refused<>(RefusalCode.ILLEGAL_TRANSITION, RefusalCode.ILLEGAL_TRANSITION.name(),
                "task " + current.id() + " is " + from.name() + ", not running: the runtime's " + event + " does not apply",
                current.id(), from, event);
    }

    static <S extends Enum<S>> Outcome.Refused<S> leased(TaskRecord current, @Nullable S state, String event) {
        return new Outcome.Refused<>(RefusalCode.ILLEGAL_TRANSITION, RefusalCode.ILLEGAL_TRANSITION.name(),
                "task " + current.id() + " holds a lease: " + event + " waits until it is released", current.id(), state, event);
    }

    static <S extends Enum<S>> Outcome.Refused<S> leaseLost(TaskRecord current, S from, String event, long token) {
        Lease lease = current.lease();
        String now = lease == null ? "released"
                : lease.fencingToken() != token ? "taken over (now token " + lease.fencingToken() + ")"
                : "expired since " + lease.expiresAt();
        return new Outcome.Refused<>(RefusalCode.LEASE_LOST, RefusalCode.LEASE_LOST.name(),
                "the lease with fencing token " + token + " on task " + current.id() + " is " + now + "; the result is discarded",
                current.id(), from, event);
    }

    static <S extends Enum<S>> Outcome.Refused<S> notAtVersion(TaskRecord current, S from, String event, long expected) {
        return new Outcome.Refused<>(RefusalCode.VERSION_CONFLICT, RefusalCode.VERSION_CONFLICT.name(),
                "task " + current.id() + " is at version " + current.version() + ", not the expected " + expected,
                current.id(), from, event);
    }

    static <S extends Enum<S>> Outcome.Refused<S> conflict(TaskRecord current, @Nullable S state, String event,
                                                           long expected, int attempts) {
        String message = expected >= 0
                ? "task " + current.id() + " changed concurrently; it is no longer at the expected version " + expected
                : "task " + current.id() + " changed concurrently " + attempts + " times; gave up";
        return new Outcome.Refused<>(RefusalCode.VERSION_CONFLICT, RefusalCode.VERSION_CONFLICT.name(), message,
                current.id(), state, event);
    }

    static <S extends Enum<S>> Outcome.Refused<S> guard(TaskRecord current, S from, String event, String guardName, Verdict verdict) {
        return new Outcome.Refused<>(RefusalCode.GUARD_REFUSED, java.util.Objects.requireNonNull(verdict.code()),
                "guard '" + guardName + "' refused " + event + " for task " + current.id() + " in state "
                        + from.name() + ": " + verdict.message(),
                current.id(), from, event);
    }

    static <S extends Enum<S>, E extends Enum<E>> Outcome.Refused<S> illegal(
            Machine<S, E> machine, TaskRecord current, S from, E event, Command command) {
        Machine.Refusal named = machine.namedRefusal(from, event);
        if (named != null) {
            return new Outcome.Refused<>(RefusalCode.ILLEGAL_TRANSITION, named.code(),
                    named.message() + " (task " + current.id() + " is " + from.name() + "; allowed events: "
                            + machine.allowedEvents(from) + ")",
                    current.id(), from, event.name());
        }
        String message = machine.permits(from, event)
                ? "event " + event.name() + " may not be fired by " + command.source() + " in state " + from.name()
                  + " of task " + current.id() + " (" + machine.name() + "); " + command.source() + " may fire: "
                  + machine.allowedEvents(from, command.source()) + "; allowed events: " + machine.allowedEvents(from)
                : "task " + current.id() + " (" + machine.name() + ") in state " + from.name() + " does not allow event "
                  + event.name() + "; allowed events: " + machine.allowedEvents(from);
        return new Outcome.Refused<>(RefusalCode.ILLEGAL_TRANSITION, RefusalCode.ILLEGAL_TRANSITION.name(), message,
                current.id(), from, event.name());
    }
}
