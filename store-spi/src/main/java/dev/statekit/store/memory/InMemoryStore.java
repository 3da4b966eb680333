package dev.statekit.store.memory;

import dev.statekit.store.ApplyResult;
import dev.statekit.store.ArchivedTask;
import dev.statekit.store.Change;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.Claimed;
import dev.statekit.store.CreateResult;
import dev.statekit.store.GroupPass;
import dev.statekit.store.GroupRecord;
import dev.statekit.store.GroupResolver;
import dev.statekit.store.GroupWrite;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.NewTask;
import dev.statekit.store.Page;
import dev.statekit.store.ProcessRecord;
import dev.statekit.store.QueueRecord;
import dev.statekit.store.RateLimit;
import dev.statekit.store.RenewResult;
import dev.statekit.store.RetentionRequest;
import dev.statekit.store.RetentionResult;
import dev.statekit.store.ScheduleFirer;
import dev.statekit.store.SchedulePass;
import dev.statekit.store.ScheduleRecord;
import dev.statekit.store.StateCount;
import dev.statekit.store.Store;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.memory.InMemorySlots.Slot;
import dev.statekit.store.support.ClaimPicker;
import dev.statekit.store.support.StoreChecks;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A thread-safe store that keeps everything in memory: the reference implementation of
 * {@link Store}, for tests, simulations and single-process hosts that need no durability.
 *
 * <p>Each task lives in a slot guarded by its own monitor, so writes to different tasks do not
 * contend; {@link #applyAll} locks the slots it touches in ascending id order. Claims on one queue
 * are serialised by that queue's monitor (taken before any slot monitor, never after), which is
 * what makes the queue's concurrency limit exact.
 *
 * <p>Runnable tasks are found through an index kept only for the states that claims and due-time
 * scans have asked about, so a store used without a runtime pays nothing for it.
 *
 * <p>The parts (see the package): {@code InMemorySlots} holds the tasks by id, {@code ClaimIndex}
 * the indexes and the scans that read them, {@code InMemoryCreations} the creations and group
 * writes, {@code InMemoryClaims} the claims, {@code InMemoryQueues} the queue records,
 * {@code InMemoryGroups} and {@code InMemoryPasses} the groups and their resolution, and
 * {@code InMemoryArchive} the archived tasks, {@code InMemorySchedules} the recurring schedules; this class checks and writes changes. What every
 * store writes the same way (a new task's first snapshot, a claim's snapshot and history entry, the
 * claim order, the group bookkeeping) comes from the store contract's own types:
 * {@link NewTask#toRecord}, {@link ClaimRule#claim}, {@link ClaimRule#entry},
 * {@link dev.statekit.store.support.ClaimPicker} and {@link dev.statekit.store.support.GroupLedger}.
 */
public final class InMemoryStore implements Store {

    /** The default payload limit, in characters. */
    public static final int DEFAULT_MAX_PAYLOAD_CHARS = 1 << 20;

    private final InMemorySlots tasks = new InMemorySlots();
    private final InMemoryGroups groups = new InMemoryGroups();
    private final ClaimIndex index = new ClaimIndex(tasks, groups::held);
    private final InMemoryQueues queues = new InMemoryQueues();
    private final InMemoryCreations creations;
    private final InMemoryClaims claims;
    private final InMemoryPasses passes = new InMemoryPasses(this, tasks, groups);
    private final InMemoryArchive archive = new InMemoryArchive(this, tasks, groups);
    private final InMemorySchedules schedules;
    private final InMemoryProcesses processes = new InMemoryProcesses();
    private final int maxPayloadChars;

    /** Creates an empty store with the default payload limit. */
    public InMemoryStore() {
        this(DEFAULT_MAX_PAYLOAD_CHARS);
    }

    /**
     * Creates an empty store.
     *
     * @param maxPayloadChars the largest payload accepted, in characters
     * @throws IllegalArgumentException if {@code maxPayloadChars} is negative
     */
    public InMemoryStore(int maxPayloadChars) {
        if (maxPayloadChars < 0) throw new IllegalArgumentException("maxPayloadChars must be >= 0, was " + maxPayloadChars);
        this.maxPayloadChars = maxPayloadChars;
        this.creations = new InMemoryCreations(tasks, index, groups, maxPayloadChars);
        this.claims = new InMemoryClaims(this, tasks, index, queues, creations);
        this.schedules = new InMemorySchedules(creations);
    }

    // --- create, find, apply ----------------------------------------------------------------

    @Override
    public CreateResult create(NewTask spec) {
        return creations.create(spec);
    }

    @Override
    public List<CreateResult> createAll(List<NewTask> specs) {
        return creations.createAll(specs);
    }

    @Override
    public Optional<TaskRecord> find(long id) {
        Slot slot = tasks.get(id);
        return slot == null ? Optional.empty() : Optional.of(slot.task);
    }

    @Override
    public ApplyResult apply(Change change) {
        Slot slot = tasks.get(change.next().id());
        if (slot == null) return ApplyResult.notFound(change.next().id());
        synchronized (slot) {
            ApplyResult refusal = check(slot, change);
            if (refusal != null) return refusal;
            write(slot, change.next(), change.entry(), change.reorders());
        }
        return ApplyResult.APPLIED;
    }

    @Override
    public ApplyResult applyAll(List<Change> changes) {
        if (changes.isEmpty()) throw new IllegalArgumentException("no changes to apply");
        if (changes.size() == 1) return apply(changes.get(0));
        return applyAll(changes, List.of());
    }

    @Override
    public ApplyResult applyAll(List<Change> changes, List<GroupWrite> writes) {
        return applyAll(changes, writes, null);
    }

    /** Applies {@code changes} as {@link #applyAll(List)} does, adding each task as stored and its entry to {@code written}. */
    ApplyResult applyWritten(List<Change> changes, List<GroupPass.Written> written) {
        return applyAll(changes, List.of(), written);
    }

    // Monitors are taken in ascending id order, so two concurrent writes cannot deadlock.
    private ApplyResult applyAll(List<Change> changes, List<GroupWrite> writes, @Nullable List<GroupPass.Written> written) {
        if (changes.isEmpty() && writes.isEmpty()) throw new IllegalArgumentException("nothing to write");
        StoreChecks.requireDistinctTasks(changes);
        java.util.TreeMap<Long, @Nullable Slot> involved = new java.util.TreeMap<>();
        for (Change c : changes) involved.put(c.next().id(), tasks.get(c.next().id()));
        java.util.Set<Long> owners = new java.util.HashSet<>();
        for (GroupWrite w : writes) {
            if (!owners.add(w.parentId())) throw new IllegalArgumentException("two group writes for task " + w.parentId());
            involved.put(w.parentId(), tasks.get(w.parentId()));
            for (NewTask child : w.children()) StoreChecks.checkPayload(child, maxPayloadChars);
        }
        @Nullable Slot[] slots = involved.values().toArray(new Slot[0]);
        return InMemorySlots.locked(slots, 0, () -> {
            for (Change c : changes) {           // refusals name the first task in the order given
                Slot slot = involved.get(c.next().id());
                if (slot == null) return ApplyResult.notFound(c.next().id());
                ApplyResult refusal = check(slot, c);
                if (refusal != null) return refusal;
            }
            for (GroupWrite w : writes) {
                if (involved.get(w.parentId()) == null) return ApplyResult.notFound(w.parentId());
                creations.checkGroupWrite(w);
            }
            for (Change c : changes) {
                TaskRecord stored = write(Objects.requireNonNull(involved.get(c.next().id())), c.next(), c.entry(), c.reorders());
                if (written != null) written.add(new GroupPass.Written(stored, c.entry()));
            }
            for (GroupWrite w : writes) creations.writeGroup(w, Objects.requireNonNull(involved.get(w.parentId())).task);
            return ApplyResult.APPLIED;
        });
    }

    // --- groups -----------------------------------------------------------------------------

    @Override
    public Optional<GroupRecord> group(long ownerId) {
        Slot slot = tasks.get(ownerId);
        if (slot == null) return Optional.empty();
        synchronized (slot) {
            InMemoryGroups.Group g = groups.get(ownerId);
            return g == null ? Optional.empty() : Optional.of(g.record());
        }
    }

    @Override
    public List<Long> dependencies(long taskId) {
        InMemoryGroups.Group g = groups.get(taskId);
        return g == null ? List.of() : g.dependencies;
    }

    @Override
    public long pendingMarks() {
        return groups.pending();
    }

    @Override
    public GroupPass resolveGroups(Collection<String> ownerMachines, Instant now, int max, GroupResolver resolver) {
        return passes.resolve(ownerMachines, max, resolver);
    }

    private @Nullable ApplyResult check(Slot slot, Change change) {
        String key = change.entry().commandKey();
        if (key != null && slot.commands != null) {
            HistoryEntry prior = slot.commands.get(key);
            if (prior != null) return ApplyResult.duplicate(prior);
        }
        if (slot.task.version() != change.expectedVersion()) return ApplyResult.conflict(change.next().id());
        StoreChecks.checkPayload(change.next(), maxPayloadChars);
        return null;
    }

    /** Writes a new snapshot and its entry, and returns the snapshot as stored; the caller holds the slot's monitor. */
    TaskRecord write(Slot slot, TaskRecord next, HistoryEntry entry, boolean reorders) {
        TaskRecord old = slot.task;
        next = keepMetadata(old, next, reorders);
        if (!Objects.equals(old.uniqueKey(), next.uniqueKey())) {        // a change only frees a key, never takes one
            if (old.uniqueKey() != null) creations.release(old);
            if (next.uniqueKey() != null) next = next.toBuilder().uniqueKey(null).build();
        }
        slot.history.add(entry);
        String key = entry.commandKey();
        if (key != null) {
            if (slot.commands == null) slot.commands = new HashMap<>();
            slot.commands.put(key, entry);
        }
        slot.task = next;
        index.reindex(old, next);
        groups.changed(old, next, false);
        return next;
    }

    // Priority and sequence change only through reorder or a reordering change; a kept lease keeps its renewed expiry.
    private static TaskRecord keepMetadata(TaskRecord stored, TaskRecord next, boolean reorders) {
        Lease sl = stored.lease();
        Lease nl = next.lease();
        boolean sameLease = sl != null && nl != null && sl.fencingToken() == nl.fencingToken()
                && !nl.expiresAt().equals(sl.expiresAt());
        boolean samePlace = reorders || (stored.priority() == next.priority() && stored.sequence() == next.sequence());
        if (samePlace && !sameLease) return next;
        TaskRecord.Builder b = next.toBuilder().lease(sameLease ? sl : nl);
        if (!reorders) b.priority(stored.priority()).sequence(stored.sequence());
        return b.build();
    }

    // --- read -------------------------------------------------------------------------------

    @Override
    public Optional<HistoryEntry> findCommand(long taskId, String commandKey) {
        Slot slot = tasks.get(taskId);
        if (slot == null) return Optional.empty();
        synchronized (slot) {
            return slot.commands == null ? Optional.empty() : Optional.ofNullable(slot.commands.get(commandKey));
        }
    }

    @Override
    public List<HistoryEntry> history(long taskId) {
        Slot slot = tasks.get(taskId);
        if (slot == null) return List.of();
        synchronized (slot) {
            return List.copyOf(slot.history);
        }
    }

    @Override
    public Page<TaskRecord> query(TaskQuery query) {
        return tasks.query(creations.lastId(), query);
    }

    // --- running work -----------------------------------------------------------------------

    @Override
    public List<Claimed> claim(ClaimRequest request) {
        return claims.claim(request);
    }

    @Override
    public RenewResult renew(long taskId, long fencingToken, Instant now, Instant expiresAt) {
        Slot slot = tasks.get(taskId);
        if (slot == null) return RenewResult.LOST;
        synchronized (slot) {
            TaskRecord t = slot.task;
            Lease l = t.lease();
            if (l == null || l.fencingToken() != fencingToken || !l.expiresAt().isAfter(now)) return RenewResult.LOST;
            if (expiresAt.isAfter(l.expiresAt())) {
                slot.task = t.toBuilder().lease(new Lease(l.owner(), l.fencingToken(), expiresAt)).build();
            }
            return slot.cancelRequested ? RenewResult.RENEWED_CANCEL_REQUESTED : RenewResult.RENEWED;
        }
    }

    @Override
    public List<TaskRecord> expiredLeases(Instant now, int max) {
        return index.expiredLeases(null, now, max);
    }

    @Override
    public List<TaskRecord> expiredLeases(Collection<String> machines, Instant now, int max) {
        return index.expiredLeases(Set.copyOf(machines), now, max);
    }

    @Override
    public List<TaskRecord> due(String machine, Collection<String> states, Instant now, int max) {
        return index.due(machine, states, now, max);
    }

    @Override
    public @Nullable Instant nextDue(String machine, Collection<String> states, Instant now) {
        return index.nextDue(machine, states, now);
    }

    @Override
    public List<TaskRecord> leasedBy(String owner, int max) {
        return index.leasedBy(owner, max);
    }

    @Override
    public List<TaskRecord> peek(ClaimRequest request) {
        return claims.peek(request);
    }

    /** {@inheritDoc} Every write of this store is done when it returns: runs {@code action} at once. */
    @Override
    public void afterCommit(Runnable action) {
        action.run();
    }

    @Override
    public int purge(String machine, Collection<String> states, Instant updatedBefore, int max) {
        return archive.purge(machine, states, updatedBefore, max);
    }

    /** Takes a task out of the hot table: its slot, every index, its group, its creation key. The caller holds its monitor. */
    void forget(TaskRecord t) {
        index.reindex(t, t.toBuilder().state("\u0000purged").notBefore(null).build());   // drops it from every index
        tasks.remove(t.id());
        groups.deleted(t);
        creations.forget(t);
    }

    @Override
    public int leased(String queue) {
        return index.leased(queue);
    }

    @Override
    public boolean requestCancel(long taskId) {
        Slot slot = tasks.get(taskId);
        if (slot == null) return false;
        synchronized (slot) {
            slot.cancelRequested = true;
        }
        return true;
    }

    @Override
    public boolean cancelRequested(long taskId) {
        Slot slot = tasks.get(taskId);
        if (slot == null) return false;
        synchronized (slot) {
            return slot.cancelRequested;
        }
    }

    @Override
    public boolean reorder(long taskId, int priority, long sequence) {
        Slot slot = tasks.get(taskId);
        if (slot == null) return false;
        synchronized (slot) {
            TaskRecord old = slot.task;
            TaskRecord next = old.toBuilder().priority(priority).sequence(sequence).build();
            slot.task = next;
            index.reindex(old, next);
        }
        return true;
    }

    @Override
    public long nextSequence(boolean front) {
        return creations.nextSequence(front);
    }

    // --- queues -----------------------------------------------------------------------------

    @Override
    public QueueRecord queue(String queue) {
        return queues.get(queue);
    }

    @Override
    public QueueRecord pauseQueue(String queue, @Nullable String reason) {
        return queues.pause(queue, reason);
    }

    @Override
    public QueueRecord resumeQueue(String queue) {
        return queues.resume(queue);
    }

    @Override
    public QueueRecord setConcurrency(String queue, int limit) {
        return queues.setConcurrency(queue, limit);
    }

    @Override
    public QueueRecord setRateLimit(String queue, @Nullable RateLimit limit) {
        return queues.setRateLimit(Objects.requireNonNull(queue, "queue"), limit);
    }

    @Override
    public void holdKey(String queue, String key, Instant until) {
        queues.holdKey(Objects.requireNonNull(queue, "queue"), Objects.requireNonNull(key, "key"), Objects.requireNonNull(until, "until"));
    }

    // --- metrics ----------------------------------------------------------------------------

    @Override
    public List<StateCount> stateCounts(Instant now) {
        return tasks.counts(creations.lastId(), Objects.requireNonNull(now, "now"));
    }

    // --- retention: the archive -------------------------------------------------------------

    /** Returns the largest id handed out so far. */
    long lastId() {
        return creations.lastId();
    }

    /** {@inheritDoc} The archive is kept in memory too, for as long as the store lives. */
    @Override
    public RetentionResult archive(RetentionRequest request, Instant archivedAt) {
        return archive.move(request, Objects.requireNonNull(archivedAt, "archivedAt"));
    }

    @Override
    public RetentionResult deleteFinished(RetentionRequest request) {
        return archive.move(request, null);
    }

    @Override
    public Optional<ArchivedTask> findArchived(long id) {
        return archive.find(id);
    }

    @Override
    public RetentionResult purgeArchived(String machine, Instant archivedBefore, int max) {
        return archive.purge(machine, archivedBefore, max);
    }

    // --- schedules --------------------------------------------------------------------------

    @Override
    public ScheduleRecord upsertSchedule(ScheduleRecord schedule) {
        return schedules.upsert(Objects.requireNonNull(schedule, "schedule"));
    }

    @Override
    public Optional<ScheduleRecord> schedule(String name) {
        return schedules.get(name);
    }

    @Override
    public List<ScheduleRecord> schedules() {
        return schedules.all();
    }

    @Override
    public Optional<ScheduleRecord> pauseSchedule(String name) {
        return schedules.setPaused(name, true);
    }

    @Override
    public Optional<ScheduleRecord> resumeSchedule(String name) {
        return schedules.setPaused(name, false);
    }

    @Override
    public boolean deleteSchedule(String name) {
        return schedules.delete(name);
    }

    @Override
    public SchedulePass fireSchedules(Collection<String> machines, Instant now, int max, ScheduleFirer firer) {
        return schedules.fire(machines, now, max, firer);
    }

    // --- processes ----------------------------------------------------------------------------

    @Override
    public void registerProcess(ProcessRecord process) {
        processes.register(Objects.requireNonNull(process, "process"));
    }

    @Override
    public boolean touchProcess(String owner, Instant at) {
        return processes.touch(owner, at);
    }

    @Override
    public boolean stopProcess(String owner, Instant at) {
        return processes.stop(owner, at);
    }

    @Override
    public List<ProcessRecord> processes() {
        return processes.all();
    }

    @Override
    public int purgeProcesses(Instant seenBefore) {
        return processes.purge(seenBefore);
    }

    // --- activity ---------------------------------------------------------------------------

    @Override
    public List<dev.statekit.store.ActivityCount> activity(Instant from, Instant to, java.time.Duration bucket) {
        return tasks.activity(creations.lastId(), from, to, bucket);
    }
}
