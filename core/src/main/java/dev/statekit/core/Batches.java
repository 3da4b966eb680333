package dev.statekit.core;

import dev.statekit.core.spi.Clock;
import dev.statekit.store.ApplyResult;
import dev.statekit.store.Change;
import dev.statekit.store.GroupWrite;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Store;
import dev.statekit.store.TaskRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The engine's writes of several commands: each on its own with one store round trip
 * ({@link #fireEach}, the runtime's results), or all together atomically ({@link #fireAll}).
 * Every command is decided by {@link Decider}, as {@link TransitionEngine#fire} decides one.
 */
final class Batches {
    private final TransitionEngine engine;
    private final Store store;
    private final Clock clock;
    private final int maxConflictRetries;

    Batches(TransitionEngine engine, Store store, Clock clock, int maxConflictRetries) {
        this.engine = engine;
        this.store = store;
        this.clock = clock;
        this.maxConflictRetries = maxConflictRetries;
    }

    /**
     * Fires several commands at distinct tasks, each on its own (not atomically together), with one
     * read and one write round trip to the store for all of them where it can (none when every
     * request knows its record). A command whose write loses a race is decided again alone, exactly
     * as {@link #fire} would.
     */
    List<Outcome<?>> fireEach(List<TransitionEngine.Request<?, ?>> requests) {
        int n = requests.size();
        Outcome<?>[] outcomes = new Outcome<?>[n];
        List<Long> ids = new ArrayList<>(n);
        for (TransitionEngine.Request<?, ?> r : requests) if (r.known() == null) ids.add(r.taskId());
        Map<Long, TaskRecord> current = ids.isEmpty() ? Map.of() : store.findAll(ids);
        Instant now = clock.now();
        List<Change> changes = new ArrayList<>(n);
        int[] index = new int[n];
        for (int i = 0; i < n; i++) {
            TransitionEngine.Request<?, ?> r = requests.get(i);
            TaskRecord known = r.known();
            TaskRecord t = known != null ? known : current.get(r.taskId());
            if (t == null || r.command().idempotencyKey() != null || !TransitionEngine.sameName(t.machine(), r.machine().name())
                    || r.machine().children() != null) {       // a parent's change may hold its children: written alone
                outcomes[i] = fireAlone(r);
                continue;
            }
            Decision<?> d = decideRequest(r, t, now);
            if (d instanceof Decision.Refuse<?> refuse) {
                outcomes[i] = known != null ? fireAlone(r) : refuse.refused();
            } else {
                index[changes.size()] = i;
                changes.add(((Decision.Write<?>) d).change());
            }
        }
        if (!changes.isEmpty()) {
            List<ApplyResult> results = changes.size() == 1 ? List.of(store.apply(changes.get(0))) : store.applyEach(changes);
            for (int j = 0; j < changes.size(); j++) {
                int i = index[j];
                TransitionEngine.Request<?, ?> r = requests.get(i);
                outcomes[i] = results.get(j).applied() ? engine.applied(r.machine(), changes.get(j)) : fireAlone(r);
            }
        }
        return List.of(outcomes);
    }

    private <S extends Enum<S>, E extends Enum<E>> Outcome<S> fireAlone(TransitionEngine.Request<S, E> r) {
        return engine.fire(r.machine(), r.taskId(), r.event(), r.command(), r.adjust());
    }

    private <S extends Enum<S>, E extends Enum<E>> Decision<S> decideRequest(TransitionEngine.Request<S, E> r, TaskRecord current, Instant now) {
        Outcome.Refused<S> forbidden = engine.forbidden(r.machine(), current, r.event(), r.command());
        if (forbidden != null) return new Decision.Refuse<>(forbidden);
        return Decider.decide(r.machine(), current, r.event(), r.command(), r.adjust(), now);
    }

    /**
     * Fires several commands at distinct tasks atomically: all are applied or none is. A command
     * whose idempotency key was already applied to its task is replayed (not applied again) while
     * the others are applied.
     *
     * @throws IllegalArgumentException if {@code fires} is empty or names one task twice
     */
    BatchOutcome fireAll(List<Fire<?, ?>> fires) {
        if (fires.isEmpty()) throw new IllegalArgumentException("no commands to fire");
        Set<Long> ids = new HashSet<>();
        for (Fire<?, ?> f : fires) {
            if (!ids.add(f.taskId())) throw new IllegalArgumentException("task " + f.taskId() + " appears twice in one batch");
        }
        for (int attempt = 0; ; attempt++) {
            List<Change> changes = new ArrayList<>(fires.size());
            Outcome.Applied<?>[] outcomes = new Outcome.Applied<?>[fires.size()];
            Instant now = clock.now();
            for (int i = 0; i < fires.size(); i++) {
                Decision<?> d = prepare(fires.get(i), now);
                if (d instanceof Decision.Refuse<?> r) return BatchOutcome.refused(r.refused(), i);
                if (d instanceof Decision.Replay<?> replayed) {
                    outcomes[i] = replayed.applied();
                } else {
                    changes.add(((Decision.Write<?>) d).change());
                }
            }
            if (changes.isEmpty()) return new BatchOutcome(List.of(outcomes), null, -1);
            List<Machine<?, ?>> machines = new ArrayList<>(changes.size());
            for (int i = 0; i < fires.size(); i++) if (outcomes[i] == null) machines.add(fires.get(i).machine());
            List<GroupWrite> holds = Groups.holds(machines, changes);
            ApplyResult result = holds.isEmpty() ? store.applyAll(changes) : store.applyAll(changes, holds);
            if (result.applied()) {
                int c = 0;
                for (int i = 0; i < fires.size(); i++) {
                    if (outcomes[i] == null) outcomes[i] = engine.applied(fires.get(i).machine(), changes.get(c++));
                }
                return new BatchOutcome(List.of(outcomes), null, -1);
            }
            int index = indexOf(fires, result.taskId());
            Fire<?, ?> culprit = fires.get(index);
            switch (result.status()) {
                case NOT_FOUND:
                    return BatchOutcome.refused(notFoundOf(culprit), index);
                case DUPLICATE_COMMAND:
                    continue;      // decided again: that command is now a replay
                case VERSION_CONFLICT:
                default:
                    long expected = culprit.command().expectedVersionOrMinusOne();
                    if (expected >= 0 || attempt >= maxConflictRetries) {
                        TaskRecord latest = store.find(culprit.taskId()).orElse(null);
                        if (latest == null) return BatchOutcome.refused(notFoundOf(culprit), index);
                        return BatchOutcome.refused(conflictOf(culprit, latest, attempt + 1), index);
                    }
            }
        }
    }

    private static int indexOf(List<Fire<?, ?>> fires, long taskId) {
        for (int i = 0; i < fires.size(); i++) if (fires.get(i).taskId() == taskId) return i;
        throw new IllegalStateException("store named task " + taskId + " which is not in the batch");
    }

    /** Decides one command of a batch on a fresh read: a refusal, a replay, or a change. */
    private <S extends Enum<S>, E extends Enum<E>> Decision<S> prepare(Fire<S, E> f, Instant now) {
        TaskRecord current = store.find(f.taskId()).orElse(null);
        if (current == null || !current.machine().equals(f.machine().name())) return new Decision.Refuse<>(notFoundOf(f));
        Outcome.Refused<S> forbidden = engine.forbidden(f.machine(), current, f.event(), f.command());
        if (forbidden != null) return new Decision.Refuse<>(forbidden);
        String key = f.command().idempotencyKey();
        if (key != null) {
            Optional<HistoryEntry> prior = store.findCommand(f.taskId(), key);
            if (prior.isPresent()) return new Decision.Replay<>(TransitionEngine.replay(f.machine(), current, prior.get()));
        }
        return Decider.decide(f.machine(), current, f.event(), f.command(), null, now);
    }

    private static <S extends Enum<S>, E extends Enum<E>> Outcome.Refused<S> conflictOf(Fire<S, E> f, TaskRecord latest, int attempts) {
        return Refusals.conflict(latest, Decider.stateOf(f.machine(), latest), f.event().name(),
                f.command().expectedVersionOrMinusOne(), attempts);
    }

    private static <S extends Enum<S>, E extends Enum<E>> Outcome.Refused<S> notFoundOf(Fire<S, E> f) {
        return Refusals.notFound(f.machine(), f.taskId(), f.event());
    }
}
