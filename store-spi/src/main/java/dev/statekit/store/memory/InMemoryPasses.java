package dev.statekit.store.memory;

import dev.statekit.store.GroupPass;
import dev.statekit.store.GroupRecord;
import dev.statekit.store.GroupResolver;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.support.GroupLedger;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The resolution passes of an {@link InMemoryStore}, one owner at a time (the store serialises
 * passes): the owner's monitor is held while its marks are taken and the resolver decides; the
 * decision's changes are then applied as one {@code applyAll} (monitors in id order), and a pass
 * that fails or is refused puts the marks back for the next one.
 */
final class InMemoryPasses {
    private final InMemoryStore store;
    private final InMemorySlots tasks;
    private final InMemoryGroups groups;

    InMemoryPasses(InMemoryStore store, InMemorySlots tasks, InMemoryGroups groups) {
        this.store = store;
        this.tasks = tasks;
        this.groups = groups;
    }

    /**
     * Resolves the group of {@code ownerId}, adding the changes it writes to {@code written}; returns
     * the group as written, or null when its decision was not written.
     */
    @Nullable GroupRecord resolveOne(long ownerId, GroupResolver resolver, List<GroupPass.Written> written) {
        InMemorySlots.Slot slot = tasks.get(ownerId);
        InMemoryGroups.Group g = groups.get(ownerId);
        if (slot == null || g == null) {
            groups.drain(ownerId);
            return null;
        }
        java.util.ArrayDeque<GroupLedger.Mark> taken;
        GroupResolver.Resolution r;
        synchronized (slot) {
            taken = groups.drain(ownerId);
            try {
                GroupLedger.Counts counted = InMemoryGroups.counted(g, taken);
                GroupRecord view = g.record().withCounts(counted.total(), counted.counts());
                r = resolver.resolve(new GroupResolver.View(slot.task, view, (machine, state, afterId, max) -> members(g, machine, state, afterId, max)));
            } catch (RuntimeException | Error e) {
                groups.restore(ownerId, taken);          // a pass that fails writes nothing
                throw e;
            }
        }
        boolean applied;
        List<GroupPass.Written> changed = new ArrayList<>();
        try {
            applied = r.changes().isEmpty() || store.applyWritten(r.changes(), changed).applied();
        } catch (RuntimeException | Error e) {
            groups.restore(ownerId, taken);
            throw e;
        }
        if (!applied) {
            groups.restore(ownerId, taken);
            return null;
        }
        written.addAll(changed);
        GroupRecord record;
        synchronized (slot) {
            GroupLedger.Counts after = InMemoryGroups.counted(g, taken);
            g.counts.clear();
            g.counts.putAll(after.counts());
            g.total = after.total();
            g.resolution = r.resolution();
            Boolean hold = r.hold();
            if (hold != null) g.hold = hold;
            g.awaiting = r.awaiting();
            g.checked = groups.nextCheck();
            record = g.record();
        }
        if (!r.creates().isEmpty()) store.createAll(r.creates());
        for (long id : r.cancels()) store.requestCancel(id);
        return record;
    }

    private List<TaskRecord> members(InMemoryGroups.Group g, String machine, String state, long afterId, int max) {
        List<TaskRecord> found = new ArrayList<>();
        for (long id : groups.members(g).tailSet(afterId, false)) {
            if (found.size() >= max) break;
            InMemorySlots.Slot s = tasks.get(id);
            if (s != null && s.task.machine().equals(machine) && s.task.state().equals(state)) found.add(s.task);
        }
        return found;
    }


    /** Runs one resolution pass over up to {@code max} groups owned by tasks of {@code ownerMachines} ({@code Store.resolveGroups}). */
    GroupPass resolve(java.util.Collection<String> ownerMachines, int max, GroupResolver resolver) {
        if (max <= 0) throw new IllegalArgumentException("max must be positive, was " + max);
        synchronized (groups.passLock) {
            List<GroupPass.Written> written = new ArrayList<>();
            List<GroupRecord> resolved = new ArrayList<>();
            for (long ownerId : groups.pick(ownerMachines, max)) {
                GroupRecord g = resolveOne(ownerId, resolver, written);
                if (g != null) resolved.add(g);
            }
            return new GroupPass(written, resolved, groups.pending() > 0);
        }
    }
}
