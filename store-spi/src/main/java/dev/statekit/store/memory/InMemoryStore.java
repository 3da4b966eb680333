package dev.statekit.store.memory;

import dev.statekit.store.ApplyResult;
import dev.statekit.store.ArchivedTask;
import dev.statekit.store.Change;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.Claimed;
import dev.statekit.store.CreateResult;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.GroupKind;
import dev.statekit.store.GroupPass;
import dev.statekit.store.GroupRecord;
import dev.statekit.store.GroupResolver;
import dev.statekit.store.GroupWrite;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.MemberState;
import dev.statekit.store.NewTask;
import dev.statekit.store.Page;
import dev.statekit.store.QueueRecord;
import dev.statekit.store.RenewResult;
import dev.statekit.store.RetentionRequest;
import dev.statekit.store.RetentionResult;
import dev.statekit.store.StateCount;
import dev.statekit.store.StatekitException;
import dev.statekit.store.Store;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.memory.ClaimIndex.Key;
import dev.statekit.store.memory.InMemorySlots.Slot;
import dev.statekit.store.support.ClaimPicker;
import dev.statekit.store.support.GroupLedger;
import dev.statekit.store.support.StoreChecks;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
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
 * <p>The parts: {@code InMemorySlots} holds the tasks by id, {@code ClaimIndex} the indexes and the
 * scans that read them, {@code InMemoryQueues} the queue records, {@code InMemoryArchive} the
 * archived tasks. What every store writes the same
 * way (a new task's first snapshot, a claim's snapshot and history entry, the claim order) comes
 * from the store contract's own types: {@link NewTask#toRecord}, {@link ClaimRule#claim},
 * {@link ClaimRule#entry} and {@link dev.statekit.store.support.ClaimPicker}.
 */
public final class InMemoryStore implements Store {

    /** The default payload limit, in characters. */
    public static final int DEFAULT_MAX_PAYLOAD_CHARS = 1 << 20;

    private final InMemorySlots tasks = new InMemorySlots();
    private final InMemoryGroups groups = new InMemoryGroups();
    private final ClaimIndex index = new ClaimIndex(tasks, groups::held);
    private final InMemoryPasses passes = new InMemoryPasses(this, tasks, groups);
    private final InMemoryArchive archive = new InMemoryArchive(this, tasks, groups);
    private final ConcurrentHashMap<String, Long> creationKeys = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final AtomicLong sequences = new AtomicLong();
    private final AtomicLong frontSequences = new AtomicLong();
    private final AtomicLong fencingTokens = new AtomicLong();
    private final InMemoryQueues queues = new InMemoryQueues();
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
    }

    // --- create, find, apply ----------------------------------------------------------------

    // The parent's monitor keeps its group from being sealed meanwhile; the dependencies' monitors keep
    // their states from changing between being counted and the new task being registered as their
    // dependent. All are taken in ascending id order, as applyAll takes them.
    @Override
    public CreateResult create(NewTask spec) {
        for (long d : spec.dependsOn()) {
            if (d < 0) throw new IllegalArgumentException("a dependency on an earlier task of the list is only for createAll: " + d);
        }
        StoreChecks.checkPayload(spec, maxPayloadChars);
        Long parent = spec.parentId();
        java.util.TreeMap<Long, Slot> monitors = new java.util.TreeMap<>();
        Slot parentSlot = parent == null ? null : tasks.get(parent);
        if (parentSlot != null) monitors.put(parent, parentSlot);
        for (long d : spec.dependsOn()) monitors.put(d, dependency(d, tasks.get(d)));
        if (monitors.isEmpty()) return createUnder(spec, false);
        return locked(monitors.values().toArray(new Slot[0]), 0, () -> {
            for (long d : spec.dependsOn()) {
                if (tasks.get(d) != monitors.get(d)) dependency(d, null);     // purged before its monitor was taken
            }
            InMemoryGroups.Group g = parent == null ? null : groups.get(parent);
            if (g != null && g.kind == GroupKind.CHILDREN && g.sealed && !existing(spec)) {
                throw new StatekitException(ErrorCode.GROUP_SEALED, "the children of task " + parent + " are sealed");
            }
            return createUnder(spec, false);
        });
    }

    private static Slot dependency(long id, @Nullable Slot slot) {
        if (slot == null) throw new StatekitException(ErrorCode.UNKNOWN_DEPENDENCY, "task " + id + " does not exist");
        return slot;
    }

    @Override
    public List<CreateResult> createAll(List<NewTask> specs) {
        List<CreateResult> results = new ArrayList<>(specs.size());
        for (NewTask spec : specs) {
            List<Long> deps = new ArrayList<>(spec.dependsOn().size());
            for (long d : spec.dependsOn()) {
                if (d > 0) deps.add(d);
                else if (-d <= results.size()) deps.add(results.get((int) -d - 1).task().id());
                else throw new StatekitException(ErrorCode.DEPENDENCY_CYCLE, "dependency " + d + " of task " + (results.size() + 1)
                        + " of the list names itself or a later task: the dependencies would form a cycle");
            }
            results.add(create(spec.withDependencies(deps)));
        }
        return results;
    }

    private boolean existing(NewTask spec) {
        String key = spec.idempotencyKey();
        return key != null && creationKeys.containsKey(spec.machine() + '\u0000' + key);
    }

    private CreateResult createUnder(NewTask spec, boolean countedByWrite) {
        String key = spec.idempotencyKey();
        if (key == null) return new CreateResult(insert(spec, countedByWrite), true);
        boolean[] created = {false};
        Long id = creationKeys.computeIfAbsent(spec.machine() + '\u0000' + key, k -> {
            created[0] = true;
            return insert(spec, countedByWrite).id();
        });
        return new CreateResult(Objects.requireNonNull(tasks.get(id)).task, created[0]);
    }

    private TaskRecord insert(NewTask spec, boolean countedByWrite) {
        if (!spec.dependsOn().isEmpty()) return insertDependent(spec);
        long id = ids.incrementAndGet();
        TaskRecord record = spec.toRecord(id, sequences.incrementAndGet());
        Slot slot = new Slot(record);
        synchronized (slot) {
            tasks.put(id, slot);
            index.reindex(null, record);
            groups.born(record);
            groups.changed(null, record, countedByWrite);
        }
        return record;
    }

    // The caller holds the dependencies' monitors (see create).
    private TaskRecord insertDependent(NewTask spec) {
        long id = ids.incrementAndGet();
        TaskRecord record = spec.toRecord(id, sequences.incrementAndGet());
        Slot slot = new Slot(record);
        synchronized (slot) {
            tasks.put(id, slot);
            index.reindex(null, record);
            groups.born(record);
            groups.changed(null, record, false);
            InMemoryGroups.Group g = groups.open(id, record.machine(), GroupKind.DEPENDENCIES, spec.dependsOn());
            g.sealed = true;
            g.hold = true;
            for (long d : spec.dependsOn()) {
                TaskRecord member = Objects.requireNonNull(tasks.get(d)).task;
                g.total++;
                g.count(new MemberState(member.machine(), member.state()), 1);
            }
            groups.mark(id, GroupLedger.Mark.LOOK);
        }
        return record;
    }

    // Takes the monitors of slots[i..] in the order given (ascending ids), then runs body.
    static <T> T locked(@Nullable Slot[] slots, int i, java.util.function.Supplier<T> body) {
        if (i == slots.length) return body.get();
        Slot slot = slots[i];
        if (slot == null) return locked(slots, i + 1, body);
        synchronized (slot) {
            return locked(slots, i + 1, body);
        }
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
        return locked(slots, 0, () -> {
            for (Change c : changes) {           // refusals name the first task in the order given
                Slot slot = involved.get(c.next().id());
                if (slot == null) return ApplyResult.notFound(c.next().id());
                ApplyResult refusal = check(slot, c);
                if (refusal != null) return refusal;
            }
            for (GroupWrite w : writes) {
                if (involved.get(w.parentId()) == null) return ApplyResult.notFound(w.parentId());
                checkGroupWrite(w);
            }
            for (Change c : changes) {
                TaskRecord stored = write(Objects.requireNonNull(involved.get(c.next().id())), c.next(), c.entry(), c.reorders());
                if (written != null) written.add(new GroupPass.Written(stored, c.entry()));
            }
            for (GroupWrite w : writes) writeGroup(w, Objects.requireNonNull(involved.get(w.parentId())).task);
            return ApplyResult.APPLIED;
        });
    }

    private void checkGroupWrite(GroupWrite w) {
        InMemoryGroups.Group g = groups.get(w.parentId());
        if (g == null) return;
        if (g.kind != GroupKind.CHILDREN) {
            throw new StatekitException(ErrorCode.INVALID_ARGUMENT, "task " + w.parentId() + " waits on dependencies and cannot have a group of children");
        }
        if (g.sealed) {
            for (NewTask child : w.children()) {
                if (!existing(child)) throw new StatekitException(ErrorCode.GROUP_SEALED, "the children of task " + w.parentId() + " are sealed");
            }
        }
    }

    // The caller holds the owner's monitor; children opened with the group are counted here, not by marks.
    private void writeGroup(GroupWrite w, TaskRecord owner) {
        InMemoryGroups.Group g = groups.get(w.parentId());
        if (g == null) g = groups.open(w.parentId(), owner.machine(), GroupKind.CHILDREN, List.of());
        for (NewTask child : w.children()) {
            CreateResult r = createUnder(child, true);
            if (r.created()) {
                g.total++;
                g.count(new MemberState(child.machine(), child.state()), 1);
            }
        }
        if (w.seal()) g.sealed = true;
        Boolean hold = w.hold();
        if (hold != null) g.hold = hold;
        groups.mark(w.parentId(), GroupLedger.Mark.LOOK);
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
        if (max <= 0) throw new IllegalArgumentException("max must be positive, was " + max);
        synchronized (groups.passLock) {
            List<GroupPass.Written> written = new ArrayList<>();
            List<GroupRecord> resolved = new ArrayList<>();
            for (long ownerId : groups.pick(ownerMachines, max)) {
                GroupRecord g = passes.resolveOne(ownerId, resolver, written);
                if (g != null) resolved.add(g);
            }
            return new GroupPass(written, resolved, groups.pending() > 0);
        }
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
    private TaskRecord write(Slot slot, TaskRecord next, HistoryEntry entry, boolean reorders) {
        TaskRecord old = slot.task;
        next = keepMetadata(old, next, reorders);
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
        ArrayList<TaskRecord> matching = new ArrayList<>();
        long last = ids.get();
        for (long id = query.afterId() + 1; id <= last && matching.size() <= query.limit(); id++) {
            Slot slot = tasks.get(id);
            if (slot != null && query.matches(slot.task)) matching.add(slot.task);
        }
        if (matching.size() <= query.limit()) return new Page<>(matching, null);
        List<TaskRecord> page = matching.subList(0, query.limit());
        return new Page<>(page, page.get(page.size() - 1).id());
    }

    // --- running work -----------------------------------------------------------------------

    @Override
    public List<Claimed> claim(ClaimRequest request) {
        List<String> from = fromStates(request);
        index.ensureIndexed(request.machine(), from, ids::get);
        InMemoryQueues.QueueSlot qs = queues.slot(request.queue());
        synchronized (qs) {
            QueueRecord q = qs.record;
            if (q.paused()) return List.of();
            int room = request.max();
            if (q.concurrency() > 0) room = Math.min(room, q.concurrency() - index.leased(request.queue()));
            QueueCandidates candidates = new QueueCandidates(request, index.candidates(request.machine(), request.queue(), from));
            int skipped = ClaimPicker.pick(candidates, room, q.skippedLower(), request.starvationLimit());
            if (skipped != q.skippedLower()) qs.record = q.withSkippedLower(skipped);
            return candidates.claimed;
        }
    }

    private static List<String> fromStates(ClaimRequest request) {
        List<String> from = new ArrayList<>(request.rules().size());
        for (ClaimRule r : request.rules()) from.add(r.from());
        return from;
    }

    /** The runnable tasks of one claim, read from the claim index; taking one claims it. The caller holds the queue's monitor. */
    private final class QueueCandidates implements ClaimPicker.Candidates<Key, RuntimeException> {
        final ClaimRequest request;
        final List<NavigableSet<Key>> sets;
        final List<Claimed> claimed = new ArrayList<>();

        QueueCandidates(ClaimRequest request, List<NavigableSet<Key>> sets) {
            this.request = request;
            this.sets = sets;
        }

        @Override
        public @Nullable Key top() {
            return index.top(sets, request);
        }

        @Override
        public @Nullable Key lower(int priority) {
            return index.lower(sets, priority, request);
        }

        @Override
        public int priority(Key candidate) {
            return candidate.priority();
        }

        @Override
        public boolean take(Key candidate) {
            Claimed c = claimOne(candidate.id(), request);
            if (c != null) claimed.add(c);
            return c != null;
        }
    }

    private @Nullable Claimed claimOne(long id, ClaimRequest request) {
        Slot slot = Objects.requireNonNull(tasks.get(id));
        synchronized (slot) {
            if (!index.runnable(id, request)) return null;
            TaskRecord t = slot.task;
            ClaimRule rule = Objects.requireNonNull(request.ruleFor(t.state()));
            Lease lease = new Lease(request.owner(), fencingTokens.incrementAndGet(), request.now().plus(request.leaseDuration()));
            HistoryEntry entry = rule.entry(t, request.owner(), request.now());
            slot.cancelRequested = false;
            write(slot, rule.claim(t, lease, request.now()), entry, false);
            return new Claimed(slot.task, entry, ClaimRule.readySince(t));
        }
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
        List<String> from = fromStates(request);
        index.ensureIndexed(request.machine(), from, ids::get);
        return index.peek(request, from);
    }

    @Override
    public int purge(String machine, Collection<String> states, Instant updatedBefore, int max) {
        long last = ids.get();
        int purged = 0;
        for (long id = 1; id <= last && purged < max; id++) {
            Slot slot = tasks.get(id);
            if (slot == null) continue;
            synchronized (slot) {
                TaskRecord t = slot.task;
                if (!t.machine().equals(machine) || !states.contains(t.state()) || t.lease() != null
                        || !t.updatedAt().isBefore(updatedBefore) || groups.hasChildren(t.id()) || groups.hasMarks(t.id())
                        || groups.isDependency(t.id())) {
                    continue;
                }
                forget(t);
                purged++;
            }
        }
        return purged;
    }

    /** Takes a task out of the hot table: its slot, every index, its group, its creation key. The caller holds its monitor. */
    void forget(TaskRecord t) {
        index.reindex(t, t.toBuilder().state("\u0000purged").notBefore(null).build());   // drops it from every index
        tasks.remove(t.id());
        groups.deleted(t);
        String key = t.idempotencyKey();
        if (key != null) creationKeys.remove(t.machine() + '\u0000' + key, t.id());
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
        return front ? frontSequences.decrementAndGet() : sequences.incrementAndGet();
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

    // --- metrics ----------------------------------------------------------------------------

    @Override
    public List<StateCount> stateCounts(Instant now) {
        Objects.requireNonNull(now, "now");
        java.util.Map<List<String>, long[]> counts = new HashMap<>();
        java.util.Map<List<String>, Instant> oldest = new HashMap<>();
        long last = ids.get();
        for (long id = 1; id <= last; id++) {
            Slot slot = tasks.get(id);
            if (slot == null) continue;
            TaskRecord t = slot.task;      // volatile: a snapshot, as a query reads it
            List<String> key = List.of(t.machine(), t.queue(), t.state());
            long[] c = counts.computeIfAbsent(key, k -> new long[2]);
            c[0]++;
            if (t.lease() != null) {
                c[1]++;
                continue;
            }
            Instant notBefore = t.notBefore();
            if (notBefore != null && notBefore.isAfter(now)) continue;
            oldest.merge(key, ClaimRule.readySince(t), (a, b) -> a.isBefore(b) ? a : b);
        }
        List<StateCount> result = new ArrayList<>(counts.size());
        counts.forEach((k, c) -> result.add(new StateCount(k.get(0), k.get(1), k.get(2), c[0], c[1], oldest.get(k))));
        result.sort(StateCount.ORDER);
        return result;
    }

    // --- retention: the archive -------------------------------------------------------------

    /** Returns the largest id handed out so far. */
    long lastId() {
        return ids.get();
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
}
