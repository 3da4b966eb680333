package dev.statekit.core.runtime;

import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.internal.GroupResolved;

import dev.statekit.core.spi.RuntimeEvent;
import dev.statekit.core.spi.RuntimeEvent.Kind;
import dev.statekit.core.spi.RuntimeListener;
import dev.statekit.store.Change;
import dev.statekit.store.Claimed;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one runtime reports of its own work, once each change was written: the last minute's counts
 * of each machine and queue ({@link MinuteWindow}s, always kept), and {@link RuntimeEvent}s to the
 * {@link RuntimeListener}s. Without listeners nothing is allocated per task: a claim or a result
 * costs a counter's addition, and nothing reads the clock for it.
 *
 * <p>Thread-safe: the listeners and the windows of the registrations are fixed when built; windows
 * of other machines and queues (a recovered task on a queue no registration serves) are added to a
 * concurrent map on first use. Called on whichever thread wrote the change.
 */
final class RuntimeEvents {
    private static final Logger log = LoggerFactory.getLogger(TaskRuntime.class);

    /** A machine on a queue. */
    record Pair(String machine, String queue) {}

    private final String owner;
    private final Registrations registrations;
    private final RuntimeListener[] listeners;
    /** Whether any listener is registered: events are made only then. */
    final boolean listening;
    private final ConcurrentHashMap<Pair, MinuteWindow> windows = new ConcurrentHashMap<>();
    /** The window of each registration, found without making a key: the claim and result paths use it. */
    private final Map<Registration<?, ?>, MinuteWindow> ofRegistration = new IdentityHashMap<>();

    RuntimeEvents(String owner, Registrations registrations, List<RuntimeListener> listeners) {
        this.owner = owner;
        this.registrations = registrations;
        this.listeners = listeners.toArray(new RuntimeListener[0]);
        this.listening = this.listeners.length > 0;
        for (Registration<?, ?> r : registrations.all()) {
            ofRegistration.put(r, windows.computeIfAbsent(new Pair(r.machine.name(), r.queue), p -> new MinuteWindow()));
        }
    }

    // --- what the runtime did -----------------------------------------------------------------

    /** A slot of registration {@code r} claimed {@code claimed} at {@code now}. */
    void claimed(Registration<?, ?> r, List<Claimed> claimed, Instant now) {
        window(r).add(MinuteWindow.STARTED, claimed.size(), now);
        if (!listening) return;
        for (Claimed c : claimed) {
            TaskRecord t = c.task();
            HistoryEntry e = c.entry();
            emit(new RuntimeEvent(Kind.CLAIMED, r.machine.name(), r.queue, t.id(), e.from(), e.to(), e.event(), t.attempts(),
                    between(c.readySince(), e.at()), null, null, e.at()));
        }
    }

    /**
     * The completion {@code c} of {@code run} was written as {@code applied}; counts it and tells
     * the listeners. Returns what the result was (null for a cancellation, or a snooze the machine
     * took), so that the writer can log it.
     */
    @Nullable Kind completed(Run<?, ?> run, Settlement.Completion<?, ?> c, Outcome.Applied<?> applied) {
        Kind kind = kindOf(c);
        if (kind == null || applied.replayed()) return null;
        HistoryEntry e = applied.entry();
        MinuteWindow w = window(run.reg);
        boolean timedOut = c.cause() instanceof Settlement.Timeout;
        if (timedOut) w.add(MinuteWindow.TIMED_OUT, 1, e.at());
        w.add(kind == Kind.SUCCEEDED ? MinuteWindow.SUCCEEDED : kind == Kind.FAILED ? MinuteWindow.FAILED : MinuteWindow.RETRIED, 1, e.at());
        if (listening) {
            if (timedOut) emit(ran(Kind.TIMED_OUT, run, applied));
            emit(ran(kind, run, applied));
        }
        return kind;
    }

    /** The result of {@code run} was refused by the machine, and the task was failed instead, as {@code applied}. */
    void failedInstead(Run<?, ?> run, Outcome.Applied<?> applied) {
        window(run.reg).add(MinuteWindow.FAILED, 1, applied.entry().at());
        if (listening) emit(ran(Kind.FAILED, run, applied));
    }

    /**
     * What a result was, as the settlement decided it: success, a failure that ends the task (a
     * snooze the machine cannot take included), or one retried later; null for a cancellation
     * applied instead, or a snooze.
     */
    private static @Nullable Kind kindOf(Settlement.Completion<?, ?> c) {
        switch (c.kind()) {
            case SUCCESS:
                return Kind.SUCCEEDED;
            case RETRY:
                return Kind.RETRIED;
            case FAIL:
                return Kind.FAILED;
            default:
                return null;
        }
    }

    private RuntimeEvent ran(Kind kind, Run<?, ?> run, Outcome.Applied<?> applied) {
        TaskRecord t = applied.task().record();
        HistoryEntry e = applied.entry();
        TaskError error = t.lastError();
        String code = kind == Kind.SUCCEEDED || error == null ? null : error.code();
        return new RuntimeEvent(kind, run.reg.machine.name(), run.reg.queue, t.id(), e.from(), e.to(), e.event(),
                run.task.record().attempts(), run.ran(), code, null, e.at());
    }

    /** This runtime recovered {@code before}, whose holder was gone, as {@code applied}. */
    void recovered(TaskRecord before, Outcome.Applied<?> applied) {
        HistoryEntry e = applied.entry();
        window(before.machine(), before.queue()).add(MinuteWindow.RECOVERED, 1, e.at());
        if (!listening) return;
        TaskRecord t = applied.task().record();
        Lease lease = before.lease();
        TaskError error = t.lastError();
        String code = error == null || error.equals(before.lastError()) ? null : error.code();
        emit(new RuntimeEvent(Kind.RECOVERED, before.machine(), before.queue(), t.id(), e.from(), e.to(), e.event(), t.attempts(),
                lease == null ? Duration.ZERO : between(lease.expiresAt(), e.at()), code, null, e.at()));
    }

    /** A change of {@code task} was written in this process: tells the listeners when it entered a stage. */
    void transitioned(String machine, TaskRecord task, HistoryEntry entry) {
        if (!listening) return;
        List<Registration<?, ?>> regs = registrations.forMachine(machine);
        if (!regs.isEmpty()) stage(regs.get(0).machine, task, entry);
    }

    private <S extends Enum<S>, E extends Enum<E>> void stage(Machine<S, E> m, TaskRecord task, HistoryEntry entry) {
        S from = m.state(entry.from());
        S to = m.state(entry.to());
        if (from == null || to == null || !m.entersStage(from, to)) return;
        emit(new RuntimeEvent(Kind.STAGE_CHANGED, m.name(), task.queue(), task.id(), entry.from(), entry.to(), entry.event(),
                task.attempts(), null, null, m.stageOf(to), entry.at()));
    }

    /** A resolution pass of this runtime resolved the group of {@code r}'s owner, which is now {@code owner}. */
    void groupResolved(GroupResolved r, TaskRecord owner) {
        if (!listening) return;
        TaskRecord before = r.owner();
        Change c = r.change();
        Instant at = c != null ? c.entry().at() : r.at();
        emit(new RuntimeEvent(Kind.GROUP_RESOLVED, owner.machine(), owner.queue(), owner.id(), before.state(), owner.state(),
                r.resolution(), owner.attempts(), between(before.updatedAt(), at), null, null, at));
    }

    private void emit(RuntimeEvent event) {
        for (RuntimeListener l : listeners) {
            try {
                l.onEvent(event);
            } catch (RuntimeException e) {
                log.warn("runtime {}: listener {} failed on {} of task {}; the change stands", owner, l, event.kind(), event.taskId(), e);
            }
        }
    }

    // --- the last minute ----------------------------------------------------------------------

    /** Returns what this runtime did for {@code machine} on {@code queue} in the last minute before {@code now}. */
    LastMinute lastMinute(String machine, String queue, Instant now) {
        MinuteWindow w = windows.get(new Pair(machine, queue));
        return w == null ? LastMinute.NONE : w.read(now);
    }

    /** Returns the machines and queues this runtime has counted anything for, or serves. */
    List<Pair> counted() {
        return new ArrayList<>(windows.keySet());
    }

    private MinuteWindow window(Registration<?, ?> r) {
        MinuteWindow w = ofRegistration.get(r);
        return w != null ? w : window(r.machine.name(), r.queue);
    }

    private MinuteWindow window(String machine, String queue) {
        return windows.computeIfAbsent(new Pair(machine, queue), p -> new MinuteWindow());
    }

    /** Returns the time from {@code from} to {@code to}, or zero when {@code to} is not later. */
    static Duration between(Instant from, Instant to) {
        return to.isAfter(from) ? Duration.between(from, to) : Duration.ZERO;
    }
}
