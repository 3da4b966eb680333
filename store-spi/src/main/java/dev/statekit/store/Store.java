package dev.statekit.store;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The persistence contract of statekit: what the transition engine and the runtime need from a
 * database. Every implementation must pass the store contract test kit.
 *
 * <p>Implementations are thread-safe. Every write is atomic: a change and its history entry are
 * written together or not at all, and {@link #applyAll} writes all of its changes or none.
 * Stores never read a clock: every time they record is handed to them.
 */
public interface Store {

    /**
     * Creates a task at version 0, or returns the existing task when one of the same machine
     * was created with the same idempotency key, or when a task of the machine holds the same
     * {@link NewTask#uniqueKey() unique key} (then nothing is written; the idempotency key is looked
     * at first). A task holds its unique key until a change whose next snapshot holds none is
     * applied; the check and the creation are one atomic step, across every process that shares
     * the store. A task with
     * {@link NewTask#dependsOn() dependencies} gets its {@link GroupKind#DEPENDENCIES} group in the
     * same transaction; a task whose parent owns a group is counted in it by the next pass.
     *
     * @throws StatekitException with {@link ErrorCode#UNKNOWN_DEPENDENCY} when a dependency does not
     *         exist, or {@link ErrorCode#GROUP_SEALED} when the parent's group is sealed
     * @throws StatekitException with {@link ErrorCode#PAYLOAD_TOO_LARGE} when the payload exceeds the store's limit
     */
    CreateResult create(NewTask task);

    /**
     * Creates several tasks, each as {@link #create} would (a task whose machine and idempotency
     * key match an existing task, or an earlier task of the list, is not created again), in one
     * round trip (one transaction) where the store can. The default calls {@link #create} for each.
     *
     * @return one result per task, in the order given
     * @throws StatekitException with {@link ErrorCode#PAYLOAD_TOO_LARGE} when a payload exceeds the
     *         store's limit; a store that writes in one transaction then creates none of the tasks
     */
    default List<CreateResult> createAll(List<NewTask> tasks) {
        List<CreateResult> results = new java.util.ArrayList<>(tasks.size());
        for (NewTask t : tasks) results.add(create(t));
        return results;
    }

    /** Returns the task with {@code id}, if it exists. */
    Optional<TaskRecord> find(long id);

    /**
     * Returns the tasks with the given ids that exist, by id; one round trip where the store can.
     * The default calls {@link #find} for each.
     */
    default java.util.Map<Long, TaskRecord> findAll(java.util.Collection<Long> ids) {
        java.util.Map<Long, TaskRecord> found = new java.util.HashMap<>();
        for (Long id : ids) find(id).ifPresent(t -> found.put(id, t));
        return found;
    }

    /**
     * Applies one change: writes the new snapshot and appends its history entry if, and only if,
     * the stored task is at {@code change.expectedVersion()} and the entry's command key (if any)
     * was not applied to the task before.
     *
     * <p>Scheduling metadata that changes without a version is kept as stored: the priority and
     * FIFO sequence (changed only by {@link #reorder}) and, when the change keeps the stored
     * lease's fencing token, the lease's expiry (extended only by {@link #renew}). The unique key is
     * written as the new snapshot holds it: a snapshot without one frees the key for a new task; a
     * change never gives a task a key it does not hold.
     */
    default ApplyResult apply(Change change) {
        return applyAll(List.of(change));
    }

    /**
     * Applies several changes, to distinct tasks, atomically: all are written or none is. The
     * result names the first task (in the order given) that prevented the write.
     *
     * @throws IllegalArgumentException if two changes concern the same task or the list is empty
     */
    ApplyResult applyAll(List<Change> changes);

    /**
     * Applies several changes to distinct tasks, each on its own: each is written with its history
     * entry or not at all, as {@link #apply} would, independently of the others, in one round trip
     * (one transaction) where the store can. The default calls {@link #apply} for each.
     *
     * @return one result per change, in the order given
     * @throws IllegalArgumentException if two changes concern the same task
     */
    default List<ApplyResult> applyEach(List<Change> changes) {
        dev.statekit.store.support.StoreChecks.requireDistinctTasks(changes);
        List<ApplyResult> results = new java.util.ArrayList<>(changes.size());
        for (Change c : changes) results.add(apply(c));
        return results;
    }

    /**
     * Returns the history entry of the command applied to {@code taskId} with idempotency key
     * {@code commandKey}, if one was.
     */
    Optional<HistoryEntry> findCommand(long taskId, String commandKey);

    /**
     * Returns the history of a task in the hot table, oldest first; empty if it has none or does not
     * exist. An archived task's history comes with {@link #findArchived}.
     */
    List<HistoryEntry> history(long taskId);

    /** Returns one page of the tasks matching {@code query}, in ascending id order. */
    Page<TaskRecord> query(TaskQuery query);

    // --- running work -----------------------------------------------------------------------

    /**
     * Claims runnable tasks as {@link ClaimRequest} describes, atomically per task: each claimed
     * task moves along its rule (version + 1, one history entry with source SYSTEM and the owner
     * as actor), gets a lease with a fencing token larger than any the store handed out before,
     * one more attempt, and no not-before time. The queue's concurrency limit holds across every
     * process that shares the store.
     *
     * <p>A claim's history entry is stamped {@code request.now()}, or the time of the task's last
     * change when that is later (a claimer whose clock was read before a slow call must not write
     * history that goes backwards). A queue with a concurrency limit counts every task that holds
     * a lease, expired or not: an expired lease is recovered before anything else of that queue
     * is claimed. A held task is not claimed: a child whose parent's {@link GroupKind#CHILDREN} group
     * is held, or a task whose {@link GroupKind#DEPENDENCIES} group is held (it is, from its creation
     * until the resolver releases it).
     *
     * @return the claimed tasks with their history entries, in claim order; empty when nothing is
     *         runnable or allowed
     */
    List<Claimed> claim(ClaimRequest request);

    /**
     * Extends the lease of {@code taskId} to {@code expiresAt} if it is still held with
     * {@code fencingToken} and has not expired at {@code now}. An expired lease is never renewed.
     */
    RenewResult renew(long taskId, long fencingToken, Instant now, Instant expiresAt);

    /** Returns tasks whose lease expired before or at {@code now}, at most {@code max}, oldest expiry first. */
    List<TaskRecord> expiredLeases(Instant now, int max);

    /**
     * Returns tasks of one of {@code machines} whose lease expired before or at {@code now}, at
     * most {@code max}, oldest expiry first: a runtime asks for the machines it serves, so that
     * expired leases of machines nobody here serves never fill its window. The default filters
     * every expired lease; stores should filter in the scan.
     */
    default List<TaskRecord> expiredLeases(Collection<String> machines, Instant now, int max) {
        List<TaskRecord> found = new java.util.ArrayList<>();
        for (TaskRecord t : expiredLeases(now, Integer.MAX_VALUE)) {
            if (found.size() >= max) break;
            if (machines.contains(t.machine())) found.add(t);
        }
        return found;
    }

    /**
     * Returns tasks of {@code machine} in one of {@code states} that hold no lease and whose
     * not-before time has come by {@code now}, at most {@code max}, earliest first.
     */
    List<TaskRecord> due(String machine, Collection<String> states, Instant now, int max);

    /** Returns the earliest not-before time after {@code now} among lease-free tasks of {@code machine} in {@code states}, or null. */
    @org.jspecify.annotations.Nullable Instant nextDue(String machine, Collection<String> states, Instant now);

    /** Returns the tasks whose lease is held by {@code owner}, at most {@code max}. */
    List<TaskRecord> leasedBy(String owner, int max);

    /**
     * Returns, without claiming them, the tasks {@code request} would claim next, in claim order
     * (priority, then FIFO; anti-starvation is not applied), at most {@code request.max()};
     * ignores whether the queue is paused or full.
     */
    List<TaskRecord> peek(ClaimRequest request);

    /** Returns how many tasks of {@code queue} hold a lease. */
    int leased(String queue);

    /**
     * Records a request to cancel {@code taskId}; the lease holder learns of it when it renews.
     *
     * @return whether the task exists
     */
    boolean requestCancel(long taskId);

    /** Returns whether cancelling {@code taskId} was requested since its last claim. */
    boolean cancelRequested(long taskId);

    /**
     * Changes the priority and FIFO sequence of {@code taskId} without a version or history
     * entry (scheduling order is not a state change).
     *
     * @return whether the task exists
     */
    boolean reorder(long taskId, int priority, long sequence);

    /**
     * Returns a new FIFO sequence number: larger than every one handed out before, or, with
     * {@code front}, smaller than every one handed out before.
     */
    long nextSequence(boolean front);

    /**
     * Deletes tasks of {@code machine} in one of {@code states} (typically terminal ones) last
     * updated before {@code updatedBefore}, with their history and idempotency records, at most
     * {@code max} of them; tasks that hold a lease, have children, have marks waiting for resolution
     * or are a dependency of an existing task are kept. A deleted task's group goes with it.
     *
     * @return how many tasks were deleted
     */
    int purge(String machine, Collection<String> states, Instant updatedBefore, int max);

    /**
     * Registers {@code wake} to be called when another process may have made work runnable (for
     * example through PostgreSQL's LISTEN/NOTIFY). Stores that cannot tell do nothing, and
     * runtimes fall back to polling.
     *
     * @return a handle that stops the calls
     */
    default AutoCloseable watch(Runnable wake) {
        return () -> { };
    }

    /**
     * Runs {@code action} once the writes this store made so far on the calling thread are durable:
     * at once for a store whose every write commits by itself, at the commit of the caller's
     * transaction for a store whose writes join one (a JDBC store enlisted in an application's
     * transaction), and never when that transaction rolls back. The engine tells its listeners of a
     * change through this method, so that nothing in the process hears of a task before it exists for
     * everyone. A failure of {@code action} is the caller's: a store running it later logs it.
     *
     * @param action what to run after the commit
     */
    void afterCommit(Runnable action);

    // --- groups -----------------------------------------------------------------------------

    /**
     * Applies {@code changes} and {@code groups} atomically: the changes as {@link #applyAll(List)}
     * would, and, for each group write, opens the owner's {@link GroupKind#CHILDREN} group if it does
     * not exist, creates the children, seals the group and sets its hold flag as asked. When a change
     * is refused (version conflict, duplicate command, missing task) nothing is written, so a
     * repeated command creates no child twice.
     *
     * @param changes changes to distinct tasks; may be empty when {@code groups} is not
     * @param groups  group writes for distinct owners; each owner must exist
     * @return the result of the changes; {@link ApplyResult#notFound} when a group's owner does not exist
     * @throws StatekitException with {@link ErrorCode#GROUP_SEALED} when children are added to a sealed
     *         group, or {@link ErrorCode#PAYLOAD_TOO_LARGE}; nothing is written then
     * @throws IllegalArgumentException if both lists are empty, or a task or owner appears twice
     */
    ApplyResult applyAll(List<Change> changes, List<GroupWrite> groups);

    /** Returns the group owned by {@code ownerId}, with its counts as of the last resolution pass. */
    Optional<GroupRecord> group(long ownerId);

    /** Returns the ids of the tasks {@code taskId} was created depending on, in the order given. */
    List<Long> dependencies(long taskId);

    /**
     * Runs one resolution pass over groups whose owner is of one of {@code ownerMachines}, in one
     * transaction: picks owners with marks, then owners of groups with {@link GroupRecord#awaiting()}
     * set (least recently checked first), and locks up to {@code max} of them in id order, skipping
     * owners another pass holds; takes every mark of those owners and applies them to the counts; asks
     * {@code resolver} what each group means; writes its changes, creations, cancellation requests,
     * resolution and flags with the new counts; deletes the marks it took; commits.
     *
     * <p>A mark is written in the same transaction as the change that causes it: by every change of
     * state of a task whose parent owns a group, or that is a dependency of another task (claims and
     * creations included), and by every change of state of a group's owner. A pass that fails writes
     * nothing, and its marks are taken by the next pass, in any process.
     *
     * @return what the pass committed: the changes it wrote with their tasks as stored and their
     *         history entries, the groups whose decision it wrote, and whether marks are left for
     *         another pass ({@link GroupPass#none} when there was nothing to do)
     */
    GroupPass resolveGroups(Collection<String> ownerMachines, Instant now, int max, GroupResolver resolver);

    /** Returns how many marks wait for a resolution pass (across all machines). */
    long pendingMarks();

    // --- queues -----------------------------------------------------------------------------

    /** Returns the control record of {@code queue} ({@link QueueRecord#defaults} if never set). */
    QueueRecord queue(String queue);

    /** Pauses {@code queue}: claims stop, running tasks finish. Returns the new record. */
    QueueRecord pauseQueue(String queue, @org.jspecify.annotations.Nullable String reason);

    /** Resumes {@code queue}. Returns the new record. */
    QueueRecord resumeQueue(String queue);

    /**
     * Sets the concurrency limit of {@code queue}; 0 means no limit. Returns the new record.
     *
     * @throws IllegalArgumentException if {@code limit} is negative
     */
    QueueRecord setConcurrency(String queue, int limit);

    /**
     * Sets the rate limit of {@code queue} ({@link RateLimit}); null removes it. Starts made before
     * count under the new limit. Returns the new record.
     */
    QueueRecord setRateLimit(String queue, @org.jspecify.annotations.Nullable RateLimit limit);

    /**
     * Holds back key {@code key} of {@code queue} until {@code until}: no claim at a time before
     * {@code until} takes a task of the queue whose key ({@link RateLimit#keyOf}) is {@code key},
     * in any process; claims pass over those tasks to the others. A later hold of the same key
     * extends it; an earlier one changes nothing. With no rate limit, or one without a key
     * attribute, every task of the queue has the key {@link RateLimit#NO_KEY}.
     */
    void holdKey(String queue, String key, Instant until);

    // --- schedules --------------------------------------------------------------------------

    /**
     * Declares or changes the schedule {@code schedule.name()}, in one transaction. A new one is
     * written as given, at version 0. An existing one with the same definition
     * ({@link ScheduleRecord#sameDefinition}) is left as stored; one with another definition gets it
     * as {@link ScheduleRecord#upsertedWith} says: whether it is paused is kept, and so are its
     * {@code last} and {@code nextDue} unless its timing changed. So a process that declares its
     * schedules at every start changes nothing, and a changed timing starts from the given progress.
     *
     * @return the schedule as stored afterwards
     */
    ScheduleRecord upsertSchedule(ScheduleRecord schedule);

    /** Returns the schedule named {@code name}, if there is one. */
    java.util.Optional<ScheduleRecord> schedule(String name);

    /** Returns every schedule, by name. */
    List<ScheduleRecord> schedules();

    /** Pauses the schedule {@code name}: passes leave it alone. Returns it as stored, or empty when there is none. */
    java.util.Optional<ScheduleRecord> pauseSchedule(String name);

    /**
     * Resumes the schedule {@code name}; occurrences that fell due while it was paused are missed
     * ones, left to its misfire policy. Returns it as stored, or empty when there is none.
     */
    java.util.Optional<ScheduleRecord> resumeSchedule(String name);

    /** Deletes the schedule {@code name} (the tasks it created stay). Returns whether there was one. */
    boolean deleteSchedule(String name);

    /**
     * Runs one schedule pass over the unpaused schedules of {@code machines} due at {@code now}
     * ({@code nextDue <= now}), in one transaction: locks up to {@code max} of them, earliest due
     * first, skipping those another pass holds; asks {@code firer} what each means; creates its tasks
     * as {@link #createAll} would (a task whose machine and idempotency key another task holds is not
     * created again); writes each schedule's new {@code last} and {@code nextDue}; commits. Every
     * occurrence is thus created once, whatever the number of processes passing at once.
     *
     * @throws StatekitException with {@link ErrorCode#PAYLOAD_TOO_LARGE} when a payload exceeds the store's limit; nothing is written then
     * @throws IllegalArgumentException if {@code max} is not positive
     */
    SchedulePass fireSchedules(Collection<String> machines, Instant now, int max, ScheduleFirer firer);

    // --- metrics ----------------------------------------------------------------------------

    /**
     * Counts the tasks by machine, queue and state: how many there are, how many hold a lease, and
     * since when the longest-waiting ready task of each has been ready (a task is ready when it holds
     * no lease and its not-before time is not after {@code now}). States without tasks are absent.
     * Ordered by {@link StateCount#ORDER}.
     *
     * <p>Cost: one pass over every task the store keeps, terminal ones included (a JDBC store runs
     * one {@code GROUP BY} statement over its tasks table). Meant for a dashboard or a metrics
     * scrape every few seconds, not for every claim; keeping finished tasks purged keeps it cheap.
     *
     * @param now the time against which not-before times are compared
     * @return one count per (machine, queue, state) with at least one task
     */
    List<StateCount> stateCounts(Instant now);

    // --- retention: the archive -------------------------------------------------------------

    /**
     * Moves up to {@code request.max()} finished trees out of the hot table into the archive, in
     * one transaction: each task with its whole history, stamped {@code archivedAt}; see
     * {@link RetentionRequest} for which trees qualify. A tree moves whole or not at all: a root
     * whose descendants are not all finished and lease-free, or any of whose tasks has marks waiting
     * for a resolution pass or is a dependency of a task outside the tree, stays in the hot table
     * with its whole tree, and so does a tree another writer holds at the moment. The groups the
     * moved tasks own (their counts, dependency edges and marks) are deleted, not archived.
     *
     * <p>Afterwards the moved tasks are gone from every hot read ({@link #find}, {@link #history},
     * {@link #findCommand}, {@link #query}, claims, scans) and readable by id with
     * {@link #findArchived}. Their idempotency keys are free: a creation with the key of an archived
     * task creates a new task, as after {@link #purge}.
     *
     * <p>Safe to call from several processes at once: concurrent batches never move a task twice
     * and never lose one; where they meet, one of them passes over the trees the other holds. No
     * lock outlives the batch's transaction.
     *
     * @param request    which trees, and at most how many
     * @param archivedAt the time recorded as {@link ArchivedTask#archivedAt()}
     * @return how many trees and tasks moved; fewer than {@code max} trees when no more qualify now
     */
    RetentionResult archive(RetentionRequest request, Instant archivedAt);

    /**
     * Deletes up to {@code request.max()} finished trees, in one transaction, as {@link #archive}
     * would move them (the same trees qualify), with their history, idempotency records and groups,
     * without keeping them in the archive. Unlike {@link #purge}, which deletes only tasks without
     * children and deletes children on their own, this takes a root with all its descendants. A request
     * {@link RetentionRequest#ofTasks of chosen tasks} (an operator's deletion) takes only trees rooted at them.
     *
     * @return how many trees and tasks were deleted
     */
    RetentionResult deleteFinished(RetentionRequest request);

    /**
     * Returns task {@code id} from the archive with its history, if {@link #archive} moved it there
     * and {@link #purgeArchived} has not deleted it since; empty for a task in the hot table (read
     * it with {@link #find} and {@link #history}) and for one that does not exist.
     */
    Optional<ArchivedTask> findArchived(long id);

    /**
     * Deletes from the archive up to {@code max} trees whose root is of {@code machine} and was
     * archived strictly before {@code archivedBefore}, each with every task that moved with it and
     * their history, in one transaction.
     *
     * @return how many trees and tasks were deleted
     * @throws IllegalArgumentException if {@code max} is not positive
     */
    RetentionResult purgeArchived(String machine, Instant archivedBefore, int max);

    // --- processes ----------------------------------------------------------------------------

    /**
     * Writes the record of a process that starts, replacing any record of the same
     * {@link ProcessRecord#owner() owner} (a runtime restarted under its name).
     */
    void registerProcess(ProcessRecord process);

    /**
     * Records that process {@code owner} was seen at {@code at}: its {@code lastSeen} becomes
     * {@code at} unless it is later already.
     *
     * @return whether the process has a record (false when it was purged: the caller registers again)
     */
    boolean touchProcess(String owner, Instant at);

    /**
     * Records that process {@code owner} stopped gracefully at {@code at} (seen then too).
     *
     * @return whether the process has a record
     */
    boolean stopProcess(String owner, Instant at);

    /** Returns the record of every process, in {@link ProcessRecord#owner() owner} order. */
    List<ProcessRecord> processes();

    /**
     * Deletes the records of processes last seen strictly before {@code seenBefore}: those that
     * stopped, and those gone since.
     *
     * @return how many records were deleted
     */
    int purgeProcesses(Instant seenBefore);

    // --- activity ---------------------------------------------------------------------------

    /**
     * Counts the history entries stamped at or after {@code from} and before {@code to}, of the
     * tasks in the hot table, by the task's machine and queue, the entry's bucket
     * ({@link ActivityCount#bucketOf}), event name and target state: what every process sharing the
     * store did in that time, not only this one. The store counts names; what they mean is the
     * machine's to say. Entries of tasks moved to the archive, or deleted, are not counted.
     * Ordered by {@link ActivityCount#ORDER}.
     *
     * <p>Cost: the answer holds at most one count per (machine, queue, bucket, event, target state).
     * Only tasks changed at or after {@code from} can hold such entries (a task's last change is
     * its latest entry), so a store reads the history of those tasks only: a JDBC store runs one
     * statement that passes over the tasks table, as {@link #stateCounts} does, and reads the
     * history of the tasks changed since {@code from} through its primary key. Meant for a
     * dashboard every few seconds over a recent window (an hour), not for every claim.
     *
     * @param from   the first instant counted
     * @param to     the instant after the last one counted
     * @param bucket the length of a bucket, a positive whole number of milliseconds
     * @return one count per (machine, queue, bucket, event, target state) with at least one entry
     * @throws IllegalArgumentException if {@code to} is before {@code from} or {@code bucket} is not
     *         a positive whole number of milliseconds
     */
    List<ActivityCount> activity(Instant from, Instant to, java.time.Duration bucket);
}
