package dev.statekit.core.runtime;


import dev.statekit.store.ApplyResult;
import dev.statekit.store.Change;
import dev.statekit.store.GroupPass;
import dev.statekit.store.GroupRecord;
import dev.statekit.store.GroupResolver;
import dev.statekit.store.GroupWrite;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.Claimed;
import dev.statekit.store.CreateResult;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.Lease;
import dev.statekit.store.NewTask;
import dev.statekit.store.Page;
import dev.statekit.store.QueueRecord;
import dev.statekit.store.RateLimit;
import dev.statekit.store.RenewResult;
import dev.statekit.store.Store;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * An {@link InMemoryStore} seen through a recorder for {@link RuntimeModel}. Every claim is
 * checked against a reference of the claim contract computed from a snapshot taken just before
 * it: a paused queue yields nothing; never more than the room the concurrency limit leaves; the
 * runnable tasks are taken by priority, then FIFO sequence, except that after
 * {@code starvationLimit} consecutive picks that passed over a lower-priority runnable task the
 * best lower-priority task is taken. Each claimed snapshot is kept by task and version, so the
 * model can tie every START of a history to a checked claim. Everything else is delegated.
 */
final class RuntimeModelStore implements Store {
    static final Comparator<TaskRecord> CLAIM_ORDER = Comparator.comparingInt(TaskRecord::priority).reversed()
            .thenComparingLong(TaskRecord::sequence).thenComparingLong(TaskRecord::id);

    private final InMemoryStore store = new InMemoryStore();
    private final Map<Long, Map<Long, TaskRecord>> claims = new HashMap<>();
    final List<String> violations = new ArrayList<>();
    private long lastToken = -1;
    int claimCalls;
    int claimedTasks;

    /** Returns the snapshot claim produced for task {@code id} at {@code version}, or null. */
    @Nullable TaskRecord claimed(long id, long version) {
        Map<Long, TaskRecord> byVersion = claims.get(id);
        return byVersion == null ? null : byVersion.get(version);
    }

    /** Returns every task, in id order. */
    List<TaskRecord> all() {
        List<TaskRecord> all = new ArrayList<>();
        TaskQuery q = TaskQuery.all().limit(TaskQuery.MAX_LIMIT);
        for (Page<TaskRecord> page = store.query(q); ; ) {
            all.addAll(page.items());
            Long next = page.nextAfterId();
            if (next == null) return all;
            page = store.query(q.after(next));
        }
    }

    /**
     * The picks the claim contract prescribes from {@code runnable}: at most {@code room}, each
     * the best remaining task unless anti-starvation takes the best lower-priority one.
     * {@code skipped} holds the queue's count of consecutive picks that passed over a lower
     * task, and is updated.
     */
    static List<Long> expectedPicks(List<TaskRecord> runnable, int room, int starvationLimit, int[] skipped) {
        List<TaskRecord> remaining = new ArrayList<>(runnable);
        remaining.sort(CLAIM_ORDER);
        List<Long> picks = new ArrayList<>();
        while (picks.size() < room && !remaining.isEmpty()) {
            TaskRecord top = remaining.get(0);
            TaskRecord lower = null;
            for (TaskRecord t : remaining) {
                if (t.priority() < top.priority()) {
                    lower = t;
                    break;
                }
            }
            TaskRecord pick = top;
            if (lower != null && starvationLimit > 0 && skipped[0] >= starvationLimit) {
                pick = lower;
                skipped[0] = 0;
            } else {
                skipped[0] = lower != null ? skipped[0] + 1 : 0;
            }
            picks.add(pick.id());
            remaining.remove(pick);
        }
        return picks;
    }

    @Override
    public void afterCommit(Runnable action) {
        store.afterCommit(action);
    }

    @Override
    public List<Claimed> claim(ClaimRequest request) {
        claimCalls++;
        QueueRecord queue = store.queue(request.queue());
        Instant now = request.now();
        int leased = 0;
        List<TaskRecord> runnable = new ArrayList<>();
        for (TaskRecord t : all()) {
            if (!t.queue().equals(request.queue())) continue;
            if (t.lease() != null) {
                leased++;
            } else if (t.machine().equals(request.machine()) && request.ruleFor(t.state()) != null
                    && (t.notBefore() == null || !t.notBefore().isAfter(now))) {
                runnable.add(t);
            }
        }
        int room = queue.paused() ? 0 : request.max();
        if (queue.concurrency() > 0) room = Math.min(room, queue.concurrency() - leased);
        int[] skipped = {queue.skippedLower()};
        List<Long> expected = expectedPicks(runnable, room, request.starvationLimit(), skipped);

        List<Claimed> result = store.claim(request);
        List<TaskRecord> claimed = new ArrayList<>(result.size());
        for (Claimed c : result) {
            claimed.add(c.task());
            HistoryEntry last = store.history(c.task().id()).get((int) c.task().version() - 1);
            if (!last.equals(c.entry())) violations.add("claim of task " + c.task().id() + " returned " + c.entry() + " but wrote " + last);
        }

        List<Long> got = new ArrayList<>();
        for (TaskRecord t : claimed) got.add(t.id());
        String context = "claim by " + request.owner() + " at " + now + " (max " + request.max() + ", K "
                + request.starvationLimit() + ") on " + queue + " with " + leased + " leased; runnable "
                + describe(runnable);
        if (!got.equals(expected)) violations.add(context + ": claimed " + got + ", the contract picks " + expected);
        int after = store.queue(request.queue()).skippedLower();
        if (after != skipped[0]) violations.add(context + ": skippedLower became " + after + ", not " + skipped[0]);
        for (TaskRecord t : claimed) {
            TaskRecord before = null;
            for (TaskRecord r : runnable) if (r.id() == t.id()) before = r;
            Lease lease = t.lease();
            if (before == null || lease == null) {
                violations.add(context + ": claimed task " + t.id() + " was not runnable or got no lease: " + t);
                continue;
            }
            ClaimRule rule = request.ruleFor(before.state());
            if (rule == null || !t.state().equals(rule.to()) || t.version() != before.version() + 1
                    || t.attempts() != before.attempts() + 1 || t.notBefore() != null || !lease.owner().equals(request.owner())
                    || !lease.expiresAt().equals(now.plus(request.leaseDuration())) || lease.fencingToken() <= lastToken) {
                violations.add(context + ": claimed snapshot " + t + " does not follow " + before + " (last token " + lastToken + ")");
            }
            lastToken = Math.max(lastToken, lease.fencingToken());
            claims.computeIfAbsent(t.id(), k -> new HashMap<>()).put(t.version(), t);
        }
        claimedTasks += claimed.size();
        return result;
    }

    private static String describe(List<TaskRecord> tasks) {
        List<String> parts = new ArrayList<>();
        List<TaskRecord> sorted = new ArrayList<>(tasks);
        sorted.sort(CLAIM_ORDER);
        for (TaskRecord t : sorted) parts.add("#" + t.id() + "(p" + t.priority() + ",s" + t.sequence() + ")");
        return parts.toString();
    }

    // --- delegated ---------------------------------------------------------------------------

    @Override
    public CreateResult create(NewTask task) {
        return store.create(task);
    }

    @Override
    public Optional<TaskRecord> find(long id) {
        return store.find(id);
    }

    @Override
    public ApplyResult apply(Change change) {
        return store.apply(change);
    }

    @Override
    public ApplyResult applyAll(List<Change> changes) {
        return store.applyAll(changes);
    }

    @Override
    public Optional<HistoryEntry> findCommand(long taskId, String commandKey) {
        return store.findCommand(taskId, commandKey);
    }

    @Override
    public List<HistoryEntry> history(long taskId) {
        return store.history(taskId);
    }

    @Override
    public Page<TaskRecord> query(TaskQuery query) {
        return store.query(query);
    }

    @Override
    public RenewResult renew(long taskId, long fencingToken, Instant now, Instant expiresAt) {
        return store.renew(taskId, fencingToken, now, expiresAt);
    }

    @Override
    public List<TaskRecord> expiredLeases(Instant now, int max) {
        return store.expiredLeases(now, max);
    }

    @Override
    public List<TaskRecord> due(String machine, Collection<String> states, Instant now, int max) {
        return store.due(machine, states, now, max);
    }

    @Override
    public @Nullable Instant nextDue(String machine, Collection<String> states, Instant now) {
        return store.nextDue(machine, states, now);
    }

    @Override
    public List<TaskRecord> leasedBy(String owner, int max) {
        return store.leasedBy(owner, max);
    }

    @Override
    public List<TaskRecord> peek(ClaimRequest request) {
        return store.peek(request);
    }

    @Override
    public int leased(String queue) {
        return store.leased(queue);
    }

    @Override
    public int purge(String machine, java.util.Collection<String> states, java.time.Instant updatedBefore, int max) {
        return store.purge(machine, states, updatedBefore, max);
    }

    @Override
    public boolean requestCancel(long taskId) {
        return store.requestCancel(taskId);
    }

    @Override
    public boolean cancelRequested(long taskId) {
        return store.cancelRequested(taskId);
    }

    @Override
    public boolean reorder(long taskId, int priority, long sequence) {
        return store.reorder(taskId, priority, sequence);
    }

    @Override
    public long nextSequence(boolean front) {
        return store.nextSequence(front);
    }

    @Override
    public QueueRecord queue(String queue) {
        return store.queue(queue);
    }

    @Override
    public QueueRecord pauseQueue(String queue, @Nullable String reason) {
        return store.pauseQueue(queue, reason);
    }

    @Override
    public QueueRecord resumeQueue(String queue) {
        return store.resumeQueue(queue);
    }

    @Override
    public QueueRecord setConcurrency(String queue, int limit) {
        return store.setConcurrency(queue, limit);
    }

    @Override
    public QueueRecord setRateLimit(String queue, @Nullable RateLimit limit) {
        return store.setRateLimit(queue, limit);
    }

    @Override
    public void holdKey(String queue, String key, Instant until) {
        store.holdKey(queue, key, until);
    }

    @Override
    public ApplyResult applyAll(List<Change> changes, List<GroupWrite> groups) {
        return store.applyAll(changes, groups);
    }

    @Override
    public Optional<GroupRecord> group(long ownerId) {
        return store.group(ownerId);
    }

    @Override
    public List<Long> dependencies(long taskId) {
        return store.dependencies(taskId);
    }

    @Override
    public GroupPass resolveGroups(Collection<String> ownerMachines, Instant now, int max, GroupResolver resolver) {
        return store.resolveGroups(ownerMachines, now, max, resolver);
    }

    @Override
    public long pendingMarks() {
        return store.pendingMarks();
    }

    @Override
    public List<dev.statekit.store.StateCount> stateCounts(Instant now) {
        return store.stateCounts(now);
    }

    @Override
    public dev.statekit.store.RetentionResult archive(dev.statekit.store.RetentionRequest request, java.time.Instant archivedAt) {
        return store.archive(request, archivedAt);
    }

    @Override
    public dev.statekit.store.RetentionResult deleteFinished(dev.statekit.store.RetentionRequest request) {
        return store.deleteFinished(request);
    }

    @Override
    public java.util.Optional<dev.statekit.store.ArchivedTask> findArchived(long id) {
        return store.findArchived(id);
    }

    @Override
    public dev.statekit.store.RetentionResult purgeArchived(String machine, java.time.Instant archivedBefore, int max) {
        return store.purgeArchived(machine, archivedBefore, max);
    }

    @Override
    public dev.statekit.store.ScheduleRecord upsertSchedule(dev.statekit.store.ScheduleRecord schedule) {
        return store.upsertSchedule(schedule);
    }

    @Override
    public java.util.Optional<dev.statekit.store.ScheduleRecord> schedule(String name) {
        return store.schedule(name);
    }

    @Override
    public java.util.List<dev.statekit.store.ScheduleRecord> schedules() {
        return store.schedules();
    }

    @Override
    public java.util.Optional<dev.statekit.store.ScheduleRecord> pauseSchedule(String name) {
        return store.pauseSchedule(name);
    }

    @Override
    public java.util.Optional<dev.statekit.store.ScheduleRecord> resumeSchedule(String name) {
        return store.resumeSchedule(name);
    }

    @Override
    public boolean deleteSchedule(String name) {
        return store.deleteSchedule(name);
    }

    @Override
    public dev.statekit.store.SchedulePass fireSchedules(java.util.Collection<String> machines, java.time.Instant now, int max,
                                                          dev.statekit.store.ScheduleFirer firer) {
        return store.fireSchedules(machines, now, max, firer);
    }

    @Override
    public void registerProcess(dev.statekit.store.ProcessRecord process) {
        store.registerProcess(process);
    }

    @Override
    public boolean touchProcess(String owner, java.time.Instant at) {
        return store.touchProcess(owner, at);
    }

    @Override
    public boolean stopProcess(String owner, java.time.Instant at) {
        return store.stopProcess(owner, at);
    }

    @Override
    public java.util.List<dev.statekit.store.ProcessRecord> processes() {
        return store.processes();
    }

    @Override
    public int purgeProcesses(java.time.Instant seenBefore) {
        return store.purgeProcesses(seenBefore);
    }

    @Override
    public java.util.List<dev.statekit.store.ActivityCount> activity(java.time.Instant from, java.time.Instant to,
                                                                    java.time.Duration bucket) {
        return store.activity(from, to, bucket);
    }
}
