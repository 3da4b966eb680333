package dev.statekit.core;

import dev.statekit.core.internal.Adjust;
import dev.statekit.core.spi.Clock;
import dev.statekit.store.ApplyResult;
import dev.statekit.store.Change;
import dev.statekit.store.GroupWrite;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Store;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import java.time.Instant;
import dev.statekit.store.Page;
import dev.statekit.store.TaskQuery;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one write pipeline of every change of a task: a row's event, the runtime's requeue, a
 * migration, a new place in the queue; one at a time ({@link #one}), several each on its own
 * ({@link #each}), or several atomically ({@link #all}); on a record read here or one the caller
 * holds ({@link Request#known}). Every change takes the same steps:
 *
 * <ol>
 *   <li>read the task (or take the known record);
 *   <li>authorize a person's command ({@link Authorizer});
 *   <li>replay a command whose idempotency key was applied before;
 *   <li>decide ({@link Decider#decide}: row, guard, effect, the new snapshot and its history entry);
 *   <li>hold a parent's children when its change enters or leaves a hold state ({@link Groups#withHold});
 *   <li>write with compare-and-set on the version, deciding again on a fresh read after a lost race;
 *   <li>turn the store's answer into an {@link Outcome};
 *   <li>tell the listeners of what was written, after the write.
 * </ol>
 *
 * <p>Thread-safe: it holds no mutable state; every call works on its own records.
 */
final class Commit {
    private static final Logger log = LoggerFactory.getLogger(Commit.class);

    /**
     * One change to write.
     *
     * @param machine the machine the task lives in
     * @param taskId  the task
     * @param move    what the change does
     * @param command who asks, why, with which key, version, lease and attributes
     * @param adjust  the runtime's adjustment of the written record (lease, counters, schedule), or null
     * @param known   the task as the caller last saw it, decided on instead of a fresh read; a
     *                stale one costs a second decision on a fresh read, never a wrong write
     * @param fanOut  children to create with the change, in its write, or null
     */
    record Request<S extends Enum<S>, E extends Enum<E>>(Machine<S, E> machine, long taskId, Move<S, E> move, Command command,
                                                         @Nullable Adjust adjust, @Nullable TaskRecord known,
                                                         @Nullable GroupWrite fanOut) {
        Request {
            Objects.requireNonNull(machine, "machine");
            Objects.requireNonNull(move, "move");
            Objects.requireNonNull(command, "command");
            if (known != null && known.id() != taskId) {
                throw new IllegalArgumentException("the known record is of task " + known.id() + ", not " + taskId);
            }
        }

        /** A change decided on a fresh read. */
        Request(Machine<S, E> machine, long taskId, Move<S, E> move, Command command, @Nullable Adjust adjust) {
            this(machine, taskId, move, command, adjust, null, null);
        }

        /** Fires {@code event}. */
        static <S extends Enum<S>, E extends Enum<E>> Request<S, E> row(Machine<S, E> machine, long taskId, E event, Command command) {
            return new Request<>(machine, taskId, new Move.Row<>(event), command, null);
        }

        /** Fires {@code f}'s event. */
        static <S extends Enum<S>, E extends Enum<E>> Request<S, E> of(Fire<S, E> f) {
            return row(f.machine(), f.taskId(), f.event(), f.command());
        }

        /** This request without its known record. */
        Request<S, E> fresh() {
            return known == null ? this : new Request<>(machine, taskId, move, command, adjust, null, fanOut);
        }
    }

    private final Store store;
    private final Clock clock;
    private final Listeners listeners;
    private final Authorizer authorizer;
    private final int maxConflictRetries;

    Commit(Store store, Clock clock, Listeners listeners, Authorizer authorizer, int maxConflictRetries) {
        this.store = store;
        this.clock = clock;
        this.listeners = listeners;
        this.authorizer = authorizer;
        this.maxConflictRetries = maxConflictRetries;
    }

    /** Writes one change; a lost compare-and-set is decided again on a fresh read, up to the engine's bound. */
    <S extends Enum<S>, E extends Enum<E>> Outcome<S> one(Request<S, E> r) {
        Machine<S, E> machine = r.machine();
        String name = r.move().name();
        String key = r.command().idempotencyKey();
        TaskRecord known = r.known();
        boolean replayChecked = false;
        int attempt = 0;
        while (true) {
            TaskRecord current = known != null ? known : store.find(r.taskId()).orElse(null);
            if (current == null || !sameName(current.machine(), machine.name())) return Refusals.notFound(machine.name(), r.taskId(), name);
            Outcome.Refused<S> forbidden = forbidden(machine, current, name, r.command());
            if (forbidden != null) return forbidden;
            if (key != null && !replayChecked) {
                replayChecked = true;
                Optional<HistoryEntry> prior = store.findCommand(r.taskId(), key);
                if (prior.isPresent()) return replay(machine, current, prior.get());
            }
            Decision<S> decision = Decider.decide(machine, current, r.move(), r.command(), r.adjust(), clock.now());
            if (decision instanceof Decision.Refuse<S> refuse) {
                if (known == null) return refuse.refused();
                known = null;          // decided on what the caller saw: decide again on what is stored
                continue;
            }
            Change change = ((Decision.Write<S>) decision).change();
            GroupWrite group = Groups.withHold(machine, change, r.fanOut());
            ApplyResult result = group == null ? store.apply(change) : store.applyAll(List.of(change), List.of(group));
            switch (result.status()) {
                case APPLIED:
                    return applied(machine, change);
                case DUPLICATE_COMMAND:
                    return replay(machine, store.find(r.taskId()).orElse(current), Objects.requireNonNull(result.prior()));
                case NOT_FOUND:
                    return Refusals.notFound(machine.name(), r.taskId(), name);
                case VERSION_CONFLICT:
                default:
                    known = null;
                    long expected = r.command().expectedVersionOrMinusOne();
                    if (expected >= 0 || attempt >= maxConflictRetries) {
                        return Refusals.conflict(current, machine.state(current.state()), name, expected, attempt + 1);
                    }
                    attempt++;
            }
        }
    }

    /**
     * Writes several changes to distinct tasks, each on its own (not atomically together), with
     * one read and one write round trip to the store for all of them where it can (none when every
     * request knows its record). A change that loses a race, or is refused on a known record, is
     * written again alone by {@link #one} on a fresh read. A change with an idempotency key, or of
     * a parent (whose change may hold its children), is written alone.
     *
     * @return the outcomes, in the order of {@code requests}
     */
    List<Outcome<?>> each(List<? extends Request<?, ?>> requests) {
        int n = requests.size();
        Outcome<?>[] outcomes = new Outcome<?>[n];
        List<Long> ids = new ArrayList<>(n);
        for (Request<?, ?> r : requests) if (r.known() == null) ids.add(r.taskId());
        Map<Long, TaskRecord> current = ids.isEmpty() ? Map.of() : store.findAll(ids);
        Instant now = clock.now();
        List<Change> changes = new ArrayList<>(n);
        int[] index = new int[n];
        for (int i = 0; i < n; i++) {
            Request<?, ?> r = requests.get(i);
            TaskRecord t = r.known() != null ? r.known() : current.get(r.taskId());
            if (t == null || r.command().idempotencyKey() != null || r.fanOut() != null || !sameName(t.machine(), r.machine().name())
                    || r.machine().children() != null) {
                outcomes[i] = one(r.fresh());
                continue;
            }
            Decision<?> d = decide(r, t, now);
            if (d instanceof Decision.Refuse<?> refuse) {
                outcomes[i] = r.known() != null ? one(r.fresh()) : refuse.refused();
            } else {
                index[changes.size()] = i;
                changes.add(((Decision.Write<?>) d).change());
            }
        }
        if (!changes.isEmpty()) {
            List<ApplyResult> results = changes.size() == 1 ? List.of(store.apply(changes.get(0))) : store.applyEach(changes);
            for (int j = 0; j < changes.size(); j++) {
                Request<?, ?> r = requests.get(index[j]);
                outcomes[index[j]] = results.get(j).applied() ? applied(r.machine(), changes.get(j)) : one(r.fresh());
            }
        }
        return List.of(outcomes);
    }

    /**
     * Writes several changes to distinct tasks atomically: all are applied or none is. A change
     * whose idempotency key was already applied to its task is replayed (not applied again) while
     * the others are applied. Decided on fresh reads.
     *
     * @throws IllegalArgumentException if {@code requests} is empty or names one task twice
     */
    BatchOutcome all(List<? extends Request<?, ?>> requests) {
        if (requests.isEmpty()) throw new IllegalArgumentException("no commands to fire");
        Set<Long> ids = new HashSet<>();
        for (Request<?, ?> r : requests) {
            if (!ids.add(r.taskId())) throw new IllegalArgumentException("task " + r.taskId() + " appears twice in one batch");
        }
        for (int attempt = 0; ; attempt++) {
            List<Change> changes = new ArrayList<>(requests.size());
            List<Machine<?, ?>> machines = new ArrayList<>(requests.size());
            Outcome.Applied<?>[] outcomes = new Outcome.Applied<?>[requests.size()];
            Instant now = clock.now();
            for (int i = 0; i < requests.size(); i++) {
                Decision<?> d = prepare(requests.get(i), now);
                if (d instanceof Decision.Refuse<?> r) return BatchOutcome.refused(r.refused(), i);
                if (d instanceof Decision.Replay<?> replayed) {
                    outcomes[i] = replayed.applied();
                } else {
                    changes.add(((Decision.Write<?>) d).change());
                    machines.add(requests.get(i).machine());
                }
            }
            if (changes.isEmpty()) return new BatchOutcome(List.of(outcomes), null, -1);
            List<GroupWrite> holds = Groups.holds(machines, changes);
            ApplyResult result = holds.isEmpty() ? store.applyAll(changes) : store.applyAll(changes, holds);
            if (result.applied()) {
                int c = 0;
                for (int i = 0; i < requests.size(); i++) {
                    if (outcomes[i] == null) outcomes[i] = applied(requests.get(i).machine(), changes.get(c++));
                }
                return new BatchOutcome(List.of(outcomes), null, -1);
            }
            int index = indexOf(requests, result.taskId());
            Request<?, ?> culprit = requests.get(index);
            switch (result.status()) {
                case NOT_FOUND:
                    return BatchOutcome.refused(Refusals.notFound(culprit.machine().name(), culprit.taskId(), culprit.move().name()), index);
                case DUPLICATE_COMMAND:
                    continue;      // decided again: that command is now a replay
                case VERSION_CONFLICT:
                default:
                    long expected = culprit.command().expectedVersionOrMinusOne();
                    if (expected >= 0 || attempt >= maxConflictRetries) {
                        TaskRecord latest = store.find(culprit.taskId()).orElse(null);
                        return BatchOutcome.refused(latest == null
                                ? Refusals.notFound(culprit.machine().name(), culprit.taskId(), culprit.move().name())
                                : conflict(culprit, latest, attempt + 1), index);
                    }
            }
        }
    }

    private static <S extends Enum<S>, E extends Enum<E>> Outcome.Refused<S> conflict(Request<S, E> r, TaskRecord latest, int attempts) {
        return Refusals.conflict(latest, r.machine().state(latest.state()), r.move().name(), r.command().expectedVersionOrMinusOne(), attempts);
    }

    private static int indexOf(List<? extends Request<?, ?>> requests, long taskId) {
        for (int i = 0; i < requests.size(); i++) if (requests.get(i).taskId() == taskId) return i;
        throw new IllegalStateException("store named task " + taskId + " which is not in the batch");
    }

    /** Decides one change of an atomic batch on a fresh read: a refusal, a replay, or a change. */
    private <S extends Enum<S>, E extends Enum<E>> Decision<S> prepare(Request<S, E> r, Instant now) {
        TaskRecord current = store.find(r.taskId()).orElse(null);
        if (current == null || !current.machine().equals(r.machine().name())) {
            return new Decision.Refuse<S>(Refusals.<S>notFound(r.machine().name(), r.taskId(), r.move().name()));
        }
        Outcome.Refused<S> forbidden = forbidden(r.machine(), current, r.move().name(), r.command());
        if (forbidden != null) return new Decision.Refuse<>(forbidden);
        String key = r.command().idempotencyKey();
        if (key != null) {
            Optional<HistoryEntry> prior = store.findCommand(r.taskId(), key);
            if (prior.isPresent()) return new Decision.Replay<>(replay(r.machine(), current, prior.get()));
        }
        return Decider.decide(r.machine(), current, r.move(), r.command(), r.adjust(), now);
    }

    /** Authorizes and decides {@code r} on {@code current}. */
    private <S extends Enum<S>, E extends Enum<E>> Decision<S> decide(Request<S, E> r, TaskRecord current, Instant now) {
        Outcome.Refused<S> forbidden = forbidden(r.machine(), current, r.move().name(), r.command());
        if (forbidden != null) return new Decision.Refuse<>(forbidden);
        return Decider.decide(r.machine(), current, r.move(), r.command(), r.adjust(), now);
    }

    /**
     * Asks the authorizer about a person's command; returns its refusal ({@link RefusalCode#FORBIDDEN}),
     * logged with the actor, or null when the command is the system's or allowed.
     */
    <S extends Enum<S>, E extends Enum<E>> Outcome.@Nullable Refused<S> forbidden(Machine<S, E> machine, TaskRecord current, String event,
                                                                              Command command) {
        if (command.source() != TriggerSource.USER || authorizer == Authorizer.ALLOW_ALL) return null;
        Verdict v = Objects.requireNonNull(authorizer.authorize(new Authorizer.Request(command.actor(), machine.name(), current,
                event, command)), "authorizer returned null");
        if (v.allowed()) return null;
        log.info("refused {} on task {} ({}) for {}: {} {}", event, current.id(), machine.name(), command.actor(), v.code(), v.message());
        return new Outcome.Refused<>(RefusalCode.FORBIDDEN, Objects.requireNonNull(v.code()), v.message() + " (task " + current.id()
                + ", event " + event + ", actor " + command.actor() + ")", current.id(), machine.state(current.state()), event);
    }

    /** Tells the listeners of a written change and returns its outcome. */
    <S extends Enum<S>, E extends Enum<E>> Outcome.Applied<S> applied(Machine<S, E> machine, Change change) {
        listeners.transitioned(machine.name(), change.next(), change.entry());
        return new Outcome.Applied<>(new Task<>(Decider.stateOf(machine, change.next()), change.next()), change.entry(), false);
    }

    private static <S extends Enum<S>, E extends Enum<E>> Outcome.Applied<S> replay(Machine<S, E> machine, TaskRecord current,
                                                                                   HistoryEntry prior) {
        return new Outcome.Applied<>(new Task<>(Decider.stateOf(machine, current), current), prior, true);
    }

    private static boolean sameName(String a, String b) {
        return a == b || a.equals(b);
    }

    /**
     * Moves up to {@code max} tasks of {@code machine} out of states its version no longer has, by
     * its migrations, as {@link TransitionEngine#migrate} says: pages of up to 100 tasks, each page
     * written {@link #each} on its own.
     */
    <S extends Enum<S>, E extends Enum<E>> int migrate(Machine<S, E> machine, int max) {
        if (max <= 0) throw new IllegalArgumentException("max must be positive, was " + max);
        Command command = Command.system().reason("machine " + machine.name() + " v" + machine.version());
        int moved = 0;
        for (Map.Entry<String, S> migration : machine.migrations().entrySet()) {
            Move<S, E> move = new Move.Migrate<>(migration.getValue());
            long after = 0;
            while (moved < max) {
                Page<TaskRecord> page = store.query(TaskQuery.all().machine(machine.name()).states(List.of(migration.getKey()))
                        .after(after).limit(Math.min(100, max - moved)));
                List<Commit.Request<S, E>> requests = new ArrayList<>(page.items().size());
                for (TaskRecord t : page.items()) {
                    after = t.id();
                    if (t.lease() == null) requests.add(new Commit.Request<>(machine, t.id(), move, command, null, t, null));
                }
                for (Outcome<?> o : requests.isEmpty() ? List.<Outcome<?>>of() : each(requests)) if (o.isApplied()) moved++;
                if (page.nextAfterId() == null) break;
            }
        }
        if (moved > 0) log.info("machine {} v{}: {} tasks migrated out of removed states", machine.name(), machine.version(), moved);
        return moved;
    }
}
