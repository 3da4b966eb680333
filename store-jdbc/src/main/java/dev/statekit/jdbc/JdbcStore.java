package dev.statekit.jdbc;

import dev.statekit.jdbc.internal.ClaimHints;
import dev.statekit.jdbc.internal.Jdbc;
import dev.statekit.jdbc.internal.JdbcContext;
import dev.statekit.jdbc.internal.JdbcParts;
import dev.statekit.jdbc.internal.LeaseFloors;
import dev.statekit.jdbc.internal.Schema;
import dev.statekit.store.ApplyResult;
import dev.statekit.store.ArchivedTask;
import dev.statekit.store.Change;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.Claimed;
import dev.statekit.store.CreateResult;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.GroupPass;
import dev.statekit.store.GroupRecord;
import dev.statekit.store.GroupResolver;
import dev.statekit.store.GroupWrite;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.memory.InMemoryStore;
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
import dev.statekit.store.StatekitException;
import dev.statekit.store.StateCount;
import dev.statekit.store.Store;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * A durable {@link Store} over plain JDBC, on PostgreSQL (shared by several processes or
 * machines) or on the embedded H2 database (one process).
 *
 * <p>Build it with {@link #builder(DataSource)}. The host brings its own connection pool as the
 * {@link DataSource}; the store borrows a connection per operation and gives it back at once
 * (plus one connection held for as long as a {@link #watch} on PostgreSQL lasts). The schema is
 * versioned DDL shipped in this artifact; apply it with a migration tool (see {@link #ddl}) or let
 * the store create what is missing ({@link JdbcStoreBuilder#createSchemaIfMissing(boolean)}).
 *
 * <p>Every write is one transaction: a change and its history entry, every change of an
 * {@link #applyAll}, and every task of a {@link #claim}, each with the marks of the groups the task
 * counts in; a {@link #resolveGroups resolution pass} takes an owner's marks and writes its decision
 * in one transaction too. Claims lock the queue's control row, so
 * the queue's concurrency limit holds across every process sharing the database, and take a task
 * only while it is at the version read (on H2 they also lock the rows they take). The store expects the databases' default
 * isolation, READ COMMITTED. Times are stored in UTC at microsecond precision: the records the
 * store returns carry times cut to the microsecond.
 *
 * <p>Failures of the database surface as {@link StatekitException}s:
 * {@link ErrorCode#STORE_UNAVAILABLE} when retrying may help (lost or refused connections,
 * shutdowns, serialization failures, deadlocks, lock timeouts), else
 * {@link ErrorCode#STORE_FAILURE}, with the task id when known and the {@link SQLException} as
 * cause.
 *
 * <p>The store can also work in the application's own transaction, so that tasks are created and
 * commands fired together with the application's data: on a plain connection with {@link #enlist},
 * or in the transactions a framework manages with {@link JdbcStoreBuilder#transactions}.
 *
 * <p>Instances are immutable and thread-safe. Each {@code Store} method is one call into a part of
 * {@code dev.statekit.jdbc.internal} with one duty (inserts, reads, writes, claims, queues, ...);
 * what differs between PostgreSQL and H2 lives behind one dialect interface there.
 */
public final class JdbcStore implements Store {

    /** The default table prefix, {@value}. */
    public static final String DEFAULT_TABLE_PREFIX = "statekit_";
    /** The default payload limit, in characters: the same as the in-memory store's. */
    public static final int DEFAULT_MAX_PAYLOAD_CHARS = InMemoryStore.DEFAULT_MAX_PAYLOAD_CHARS;
    /** The version of the schema this store reads and writes. */
    public static final int SCHEMA_VERSION = Schema.VERSION;

    private final Dialect dialect;
    private final String tablePrefix;
    private final int maxPayloadChars;
    private final JdbcContext context;
    private final JdbcParts parts;
    private final Consumer<Runnable> afterCommit;

    JdbcStore(DataSource dataSource, Dialect dialect, String tablePrefix, int maxPayloadChars, @Nullable TransactionHooks hooks,
            ClaimHints hints) {
        this(JdbcContext.of(new Jdbc(dataSource, hooks == null ? null : hooks::current), dialect, tablePrefix, maxPayloadChars),
                dialect, tablePrefix, maxPayloadChars, hooks == null ? Runnable::run : hooks::afterCommitOrNow, hints, new LeaseFloors());
    }

    private JdbcStore(JdbcContext context, Dialect dialect, String tablePrefix, int maxPayloadChars, Consumer<Runnable> afterCommit,
            ClaimHints hints, LeaseFloors floors) {
        this.dialect = dialect;
        this.tablePrefix = tablePrefix;
        this.maxPayloadChars = maxPayloadChars;
        this.context = context;
        this.afterCommit = afterCommit;
        this.parts = new JdbcParts(context, hints, floors);
    }

    /** Returns this store working on {@code enlistment}'s connection, telling it what to run after the commit. */
    JdbcStore enlisted(Enlistment enlistment) {
        return new JdbcStore(JdbcContext.of(new Jdbc(context.jdbc().dataSource(), enlistment::open), dialect, tablePrefix, maxPayloadChars),
                dialect, tablePrefix, maxPayloadChars, enlistment::afterCommit, parts.hints, parts.floors);
    }

    /**
     * Enlists this store in the application's transaction on {@code connection}: the returned
     * enlistment's {@link Enlistment#store() store} runs every operation on that connection, each
     * within a savepoint of its own (released when the operation ends, rolled back to when it fails
     * or is refused, so the transaction stays usable), and never commits, rolls back or closes it.
     * Tasks created and commands fired through it exist only if the application commits; after
     * committing or rolling back, it calls {@link Enlistment#committed()} or
     * {@link Enlistment#rolledBack()}. The engine works through it with
     * {@code engine.within(enlistment.store())}. For transactions a framework manages, see
     * {@link JdbcStoreBuilder#transactions(TransactionHooks)}.
     *
     * @param connection the connection of the application's transaction, auto-commit off (checked by
     *                   every operation, refused with {@link ErrorCode#INVALID_ARGUMENT})
     * @return the enlistment, for this one transaction
     * @throws NullPointerException if {@code connection} is null
     */
    public Enlistment enlist(Connection connection) {
        return new Enlistment(this, Objects.requireNonNull(connection, "connection"));
    }

    /**
     * Returns a builder of a store on {@code dataSource}.
     *
     * @param dataSource the host's connection pool
     * @return a new builder; not thread-safe
     * @throws NullPointerException if {@code dataSource} is null
     */
    public static JdbcStoreBuilder builder(DataSource dataSource) {
        return new JdbcStoreBuilder(Objects.requireNonNull(dataSource, "dataSource"));
    }

    /**
     * Returns the schema DDL of {@code dialect} with table names starting with {@code prefix}: the
     * texts of the resources {@link Dialect#schemaResource(int)} of versions 1 to
     * {@link #SCHEMA_VERSION}, in order, with their {@code ${prefix}} placeholder filled in,
     * statements separated by semicolons at the ends of lines. Every statement is idempotent
     * ({@code create ... if not exists}).
     *
     * @param dialect the database
     * @param prefix  the table prefix, as given to {@link JdbcStoreBuilder#tablePrefix(String)}
     * @return the DDL text
     * @throws IllegalArgumentException if {@code prefix} is not a valid table prefix
     */
    public static String ddl(Dialect dialect, String prefix) {
        return Schema.ddl(Objects.requireNonNull(dialect, "dialect"), Objects.requireNonNull(prefix, "prefix"));
    }

    /** Returns the dialect this store speaks. */
    public Dialect dialect() {
        return dialect;
    }

    /** Returns the prefix of this store's table names. */
    public String tablePrefix() {
        return tablePrefix;
    }

    /** Returns the largest payload this store accepts, in characters. */
    public int maxPayloadChars() {
        return maxPayloadChars;
    }

    @Override
    public String toString() {
        return "JdbcStore[" + dialect + ", prefix " + tablePrefix + "]";
    }

    // --- create, find, apply ----------------------------------------------------------------

    @Override
    public CreateResult create(NewTask spec) {
        CreateResult result = parts.inserts.create(spec);
        afterCommit.accept(() -> parts.hints.placed(result.task()));
        return result;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Writes in one transaction, with one notification: tasks without an idempotency key or
     * dependencies are inserted by up to 1,000 per statement, the others one by one. When a payload
     * is over the limit, a dependency is missing or a parent's group is sealed, nothing is written.
     */
    @Override
    public List<CreateResult> createAll(List<NewTask> specs) {
        List<CreateResult> results = parts.inserts.createAll(specs);
        afterCommit.accept(() -> parts.hints.placed(results.stream().map(CreateResult::task).toList()));
        return results;
    }

    @Override
    public Optional<TaskRecord> find(long id) {
        return parts.reads.find(id);
    }

    /** {@inheritDoc} One query per 500 ids; rows that cannot be read are logged and left out. */
    @Override
    public Map<Long, TaskRecord> findAll(Collection<Long> ids) {
        return parts.reads.findAll(ids);
    }

    @Override
    public ApplyResult applyAll(List<Change> changes) {
        try {
            return parts.writes.applyAll(changes);
        } finally {
            placed(changes);
        }
    }

    /**
     * Tells the claims where {@code changes} may have left runnable tasks, once they are committed;
     * also after a failure, since the commit's answer may be what was lost.
     */
    private void placed(List<Change> changes) {
        List<TaskRecord> next = new ArrayList<>(changes.size());
        for (Change change : changes) {
            next.add(change.next());
            Lease lease = change.next().lease();
            if (lease != null) parts.floors.leased(lease.expiresAt());      // at once: a scan under way must not pass it
        }
        afterCommit.accept(() -> parts.hints.placed(next));
    }

    /**
     * {@inheritDoc}
     *
     * <p>Writes in one transaction, each change within a savepoint of its own. When a change's
     * payload is over the limit, the changes before it are committed and the exception is thrown,
     * as applying them one by one would.
     */
    @Override
    public List<ApplyResult> applyEach(List<Change> changes) {
        try {
            return parts.writes.applyEach(changes);
        } finally {
            placed(changes);
        }
    }

    // --- read -------------------------------------------------------------------------------

    @Override
    public Optional<HistoryEntry> findCommand(long taskId, String commandKey) {
        return parts.reads.findCommand(taskId, commandKey);
    }

    @Override
    public List<HistoryEntry> history(long taskId) {
        return parts.reads.history(taskId);
    }

    @Override
    public Page<TaskRecord> query(TaskQuery query) {
        return parts.reads.query(query);
    }

    // --- running work -----------------------------------------------------------------------

    @Override
    public List<Claimed> claim(ClaimRequest request) {
        return parts.claims.claim(request);
    }

    @Override
    public RenewResult renew(long taskId, long fencingToken, Instant now, Instant expiresAt) {
        return parts.metadata.renew(taskId, fencingToken, now, expiresAt);
    }

    @Override
    public List<TaskRecord> expiredLeases(Instant now, int max) {
        return parts.reads.expiredLeases(now, max);
    }

    @Override
    public List<TaskRecord> expiredLeases(Collection<String> machines, Instant now, int max) {
        return parts.reads.expiredLeases(machines, now, max);
    }

    @Override
    public List<TaskRecord> due(String machine, Collection<String> states, Instant now, int max) {
        return parts.reads.due(machine, states, now, max);
    }

    @Override
    public @Nullable Instant nextDue(String machine, Collection<String> states, Instant now) {
        return parts.reads.nextDue(machine, states, now);
    }

    @Override
    public List<TaskRecord> leasedBy(String owner, int max) {
        return parts.reads.leasedBy(owner, max);
    }

    @Override
    public List<TaskRecord> peek(ClaimRequest request) {
        return parts.reads.peek(request);
    }

    @Override
    public int leased(String queue) {
        return parts.queues.leased(queue);
    }

    @Override
    public boolean requestCancel(long taskId) {
        return parts.metadata.requestCancel(taskId);
    }

    @Override
    public boolean cancelRequested(long taskId) {
        return parts.metadata.cancelRequested(taskId);
    }

    @Override
    public boolean reorder(long taskId, int priority, long sequence) {
        try {
            return parts.metadata.reorder(taskId, priority, sequence);
        } finally {
            afterCommit.accept(parts.hints::forgetAll);
        }
    }

    @Override
    public long nextSequence(boolean front) {
        return parts.metadata.nextSequence(front);
    }

    @Override
    public int purge(String machine, Collection<String> states, Instant updatedBefore, int max) {
        return parts.purges.purge(machine, states, updatedBefore, max);
    }

    /**
     * {@inheritDoc}
     *
     * <p>On PostgreSQL, listens on the channel {@code <prefix>wake} on a connection of its own
     * (held until the handle is closed), and calls {@code wake} when any process sharing the tables
     * creates a task, moves one to another state or resumes a queue, and after every reconnection.
     * On H2 nothing calls {@code wake}: runtimes poll.
     */
    @Override
    public AutoCloseable watch(Runnable wake) {
        return context.ops().watch(Objects.requireNonNull(wake, "wake"));
    }

    /**
     * {@inheritDoc}
     *
     * <p>Runs {@code action} at once, unless this store works in an application's transaction: then
     * at its commit, through the {@link Enlistment} or the {@link TransactionHooks}.
     */
    @Override
    public void afterCommit(Runnable action) {
        afterCommit.accept(Objects.requireNonNull(action, "action"));
    }

    // --- groups -----------------------------------------------------------------------------

    /**
     * {@inheritDoc}
     *
     * <p>One transaction: every changed task and every owner is locked in id order, the changes are
     * checked and written, then each group is opened, filled, sealed or held; children created here
     * are counted directly.
     */
    @Override
    public ApplyResult applyAll(List<Change> changes, List<GroupWrite> groups) {
        try {
            return parts.groupWrites.applyAll(changes, groups);
        } finally {
            forgetStarts();       // a group written may hold or release tasks
        }
    }

    /** Makes the next claims and lease scans read from the start: a write of groups may have changed anything. */
    private void forgetStarts() {
        afterCommit.accept(parts.hints::forgetAll);
        parts.floors.forgetAll();
    }

    /** {@inheritDoc} The group row and its counts are read in one statement. */
    @Override
    public Optional<GroupRecord> group(long ownerId) {
        return parts.groupReads.group(ownerId);
    }

    @Override
    public List<Long> dependencies(long taskId) {
        return parts.groupReads.dependencies(taskId);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Owners are locked with {@code FOR UPDATE SKIP LOCKED}: concurrent passes, in this process or
     * others, take different groups, and an owner another transaction holds is left for a later pass.
     * When a version check refuses a resolver's change, the pass is rolled back and runs again without
     * that group (at most twice); that group's marks wait for a later pass.
     */
    @Override
    public GroupPass resolveGroups(Collection<String> ownerMachines, Instant now, int max, GroupResolver resolver) {
        Objects.requireNonNull(now, "now");
        GroupPass pass = parts.resolutions.resolve(ownerMachines, max, resolver);
        if (!pass.changes().isEmpty() || !pass.groups().isEmpty()) forgetStarts();
        return pass;
    }

    @Override
    public long pendingMarks() {
        return parts.groupReads.pendingMarks();
    }

    // --- queues -----------------------------------------------------------------------------

    @Override
    public QueueRecord queue(String queue) {
        return parts.queues.get(queue);
    }

    @Override
    public QueueRecord pauseQueue(String queue, @Nullable String reason) {
        return parts.queues.pause(queue, reason);
    }

    @Override
    public QueueRecord resumeQueue(String queue) {
        return parts.queues.resume(queue);
    }

    @Override
    public QueueRecord setConcurrency(String queue, int limit) {
        return parts.queues.setConcurrency(queue, limit);
    }

    @Override
    public QueueRecord setRateLimit(String queue, @Nullable RateLimit limit) {
        return parts.queues.setRateLimit(queue, limit);
    }

    @Override
    public void holdKey(String queue, String key, Instant until) {
        parts.queues.holdKey(queue, key, until);
    }

    // --- metrics ----------------------------------------------------------------------------

    /** {@inheritDoc} One {@code GROUP BY} statement over the tasks table. */
    @Override
    public List<StateCount> stateCounts(Instant now) {
        return parts.reads.stateCounts(now);
    }

    // --- retention: the archive -------------------------------------------------------------

    /**
     * {@inheritDoc}
     *
     * <p>One transaction: the roots are read through the claim index (on PostgreSQL locked with
     * {@code FOR UPDATE SKIP LOCKED}, so that concurrent batches take different roots; on H2 locked by
     * id after the read), then the tree level by level, each task locked before its children are read
     * and every lock taken with {@code SKIP LOCKED}: a batch waits for no other transaction. The moved
     * rows go to {@code <prefix>archived_tasks} and {@code <prefix>archived_history} by set-based
     * statements of up to 500 tasks.
     */
    @Override
    public RetentionResult archive(RetentionRequest request, Instant archivedAt) {
        return parts.purges.move(request, Objects.requireNonNull(archivedAt, "archivedAt"));
    }

    /** {@inheritDoc} Locks as {@link #archive} does. */
    @Override
    public RetentionResult deleteFinished(RetentionRequest request) {
        return parts.purges.move(request, null);
    }

    /** {@inheritDoc} The task and its history are read in one statement. */
    @Override
    public Optional<ArchivedTask> findArchived(long id) {
        return parts.archive.find(id);
    }

    /** {@inheritDoc} Roots are locked with {@code SKIP LOCKED}: concurrent deletions take different trees. */
    @Override
    public RetentionResult purgeArchived(String machine, Instant archivedBefore, int max) {
        return parts.archive.purge(machine, archivedBefore, max);
    }

    // --- schedules --------------------------------------------------------------------------

    @Override
    public ScheduleRecord upsertSchedule(ScheduleRecord schedule) {
        return parts.schedules.upsert(schedule);
    }

    @Override
    public Optional<ScheduleRecord> schedule(String name) {
        return parts.schedules.get(name);
    }

    @Override
    public List<ScheduleRecord> schedules() {
        return parts.schedules.all();
    }

    @Override
    public Optional<ScheduleRecord> pauseSchedule(String name) {
        return parts.schedules.setPaused(name, true);
    }

    @Override
    public Optional<ScheduleRecord> resumeSchedule(String name) {
        return parts.schedules.setPaused(name, false);
    }

    @Override
    public boolean deleteSchedule(String name) {
        return parts.schedules.delete(name);
    }

    /** {@inheritDoc} Due schedules are locked ({@code SKIP LOCKED} on PostgreSQL: concurrent passes take different ones). */
    @Override
    public SchedulePass fireSchedules(Collection<String> machines, Instant now, int max, ScheduleFirer firer) {
        SchedulePass pass = parts.schedules.fire(machines, now, max, firer);
        afterCommit.accept(() -> parts.hints.placed(pass.created()));
        return pass;
    }

    // --- processes ----------------------------------------------------------------------------

    /** {@inheritDoc} The row of the owner is deleted and written again in one transaction. */
    @Override
    public void registerProcess(ProcessRecord process) {
        parts.processes.register(Objects.requireNonNull(process, "process"));
    }

    @Override
    public boolean touchProcess(String owner, Instant at) {
        return parts.processes.touch(owner, at);
    }

    @Override
    public boolean stopProcess(String owner, Instant at) {
        return parts.processes.stop(owner, at);
    }

    @Override
    public List<ProcessRecord> processes() {
        return parts.processes.all();
    }

    @Override
    public int purgeProcesses(Instant seenBefore) {
        return parts.processes.purge(seenBefore);
    }

    /** {@inheritDoc} Runs one statement: see {@link Store#activity} for its cost. */
    @Override
    public List<dev.statekit.store.ActivityCount> activity(Instant from, Instant to, java.time.Duration bucket) {
        return parts.activity.activity(from, to, bucket);
    }
}
