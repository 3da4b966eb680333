package dev.statekit.core;

import dev.statekit.core.internal.GroupResolved;
import dev.statekit.store.Change;
import dev.statekit.store.GroupKind;
import dev.statekit.store.GroupRecord;
import dev.statekit.store.GroupResolver;
import dev.statekit.store.MemberState;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides what a group's counts mean for its owner, inside the store's resolution pass
 * ({@link dev.statekit.store.Store#resolveGroups}): which event the owner gets, whether its
 * children are held, which children a cancelled parent cancels, whether a dependent is released.
 * Pure apart from the member reads the pass offers: the same counts and owner give the same answer.
 *
 * <p>Exactly once: the event is decided with the owner's row locked and written with the group's
 * new resolution in the same transaction; a pass that sees the resolution set decides nothing again.
 */
final class GroupDecider implements GroupResolver {
    private static final Logger log = LoggerFactory.getLogger(GroupDecider.class);
    /** The most member changes one pass writes for one group (a cascade goes on in the next pass). */
    static final int CASCADE_BATCH = 500;
    /** The resolution of a dependency group whose dependent was released to run. */
    static final String RELEASED = "released";
    /** The resolution of a group whose owner has ended, so that no event can ever be fired on it. */
    static final String OWNER_ENDED = "owner-ended";
    /** The error code of a parent whose children failed. */
    static final String CHILDREN_FAILED = "CHILDREN_FAILED";
    /** How many failed children a parent's error names. */
    static final int NAMED_FAILURES = 10;
    /** The actor of the commands the resolver fires. */
    static final String ACTOR = "statekit-groups";

    private final Map<String, Machine<?, ?>> machines;
    private final Instant now;
    private final Map<Long, GroupResolved> resolved = new java.util.LinkedHashMap<>();

    GroupDecider(Map<String, Machine<?, ?>> machines, Instant now) {
        this.machines = machines;
        this.now = now;
    }

    /** How many members of a group have ended, and how. */
    record Tally(long total, long succeeded, long failed, long cancelled) {
        long open() {
            return total - succeeded - failed - cancelled;
        }

        static Tally of(GroupRecord group, Map<String, Machine<?, ?>> machines) {
            long ok = 0;
            long failed = 0;
            long cancelled = 0;
            for (Map.Entry<MemberState, Long> e : group.counts().entrySet()) {
                Machine<?, ?> m = machines.get(e.getKey().machine());
                Ending ending = m == null ? null : m.ending(e.getKey().state());
                if (ending == Ending.SUCCEEDED) ok += e.getValue();
                else if (ending == Ending.FAILED) failed += e.getValue();
                else if (ending == Ending.CANCELLED) cancelled += e.getValue();
            }
            return new Tally(group.total(), ok, failed, cancelled);
        }
    }

    /**
     * A group this decider resolved: it was open, and the pass gives it a resolution (an event fired
     * on its owner, or a dependent released), not {@link #OWNER_ENDED}.
     *
     * @param owner      the owner as the pass saw it, before its change
     * @param kind       children or dependencies
     * @param resolution the group's new resolution
     * @param change     the owner's change decided with it, or null when it has none (a dependent released)
     * @param at         the pass's time
     */

    @Override
    public Resolution resolve(View view) {
        Machine<?, ?> owner = machines.get(view.owner().machine());
        if (owner == null) return Resolution.keep(view.group());
        Resolution r = view.group().kind() == GroupKind.CHILDREN ? children(owner, view) : dependencies(owner, view);
        long ownerId = view.owner().id();
        String resolution = r.resolution();
        if (view.group().resolution() == null && resolution != null && !OWNER_ENDED.equals(resolution)) {
            Change own = null;
            for (Change c : r.changes()) if (c.next().id() == ownerId) own = c;
            resolved.put(ownerId, new GroupResolved(view.owner(), view.group().kind(), resolution, own, now));
        } else {
            resolved.remove(ownerId);       // a pass run again after a rollback decided otherwise
        }
        return r;
    }

    /** Returns the groups resolved (by the last decision for each owner), for the runtime's listeners once the pass is written. */
    List<GroupResolved> resolved() {
        return List.copyOf(resolved.values());
    }

    // --- children ------------------------------------------------------------------------------

    private <S extends Enum<S>, E extends Enum<E>> Resolution children(Machine<S, E> owner, View view) {
        Children<S, E> policy = owner.children();
        GroupRecord group = view.group();
        if (policy == null) return Resolution.keep(group);
        S state = Decider.stateOf(owner, view.owner());
        boolean cancelling = policy.cancelIn().contains(state);
        boolean hold = cancelling || policy.holdIn().contains(state);
        Tally tally = Tally.of(group, machines);
        List<Change> changes = new ArrayList<>();
        List<Long> cancels = new ArrayList<>();
        boolean more = false;
        if (cancelling && tally.open() > 0) more = cascade(policy.machine(), view, changes, cancels, false, "cancelled");
        else if (policy.stopIn().contains(state) && tally.open() > 0) {
            more = cascade(policy.machine(), view, changes, cancels, true, state.name().toLowerCase(java.util.Locale.ROOT));
        }
        if (!group.sealed()) return new Resolution(changes, List.of(), cancels, group.resolution(), hold, more);

        String reason = tally.succeeded() + " of " + tally.total() + " children succeeded, " + tally.failed() + " failed, "
                + tally.cancelled() + " cancelled";
        E settle = null;
        if (tally.open() == 0) {
            settle = tally.failed() > 0 ? policy.whenFailed() : tally.cancelled() > 0 ? policy.whenCancelled() : policy.whenSucceeded();
        } else if (policy.failFast() && tally.failed() > 0) {
            settle = policy.whenFailed();
        }
        String resolved = group.resolution();
        if (resolved == null) {
            if (settle == null) return new Resolution(changes, List.of(), cancels, null, hold, more);
            String attribute = policy.succeededAttribute();
            Command command = Command.system().actor(ACTOR).reason(reason);
            if (attribute != null) command = command.set(attribute, Long.toString(tally.succeeded()));
            if (tally.failed() > 0 && settle == policy.whenFailed()) command = command.error(failures(policy.machine(), view, tally));
            Change fired = fire(owner, view.owner(), settle, command);
            if (fired != null) {
                changes.add(0, fired);
                return new Resolution(changes, List.of(), cancels, settle.name(), hold, more);
            }
            // The owner's state refuses the event for now (paused, say): a later pass tries again,
            // unless the owner has ended and never will take it.
            if (owner.isTerminal(state)) return new Resolution(changes, List.of(), cancels, OWNER_ENDED, hold, more);
            return new Resolution(changes, List.of(), cancels, null, hold, true);
        }
        // Resolved before: it stays so while the children's endings mean the same event. A child
        // retried since opens the group again, even when it has ended again by this pass with
        // another outcome (then the group settles anew at the next pass).
        if (OWNER_ENDED.equals(resolved) || (settle != null && settle.name().equals(resolved))) {
            return new Resolution(changes, List.of(), cancels, resolved, hold, more);
        }
        E reopen = policy.reopen();
        Change fired = reopen == null ? null : fire(owner, view.owner(), reopen, Command.system().actor(ACTOR).reason(reason));
        if (fired != null) changes.add(0, fired);
        return new Resolution(changes, List.of(), cancels, null, hold, more || settle != null);
    }

    /** The parent's error when children failed: which ones, with their own errors (the first {@value #NAMED_FAILURES}). */
    private static <C extends Enum<C>, F extends Enum<F>> TaskError failures(Machine<C, F> child, View view, Tally tally) {
        StringBuilder b = new StringBuilder().append(tally.failed()).append(" of ").append(tally.total()).append(" children failed: ");
        int named = 0;
        for (C s : child.states()) {
            if (child.ending(s) != Ending.FAILED || named >= NAMED_FAILURES) continue;
            for (TaskRecord m : view.members().inState(child.name(), s.name(), 0, NAMED_FAILURES - named)) {
                TaskError e = m.lastError();
                if (named++ > 0) b.append("; ");
                b.append("task ").append(m.id()).append(e == null ? "" : " " + e.code() + " (" + e.message() + ")");
            }
        }
        if (tally.failed() > named) b.append("; and ").append(tally.failed() - named).append(" more");
        return new TaskError(CHILDREN_FAILED, b.toString(), false, null);
    }

    /**
     * Cancels up to a batch of the children that have not ended: running ones are asked to stop
     * (through their lease), waiting ones get their machine's cancel event. With {@code onlyWithRow},
     * waiting children in a state without a row for that event are left as they are (a pause keeps
     * pending work pending). Returns whether some are left for the next pass.
     */
    private <C extends Enum<C>, F extends Enum<F>> boolean cascade(Machine<C, F> child, View view, List<Change> changes, List<Long> cancels,
                                                                   boolean onlyWithRow, String why) {
        F cancel = child.cancelEvent();
        if (cancel == null) return false;
        int budget = CASCADE_BATCH;
        for (C s : child.states()) {
            if (child.ending(s) != null) continue;
            if (onlyWithRow && !child.holdsLease(s) && !child.permits(s, cancel)) continue;
            long after = 0;
            while (budget > 0) {
                List<TaskRecord> page = view.members().inState(child.name(), s.name(), after, Math.min(budget, 200));
                if (page.isEmpty()) break;
                for (TaskRecord m : page) {
                    after = m.id();
                    budget--;
                    if (m.lease() != null) {
                        cancels.add(m.id());
                        continue;
                    }
                    Change c = fire(child, m, cancel, Command.system().actor(ACTOR).reason("parent " + view.owner().id() + " " + why));
                    if (c != null) changes.add(c);
                }
            }
            if (budget == 0) return true;
        }
        return false;
    }

    // --- dependencies ------------------------------------------------------------------------------

    private <S extends Enum<S>, E extends Enum<E>> Resolution dependencies(Machine<S, E> owner, View view) {
        GroupRecord group = view.group();
        Dependencies<S, E> policy = owner.dependencies();
        if (group.resolution() != null) return Resolution.keep(group);
        Tally tally = Tally.of(group, machines);
        if (tally.open() == 0 && tally.failed() == 0 && tally.cancelled() == 0) {
            return new Resolution(List.of(), List.of(), List.of(), RELEASED, false, false);
        }
        if (policy == null || (tally.failed() == 0 && tally.cancelled() == 0)) return Resolution.keep(group);
        E event = tally.failed() > 0 ? policy.whenFailed() : policy.whenCancelled();
        String reason = tally.failed() > 0 ? tally.failed() + " of " + tally.total() + " dependencies failed"
                : tally.cancelled() + " of " + tally.total() + " dependencies were cancelled";
        Change fired = fire(owner, view.owner(), event, Command.system().actor(ACTOR).reason(reason));
        S state = Decider.stateOf(owner, view.owner());
        if (fired == null) {
            if (owner.isTerminal(state)) return new Resolution(List.of(), List.of(), List.of(), OWNER_ENDED, null, false);
            return new Resolution(List.of(), List.of(), List.of(), null, null, true);
        }
        return new Resolution(List.of(fired), List.of(), List.of(), event.name(), null, false);
    }

    private <S extends Enum<S>, E extends Enum<E>> @Nullable Change fire(Machine<S, E> machine, TaskRecord task, E event, Command command) {
        Decision<S> d = Decider.decide(machine, task, event, command, null, now);
        if (d instanceof Decision.Write<S> w) return w.change();
        log.debug("group resolution: {} refused on task {} in {}", event, task.id(), task.state());
        return null;
    }
}
