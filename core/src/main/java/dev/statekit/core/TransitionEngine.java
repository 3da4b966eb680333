package dev.statekit.core;

import dev.statekit.core.spi.Cancellable;
import dev.statekit.core.spi.Clock;
import dev.statekit.core.spi.TransitionListener;
import dev.statekit.store.ApplyResult;
import dev.statekit.store.Attributes;
import dev.statekit.store.Change;
import dev.statekit.store.CreateResult;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.NewTask;
import dev.statekit.store.Page;
import dev.statekit.store.StatekitException;
import dev.statekit.store.Store;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single source of truth for changes to tasks: creates tasks and fires events at them through
 * their machine's table, over a {@link Store}.
 *
 * <p>{@code fire} loads the task, looks up the row for its state and the event, checks the guard,
 * applies the effect, and writes the new snapshot with compare-and-set on its version together
 * with exactly one history entry. Listeners hear of the change after it was written. A refusal is
 * an {@link Outcome.Refused} value with a stable {@link RefusalCode} and changes nothing. When a
 * concurrent change wins the compare-and-set, the command is decided again on the new snapshot
 * (guards and effects are pure, so this is safe), up to a bounded number of times.
 *
 * <p>Instances are immutable and thread-safe. Build one with {@link #builder()}.
 */
public final class TransitionEngine {
    private static final Logger log = LoggerFactory.getLogger(TransitionEngine.class);

    private final Store store;
    private final Clock clock;
    private volatile TransitionListener[] listeners;
    private final int maxConflictRetries;

    private TransitionEngine(Builder b) {
        this.store = Objects.requireNonNull(b.store, "store");
        this.clock = b.clock;
        this.listeners = b.listeners.toArray(new TransitionListener[0]);
        this.maxConflictRetries = b.maxConflictRetries;
    }

    /** Returns a builder: a store is required; the clock defaults to {@link Clock#system()}. */
    public static Builder builder() {
        return new Builder();
    }

    /** Returns the store. */
    public Store store() {
        return store;
    }

    /** Returns the clock. */
    public Clock clock() {
        return clock;
    }

    /**
     * Adds a listener after the engine was built (a runtime subscribes to learn of new work).
     *
     * @return a handle that removes the listener again
     */
    public Cancellable subscribe(TransitionListener listener) {
        Objects.requireNonNull(listener, "listener");
        synchronized (this) {
            TransitionListener[] now = listeners;
            TransitionListener[] next = java.util.Arrays.copyOf(now, now.length + 1);
            next[now.length] = listener;
            listeners = next;
        }
        return () -> {
            synchronized (this) {
                TransitionListener[] now = listeners;
                List<TransitionListener> rest = new ArrayList<>(List.of(now));
                boolean removed = rest.remove(listener);
                listeners = rest.toArray(new TransitionListener[0]);
                return removed;
            }
        };
    }

    // --- create -----------------------------------------------------------------------------

    /** Creates a task in {@code machine}'s initial state with default options. */
    public <S extends Enum<S>, E extends Enum<E>> Created<S> create(Machine<S, E> machine) {
        return create(machine, TaskSpec.defaults());
    }

    /**
     * Creates a task in {@code machine}'s initial state, at version 0 with no history. With an
     * idempotency key, creating again with the same key returns the first task and writes nothing.
     *
     * @throws StatekitException {@link ErrorCode#INVALID_ARGUMENT} when the parent does not exist,
     *         {@link ErrorCode#PAYLOAD_TOO_LARGE} when the store refuses the payload
     */
    public <S extends Enum<S>, E extends Enum<E>> Created<S> create(Machine<S, E> machine, TaskSpec spec) {
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(spec, "spec");
        Long parent = spec.parentId();
        if (parent != null && store.find(parent).isEmpty()) {
            throw new StatekitException(ErrorCode.INVALID_ARGUMENT, "parent task " + parent + " does not exist", parent, null);
        }
        String queue = spec.queue() != null ? spec.queue() : machine.name();
        NewTask task = new NewTask(machine.name(), machine.version(), machine.initial().name(), queue,
                spec.priority(), parent, spec.attributes(), spec.payload(), spec.idempotencyKey(), spec.notBefore(),
                clock.now());
        CreateResult result = store.create(task);
        TaskRecord record = result.task();
        if (result.created()) {
            log.debug("created task {} of {} in {}", record.id(), machine.name(), record.state());
            for (TransitionListener l : listeners) {
                try {
                    l.onCreated(machine.name(), record);
                } catch (RuntimeException e) {
                    log.warn("listener {} failed on creation of task {}", l, record.id(), e);
                }
            }
        }
        return new Created<>(new Task<>(stateOf(machine, record), record), result.created());
    }

    // --- read -------------------------------------------------------------------------------

    /** Returns task {@code id} if it exists and lives in {@code machine}. */
    public <S extends Enum<S>, E extends Enum<E>> Optional<Task<S>> find(Machine<S, E> machine, long id) {
        Optional<TaskRecord> r = store.find(id);
        if (r.isEmpty() || !r.get().machine().equals(machine.name())) return Optional.empty();
        return Optional.of(new Task<>(stateOf(machine, r.get()), r.get()));
    }

    /** Returns the history of task {@code id}, oldest first. */
    public List<HistoryEntry> history(long id) {
        return store.history(id);
    }

    /** Returns one page of {@code machine}'s tasks matching {@code query}. */
    public <S extends Enum<S>, E extends Enum<E>> Page<Task<S>> query(Machine<S, E> machine, TaskQuery query) {
        Page<TaskRecord> page = store.query(query.machine(machine.name()));
        List<Task<S>> items = new ArrayList<>(page.items().size());
        for (TaskRecord r : page.items()) items.add(new Task<>(stateOf(machine, r), r));
        return new Page<>(items, page.nextAfterId());
    }

    // --- fire -------------------------------------------------------------------------------

    /** Fires {@code event} at task {@code taskId} as the system. */
    public <S extends Enum<S>, E extends Enum<E>> Outcome<S> fire(Machine<S, E> machine, long taskId, E event) {
        return fire(machine, taskId, event, Command.system());
    }

    /**
     * Fires {@code event} at task {@code taskId} of {@code machine} under {@code command}.
     *
     * @return the applied change, a replay of an earlier application of the command's idempotency
     *         key, or a refusal: {@link RefusalCode#NOT_FOUND}, {@link RefusalCode#ILLEGAL_TRANSITION}
     *         (its message names the allowed events), {@link RefusalCode#GUARD_REFUSED} (with the
     *         guard's code and reason) or {@link RefusalCode#VERSION_CONFLICT}
     * @throws StatekitException {@link ErrorCode#SCHEMA_DRIFT} when the stored state is unknown to
     *         the machine; exceptions of guards, effects and the store propagate, and nothing is written
     */
    public <S extends Enum<S>, E extends Enum<E>> Outcome<S> fire(Machine<S, E> machine, long taskId, E event, Command command) {
        return fire(machine, taskId, event, command, null);
    }

    /** Adjusts the snapshot a transition writes beyond state and attributes (lease, counters, schedule). */
    @FunctionalInterface
    interface Adjust {
        void adjust(TaskRecord current, TaskRecord.Builder next);
    }

    <S extends Enum<S>, E extends Enum<E>> Outcome<S> fire(Machine<S, E> machine, long taskId, E event, Command command,
                                                           @Nullable Adjust adjust) {
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(command, "command");
        String key = command.idempotencyKey();
        for (int attempt = 0; ; attempt++) {
            TaskRecord current = store.find(taskId).orElse(null);
            if (current == null || !sameName(current.machine(), machine.name())) return notFound(machine, taskId, event);
            if (key != null && attempt == 0) {
                Optional<HistoryEntry> prior = store.findCommand(taskId, key);
                if (prior.isPresent()) return replay(machine, current, prior.get());
            }
            Object decision = decide(machine, current, event, command, adjust);
            if (decision instanceof Outcome.Refused<?>) {
                @SuppressWarnings("unchecked")
                Outcome.Refused<S> refused = (Outcome.Refused<S>) decision;
                return refused;
            }
            Change change = (Change) decision;
            ApplyResult result = store.apply(change);
            switch (result.status()) {
                case APPLIED:
                    notifyListeners(machine.name(), change);
                    return new Outcome.Applied<>(new Task<>(stateOf(machine, change.next()), change.next()), change.entry(), false);
                case DUPLICATE_COMMAND:
                    return replay(machine, store.find(taskId).orElse(current), Objects.requireNonNull(result.prior()));
                case NOT_FOUND:
                    return notFound(machine, taskId, event);
                case VERSION_CONFLICT:
                default:
                    if (command.expectedVersionOrMinusOne() >= 0 || attempt >= maxConflictRetries) {
                        return conflict(machine, current, event, command, attempt + 1);
                    }
            }
        }
    }

    /**
     * One command of {@link #fireEach}, with the runtime's record adjustment and, when the caller
     * holds it, the task as it last saw it ({@code known}): the command is decided on that record
     * instead of a fresh read. The write still requires the task at that record's version, and a
     * command refused on it is decided again on a fresh read, so a stale record changes nothing
     * but the cost.
     */
    record Request<S extends Enum<S>, E extends Enum<E>>(Machine<S, E> machine, long taskId, E event, Command command,
                                                         @Nullable Adjust adjust, @Nullable TaskRecord known) {
        Request {
            if (known != null && known.id() != taskId) {
                throw new IllegalArgumentException("the known record is of task " + known.id() + ", not " + taskId);
            }
        }
    }

    /**
     * Fires several commands at distinct tasks, each on its own (not atomically together), with one
     * read and one write round trip to the store for all of them where it can. A command whose
     * write loses a race is decided again alone, exactly as {@link #fire} would.
     */
    List<Outcome<?>> fireEach(List<Request<?, ?>> requests) {
        int n = requests.size();
        Outcome<?>[] outcomes = new Outcome<?>[n];
        List<Long> ids = new ArrayList<>(n);
        for (Request<?, ?> r : requests) if (r.known() == null) ids.add(r.taskId());
        Map<Long, TaskRecord> current = ids.isEmpty() ? Map.of() : store.findAll(ids);
        List<Change> changes = new ArrayList<>(n);
        int[] index = new int[n];
        for (int i = 0; i < n; i++) {
            Request<?, ?> r = requests.get(i);
            TaskRecord known = r.known();
            TaskRecord t = known != null ? known : current.get(r.taskId());
            if (t == null || r.command().idempotencyKey() != null) {
                outcomes[i] = fireAlone(r);
                continue;
            }
            Object d = decideRequest(r, t);
            if (d instanceof Outcome.Refused<?> refused) {
                outcomes[i] = known != null ? fireAlone(r) : refused;
            } else {
                index[changes.size()] = i;
                changes.add((Change) d);
            }
        }
        if (!changes.isEmpty()) {
            List<ApplyResult> results = store.applyEach(changes);
            for (int j = 0; j < changes.size(); j++) {
                int i = index[j];
                Request<?, ?> r = requests.get(i);
                if (results.get(j).applied()) {
                    notifyListeners(r.machine().name(), changes.get(j));
                    outcomes[i] = appliedOf(r.machine(), changes.get(j));
                } else {
                    outcomes[i] = fireAlone(r);
                }
            }
        }
        return List.of(outcomes);
    }

    private <S extends Enum<S>, E extends Enum<E>> Outcome<S> fireAlone(Request<S, E> r) {
        return fire(r.machine(), r.taskId(), r.event(), r.command(), r.adjust());
    }

    private <S extends Enum<S>, E extends Enum<E>> Object decideRequest(Request<S, E> r, TaskRecord current) {
        if (!sameName(current.machine(), r.machine().name())) return notFound(r.machine(), r.taskId(), r.event());
        return decide(r.machine(), current, r.event(), r.command(), r.adjust());
    }

    /**
     * Fires several commands at distinct tasks atomically: all are applied or none is. A command
     * whose idempotency key was already applied to its task is replayed (not applied again) while
     * the others are applied.
     *
     * @throws IllegalArgumentException if {@code fires} is empty or names one task twice
     */
    public BatchOutcome fireAll(List<Fire<?, ?>> fires) {
        if (fires.isEmpty()) throw new IllegalArgumentException("no commands to fire");
        Set<Long> ids = new HashSet<>();
        for (Fire<?, ?> f : fires) {
            if (!ids.add(f.taskId())) throw new IllegalArgumentException("task " + f.taskId() + " appears twice in one batch");
        }
        for (int attempt = 0; ; attempt++) {
            List<Change> changes = new ArrayList<>(fires.size());
            List<Fire<?, ?>> changed = new ArrayList<>(fires.size());
            Outcome.Applied<?>[] outcomes = new Outcome.Applied<?>[fires.size()];
            for (int i = 0; i < fires.size(); i++) {
                Object d = prepare(fires.get(i));
                if (d instanceof Outcome.Refused<?> r) return BatchOutcome.refused(r, i);
                if (d instanceof Outcome.Applied<?> replayed) {
                    outcomes[i] = replayed;
                } else {
                    changes.add((Change) d);
                    changed.add(fires.get(i));
                }
            }
            if (changes.isEmpty()) return new BatchOutcome(List.of(outcomes), null, -1);
            ApplyResult result = store.applyAll(changes);
            if (result.applied()) {
                int c = 0;
                for (int i = 0; i < fires.size(); i++) {
                    if (outcomes[i] != null) continue;
                    Change change = changes.get(c++);
                    notifyListeners(fires.get(i).machine().name(), change);
                    outcomes[i] = appliedOf(fires.get(i).machine(), change);
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
                    if (culprit.command().expectedVersionOrMinusOne() >= 0 || attempt >= maxConflictRetries) {
                        TaskRecord now = store.find(culprit.taskId()).orElse(null);
                        if (now == null) return BatchOutcome.refused(notFoundOf(culprit), index);
                        return BatchOutcome.refused(conflictOf(culprit, now, attempt + 1), index);
                    }
            }
        }
    }

    private static int indexOf(List<Fire<?, ?>> fires, long taskId) {
        for (int i = 0; i < fires.size(); i++) if (fires.get(i).taskId() == taskId) return i;
        throw new IllegalStateException("store named task " + taskId + " which is not in the batch");
    }

    // Returns a Refused, an Applied replay, or a Change for one command of a batch.
    private <S extends Enum<S>, E extends Enum<E>> Object prepare(Fire<S, E> f) {
        TaskRecord current = store.find(f.taskId()).orElse(null);
        if (current == null || !current.machine().equals(f.machine().name())) return notFound(f.machine(), f.taskId(), f.event());
        String key = f.command().idempotencyKey();
        if (key != null) {
            Optional<HistoryEntry> prior = store.findCommand(f.taskId(), key);
            if (prior.isPresent()) return replay(f.machine(), current, prior.get());
        }
        return decide(f.machine(), current, f.event(), f.command(), null);
    }

    private <S extends Enum<S>, E extends Enum<E>> Outcome.Applied<S> appliedOf(Machine<S, E> machine, Change change) {
        return new Outcome.Applied<>(new Task<>(stateOf(machine, change.next()), change.next()), change.entry(), false);
    }

    private static boolean sameName(String a, String b) {
        return a == b || a.equals(b);
    }

    private static <S extends Enum<S>, E extends Enum<E>> Outcome.Refused<S> notFoundOf(Fire<S, E> f) {
        return notFound(f.machine(), f.taskId(), f.event());
    }

    private <S extends Enum<S>, E extends Enum<E>> Outcome.Refused<S> conflictOf(Fire<S, E> f, TaskRecord now, int attempts) {
        return conflict(f.machine(), now, f.event(), f.command(), attempts);
    }

    /** Decides one command against one snapshot: returns a {@link Change} or an {@link Outcome.Refused}. */
    private <S extends Enum<S>, E extends Enum<E>> Object decide(Machine<S, E> machine, TaskRecord current, E event,
                                                                 Command command, @Nullable Adjust adjust) {
        S from = stateOf(machine, current);
        long token = command.leaseTokenOrMinusOne();
        Instant now = null;
        if (token >= 0) {
            now = clock.now();
            Lease lease = current.lease();
            if (lease == null || lease.fencingToken() != token || !lease.expiresAt().isAfter(now)) {
                return new Outcome.Refused<S>(RefusalCode.LEASE_LOST, RefusalCode.LEASE_LOST.name(),
                        "the lease with fencing token " + token + " on task " + current.id() + " is "
                                + (lease == null ? "released" : lease.fencingToken() != token ? "taken over (now token "
                                + lease.fencingToken() + ")" : "expired since " + lease.expiresAt()) + "; the result is discarded",
                        current.id(), from, event.name());
            }
        }
        long expected = command.expectedVersionOrMinusOne();
        if (expected >= 0 && expected != current.version()) {
            return new Outcome.Refused<S>(RefusalCode.VERSION_CONFLICT, RefusalCode.VERSION_CONFLICT.name(),
                    "task " + current.id() + " is at version " + current.version() + ", not the expected " + expected,
                    current.id(), from, event.name());
        }
        Transition<S, E> @Nullable [] candidates = machine.candidates(from, event, command.source());
        if (candidates == null) return illegal(machine, current, from, event, command);
        Task<S> view = null;
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
            Verdict r = Objects.requireNonNull(refusal);
            return new Outcome.Refused<S>(RefusalCode.GUARD_REFUSED, Objects.requireNonNull(r.code()),
                    "guard '" + refusingGuard + "' refused " + event.name() + " for task " + current.id() + " in state "
                            + from.name() + ": " + r.message(),
                    current.id(), from, event.name());
        }
        Attributes attributes = current.attributes();
        Effect<S> effect = chosen.effect();
        if (effect != null || !command.attributes().isEmpty()) {
            Map<String, @Nullable String> changes = new LinkedHashMap<>(command.attributes());
            if (effect != null) effect.apply(view != null ? view : new Task<>(from, current), command, changes);
            attributes = attributes.with(changes);
        }
        if (now == null) now = clock.now();
        TaskRecord next = current.transitioned(chosen.to().name(), attributes, now);
        boolean endsLease = current.lease() != null && !machine.holdsLease(chosen.to());
        if (endsLease || command.error() != null) {
            TaskRecord.Builder b = next.toBuilder();
            if (endsLease) b.lease(null);                      // leaving the running states ends the lease
            if (command.error() != null) b.lastError(command.error());
            next = b.build();
        }
        if (adjust != null) {
            TaskRecord.Builder b = next.toBuilder();
            adjust.adjust(current, b);
            next = b.build();
        }
        HistoryEntry entry = new HistoryEntry(current.id(), next.version(), current.state(), next.state(), event.name(),
                command.source(), command.actor(), command.reason(), now, command.idempotencyKey());
        return new Change(current.version(), next, entry);
    }

    private <S extends Enum<S>, E extends Enum<E>> Outcome.Refused<S> illegal(
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

    private <S extends Enum<S>, E extends Enum<E>> Outcome.Refused<S> conflict(
            Machine<S, E> machine, TaskRecord current, E event, Command command, int attempts) {
        long expected = command.expectedVersionOrMinusOne();
        String message = expected >= 0
                ? "task " + current.id() + " changed concurrently; it is no longer at the expected version " + expected
                : "task " + current.id() + " changed concurrently " + attempts + " times; gave up";
        return new Outcome.Refused<>(RefusalCode.VERSION_CONFLICT, RefusalCode.VERSION_CONFLICT.name(), message,
                current.id(), stateOf(machine, current), event.name());
    }

    private static <S extends Enum<S>, E extends Enum<E>> Outcome.Refused<S> notFound(Machine<S, E> machine, long taskId, E event) {
        return new Outcome.Refused<>(RefusalCode.NOT_FOUND, RefusalCode.NOT_FOUND.name(),
                "no task " + taskId + " in machine " + machine.name(), taskId, null, event.name());
    }

    private static <S extends Enum<S>, E extends Enum<E>> Outcome.Applied<S> replay(
            Machine<S, E> machine, TaskRecord current, HistoryEntry prior) {
        return new Outcome.Applied<>(new Task<>(stateOf(machine, current), current), prior, true);
    }

    private static <S extends Enum<S>, E extends Enum<E>> S stateOf(Machine<S, E> machine, TaskRecord record) {
        S s = machine.state(record.state());
        if (s == null) {
            throw new StatekitException(ErrorCode.SCHEMA_DRIFT, "task " + record.id() + " is in state '" + record.state()
                    + "', which machine " + machine.name() + " v" + machine.version() + " does not know", record.id(), null);
        }
        return s;
    }

    /** Tells listeners of a change a store applied on the engine's behalf (a claim). */
    void announce(String machine, TaskRecord task, HistoryEntry entry) {
        TransitionListener[] current = listeners;
        for (TransitionListener l : current) {
            try {
                l.onTransition(machine, task, entry);
            } catch (RuntimeException e) {
                log.warn("listener {} failed on task {} version {}; the change stands", l, task.id(), task.version(), e);
            }
        }
    }

    /** Returns whether listeners other than {@code own} are subscribed. */
    boolean hasListenersBesides(TransitionListener own) {
        for (TransitionListener l : listeners) if (l != own) return true;
        return false;
    }

    private void notifyListeners(String machine, Change change) {
        if (log.isDebugEnabled()) {
            HistoryEntry e = change.entry();
            log.debug("task {} {} --{}--> {} (v{})", e.taskId(), e.from(), e.event(), e.to(), e.version());
        }
        for (TransitionListener l : listeners) {
            try {
                l.onTransition(machine, change.next(), change.entry());
            } catch (RuntimeException e) {
                log.warn("listener {} failed on task {} version {}; the change stands", l, change.next().id(),
                        change.next().version(), e);
            }
        }
    }

    /** Builds a {@link TransitionEngine}. Not thread-safe. */
    public static final class Builder {
        private @Nullable Store store;
        private Clock clock = Clock.system();
        private final List<TransitionListener> listeners = new ArrayList<>();
        private int maxConflictRetries = 100;

        private Builder() {}

        /** Sets the store. Required. */
        public Builder store(Store value) {
            this.store = Objects.requireNonNull(value, "store");
            return this;
        }

        /** Sets the clock (default {@link Clock#system()}). */
        public Builder clock(Clock value) {
            this.clock = Objects.requireNonNull(value, "clock");
            return this;
        }

        /** Adds a listener, called after every applied change in the order added. */
        public Builder listener(TransitionListener value) {
            listeners.add(Objects.requireNonNull(value, "listener"));
            return this;
        }

        /**
         * Sets how often a command without an expected version is decided again after losing a
         * compare-and-set to a concurrent change (default 100) before it is refused with
         * {@link RefusalCode#VERSION_CONFLICT}.
         *
         * @throws IllegalArgumentException if negative
         */
        public Builder maxConflictRetries(int value) {
            if (value < 0) throw new IllegalArgumentException("maxConflictRetries must be >= 0, was " + value);
            this.maxConflictRetries = value;
            return this;
        }

        /**
         * Builds the engine.
         *
         * @throws IllegalStateException if no store was given
         */
        public TransitionEngine build() {
            if (store == null) throw new IllegalStateException("a TransitionEngine needs a store");
            return new TransitionEngine(this);
        }
    }
}
