package com.example.tickets;

import dev.statekit.store.ApplyResult;
import dev.statekit.store.ArchivedTask;
import dev.statekit.store.Change;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.Claimed;
import dev.statekit.store.CreateResult;
import dev.statekit.store.GroupPass;
import dev.statekit.store.GroupRecord;
import dev.statekit.store.GroupResolver;
import dev.statekit.store.GroupWrite;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.NewTask;
import dev.statekit.store.Page;
import dev.statekit.store.QueueRecord;
import dev.statekit.store.RateLimit;
import dev.statekit.store.RenewResult;
import dev.statekit.store.RetentionRequest;
import dev.statekit.store.RetentionResult;
import dev.statekit.store.StateCount;
import dev.statekit.store.Store;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The store of this project: it keeps its tasks in statekit's in-memory store and counts the
 * writes it was asked for (creations, changes and claims). It passes the store contract as any
 * store must ({@link AuditedStoreTest}).
 */
public final class AuditedStore implements Store {
    private final InMemoryStore delegate;
    private final AtomicLong writes = new AtomicLong();

    /** Creates an empty store that accepts payloads of up to {@code maxPayloadChars} characters. */
    public AuditedStore(int maxPayloadChars) {
        this.delegate = new InMemoryStore(maxPayloadChars);
    }

    /** Returns how many writes the store was asked for. */
    public long writes() {
        return writes.get();
    }

    @Override
    public CreateResult create(NewTask a0) {
        writes.incrementAndGet();
        return delegate.create(a0);
    }

    @Override
    public List<CreateResult> createAll(List<NewTask> a0) {
        writes.incrementAndGet();
        return delegate.createAll(a0);
    }

    @Override
    public Optional<TaskRecord> find(long a0) {
        return delegate.find(a0);
    }

    @Override
    public Map<Long, TaskRecord> findAll(Collection<Long> a0) {
        return delegate.findAll(a0);
    }

    @Override
    public ApplyResult apply(Change a0) {
        writes.incrementAndGet();
        return delegate.apply(a0);
    }

    @Override
    public ApplyResult applyAll(List<Change> a0) {
        writes.incrementAndGet();
        return delegate.applyAll(a0);
    }

    @Override
    public List<ApplyResult> applyEach(List<Change> a0) {
        writes.incrementAndGet();
        return delegate.applyEach(a0);
    }

    @Override
    public Optional<HistoryEntry> findCommand(long a0, String a1) {
        return delegate.findCommand(a0, a1);
    }

    @Override
    public List<HistoryEntry> history(long a0) {
        return delegate.history(a0);
    }

    @Override
    public Page<TaskRecord> query(TaskQuery a0) {
        return delegate.query(a0);
    }

    @Override
    public List<Claimed> claim(ClaimRequest a0) {
        writes.incrementAndGet();
        return delegate.claim(a0);
    }

    @Override
    public RenewResult renew(long a0, long a1, Instant a2, Instant a3) {
        return delegate.renew(a0, a1, a2, a3);
    }

    @Override
    public List<TaskRecord> expiredLeases(Instant a0, int a1) {
        return delegate.expiredLeases(a0, a1);
    }

    @Override
    public List<TaskRecord> expiredLeases(Collection<String> a0, Instant a1, int a2) {
        return delegate.expiredLeases(a0, a1, a2);
    }

    @Override
    public List<TaskRecord> due(String a0, Collection<String> a1, Instant a2, int a3) {
        return delegate.due(a0, a1, a2, a3);
    }

    @Override
    public Instant nextDue(String a0, Collection<String> a1, Instant a2) {
        return delegate.nextDue(a0, a1, a2);
    }

    @Override
    public List<TaskRecord> leasedBy(String a0, int a1) {
        return delegate.leasedBy(a0, a1);
    }

    @Override
    public List<TaskRecord> peek(ClaimRequest a0) {
        return delegate.peek(a0);
    }

    @Override
    public int leased(String a0) {
        return delegate.leased(a0);
    }

    @Override
    public boolean requestCancel(long a0) {
        return delegate.requestCancel(a0);
    }

    @Override
    public boolean cancelRequested(long a0) {
        return delegate.cancelRequested(a0);
    }

    @Override
    public boolean reorder(long a0, int a1, long a2) {
        return delegate.reorder(a0, a1, a2);
    }

    @Override
    public long nextSequence(boolean a0) {
        return delegate.nextSequence(a0);
    }

    @Override
    public int purge(String a0, Collection<String> a1, Instant a2, int a3) {
        return delegate.purge(a0, a1, a2, a3);
    }

    @Override
    public void afterCommit(Runnable a0) {
        delegate.afterCommit(a0);
    }

    @Override
    public AutoCloseable watch(Runnable a0) {
        return delegate.watch(a0);
    }

    @Override
    public ApplyResult applyAll(List<Change> a0, List<GroupWrite> a1) {
        writes.incrementAndGet();
        return delegate.applyAll(a0, a1);
    }

    @Override
    public Optional<GroupRecord> group(long a0) {
        return delegate.group(a0);
    }

    @Override
    public List<Long> dependencies(long a0) {
        return delegate.dependencies(a0);
    }

    @Override
    public GroupPass resolveGroups(Collection<String> a0, Instant a1, int a2, GroupResolver a3) {
        return delegate.resolveGroups(a0, a1, a2, a3);
    }

    @Override
    public long pendingMarks() {
        return delegate.pendingMarks();
    }

    @Override
    public QueueRecord queue(String a0) {
        return delegate.queue(a0);
    }

    @Override
    public QueueRecord pauseQueue(String a0, String a1) {
        return delegate.pauseQueue(a0, a1);
    }

    @Override
    public QueueRecord resumeQueue(String a0) {
        return delegate.resumeQueue(a0);
    }

    @Override
    public QueueRecord setConcurrency(String a0, int a1) {
        return delegate.setConcurrency(a0, a1);
    }

    @Override
    public QueueRecord setRateLimit(String a0, RateLimit a1) {
        return delegate.setRateLimit(a0, a1);
    }

    @Override
    public void holdKey(String a0, String key, Instant until) {
        delegate.holdKey(a0, key, until);
    }

    @Override
    public List<StateCount> stateCounts(Instant a0) {
        return delegate.stateCounts(a0);
    }

    @Override
    public RetentionResult archive(RetentionRequest a0, Instant a1) {
        return delegate.archive(a0, a1);
    }

    @Override
    public RetentionResult deleteFinished(RetentionRequest a0) {
        return delegate.deleteFinished(a0);
    }

    @Override
    public Optional<ArchivedTask> findArchived(long a0) {
        return delegate.findArchived(a0);
    }

    @Override
    public RetentionResult purgeArchived(String a0, Instant a1, int a2) {
        return delegate.purgeArchived(a0, a1, a2);
    }

    @Override
    public dev.statekit.store.ScheduleRecord upsertSchedule(dev.statekit.store.ScheduleRecord schedule) {
        return delegate.upsertSchedule(schedule);
    }

    @Override
    public java.util.Optional<dev.statekit.store.ScheduleRecord> schedule(String name) {
        return delegate.schedule(name);
    }

    @Override
    public java.util.List<dev.statekit.store.ScheduleRecord> schedules() {
        return delegate.schedules();
    }

    @Override
    public java.util.Optional<dev.statekit.store.ScheduleRecord> pauseSchedule(String name) {
        return delegate.pauseSchedule(name);
    }

    @Override
    public java.util.Optional<dev.statekit.store.ScheduleRecord> resumeSchedule(String name) {
        return delegate.resumeSchedule(name);
    }

    @Override
    public boolean deleteSchedule(String name) {
        return delegate.deleteSchedule(name);
    }

    @Override
    public dev.statekit.store.SchedulePass fireSchedules(java.util.Collection<String> machines, java.time.Instant now, int max,
                                                          dev.statekit.store.ScheduleFirer firer) {
        return delegate.fireSchedules(machines, now, max, firer);
    }

    @Override
    public void registerProcess(dev.statekit.store.ProcessRecord process) {
        delegate.registerProcess(process);
    }

    @Override
    public boolean touchProcess(String owner, java.time.Instant at) {
        return delegate.touchProcess(owner, at);
    }

    @Override
    public boolean stopProcess(String owner, java.time.Instant at) {
        return delegate.stopProcess(owner, at);
    }

    @Override
    public java.util.List<dev.statekit.store.ProcessRecord> processes() {
        return delegate.processes();
    }

    @Override
    public int purgeProcesses(java.time.Instant seenBefore) {
        return delegate.purgeProcesses(seenBefore);
    }

    @Override
    public java.util.List<dev.statekit.store.ActivityCount> activity(java.time.Instant from, java.time.Instant to,
                                                                    java.time.Duration bucket) {
        return delegate.activity(from, to, bucket);
    }
}
