package dev.statekit.core;

import dev.statekit.core.internal.GroupResolved;
import dev.statekit.core.spi.Clock;
import dev.statekit.store.ApplyResult;
import dev.statekit.store.Change;
import dev.statekit.store.GroupPass;
import dev.statekit.store.GroupRecord;
import dev.statekit.store.GroupWrite;
import dev.statekit.store.MemberState;
import dev.statekit.store.NewTask;
import dev.statekit.store.StatekitException;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.Store;
import dev.statekit.store.TaskRecord;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * The engine's side of groups: children created with a parent's transition or added to its open
 * group, progress read from the group's counts, and resolution passes over the store.
 */
final class Groups {
    /** The most owners one resolution pass takes. */
    static final int PASS_SIZE = 200;

    private final Records records;
    private final Listeners listeners;
    private final Store store;
    private final Clock clock;

    Groups(Records records, Listeners listeners, Store store, Clock clock) {
        this.records = records;
        this.listeners = listeners;
        this.store = store;
        this.clock = clock;
    }

    static <S extends Enum<S>, E extends Enum<E>> Children<S, E> policy(Machine<S, E> parent) {
        Children<S, E> c = parent.children();
        if (c == null) {
            throw new StatekitException(ErrorCode.INVALID_ARGUMENT, "machine " + parent.name() + " declares no children (MachineBuilder.children)");
        }
        return c;
    }

    /**
     * Returns the hold the change of a parent writes with it: its children are held from the same
     * write that moves it into a hold or cancel state, and released by the one that moves it out;
     * null when the change does neither (or the machine has no children).
     */
    static <S extends Enum<S>, E extends Enum<E>> @org.jspecify.annotations.Nullable GroupWrite hold(Machine<S, E> machine, Change change) {
        Children<S, E> c = machine.children();
        if (c == null) return null;
        S from = machine.state(change.entry().from());
        S to = machine.state(change.entry().to());
        if (from == null || to == null) return null;
        boolean was = c.holdIn().contains(from) || c.cancelIn().contains(from);
        boolean is = c.holdIn().contains(to) || c.cancelIn().contains(to);
        return was == is ? null : GroupWrite.hold(change.next().id(), is);
    }

    /**
     * Returns the group write of a parent's change: its children ({@code fanOut}, if any) with the
     * hold the change writes ({@link #hold}); null when there is neither.
     */
    static <S extends Enum<S>, E extends Enum<E>> @org.jspecify.annotations.Nullable GroupWrite withHold(
            Machine<S, E> machine, Change change, @org.jspecify.annotations.Nullable GroupWrite fanOut) {
        GroupWrite hold = hold(machine, change);
        if (hold == null || fanOut == null) return hold == null ? fanOut : hold;
        return new GroupWrite(fanOut.parentId(), fanOut.children(), fanOut.seal(), hold.hold());
    }

    /** The group writes of {@code changes} by the machines that made them: the holds they write. */
    static List<GroupWrite> holds(List<? extends Machine<?, ?>> machines, List<Change> changes) {
        List<GroupWrite> writes = new ArrayList<>();
        for (int i = 0; i < changes.size(); i++) {
            GroupWrite w = hold(machines.get(i), changes.get(i));
            if (w != null) writes.add(w);
        }
        return writes;
    }

    /** The children's descriptions, each under {@code parentId}. */
    List<NewTask> children(Children<?, ?> policy, long parentId, List<TaskSpec> specs) {
        List<NewTask> tasks = new ArrayList<>(specs.size());
        for (TaskSpec spec : specs) {
            Long p = spec.parentId();
            if (p != null && p != parentId) throw new IllegalArgumentException("a child spec names parent " + p + ", not " + parentId);
            if (!spec.dependsOn().isEmpty()) throw new IllegalArgumentException("children are created without dependencies");
            tasks.add(records.newTask(policy.machine(), spec.parent(parentId)));
        }
        return tasks;
    }

    /** Adds children to the open group of {@code parentId}, sealing it if asked; returns whether the parent exists. */
    <S extends Enum<S>, E extends Enum<E>> boolean add(Machine<S, E> parent, long parentId, List<TaskSpec> specs, boolean seal) {
        Optional<TaskRecord> owner = store.find(parentId);
        if (owner.isEmpty() || !owner.get().machine().equals(parent.name())) return false;
        GroupWrite write = new GroupWrite(parentId, children(policy(parent), parentId, specs), seal, null);
        ApplyResult r = store.applyAll(List.of(), List.of(write));
        return r.applied();
    }

    /** Returns the progress of the group {@code ownerId} owns, if it has one. */
    Optional<GroupProgress> progress(Map<String, Machine<?, ?>> machines, long ownerId) {
        Optional<GroupRecord> g = store.group(ownerId);
        if (g.isEmpty()) return Optional.empty();
        GroupRecord group = g.get();
        GroupDecider.Tally tally = GroupDecider.Tally.of(group, machines);
        long running = 0;
        Map<String, Long> byState = new HashMap<>();
        for (Map.Entry<MemberState, Long> e : group.counts().entrySet()) {
            byState.merge(e.getKey().state(), e.getValue(), Long::sum);
            Machine<?, ?> m = machines.get(e.getKey().machine());
            if (m != null && holdsLease(m, e.getKey().state())) running += e.getValue();
        }
        return Optional.of(new GroupProgress(tally.total(), tally.succeeded(), tally.failed(), tally.cancelled(), running,
                group.sealed(), group.resolution(), group.hold(), byState));
    }

    private static <S extends Enum<S>, E extends Enum<E>> boolean holdsLease(Machine<S, E> m, String state) {
        S s = m.state(state);
        return s != null && m.holdsLease(s);
    }

    /**
     * Runs resolution passes over the groups owned by tasks of {@code machines} until a pass finds
     * less than a full batch, at most {@code maxPasses}; returns how many groups were resolved.
     */
    int resolve(Collection<Machine<?, ?>> machines, int maxPasses) {
        return resolve(machines, maxPasses, null);
    }

    /**
     * Runs resolution passes as {@link #resolve(Collection, int)} does, and hands {@code resolutions}
     * each group a pass resolved, with its owner as it is after the pass.
     */
    int resolve(Collection<Machine<?, ?>> machines, int maxPasses,
                @org.jspecify.annotations.Nullable BiConsumer<GroupResolved, TaskRecord> resolutions) {
        Map<String, Machine<?, ?>> known = registry(machines);
        List<String> owners = new ArrayList<>();
        for (Machine<?, ?> m : machines) if (m.children() != null || m.dependencies() != null) owners.add(m.name());
        if (owners.isEmpty()) return 0;
        int total = 0;
        for (int i = 0; i < maxPasses; i++) {
            GroupDecider decider = new GroupDecider(known, clock.now());
            GroupPass pass = store.resolveGroups(owners, clock.now(), PASS_SIZE, decider);
            total += pass.resolved();
            Map<Long, GroupPass.Written> written = announce(known, pass.changes());
            if (resolutions != null) report(decider.resolved(), pass, written, resolutions);
            // a pass's own changes mark other groups (a settled batch its dependents): go on while it left marks
            if (pass.resolved() == 0 || (pass.resolved() < PASS_SIZE && !pass.marksLeft())) break;
        }
        return total;
    }

    /**
     * Tells the engine's listeners (display, logging, metrics) of the changes a pass wrote, with
     * each task as the pass stored it; returns them by task id.
     */
    private Map<Long, GroupPass.Written> announce(Map<String, Machine<?, ?>> known, List<GroupPass.Written> changes) {
        if (changes.isEmpty()) return Map.of();
        Map<Long, GroupPass.Written> byId = new HashMap<>();
        for (GroupPass.Written w : changes) {
            byId.put(w.task().id(), w);
            Machine<?, ?> m = known.get(w.task().machine());
            if (m != null) listeners.transitioned(m.name(), w.task(), w.entry());
        }
        return byId;
    }

    /**
     * Hands over the resolutions a pass wrote (a pass undone for one owner and run again without it
     * decided some it did not write): one with an owner's change when the pass wrote that change; one
     * without when the pass wrote the group with the resolution decided.
     */
    private static void report(List<GroupResolved> resolved, GroupPass pass, Map<Long, GroupPass.Written> written,
                               BiConsumer<GroupResolved, TaskRecord> resolutions) {
        Map<Long, GroupRecord> groups = new HashMap<>();
        for (GroupRecord g : pass.groups()) groups.put(g.ownerId(), g);
        for (GroupResolved r : resolved) {
            Change c = r.change();
            long ownerId = r.owner().id();
            if (c != null) {
                GroupPass.Written w = written.get(ownerId);
                if (w != null && w.task().version() == c.next().version()) resolutions.accept(r, w.task());
            } else {
                GroupRecord g = groups.get(ownerId);
                if (g != null && r.resolution().equals(g.resolution())) resolutions.accept(r, r.owner());
            }
        }
    }

    /** The machines a resolution may meet: the owners, their children's, their dependencies'. */
    static Map<String, Machine<?, ?>> registry(Collection<Machine<?, ?>> machines) {
        Map<String, Machine<?, ?>> known = new HashMap<>();
        for (Machine<?, ?> m : machines) {
            known.put(m.name(), m);
            Children<?, ?> c = m.children();
            if (c != null) known.putIfAbsent(c.machine().name(), c.machine());
            Dependencies<?, ?> d = m.dependencies();
            if (d != null) for (Machine<?, ?> u : d.upstream()) known.putIfAbsent(u.name(), u);
        }
        return known;
    }
}
