package dev.statekit.core.ops;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.Task;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.internal.Kernel;
import dev.statekit.core.internal.ScheduleRecords;
import dev.statekit.core.schedule.Recurrence;
import dev.statekit.store.ArchivedTask;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Page;
import dev.statekit.store.QueueRecord;
import dev.statekit.store.RateLimit;
import dev.statekit.store.RetentionRequest;
import dev.statekit.store.RetentionResult;
import dev.statekit.store.ScheduleRecord;
import dev.statekit.store.StateCount;
import dev.statekit.store.Store;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an operator does and sees, apart from the runtime that runs the work: queue controls
 * (pause, stop after current, resume, concurrency limit), retries, cancellation requests, a task's
 * place in its queue (move to the front, priority, move before another), and the reads a dashboard
 * needs (counts by state, queue records, tasks by id or query, every page of a query, history),
 * and recurring schedules changed at run time (declare, pause, resume, delete, read with their next occurrences),
 * the processes that serve the store with their leases, and the attempts at a task's work.
 *
 * <p>Every change of a task goes through the engine's one write path: it is a recorded change,
 * checked against the table where it moves a state, with one history entry naming its event and
 * the command's actor, and heard by the engine's listeners. A reorder is recorded as
 * {@link #MOVE_TO_FRONT}, {@link #SET_PRIORITY} or {@link #MOVE_BEFORE} in the task's state. Queue
 * changes are told to the listeners ({@code TransitionListener#onQueueChanged}), so a runtime of this
 * engine wakes at once; runtimes of other processes see them at their next poll or store watch.
 *
 * <p>Works whether a runtime runs or not, in any process on the store. Thread-safe and immutable.
 * Build one with {@link #of(TransitionEngine)}.
 */
public final class TaskOperations {
    private static final Logger log = LoggerFactory.getLogger(TaskOperations.class);

    /** The pause reason of a queue paused at once. */
    public static final String PAUSED = "PAUSED";
    /** The pause reason of a queue that stops after its current tasks. */
    public static final String STOP_AFTER_CURRENT = "STOP_AFTER_CURRENT";
    /** The history event of a move to the front of a task's priority. */
    public static final String MOVE_TO_FRONT = "MOVE_TO_FRONT";
    /** The history event of a change of a task's priority. */
    public static final String SET_PRIORITY = "SET_PRIORITY";
    /** The history event of a task's move before another, and of the renumbering of those it passes. */
    public static final String MOVE_BEFORE = "MOVE_BEFORE";

    /** The name the authorizer is asked about for a deletion ({@link #deleteAll}). */
    public static final String DELETE = "DELETE";
    /** A bulk operation's refusal of a task that changed, since its page was read, so that the filter no longer selects it. */
    public static final String NO_LONGER_MATCHES = "NO_LONGER_MATCHES";
    /** A deletion's refusal of a child: a child goes only with its root's tree. */
    public static final String HAS_PARENT = "HAS_PARENT";
    /** A deletion's refusal of a task not in a terminal state. */
    public static final String NOT_FINISHED = "NOT_FINISHED";
    /** A deletion's refusal of a task that holds a lease. */
    public static final String LEASED = "LEASED";
    /**
     * A deletion's refusal of a finished task whose tree may not go now: a descendant is unfinished or
     * leased, a group pass has marks waiting for one of its tasks, a task outside it depends on one of
     * its tasks, or another writer holds it at the moment.
     */
    public static final String UNFINISHED_TREE = "UNFINISHED_TREE";
    /** The tasks a bulk operation reads and writes in one batch, unless {@link #withBatchSize} says otherwise. */
    public static final int DEFAULT_BATCH_SIZE = 100;

    private final TransitionEngine engine;
    private final Kernel kernel;
    private final Store store;
    private final int batchSize;
    private final Bulk bulk;

    private TaskOperations(TransitionEngine engine, int batchSize) {
        this.engine = engine;
        this.kernel = Kernel.of(engine);
        this.store = engine.store();
        this.batchSize = batchSize;
        this.bulk = new Bulk(kernel, batchSize);
    }

    /** Returns the operations over {@code engine}, its store, clock, authorizer and listeners. */
    public static TaskOperations of(TransitionEngine engine) {
        return new TaskOperations(Objects.requireNonNull(engine, "engine"), DEFAULT_BATCH_SIZE);
    }

    /**
     * Returns these operations with bulk operations in batches of {@code size} tasks: one page read,
     * and one round of writes, per batch.
     *
     * @throws IllegalArgumentException if {@code size} is not within 1..{@value TaskQuery#MAX_LIMIT}
     */
    public TaskOperations withBatchSize(int size) {
        if (size < 1 || size > TaskQuery.MAX_LIMIT) {
            throw new IllegalArgumentException("batch size must be within 1.." + TaskQuery.MAX_LIMIT + ", was " + size);
        }
        return new TaskOperations(engine, size);
    }

    /** Returns the number of tasks a bulk operation takes in one batch. */
    public int batchSize() {
        return batchSize;
    }

    /** Returns the engine these operations write through. */
    public TransitionEngine engine() {
        return engine;
    }

    // --- queues -------------------------------------------------------------------------------

    /** Pauses {@code queue} for every runtime on the store: running tasks finish, nothing new starts. */
    public QueueRecord pause(String queue, Command command) {
        return changed(store.pauseQueue(queue, PAUSED), command, "paused");
    }

    /**
     * Pauses {@code queue} once the tasks running now have finished: nothing new starts from now
     * on, and the queue reads {@link #STOP_AFTER_CURRENT} until resumed.
     */
    public QueueRecord stopAfterCurrent(String queue, Command command) {
        return changed(store.pauseQueue(queue, STOP_AFTER_CURRENT), command, "paused after its current tasks");
    }

    /** Resumes {@code queue}. */
    public QueueRecord resume(String queue, Command command) {
        return changed(store.resumeQueue(queue), command, "resumed");
    }

    /**
     * Sets the concurrency limit of {@code queue} across every process; 0 means no limit.
     *
     * @throws IllegalArgumentException if {@code limit} is negative
     */
    public QueueRecord setConcurrency(String queue, int limit, Command command) {
        return changed(store.setConcurrency(queue, limit), command, "limited to " + limit + " at once");
    }

    /**
     * Sets the rate limit of {@code queue} for every runtime on the store ({@link RateLimit}: at
     * most N starts per period, for the queue or per key); null removes it.
     */
    public QueueRecord setRateLimit(String queue, @Nullable RateLimit limit, Command command) {
        return changed(store.setRateLimit(queue, limit), command, limit == null ? "without a rate limit"
                : "limited to " + limit.starts() + " starts per " + limit.period()
                        + (limit.keyAttribute() != null ? " per " + limit.keyAttribute() : ""));
    }

    private QueueRecord changed(QueueRecord record, Command command, String what) {
        log.info("queue {} {} by {}", record.name(), what, command.actor() != null ? command.actor() : command.source());
        kernel.announceQueue(record, command.actor());
        return record;
    }

    // --- retries and cancellation -------------------------------------------------------------

    /**
     * Retries a failed task by firing {@code retryEvent}; its automatic retry count and its attempts
     * start again (the last error is kept; the history keeps every attempt). The task goes to the
     * end of its priority, or with {@code front} to its front, in the same write as the transition.
     */
    public <S extends Enum<S>, E extends Enum<E>> Outcome<S> retry(Machine<S, E> machine, long taskId, E retryEvent, boolean front,
                                                                   Command command) {
        long sequence = store.nextSequence(front);
        return kernel.fire(machine, taskId, retryEvent, command,
                (cur, next) -> next.retries(0).attempts(0).notBefore(null).sequence(sequence));
    }

    /**
     * Retries every task of {@code machine} in {@code state} (optionally only children of
     * {@code parentId}, or only on {@code queue}), in their FIFO order; with {@code front} they go
     * to the front of their priority in that same order.
     *
     * @return the outcomes, one per task found
     */
    public <S extends Enum<S>, E extends Enum<E>> List<Outcome<S>> retryAll(Machine<S, E> machine, S state, E retryEvent,
            @Nullable Long parentId, @Nullable String queue, boolean front, Command command) {
        TaskQuery q = TaskQuery.all().machine(machine.name()).states(List.of(state.name()));
        if (parentId != null) q = q.parent(parentId);
        if (queue != null) q = q.queue(queue);
        List<TaskRecord> found = allTasks(q);
        found.sort(Comparator.comparingInt(TaskRecord::priority).reversed().thenComparingLong(TaskRecord::sequence));
        long[] sequences = new long[found.size()];
        if (front) {
            for (int i = found.size() - 1; i >= 0; i--) sequences[i] = store.nextSequence(true);
        } else {
            for (int i = 0; i < found.size(); i++) sequences[i] = store.nextSequence(false);
        }
        List<Outcome<S>> outcomes = new ArrayList<>(found.size());
        for (int i = 0; i < found.size(); i++) {
            TaskRecord t = found.get(i);
            long sequence = sequences[i];
            outcomes.add(kernel.fire(machine, t.id(), retryEvent, command.expectVersion(t.version()),
                    (cur, next) -> next.retries(0).attempts(0).notBefore(null).sequence(sequence)));
        }
        return outcomes;
    }

    /**
     * Asks for task {@code taskId} to be cancelled with its machine's cancel event. A task that
     * holds no lease, or whose running state does not allow the cancel event, is cancelled at once
     * (or refused by the table). A running task whose machine allows cancelling it gets a
     * cancellation request kept in the store: the runtime that holds it learns of it at its next
     * heartbeat and stops its worker, and a recovery of its lease cancels it too.
     *
     * @throws IllegalArgumentException if the machine declares no cancel event
     */
    public <S extends Enum<S>, E extends Enum<E>> CancelResult<S> cancel(Machine<S, E> machine, long taskId, Command command) {
        E cancel = machine.cancelEvent();
        if (cancel == null) throw new IllegalArgumentException("machine " + machine.name() + " declares no cancel event");
        Task<S> task = engine.find(machine, taskId).orElse(null);
        if (task == null || task.record().lease() == null || !machine.permits(task.state(), cancel)) {
            Outcome<S> o = kernel.fire(machine, taskId, cancel, command, null);
            return new CancelResult<>(o.isApplied() ? CancelResult.Status.CANCELLED : CancelResult.Status.REFUSED, o);
        }
        Outcome.Refused<S> forbidden = kernel.forbidden(machine, task.record(), cancel, command);
        if (forbidden != null) return new CancelResult<>(CancelResult.Status.REFUSED, forbidden);
        store.requestCancel(taskId);
        log.info("cancellation of task {} ({}) requested by {}", taskId, machine.name(), command.actor());
        return new CancelResult<>(CancelResult.Status.REQUESTED, null);
    }

    // --- bulk operations ------------------------------------------------------------------------

    /**
     * Counts the tasks {@code filter} selects now, and names the last of them: run an operation with
     * {@code filter.upTo(count.lastId())} to touch no task created after the count. Reads page after
     * page of the largest size; holds one page at a time.
     */
    public BulkCount count(TaskFilter<?, ?> filter) {
        return bulk.count(Objects.requireNonNull(filter, "filter"));
    }

    /**
     * Retries every task {@code filter} selects by firing {@code retryEvent}, as {@link #retry} does
     * (its automatic retry count and attempts start again), in batches of {@link #batchSize()}.
     *
     * <p>The tasks are found page after page in ascending id order (keyset paging), so none is missed
     * or done twice however the pages change meanwhile; a task created during the operation is taken if
     * it matches when its page is read, unless {@link TaskFilter#upTo} excludes it. Each page is a batch,
     * decided on the records read and written through the engine's one write pipeline: each change is
     * checked by the authorizer and the table, and recorded with a history entry naming the command's
     * actor. A task changed since its page was read is read again: decided again if it still matches,
     * else refused as {@link #NO_LONGER_MATCHES}. Refusals are counted by code, not thrown; a change
     * that fails with an error is logged and counted as failed, and the operation goes on.
     *
     * <p>Within a batch the retried tasks keep their FIFO order; with {@code front} they go to the
     * front of their priority, each batch in front of the batches before it.
     */
    public <S extends Enum<S>, E extends Enum<E>> BulkResult retryAll(TaskFilter<S, E> filter, E retryEvent, boolean front,
                                                                      Command command) {
        return bulk.retry(Objects.requireNonNull(filter, "filter"), Objects.requireNonNull(retryEvent, "retryEvent"), front,
                Objects.requireNonNull(command, "command"));
    }

    /**
     * Cancels every task {@code filter} selects with its machine's cancel event, each as {@link #cancel}
     * does: a task that holds no lease, or whose state does not allow the event, is cancelled at once
     * (or refused by the table); a running task whose machine allows it gets a cancellation request,
     * counted as {@link BulkResult#requested()}. Found, batched, checked and counted as
     * {@link #retryAll(TaskFilter, Enum, boolean, Command)} says.
     *
     * @throws IllegalArgumentException if the machine declares no cancel event
     */
    public <S extends Enum<S>, E extends Enum<E>> BulkResult cancelAll(TaskFilter<S, E> filter, Command command) {
        E cancel = filter.machine().cancelEvent();
        if (cancel == null) throw new IllegalArgumentException("machine " + filter.machine().name() + " declares no cancel event");
        return bulk.cancel(filter, cancel, Objects.requireNonNull(command, "command"));
    }

    /**
     * Deletes every task {@code filter} selects that is finished, with its history, idempotency records
     * and groups, and with its whole tree of descendants ({@link Store#deleteFinished} over the chosen
     * roots); found and batched as {@link #retryAll(TaskFilter, Enum, boolean, Command)} says, each
     * batch one store transaction.
     *
     * <p>Only a root goes, with its tree: a child is refused as {@link #HAS_PARENT} (it goes with its
     * root); a task not in a terminal state as {@link #NOT_FINISHED}; one that holds a lease as
     * {@link #LEASED}; one whose tree may not go now, because a child is unfinished or running, a group
     * pass still has work for it or another task depends on it, as {@link #UNFINISHED_TREE}. The
     * authorizer is asked about a person's deletion under the name {@link #DELETE}. No history is left
     * of a deleted task: each deletion is logged at INFO with the task, its machine and state, and the
     * command's actor.
     */
    public <S extends Enum<S>, E extends Enum<E>> BulkResult deleteAll(TaskFilter<S, E> filter, Command command) {
        return bulk.delete(Objects.requireNonNull(filter, "filter"), Objects.requireNonNull(command, "command"));
    }

    // --- places in the queue ------------------------------------------------------------------

    /** Moves task {@code taskId} to the front of its priority ("start now"), recorded as {@link #MOVE_TO_FRONT}. */
    public <S extends Enum<S>, E extends Enum<E>> Outcome<S> moveToFront(Machine<S, E> machine, long taskId, Command command) {
        long front = store.nextSequence(true);
        TaskRecord t = store.find(taskId).orElse(null);
        int priority = t == null ? 0 : t.priority();
        return kernel.reorder(machine, taskId, MOVE_TO_FRONT, priority, front, command);
    }

    /** Changes the priority of task {@code taskId}, keeping its FIFO position among equals; recorded as {@link #SET_PRIORITY}. */
    public <S extends Enum<S>, E extends Enum<E>> Outcome<S> setPriority(Machine<S, E> machine, long taskId, int priority,
                                                                         Command command) {
        TaskRecord t = store.find(taskId).orElse(null);
        long sequence = t == null ? 0 : t.sequence();
        return kernel.reorder(machine, taskId, SET_PRIORITY, priority, sequence, command);
    }

    /**
     * Moves task {@code taskId} directly before task {@code beforeId} within their priority,
     * renumbering the tasks in between with their own sequence numbers (their order is kept); each
     * task whose place changes gets a {@link #MOVE_BEFORE} entry. A running task has no place to move.
     *
     * @return whether the task moved
     * @throws IllegalArgumentException if the tasks differ in machine, queue or priority
     */
    public <S extends Enum<S>, E extends Enum<E>> boolean moveBefore(Machine<S, E> machine, long taskId, long beforeId, Command command) {
        TaskRecord moved = store.find(taskId).orElse(null);
        TaskRecord before = store.find(beforeId).orElse(null);
        if (moved == null || before == null || taskId == beforeId) return false;
        if (moved.lease() != null || before.lease() != null) return false;
        if (!moved.machine().equals(before.machine()) || !moved.queue().equals(before.queue()) || moved.priority() != before.priority()) {
            throw new IllegalArgumentException("tasks " + taskId + " and " + beforeId + " are not in one machine, queue and priority");
        }
        List<TaskRecord> peers = new ArrayList<>();
        for (TaskRecord t : allTasks(TaskQuery.all().machine(moved.machine()).queue(moved.queue()))) {
            if (t.priority() == moved.priority() && t.lease() == null) peers.add(t);
        }
        peers.sort(Comparator.comparingLong(TaskRecord::sequence));
        long lo = Math.min(moved.sequence(), before.sequence());
        long hi = Math.max(moved.sequence(), before.sequence());
        List<TaskRecord> span = new ArrayList<>();
        for (TaskRecord t : peers) if (t.sequence() >= lo && t.sequence() <= hi) span.add(t);
        List<Long> numbers = new ArrayList<>();
        for (TaskRecord t : span) numbers.add(t.sequence());
        span.removeIf(t -> t.id() == taskId);
        int at = 0;
        while (at < span.size() && span.get(at).id() != beforeId) at++;
        span.add(at, moved);
        for (int i = 0; i < span.size(); i++) {
            TaskRecord t = span.get(i);
            if (t.sequence() != numbers.get(i)) {
                kernel.reorder(machine, t.id(), MOVE_BEFORE, t.priority(), numbers.get(i), command);
            }
        }
        return true;
    }

    // --- reads ----------------------------------------------------------------------------------

    /** Counts every task of the store by machine, queue and state, as of now ({@link Store#stateCounts}, its cost included). */
    public List<StateCount> stateCounts() {
        return store.stateCounts(engine.clock().now());
    }

    /** Returns the control record of {@code queue}. */
    public QueueRecord queue(String queue) {
        return store.queue(queue);
    }

    /** Returns task {@code id} as stored, of whatever machine, if it is in the store's hot table. */
    public Optional<TaskRecord> task(long id) {
        return store.find(id);
    }

    /** Returns task {@code id} as it was archived, with its history, if it was. */
    public Optional<ArchivedTask> archived(long id) {
        return store.findArchived(id);
    }

    /** Returns one page of the tasks matching {@code query}, of whatever machine. */
    public Page<TaskRecord> tasks(TaskQuery query) {
        return store.query(query);
    }

    /** Returns every task matching {@code query}, reading page after page of the largest size. */
    public List<TaskRecord> allTasks(TaskQuery query) {
        TaskQuery q = query.limit(TaskQuery.MAX_LIMIT);
        List<TaskRecord> found = new ArrayList<>();
        for (Page<TaskRecord> page = store.query(q); ; page = store.query(q.after(Objects.requireNonNull(page.nextAfterId())))) {
            found.addAll(page.items());
            if (!page.hasNext()) return found;
        }
    }

    /** Returns every task of {@code machine} matching {@code query}, in the machine's states. */
    public <S extends Enum<S>, E extends Enum<E>> List<Task<S>> allTasks(Machine<S, E> machine, TaskQuery query) {
        TaskQuery q = query.machine(machine.name()).limit(TaskQuery.MAX_LIMIT);
        List<Task<S>> found = new ArrayList<>();
        for (Page<Task<S>> page = engine.query(machine, q); ; page = engine.query(machine, q.after(Objects.requireNonNull(page.nextAfterId())))) {
            found.addAll(page.items());
            if (!page.hasNext()) return found;
        }
    }

    /** Returns the history of task {@code id}, oldest first, hot or archived ({@link TransitionEngine#history(long)}). */
    public List<HistoryEntry> history(long id) {
        return engine.history(id);
    }

    /**
     * Returns the attempts at task {@code id}'s work, oldest first, read from its history (hot or
     * archived): each starts at a claim (an entry of source SYSTEM with reason
     * {@link dev.statekit.store.ClaimRule#CLAIM_REASON}) and ends at the first later entry that
     * leaves the state the claim put the task in, or at the next claim; one that has not ended runs,
     * its duration counted to now on the engine's clock. The worker is the claim's actor (the lease
     * owner); the error is the one its end recorded, with the stack trace of a thrown exception as
     * its {@link dev.statekit.store.TaskError#detail() detail}. Empty for a task never claimed or
     * that does not exist.
     */
    public List<Attempt> attempts(long id) {
        return attemptsOf(history(id), engine.clock().now());
    }

    /** Returns the attempts recorded in {@code history} (one task's, oldest first), as {@link #attempts} reads them at {@code now}. */
    static List<Attempt> attemptsOf(List<HistoryEntry> history, java.time.Instant now) {
        List<Attempt> found = new ArrayList<>();
        HistoryEntry claim = null;
        for (HistoryEntry e : history) {
            boolean isClaim = e.source() == dev.statekit.store.TriggerSource.SYSTEM
                    && dev.statekit.store.ClaimRule.CLAIM_REASON.equals(e.reason());
            if (claim != null && (isClaim || !e.to().equals(claim.to()))) {
                found.add(new Attempt(found.size() + 1, claim, e, java.time.Duration.between(claim.at(), e.at())));
                claim = null;
            }
            if (isClaim) claim = e;
        }
        if (claim != null) {
            java.time.Duration d = java.time.Duration.between(claim.at(), now);
            found.add(new Attempt(found.size() + 1, claim, null, d.isNegative() ? java.time.Duration.ZERO : d));
        }
        return found;
    }

    /** The most leases {@link #processes()} lists per process, {@value}. */
    public static final int PROCESS_LEASES = 100;

    /**
     * Returns every process that keeps a record in the store ({@link Store#processes}), in owner
     * order, each with its state now on the engine's clock (alive, stopped, or gone when not seen for
     * its {@link dev.statekit.store.ProcessRecord#goneAfter()}) and the tasks whose lease it holds now
     * (one {@link Store#leasedBy} read per process, at most {@link #PROCESS_LEASES} listed).
     */
    public List<ProcessView> processes() {
        java.time.Instant now = engine.clock().now();
        List<ProcessView> views = new ArrayList<>();
        for (dev.statekit.store.ProcessRecord p : store.processes()) {
            List<TaskRecord> leases = store.leasedBy(p.owner(), PROCESS_LEASES + 1);
            boolean more = leases.size() > PROCESS_LEASES;
            views.add(new ProcessView(p, p.state(now), more ? leases.subList(0, PROCESS_LEASES) : leases, more));
        }
        return views;
    }

    /** Returns the ids of the tasks {@code taskId} was created depending on, in the order given. */
    public List<Long> dependencies(long taskId) {
        return store.dependencies(taskId);
    }

    /** Returns the history entry of the change task {@code taskId} made under idempotency key {@code key}, if any. */
    public Optional<HistoryEntry> command(long taskId, String key) {
        return store.findCommand(taskId, key);
    }

    /**
     * Deletes finished trees of tasks with their history, as {@code request} says ({@link Store#deleteFinished}):
     * an operator's purge, next to the runtime's retention passes.
     */
    public RetentionResult deleteFinished(RetentionRequest request) {
        return store.deleteFinished(request);
    }

    // --- schedules ----------------------------------------------------------------------------

    /** How many next occurrences the schedule reads show. */
    public static final int NEXT_OCCURRENCES = 5;

    /**
     * Declares or changes the recurring schedule {@code recurrence} at run time, for every runtime on
     * the store, as {@link dev.statekit.core.runtime.TaskRuntimeBuilder#schedule} declares one at start:
     * a new schedule starts now; a changed template or misfire policy keeps its progress; a changed
     * timing starts again now; an unchanged one is left as it is. Paused schedules stay paused. Runtimes
     * that know {@code machine} create its occurrences at their next poll.
     *
     * @return the schedule as stored, with its next occurrences
     * @throws IllegalArgumentException if the template sets a parent, dependencies, an idempotency key or a not-before time
     */
    public ScheduleView schedule(Machine<?, ?> machine, Recurrence recurrence, TaskSpec template) {
        ScheduleRecord stored = store.upsertSchedule(ScheduleRecords.declare(machine, recurrence, template, engine.clock().now()));
        log.info("schedule {} declared: {}, {}", stored.name(), recurrence.schedule().describe(), recurrence.misfire());
        return view(stored);
    }

    /** Pauses the schedule {@code name}: no occurrence is created until it is resumed. Empty when there is none. */
    public Optional<ScheduleView> pauseSchedule(String name) {
        return store.pauseSchedule(name).map(TaskOperations::view);
    }

    /**
     * Resumes the schedule {@code name}: occurrences that fell due while it was paused are missed
     * ones, created or not by its misfire policy. Empty when there is none.
     */
    public Optional<ScheduleView> resumeSchedule(String name) {
        return store.resumeSchedule(name).map(TaskOperations::view);
    }

    /** Deletes the schedule {@code name}; the tasks it created stay. Returns whether there was one. */
    public boolean deleteSchedule(String name) {
        return store.deleteSchedule(name);
    }

    /** Returns the schedule {@code name} with its next {@value #NEXT_OCCURRENCES} occurrences, if there is one. */
    public Optional<ScheduleView> schedule(String name) {
        return store.schedule(name).map(TaskOperations::view);
    }

    /** Returns every schedule, by name, each with its next {@value #NEXT_OCCURRENCES} occurrences: what a dashboard lists. */
    public List<ScheduleView> schedules() {
        List<ScheduleView> views = new ArrayList<>();
        for (ScheduleRecord r : store.schedules()) views.add(view(r));
        return views;
    }

    private static ScheduleView view(ScheduleRecord r) {
        Recurrence recurrence = ScheduleRecords.recurrence(r);
        return new ScheduleView(r, recurrence, recurrence.schedule().nextOccurrences(r.nextDue().minusNanos(1), NEXT_OCCURRENCES));
    }

    // --- activity -------------------------------------------------------------------------------

    /** The longest window {@link #activity} counts over. */
    public static final java.time.Duration MAX_ACTIVITY_WINDOW = java.time.Duration.ofDays(1);
    /** The most buckets {@link #activity} returns per queue. */
    public static final int MAX_ACTIVITY_BUCKETS = 1440;

    /**
     * Returns what each queue did over the last {@code window}, bucket by bucket, counted from the
     * store's history ({@link Store#activity}, its cost included): the work of every process that
     * shares the store, not only of this one's runtime. Each history entry of a task of one of
     * {@code machines} counts by its event, as the machine's run policy (and its stages) names it:
     * <em>started</em> for the start event of a claim, <em>succeeded</em> for the success event,
     * <em>failed</em> for the fatal event (a failure that ends the run, a retryable one beyond the
     * retry policy included) or the give-up after an interruption, <em>retried</em> for the
     * retryable event, a retry in place ({@code RETRY}) or the requeue after an interruption. Other
     * entries count as nothing. Work of tasks archived or deleted since is not counted.
     *
     * <p>The buckets start at multiples of {@code bucket} since the epoch: the first holds
     * {@code now - window}, the last holds now (so it is still filling).
     *
     * @param machines the machines whose events are counted
     * @param window   how far back to count, at most {@link #MAX_ACTIVITY_WINDOW}
     * @param bucket   the length of a bucket, a positive whole number of milliseconds; at most
     *                 {@link #MAX_ACTIVITY_BUCKETS} buckets fit in the window
     * @return per queue with anything counted, by queue name, one point per bucket, oldest first
     * @throws IllegalArgumentException if the window is not positive or too long, or the bucket
     *         is not positive, not whole milliseconds, or too short for the window
     */
    public List<QueueActivity> activity(java.util.Collection<? extends Machine<?, ?>> machines,
                                        java.time.Duration window, java.time.Duration bucket) {
        Objects.requireNonNull(machines, "machines");
        if (window.isNegative() || window.isZero() || window.compareTo(MAX_ACTIVITY_WINDOW) > 0) {
            throw new IllegalArgumentException("window must be positive and at most " + MAX_ACTIVITY_WINDOW + ", was " + window);
        }
        long ms = dev.statekit.store.ActivityCount.bucketMillis(bucket);
        if (window.toMillis() / ms > MAX_ACTIVITY_BUCKETS) {
            throw new IllegalArgumentException("a window of " + window + " holds more than " + MAX_ACTIVITY_BUCKETS
                    + " buckets of " + bucket);
        }
        java.time.Instant now = engine.clock().now();
        java.time.Instant from = now.minus(window);
        java.time.Instant to = now.plusNanos(1000);       // now included, at the stores' microsecond precision
        List<dev.statekit.store.ActivityCount> counts = store.activity(from, to, bucket);
        return new ActivityKinds(machines).series(counts, dev.statekit.store.ActivityCount.bucketOf(from, bucket),
                dev.statekit.store.ActivityCount.bucketOf(now, bucket), bucket);
    }
}
