package dev.statekit.core;

import dev.statekit.core.internal.Adjust;
import dev.statekit.core.internal.Kernel;
import dev.statekit.store.Attributes;
import dev.statekit.store.Change;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.TaskRecord;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Decides what one command means for one task: the one place where a row of the table is looked
 * up, its guard checked and its effect applied, for a fired event and for a claim alike. Pure: it
 * reads no store and no clock (the time is handed in), so a decision can be made again on a fresh
 * record after a lost compare-and-set.
 */
final class Decider {
    private Decider() {}

    /**
     * Returns {@link Adjust#GIVE_BACK_ATTEMPT} when the cancel event {@code cancel} stops a task in
     * {@code from} to be run again (a pause, a reset); null when it ends the task.
     */
    static <S extends Enum<S>, E extends Enum<E>> @Nullable Adjust givesBackOnCancel(Machine<S, E> machine, S from, E cancel) {
        return machine.cancelsBackToClaim(from, cancel) ? Adjust.GIVE_BACK_ATTEMPT : null;
    }

    /**
     * Decides {@code move} under {@code command} for {@code current} at time {@code now}: the one
     * decision of every change {@link Commit} writes.
     */
    static <S extends Enum<S>, E extends Enum<E>> Decision<S> decide(Machine<S, E> machine, TaskRecord current, Move<S, E> move,
                                                                    Command command, @Nullable Adjust adjust, Instant now) {
        if (move instanceof Move.Row<S, E> row) return decide(machine, current, row.event(), command, adjust, now);
        if (move instanceof Move.Requeue<S, E> requeue) {
            return requeue(machine, current, requeue.to(), requeue.name(), command, adjust, now);
        }
        if (move instanceof Move.Migrate<S, E> migrate) return migrate(machine, current, migrate.to(), command, now);
        return reorder(machine, current, (Move.Reorder<S, E>) move, command, now);
    }

    /**
     * Decides {@code command} firing {@code event} at {@code current} at time {@code now}.
     *
     * <p>The history entry is stamped {@code now}, or the time of the task's last change when that is
     * later, so that a task's history never goes backwards when clocks are read before slow calls.
     * A change whose adjustment moves the task's priority or sequence writes them with it
     * ({@link Change#reorders()}).
     */
    static <S extends Enum<S>, E extends Enum<E>> Decision<S> decide(Machine<S, E> machine, TaskRecord current, E event,
                                                                    Command command, @Nullable Adjust adjust, Instant now) {
        S from = stateOf(machine, current);
        Decision<S> stale = stale(current, from, event.name(), command, now);
        if (stale != null) return stale;
        Transition<S, E> @Nullable [] candidates = machine.candidates(from, event, command.source());
        if (candidates == null) return new Decision.Refuse<>(Refusals.illegal(machine, current, from, event, command));
        Task<S> view = null;      // made only when a guard or an effect looks at the task
        Transition<S, E> chosen = null;
        Verdict refusal = null;
        String refusingGuard = null;
        for (Transition<S, E> t : candidates) {
            Guard<S> guard = t.guard();
            if (guard == null) {
                chosen = t;
                break;
            }
            if (view == null) view = new Task<>(from, current);
            Verdict v = Objects.requireNonNull(guard.check(view, command), "guard returned null");
            if (v.allowed()) {
                chosen = t;
                break;
            }
            if (refusal == null) {
                refusal = v;
                refusingGuard = t.guardName();
            }
        }
        if (chosen == null) {
            return new Decision.Refuse<>(Refusals.guard(current, from, event.name(), String.valueOf(refusingGuard),
                    Objects.requireNonNull(refusal)));
        }
        Attributes attributes = attributesAfter(chosen, from, current, view, command);
        Instant at = current.updatedAt().isAfter(now) ? current.updatedAt() : now;
        TaskRecord next = current.transitioned(chosen.to().name(), attributes, at);
        boolean endsLease = current.lease() != null && !machine.holdsLease(chosen.to());
        boolean entersStage = machine.entersStage(from, chosen.to());
        boolean endsProcessing = machine.endsProcessing(from, chosen.to(), event);
        if (endsLease || entersStage || endsProcessing || command.error() != null || adjust != null) {
            TaskRecord.Builder b = next.toBuilder();
            if (endsLease) b.lease(null);                      // leaving the running states ends the lease
            if (entersStage) {                                 // a stage counts its own attempts, on its own queue
                b.attempts(0).retries(0);
                String queue = machine.stageQueue(chosen.to());
                if (queue != null) b.queue(queue);
            } else if (endsProcessing) {                       // the next processing has a fresh retry budget
                b.retries(0);
            }
            if (command.error() != null) b.lastError(command.error());
            if (adjust != null) adjust.adjust(current, b);
            next = b.build();
        }
        return write(machine, current, next, event.name(), command, at);
    }

    /** Refuses a command under a lease the task no longer holds, or for a version it is no longer at; null when neither. */
    private static <S extends Enum<S>> Decision.@Nullable Refuse<S> stale(TaskRecord current, S from, String event, Command command,
                                                                       Instant now) {
        long token = command.leaseTokenOrMinusOne();
        if (token >= 0) {
            Lease lease = current.lease();
            if (lease == null || lease.fencingToken() != token || !lease.expiresAt().isAfter(now)) {
                return new Decision.Refuse<>(Refusals.leaseLost(current, from, event, token));
            }
        }
        long expected = command.expectedVersionOrMinusOne();
        if (expected >= 0 && expected != current.version()) {
            return new Decision.Refuse<>(Refusals.notAtVersion(current, from, event, expected));
        }
        return null;
    }

    /**
     * Decides the runtime's own move of a running task back to the claimable state {@code to}
     * (a release or a retry that waits in place, for a run policy that declares no row for it):
     * recorded as {@code event} in the history, with the command's attributes and error, ending the
     * lease. A task that is not running, or whose lease the command does not hold, is refused.
     */
    static <S extends Enum<S>, E extends Enum<E>> Decision<S> requeue(Machine<S, E> machine, TaskRecord current, S to, String event,
                                                                     Command command, @Nullable Adjust adjust, Instant now) {
        S from = stateOf(machine, current);
        Decision<S> stale = stale(current, from, event, command, now);
        if (stale != null) return stale;
        if (!machine.holdsLease(from)) return new Decision.Refuse<>(Refusals.notRunning(current, from, event));
        Attributes attributes = command.attributes().isEmpty() ? current.attributes() : current.attributes().with(command.attributes());
        Instant at = current.updatedAt().isAfter(now) ? current.updatedAt() : now;
        TaskRecord.Builder b = current.transitioned(to.name(), attributes, at).toBuilder().lease(null);
        if (Kernel.RELEASE.equals(event)) b.retries(0);      // a release ends the processing, as a release row does
        if (command.error() != null) b.lastError(command.error());
        if (adjust != null) adjust.adjust(current, b);
        return write(machine, current, b.build(), event, command, at);
    }

    /**
     * Decides the migration of a task out of a state its machine's version no longer has into
     * {@code to}: a task that holds a lease is left for a later migration (refused).
     */
    private static <S extends Enum<S>, E extends Enum<E>> Decision<S> migrate(Machine<S, E> machine, TaskRecord current, S to,
                                                                             Command command, Instant now) {
        if (current.lease() != null) return new Decision.Refuse<>(Refusals.leased(current, machine.state(current.state()), Move.Migrate.NAME));
        Instant at = current.updatedAt().isAfter(now) ? current.updatedAt() : now;
        TaskRecord next = current.toBuilder().state(to.name()).version(current.version() + 1).updatedAt(at).build();
        return write(machine, current, next, Move.Migrate.NAME, command, at);
    }

    /** Decides a new place in the queue for {@code current}, in the state it is in. */
    private static <S extends Enum<S>, E extends Enum<E>> Decision<S> reorder(Machine<S, E> machine, TaskRecord current,
                                                                             Move.Reorder<S, E> move, Command command, Instant now) {
        S from = stateOf(machine, current);
        Decision<S> stale = stale(current, from, move.name(), command, now);
        if (stale != null) return stale;
        Instant at = current.updatedAt().isAfter(now) ? current.updatedAt() : now;
        TaskRecord next = current.transitioned(current.state(), current.attributes(), at).toBuilder()
                .priority(move.priority()).sequence(move.sequence()).build();
        return write(machine, current, next, move.name(), command, at);
    }

    /**
     * The change from {@code current} to {@code next}, with its history entry recorded as {@code event}.
     * A task that leaves its machine's unique states gives up its unique key with this change.
     */
    private static <S extends Enum<S>, E extends Enum<E>> Decision<S> write(Machine<S, E> machine, TaskRecord current, TaskRecord next,
                                                                           String event, Command command, Instant at) {
        if (next.uniqueKey() != null) {
            S to = machine.state(next.state());
            if (to == null || !machine.keepsUniqueKey(to)) next = next.toBuilder().uniqueKey(null).build();
        }
        HistoryEntry entry = new HistoryEntry(current.id(), next.version(), current.state(), next.state(), event,
                command.source(), command.actor(), command.reason(), at, command.idempotencyKey(), command.error());
        boolean reorders = next.priority() != current.priority() || next.sequence() != current.sequence();
        return new Decision.Write<>(new Change(current.version(), next, entry, reorders));
    }

    /**
     * Returns how a claim moves a task from {@code from} by {@code event}: the row's target, and its
     * effect on attributes computed here, as a fired event's would be (a claim runs no guard: claim
     * rows have none, the run policy's validation sees to it).
     */
    static <S extends Enum<S>, E extends Enum<E>> ClaimRule claimRule(Machine<S, E> machine, S from, E event) {
        Transition<S, E> row = machine.transitions(from, event).get(0);
        ClaimRule.ClaimEffect effect = row.effect() == null ? null
                : before -> attributesAfter(row, from, before, null, Command.system());
        return new ClaimRule(from.name(), event.name(), row.to().name(), effect);
    }

    /** The attributes after {@code row}: the command's own, then the row's effect, on the task's. */
    private static <S extends Enum<S>, E extends Enum<E>> Attributes attributesAfter(Transition<S, E> row, S from, TaskRecord current,
                                                                                     @Nullable Task<S> view, Command command) {
        Effect<S> effect = row.effect();
        if (effect == null && command.attributes().isEmpty()) return current.attributes();
        Map<String, @Nullable String> changes = new LinkedHashMap<>(command.attributes());
        if (effect != null) effect.apply(view != null ? view : new Task<>(from, current), command, changes);
        return current.attributes().with(changes);
    }

    /**
     * Returns the machine's state named by {@code record}.
     *
     * @throws dev.statekit.store.StatekitException {@code SCHEMA_DRIFT} when the machine does not know it
     */
    static <S extends Enum<S>, E extends Enum<E>> S stateOf(Machine<S, E> machine, TaskRecord record) {
        S s = machine.state(record.state());
        if (s == null) {
            throw new dev.statekit.store.StatekitException(dev.statekit.store.ErrorCode.SCHEMA_DRIFT, "task " + record.id()
                    + " is in state '" + record.state() + "', which machine " + machine.name() + " v" + machine.version()
                    + " does not know", record.id(), null);
        }
        return s;
    }
}
