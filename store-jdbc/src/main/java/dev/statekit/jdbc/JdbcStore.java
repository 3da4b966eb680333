package dev.statekit.jdbc;

import dev.statekit.jdbc.internal.AttributeCodec;
import dev.statekit.jdbc.internal.DataSourceCheck;
import dev.statekit.jdbc.internal.PgListener;
import dev.statekit.jdbc.internal.Rows;
import dev.statekit.jdbc.internal.Schema;
import dev.statekit.jdbc.internal.Sql;
import dev.statekit.jdbc.internal.SqlErrors;
import dev.statekit.store.ApplyResult;
import dev.statekit.store.Attributes;
import dev.statekit.store.Change;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.Claimed;
import dev.statekit.store.CreateResult;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.InMemoryStore;
import dev.statekit.store.Lease;
import dev.statekit.store.NewTask;
import dev.statekit.store.Page;
import dev.statekit.store.QueueRecord;
import dev.statekit.store.RenewResult;
import dev.statekit.store.StatekitException;
import dev.statekit.store.Store;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A durable {@link Store} over plain JDBC, on PostgreSQL (shared by several processes or
 * machines) or on the embedded H2 database (one process).
 *
 * <p>Build it with {@link #builder(DataSource)}. The host brings its own connection pool as the
 * {@link DataSource}; the store borrows a connection per operation and gives it back at once
 * (plus one connection held for as long as a {@link #watch} on PostgreSQL lasts). The schema is
 * versioned DDL shipped in this artifact; apply it with a migration tool (see {@link #ddl}) or let
 * the store create what is missing ({@link Builder#createSchemaIfMissing(boolean)}).
 *
 * <p>Every write is one transaction: a change and its history entry, every change of an
 * {@link #applyAll}, and every task of a {@link #claim}. Claims lock the queue's control row, so
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
 * <p>Instances are immutable and thread-safe.
 */
public final class JdbcStore implements Store {
    private static final Logger log = LoggerFactory.getLogger(JdbcStore.class);

    /** The default table prefix, {@value}. */
    public static final String DEFAULT_TABLE_PREFIX = "statekit_";
    /** The default payload limit, in characters: the same as the in-memory store's. */
    public static final int DEFAULT_MAX_PAYLOAD_CHARS = InMemoryStore.DEFAULT_MAX_PAYLOAD_CHARS;
    /** The version of the schema this store reads and writes. */
    public static final int SCHEMA_VERSION = Schema.VERSION;

    private static final int CREATE_ATTEMPTS = 5;
    private static final int FIND_CHUNK = 500;
    private static final int INSERT_CHUNK = 1000;
    private static final int HISTORY_PARAMETERS = 10;

    private final DataSource dataSource;
    private final Dialect dialect;
    private final String tablePrefix;
    private final int maxPayloadChars;
    private final Sql sql;

    private JdbcStore(DataSource dataSource, Dialect dialect, String tablePrefix, int maxPayloadChars) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.tablePrefix = tablePrefix;
        this.maxPayloadChars = maxPayloadChars;
        this.sql = new Sql(dialect, tablePrefix);
    }

    /**
     * Returns a builder of a store on {@code dataSource}.
     *
     * @param dataSource the host's connection pool
     * @return a new builder; not thread-safe
     * @throws NullPointerException if {@code dataSource} is null
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(Objects.requireNonNull(dataSource, "dataSource"));
    }

    /**
     * Returns the schema DDL of {@code dialect} with table names starting with {@code prefix}: the
     * text of the resource {@link Dialect#schemaResource(int)} with its {@code ${prefix}}
     * placeholder filled in, statements separated by semicolons at the ends of lines. Every
     * statement is idempotent ({@code create ... if not exists}).
     *
     * @param dialect the database
     * @param prefix  the table prefix, as given to {@link Builder#tablePrefix(String)}
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

    // --- transactions -----------------------------------------------------------------------

    /** Work on one connection. */
    @FunctionalInterface
    private interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    private Connection connect(String doing, @Nullable Long taskId) {
        try {
            return dataSource.getConnection();
        } catch (SQLException e) {
            throw SqlErrors.noConnection(e, doing, taskId);
        }
    }

    /** Runs read-only work on a connection as the pool hands it out. */
    private <T> T read(String doing, @Nullable Long taskId, Work<T> work) {
        Connection c = connect(doing, taskId);
        try {
            return work.run(c);
        } catch (SQLException e) {
            throw SqlErrors.translate(e, doing, taskId);
        } finally {
            close(c);
        }
    }

    /** Runs work in one transaction: committed when it returns, rolled back when it throws. */
    private <T> T transaction(String doing, @Nullable Long taskId, Work<T> work) {
        Connection c = connect(doing, taskId);
        try {
            boolean autoCommit = c.getAutoCommit();
            if (autoCommit) c.setAutoCommit(false);
            T result;
            try {
                result = work.run(c);
                c.commit();
            } catch (SQLException | RuntimeException | Error e) {
                try {
                    c.rollback();
                } catch (SQLException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            } finally {
                if (autoCommit) restoreAutoCommit(c);
            }
            return result;
        } catch (SQLException e) {
            throw SqlErrors.translate(e, doing, taskId);
        } finally {
            close(c);
        }
    }

    // After the commit or the rollback: a failure here must neither hide the outcome nor the original failure.
    private static void restoreAutoCommit(Connection c) {
        try {
            c.setAutoCommit(true);
        } catch (SQLException e) {
            log.debug("restoring auto-commit on a connection failed", e);
        }
    }

    private static void close(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            log.debug("closing a connection failed", e);
        }
    }

    private void notifyWaiters(Connection c) throws SQLException {
        if (dialect != Dialect.POSTGRESQL) return;
        try (PreparedStatement ps = c.prepareStatement(sql.notify)) {
            ps.setString(1, sql.channel);
            ps.setString(2, "");
            ps.executeQuery().close();
        }
    }

    private static long single(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) throw new SQLException("no row returned");
            return rs.getLong(1);
        }
    }

    /** Reads every task of a result, skipping (and logging) rows that cannot be read. */
    private static List<TaskRecord> tasks(ResultSet rs) throws SQLException {
        List<TaskRecord> result = new ArrayList<>();
        while (rs.next()) {
            TaskRecord t = readOrSkip(rs);
            if (t != null) result.add(t);
        }
        return result;
    }

    private static @Nullable TaskRecord readOrSkip(ResultSet rs) throws SQLException {
        try {
            return Rows.task(rs);
        } catch (StatekitException e) {
            log.warn("skipping task {}: {}", e.taskId(), e.getMessage());
            return null;
        }
    }

    private static void bindStates(PreparedStatement ps, int first, Collection<String> states) throws SQLException {
        int i = first;
        for (String s : new TreeSet<>(states)) ps.setString(i++, s);
    }

    // --- create, find, apply ----------------------------------------------------------------

    @Override
    public CreateResult create(NewTask spec) {
        Objects.requireNonNull(spec, "spec");
        checkPayload(spec);
        String attributes = AttributeCodec.encode(spec.attributes());
        for (int attempt = 1; ; attempt++) {
            Optional<CreateResult> result = transaction("creating a task of machine " + spec.machine(), null, c -> {
                Optional<CreateResult> r = insert(c, spec, attributes);
                if (r.isPresent() && r.get().created()) notifyWaiters(c);
                return r;
            });
            if (result.isPresent()) return result.get();
            // The task holding the key was deleted between our insert and our read: insert again.
            if (attempt >= CREATE_ATTEMPTS) {
                throw new StatekitException(ErrorCode.STORE_UNAVAILABLE, "creating a task of machine " + spec.machine()
                        + " with idempotency key " + spec.idempotencyKey() + " raced with its deletion " + attempt + " times");
            }
        }
    }

    private void checkPayload(NewTask spec) {
        String payload = spec.payload();
        if (payload != null && payload.length() > maxPayloadChars) {
            throw new StatekitException(ErrorCode.PAYLOAD_TOO_LARGE, "payload of " + payload.length()
                    + " chars exceeds the limit of " + maxPayloadChars + " for a new task of machine " + spec.machine());
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Writes in one transaction, with one notification: tasks without an idempotency key are
     * inserted by up to 1,000 per statement, the others one by one. When a payload is over the
     * limit, nothing is written.
     */
    @Override
    public List<CreateResult> createAll(List<NewTask> specs) {
        List<NewTask> list = List.copyOf(specs);
        if (list.isEmpty()) return List.of();
        if (list.size() == 1) return List.of(create(list.get(0)));
        String[] attributes = new String[list.size()];
        for (int i = 0; i < list.size(); i++) {
            checkPayload(list.get(i));
            attributes[i] = AttributeCodec.encode(list.get(i).attributes());
        }
        for (int attempt = 1; ; attempt++) {
            Optional<List<CreateResult>> result = transaction("creating " + list.size() + " tasks", null,
                    c -> insertAll(c, list, attributes));
            if (result.isPresent()) return result.get();
            if (attempt >= CREATE_ATTEMPTS) {
                throw new StatekitException(ErrorCode.STORE_UNAVAILABLE, "creating " + list.size()
                        + " tasks raced with the deletion of a task holding one of their idempotency keys " + attempt + " times");
            }
        }
    }

    private Optional<List<CreateResult>> insertAll(Connection c, List<NewTask> specs, String[] attributes) throws SQLException {
        List<CreateResult> results = new ArrayList<>(specs.size());
        boolean created = false;
        int i = 0;
        while (i < specs.size()) {
            if (specs.get(i).idempotencyKey() != null) {
                Optional<CreateResult> r = insert(c, specs.get(i), attributes[i]);
                if (r.isEmpty()) return Optional.empty();     // its key's task was deleted meanwhile: start again
                created |= r.get().created();
                results.add(r.get());
                i++;
                continue;
            }
            int end = i;
            while (end < specs.size() && end - i < INSERT_CHUNK && specs.get(end).idempotencyKey() == null) end++;
            insertRows(c, specs.subList(i, end), attributes, i, results);
            created = true;
            i = end;
        }
        if (created) notifyWaiters(c);
        return Optional.of(results);
    }

    /** Inserts tasks without idempotency keys with one statement; ids and sequences follow the order given. */
    private void insertRows(Connection c, List<NewTask> specs, String[] attributes, int offset, List<CreateResult> results)
            throws SQLException {
        long[][] keys = new long[specs.size()][];
        try (PreparedStatement ps = c.prepareStatement(sql.insertTasks(specs.size()))) {
            int p = 1;
            for (int i = 0; i < specs.size(); i++) {
                NewTask spec = specs.get(i);
                ps.setString(p++, spec.machine());
                ps.setInt(p++, spec.machineVersion());
                ps.setString(p++, spec.state());
                ps.setString(p++, spec.queue());
                ps.setInt(p++, spec.priority());
                Rows.setLong(ps, p++, spec.parentId());
                Rows.setInstant(ps, p++, spec.notBefore());
                ps.setString(p++, attributes[offset + i]);
                Rows.setString(ps, p++, spec.payload());
                Rows.setString(ps, p++, null);
                Rows.setInstant(ps, p++, spec.createdAt());
                Rows.setInstant(ps, p++, spec.createdAt());
            }
            int n = 0;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (n == keys.length) throw new IllegalStateException("more rows than tasks inserted");
                    keys[n++] = new long[] {rs.getLong(1), rs.getLong(2)};
                }
            }
            if (n != keys.length) throw new IllegalStateException(n + " rows inserted for " + keys.length + " tasks");
        }
        // Rows are numbered in the order of the values: ids and sequences both ascend along the list.
        java.util.Arrays.sort(keys, Comparator.comparingLong(k -> k[0]));
        for (int i = 0; i < specs.size(); i++) results.add(new CreateResult(newRecord(specs.get(i), keys[i][0], keys[i][1]), true));
        log.debug("created {} tasks", specs.size());
    }

    private static TaskRecord newRecord(NewTask spec, long id, long sequence) {
        Instant created = Objects.requireNonNull(Rows.micros(spec.createdAt()));
        return new TaskRecord(id, spec.machine(), spec.machineVersion(), spec.state(), spec.queue(),
                spec.priority(), sequence, spec.parentId(), 0, 0, null, Rows.micros(spec.notBefore()), null,
                spec.attributes(), spec.payload(), spec.idempotencyKey(), created, created, 0);
    }

    private Optional<CreateResult> insert(Connection c, NewTask spec, String attributes) throws SQLException {
        String key = spec.idempotencyKey();
        long id = 0;
        long sequence = 0;
        try (PreparedStatement ps = c.prepareStatement(sql.insertTask)) {
            ps.setString(1, spec.machine());
            ps.setInt(2, spec.machineVersion());
            ps.setString(3, spec.state());
            ps.setString(4, spec.queue());
            ps.setInt(5, spec.priority());
            Rows.setLong(ps, 6, spec.parentId());
            Rows.setInstant(ps, 7, spec.notBefore());
            ps.setString(8, attributes);
            Rows.setString(ps, 9, spec.payload());
            Rows.setString(ps, 10, key);
            Rows.setInstant(ps, 11, spec.createdAt());
            Rows.setInstant(ps, 12, spec.createdAt());
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    id = rs.getLong(1);
                    sequence = rs.getLong(2);
                }
            }
        } catch (SQLException e) {
            // H2 waits for a concurrent creator of the same key, then reports the duplicate.
            if (key == null || !SqlErrors.uniqueViolation(e)) throw e;
        }
        if (id == 0) {
            try (PreparedStatement ps = c.prepareStatement(sql.taskByKey)) {
                ps.setString(1, spec.machine());
                ps.setString(2, Objects.requireNonNull(key, "a task without a key was not inserted"));
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(new CreateResult(Rows.task(rs), false)) : Optional.empty();
                }
            }
        }
        TaskRecord task = newRecord(spec, id, sequence);
        log.debug("created task {} of machine {} on queue {}", id, spec.machine(), spec.queue());
        return Optional.of(new CreateResult(task, true));
    }

    @Override
    public Optional<TaskRecord> find(long id) {
        return read("reading a task", id, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.taskById)) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(Rows.task(rs)) : Optional.empty();
                }
            }
        });
    }

    /** {@inheritDoc} One query per 500 ids; rows that cannot be read are logged and left out. */
    @Override
    public java.util.Map<Long, TaskRecord> findAll(Collection<Long> ids) {
        List<Long> distinct = new ArrayList<>(new TreeSet<>(ids));
        java.util.Map<Long, TaskRecord> found = new java.util.HashMap<>();
        if (distinct.isEmpty()) return found;
        return read("reading " + distinct.size() + " tasks", null, c -> {
            for (int from = 0; from < distinct.size(); from += FIND_CHUNK) {
                List<Long> chunk = distinct.subList(from, Math.min(distinct.size(), from + FIND_CHUNK));
                try (PreparedStatement ps = c.prepareStatement(sql.tasksByIds(chunk.size()))) {
                    for (int i = 0; i < chunk.size(); i++) ps.setLong(i + 1, chunk.get(i));
                    try (ResultSet rs = ps.executeQuery()) {
                        for (TaskRecord t : tasks(rs)) found.put(t.id(), t);
                    }
                }
            }
            return found;
        });
    }

    @Override
    public ApplyResult applyAll(List<Change> changes) {
        if (changes.isEmpty()) throw new IllegalArgumentException("no changes to apply");
        Set<Long> ids = new HashSet<>();
        for (Change change : changes) {
            if (!ids.add(change.next().id())) throw new IllegalArgumentException("two changes for task " + change.next().id());
        }
        Long taskId = changes.size() == 1 ? changes.get(0).next().id() : null;
        String doing = changes.size() == 1 ? "applying a change" : "applying " + changes.size() + " changes";
        ApplyResult result = transaction(doing, taskId, c -> {
            ApplyResult r = write(c, changes, c::rollback);
            if (r.applied() && changesState(changes)) notifyWaiters(c);
            return r;
        });
        if (result.applied()) logApplied(changes);
        return result;
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
        Set<Long> ids = new HashSet<>();
        for (Change change : changes) {
            if (!ids.add(change.next().id())) throw new IllegalArgumentException("two changes for task " + change.next().id());
        }
        if (changes.isEmpty()) return List.of();
        if (changes.size() == 1) return List.of(apply(changes.get(0)));
        boolean keyed = false;
        for (Change change : changes) keyed |= change.entry().commandKey() != null;
        if (!keyed) return applyEachUnkeyed(changes);
        StatekitException[] refused = new StatekitException[1];
        List<ApplyResult> results = transaction("applying " + changes.size() + " changes one by one", null, c -> {
            List<ApplyResult> rs = new ArrayList<>(changes.size());
            List<Change> applied = new ArrayList<>();
            for (Change change : changes) {
                java.sql.Savepoint savepoint = c.setSavepoint();
                ApplyResult r;
                try {
                    r = write(c, List.of(change), () -> c.rollback(savepoint));
                } catch (StatekitException e) {
                    if (e.code() != ErrorCode.PAYLOAD_TOO_LARGE) throw e;
                    c.rollback(savepoint);
                    refused[0] = e;
                    break;
                }
                if (r.applied()) {
                    c.releaseSavepoint(savepoint);
                    applied.add(change);
                }
                rs.add(r);
            }
            if (changesState(applied)) notifyWaiters(c);
            logApplied(applied);
            return rs;
        });
        if (refused[0] != null) throw refused[0];
        return results;
    }

    /**
     * Applies changes without command keys, each on its own, in one transaction without savepoints:
     * a change whose update finds its task at another version (or none) writes nothing, and no
     * history insert can meet a command key. The updates go as batches in id order, the history
     * entries of the applied ones as one statement.
     */
    private List<ApplyResult> applyEachUnkeyed(List<Change> changes) {
        int allowed = 0;
        StatekitException refused = null;
        for (Change change : changes) {
            try {
                checkPayload(change.next());
            } catch (StatekitException e) {
                refused = e;      // the changes before it are written, as applying them one by one would
                break;
            }
            allowed++;
        }
        List<Change> writing = changes.subList(0, allowed);
        List<ApplyResult> results = writing.isEmpty() ? List.of()
                : transaction("applying " + writing.size() + " changes one by one", null, c -> writeEach(c, writing));
        if (refused != null) throw refused;
        return results;
    }

    private List<ApplyResult> writeEach(Connection c, List<Change> changes) throws SQLException {
        if (dialect == Dialect.POSTGRESQL) return writeEachInOne(c, changes);
        List<Change> sorted = new ArrayList<>(changes);
        sorted.sort(Comparator.comparingLong(ch -> ch.next().id()));
        Set<Long> updated = new HashSet<>();
        for (boolean leased : new boolean[] {false, true}) {
            List<Change> group = new ArrayList<>();
            for (Change change : sorted) if ((change.next().lease() != null) == leased) group.add(change);
            if (group.isEmpty()) continue;
            try (PreparedStatement ps = c.prepareStatement(leased ? sql.updateLeased : sql.updateFree)) {
                for (Change change : group) {
                    bindUpdate(ps, change);
                    ps.addBatch();
                }
                int[] counts = ps.executeBatch();
                for (int i = 0; i < counts.length; i++) {
                    long id = group.get(i).next().id();
                    if (counts[i] > 1) throw new IllegalStateException(counts[i] + " rows updated for task " + id);
                    if (counts[i] == Statement.SUCCESS_NO_INFO) throw new SQLException("the driver did not count the rows updated");
                    if (counts[i] == 1) updated.add(id);
                }
            }
        }
        List<HistoryEntry> entries = new ArrayList<>();
        for (Change change : sorted) if (updated.contains(change.next().id())) entries.add(change.entry());
        insertHistory(c, entries);
        return eachResults(c, changes, sorted, updated);
    }

    /**
     * Returns the results of changes written each on its own, given the tasks that took theirs
     * ({@code updated}): the others are told apart as conflicts or missing tasks. Notifies waiters
     * and logs the applied changes.
     */
    private List<ApplyResult> eachResults(Connection c, List<Change> changes, List<Change> sorted, Set<Long> updated)
            throws SQLException {
        List<Change> applied = new ArrayList<>(updated.size());
        for (Change change : sorted) if (updated.contains(change.next().id())) applied.add(change);
        List<ApplyResult> results = new ArrayList<>(changes.size());
        for (Change change : changes) {
            long id = change.next().id();
            if (updated.contains(id)) results.add(ApplyResult.APPLIED);
            else results.add(exists(c, id) ? ApplyResult.conflict(id) : ApplyResult.notFound(id));
        }
        if (changesState(applied)) notifyWaiters(c);
        logApplied(applied);
        return results;
    }

    /**
     * PostgreSQL: writes changes without command keys with one statement ({@link Sql#updateEach}):
     * each row still at its expected version takes its change and its history entry; the others
     * are left alone.
     */
    private List<ApplyResult> writeEachInOne(Connection c, List<Change> changes) throws SQLException {
        List<Change> sorted = new ArrayList<>(changes);
        sorted.sort(Comparator.comparingLong(ch -> ch.next().id()));     // the order rows are locked in
        int n = sorted.size();
        Long[] ids = new Long[n];
        Long[] expected = new Long[n];
        Long[] versions = new Long[n];
        String[] states = new String[n];
        String[] queues = new String[n];
        Integer[] attempts = new Integer[n];
        Integer[] retries = new Integer[n];
        String[] owners = new String[n];
        Long[] tokens = new Long[n];
        String[] expiries = new String[n];
        String[] notBefore = new String[n];
        String[] errorCodes = new String[n];
        String[] errorMessages = new String[n];
        Boolean[] errorRetryable = new Boolean[n];
        String[] errorSteps = new String[n];
        String[] attributes = new String[n];
        String[] payloads = new String[n];
        String[] updatedAt = new String[n];
        Long[] entryVersions = new Long[n];
        String[] from = new String[n];
        String[] to = new String[n];
        String[] events = new String[n];
        String[] sources = new String[n];
        String[] actors = new String[n];
        String[] reasons = new String[n];
        String[] at = new String[n];
        for (int i = 0; i < n; i++) {
            Change change = sorted.get(i);
            TaskRecord t = change.next();
            HistoryEntry e = change.entry();
            Lease lease = t.lease();
            TaskError error = t.lastError();
            ids[i] = t.id();
            expected[i] = change.expectedVersion();
            versions[i] = t.version();
            states[i] = t.state();
            queues[i] = t.queue();
            attempts[i] = t.attempts();
            retries[i] = t.retries();
            if (lease != null) {
                owners[i] = lease.owner();
                tokens[i] = lease.fencingToken();
                expiries[i] = Rows.pgTimestamp(lease.expiresAt());
            }
            notBefore[i] = Rows.pgTimestamp(t.notBefore());
            if (error != null) {
                errorCodes[i] = error.code();
                errorMessages[i] = error.message();
                errorRetryable[i] = error.retryable();
                errorSteps[i] = error.step();
            }
            attributes[i] = AttributeCodec.encode(t.attributes());
            payloads[i] = t.payload();
            updatedAt[i] = Rows.pgTimestamp(t.updatedAt());
            entryVersions[i] = e.version();
            from[i] = e.from();
            to[i] = e.to();
            events[i] = e.event();
            sources[i] = e.source().name();
            actors[i] = e.actor();
            reasons[i] = e.reason();
            at[i] = Rows.pgTimestamp(e.at());
        }
        Set<Long> updated = new HashSet<>(2 * n);
        try (PreparedStatement ps = c.prepareStatement(sql.updateEach)) {
            Object[][] columns = {ids, expected, versions, states, queues, attempts, retries, owners, tokens, expiries, notBefore,
                errorCodes, errorMessages, errorRetryable, errorSteps, attributes, payloads, updatedAt, entryVersions, from, to,
                events, sources, actors, reasons, at};
            for (int i = 0; i < columns.length; i++) ps.setArray(i + 1, c.createArrayOf(arrayType(columns[i]), columns[i]));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) updated.add(rs.getLong(1));
            }
        }
        return eachResults(c, changes, sorted, updated);
    }

    /** The PostgreSQL element type of an array parameter; times travel as text. */
    private static String arrayType(Object[] values) {
        if (values instanceof Long[]) return "int8";
        if (values instanceof Integer[]) return "int4";
        if (values instanceof Boolean[]) return "bool";
        return "text";
    }

    private static boolean changesState(List<Change> changes) {
        for (Change change : changes) if (!change.entry().from().equals(change.entry().to())) return true;
        return false;
    }

    private static void logApplied(List<Change> changes) {
        if (!log.isDebugEnabled()) return;
        for (Change change : changes) {
            log.debug("task {} {} -> {} by {} at version {}", change.next().id(), change.entry().from(),
                    change.entry().to(), change.entry().event(), change.next().version());
        }
    }

    /** Undoes the writes of a refused change. */
    @FunctionalInterface
    private interface Undo {
        void run() throws SQLException;
    }

    private ApplyResult write(Connection c, List<Change> changes, Undo undo) throws SQLException {
        // Refusals name the first task, in the order given, that stands in the way.
        boolean checked = changes.size() > 1 || changes.get(0).entry().commandKey() != null;
        if (checked) {
            try (PreparedStatement ps = c.prepareStatement(sql.checkChange)) {
                for (Change change : changes) {
                    ApplyResult refusal = check(ps, change);
                    if (refusal != null) {
                        undo.run();
                        return refusal;
                    }
                    checkPayload(change.next());
                }
            }
        }
        // Rows are written in id order, so that overlapping writers cannot deadlock.
        List<Change> sorted = new ArrayList<>(changes);
        sorted.sort(Comparator.comparingLong(ch -> ch.next().id()));
        for (Change change : sorted) {
            long id = change.next().id();
            int updated = update(c, change);
            if (updated == 0) {
                undo.run();
                return exists(c, id) ? ApplyResult.conflict(id) : ApplyResult.notFound(id);
            }
            if (updated > 1) throw new IllegalStateException(updated + " rows updated for task " + id);
            if (!checked) checkPayload(change.next());
        }
        try {
            List<HistoryEntry> entries = new ArrayList<>(sorted.size());
            for (Change change : sorted) entries.add(change.entry());
            insertHistory(c, entries);
        } catch (SQLException e) {
            if (!SqlErrors.uniqueViolation(e)) throw e;
            // A concurrent writer applied the same command key first.
            undo.run();
            for (Change change : changes) {
                String key = change.entry().commandKey();
                if (key == null) continue;
                Optional<HistoryEntry> prior = command(c, change.next().id(), key);
                if (prior.isPresent()) return ApplyResult.duplicate(prior.get());
            }
            throw e;
        }
        return ApplyResult.APPLIED;
    }

    private @Nullable ApplyResult check(PreparedStatement ps, Change change) throws SQLException {
        long id = change.next().id();
        Rows.setString(ps, 1, change.entry().commandKey());
        ps.setLong(2, id);
        try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) return ApplyResult.notFound(id);
            long version = rs.getLong(1);
            rs.getLong(2);
            if (!rs.wasNull()) return ApplyResult.duplicate(Rows.history(rs, 2));
            return version == change.expectedVersion() ? null : ApplyResult.conflict(id);
        }
    }

    private void checkPayload(TaskRecord next) {
        String payload = next.payload();
        if (payload != null && payload.length() > maxPayloadChars) {
            throw new StatekitException(ErrorCode.PAYLOAD_TOO_LARGE, "payload of task " + next.id() + " has "
                    + payload.length() + " chars, more than the limit of " + maxPayloadChars, next.id(), null);
        }
    }

    private int update(Connection c, Change change) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(change.next().lease() != null ? sql.updateLeased : sql.updateFree)) {
            bindUpdate(ps, change);
            return ps.executeUpdate();
        }
    }

    /** Binds the parameters of {@link Sql#updateLeased} or {@link Sql#updateFree}, as the change's lease says. */
    private static void bindUpdate(PreparedStatement ps, Change change) throws SQLException {
        TaskRecord n = change.next();
        Lease lease = n.lease();
        int i = 1;
        ps.setString(i++, n.state());
        ps.setString(i++, n.queue());
        ps.setInt(i++, n.attempts());
        ps.setInt(i++, n.retries());
        if (lease != null) {
            // A lease kept with its fencing token keeps the stored expiry: only renew moves it.
            ps.setLong(i++, lease.fencingToken());
            ps.setString(i++, lease.owner());
            ps.setLong(i++, lease.fencingToken());
            Rows.setInstant(ps, i++, lease.expiresAt());
            ps.setLong(i++, lease.fencingToken());
        }
        Rows.setInstant(ps, i++, n.notBefore());
        TaskError error = n.lastError();
        Rows.setString(ps, i++, error == null ? null : error.code());
        Rows.setString(ps, i++, error == null ? null : error.message());
        Rows.setBoolean(ps, i++, error == null ? null : error.retryable());
        Rows.setString(ps, i++, error == null ? null : error.step());
        ps.setString(i++, AttributeCodec.encode(n.attributes()));
        Rows.setString(ps, i++, n.payload());
        Rows.setInstant(ps, i++, n.updatedAt());
        ps.setLong(i++, n.version());
        ps.setLong(i++, n.id());
        ps.setLong(i, change.expectedVersion());
    }

    private boolean exists(Connection c, long id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.taskExists)) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private Optional<HistoryEntry> command(Connection c, long taskId, String commandKey) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.command)) {
            ps.setLong(1, taskId);
            ps.setString(2, commandKey);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(Rows.history(rs, 1)) : Optional.empty();
            }
        }
    }

    // --- read -------------------------------------------------------------------------------

    @Override
    public Optional<HistoryEntry> findCommand(long taskId, String commandKey) {
        Objects.requireNonNull(commandKey, "commandKey");
        return read("reading a command", taskId, c -> command(c, taskId, commandKey));
    }

    @Override
    public List<HistoryEntry> history(long taskId) {
        return read("reading history", taskId, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.historyOf)) {
                ps.setLong(1, taskId);
                try (ResultSet rs = ps.executeQuery()) {
                    List<HistoryEntry> entries = new ArrayList<>();
                    while (rs.next()) entries.add(Rows.history(rs, 1));
                    return entries;
                }
            }
        });
    }

    @Override
    public Page<TaskRecord> query(TaskQuery query) {
        String machine = query.machine();
        Long parent = query.parentId();
        String queue = query.queue();
        return read("querying tasks", null, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.query(machine != null, query.states().size(), parent != null,
                    queue != null))) {
                int i = 1;
                ps.setLong(i++, query.afterId());
                if (machine != null) ps.setString(i++, machine);
                bindStates(ps, i, query.states());
                i += query.states().size();
                if (parent != null) ps.setLong(i++, parent);
                if (queue != null) ps.setString(i++, queue);
                ps.setInt(i, query.limit() + 1);
                List<TaskRecord> items = new ArrayList<>();
                long lastId = 0;
                int rows = 0;
                boolean more = false;
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        if (++rows > query.limit()) {
                            more = true;
                            break;
                        }
                        lastId = rs.getLong(1);
                        TaskRecord t = readOrSkip(rs);
                        if (t != null) items.add(t);
                    }
                }
                return new Page<>(items, more ? lastId : null);
            }
        });
    }

    // --- running work -----------------------------------------------------------------------

    @Override
    public List<Claimed> claim(ClaimRequest request) {
        List<Claimed> claimed = transaction("claiming from queue " + request.queue(), null, c -> claimIn(c, request));
        if (!claimed.isEmpty() && log.isDebugEnabled()) {
            List<Long> ids = new ArrayList<>();
            for (Claimed t : claimed) ids.add(t.task().id());
            log.debug("{} claimed tasks {} from queue {}", request.owner(), ids, request.queue());
        }
        return claimed;
    }

    private List<Claimed> claimIn(Connection c, ClaimRequest request) throws SQLException {
        QueueRecord q = lockQueue(c, request.queue());
        if (q.paused()) return List.of();
        int room = request.max();
        if (q.concurrency() > 0) room = Math.min(room, q.concurrency() - leased(c, request.queue()));
        if (room <= 0) return List.of();
        Candidates candidates = new Candidates(c, request, room);
        List<TaskRecord> picks = new ArrayList<>();
        int skipped = q.skippedLower();
        while (room > 0) {
            TaskRecord top = candidates.top();
            if (top == null) break;
            TaskRecord lower = candidates.lower(top.priority());
            TaskRecord pick = top;
            if (lower != null && request.starvationLimit() > 0 && skipped >= request.starvationLimit()) {
                pick = lower;
                skipped = 0;
            } else {
                skipped = lower != null ? skipped + 1 : 0;
            }
            candidates.taken.add(pick.id());
            picks.add(pick);
            room--;
        }
        if (skipped != q.skippedLower()) {
            try (PreparedStatement ps = c.prepareStatement(sql.setSkipped)) {
                ps.setInt(1, skipped);
                ps.setString(2, request.queue());
                ps.executeUpdate();
            }
        }
        if (picks.isEmpty()) return List.of();

        Instant now = Objects.requireNonNull(Rows.micros(request.now()));
        Instant expires = Objects.requireNonNull(Rows.micros(request.now().plus(request.leaseDuration())));
        return dialect == Dialect.POSTGRESQL ? claimInOne(c, request, picks, now, expires) : claimEach(c, request, picks, now, expires);
    }

    /** Claims locked tasks with a batch of updates and one history statement. */
    private List<Claimed> claimEach(Connection c, ClaimRequest request, List<TaskRecord> picks, Instant now, Instant expires)
            throws SQLException {
        List<Claimed> claimed = new ArrayList<>(picks.size());
        List<HistoryEntry> entries = new ArrayList<>(picks.size());
        long[] tokens = tokens(c, picks.size());
        try (PreparedStatement update = c.prepareStatement(sql.claimTask)) {
            for (int p = 0; p < picks.size(); p++) {
                TaskRecord t = picks.get(p);
                ClaimRule rule = Objects.requireNonNull(request.ruleFor(t.state()), "no rule for a candidate's state");
                Attributes attributes = rule.attributesOf(t);     // the start row's effect, while the row is locked
                long token = tokens[p];
                TaskRecord next = claimed(t, rule.to(), attributes, new Lease(request.owner(), token, expires), now);
                update.setString(1, rule.to());
                update.setString(2, AttributeCodec.encode(attributes));
                update.setString(3, request.owner());
                update.setLong(4, token);
                Rows.setInstant(update, 5, expires);
                Rows.setInstant(update, 6, now);
                update.setLong(7, t.id());
                update.setLong(8, t.version());
                update.addBatch();
                HistoryEntry entry = new HistoryEntry(t.id(), next.version(), t.state(), rule.to(), rule.event(),
                        TriggerSource.SYSTEM, request.owner(), "claimed", now, null);
                claimed.add(new Claimed(next, entry));
                entries.add(entry);
            }
            int[] counts = update.executeBatch();
            for (int i = 0; i < counts.length; i++) {
                if (counts[i] != 1 && counts[i] != Statement.SUCCESS_NO_INFO) {
                    throw new IllegalStateException(counts[i] + " rows updated claiming locked task " + picks.get(i).id());
                }
            }
        }
        insertHistory(c, entries);
        return claimed;
    }


    /**
     * PostgreSQL: claims the picked tasks that are still at the version read, draws their fencing
     * tokens and writes their history with one statement ({@link Sql#claimTasks}). A task another
     * writer changed since it was read is not claimed.
     */
    private List<Claimed> claimInOne(Connection c, ClaimRequest request, List<TaskRecord> picks, Instant now, Instant expires)
            throws SQLException {
        int n = picks.size();
        Long[] ids = new Long[n];
        Long[] versions = new Long[n];
        String[] from = new String[n];
        String[] to = new String[n];
        String[] events = new String[n];
        String[] encoded = new String[n];
        Attributes[] attributes = new Attributes[n];
        for (int p = 0; p < n; p++) {
            TaskRecord t = picks.get(p);
            ClaimRule rule = Objects.requireNonNull(request.ruleFor(t.state()), "no rule for a candidate's state");
            ids[p] = t.id();
            versions[p] = t.version();
            from[p] = t.state();
            to[p] = rule.to();
            events[p] = rule.event();
            attributes[p] = rule.attributesOf(t);     // the start row's effect, while the row is locked
            if (rule.effect() != null) encoded[p] = AttributeCodec.encode(attributes[p]);   // null keeps the stored text
        }
        java.util.Map<Long, Long> tokens = new java.util.HashMap<>(2 * n);
        try (PreparedStatement ps = c.prepareStatement(sql.claimTasks)) {
            ps.setArray(1, c.createArrayOf("int8", ids));
            ps.setArray(2, c.createArrayOf("int8", versions));
            ps.setArray(3, c.createArrayOf("text", from));
            ps.setArray(4, c.createArrayOf("text", to));
            ps.setArray(5, c.createArrayOf("text", events));
            ps.setArray(6, c.createArrayOf("text", encoded));
            ps.setString(7, request.owner());
            Rows.setInstant(ps, 8, expires);
            Rows.setInstant(ps, 9, now);
            ps.setString(10, TriggerSource.SYSTEM.name());
            ps.setString(11, request.owner());
            ps.setString(12, "claimed");
            Rows.setInstant(ps, 13, now);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) tokens.put(rs.getLong(1), rs.getLong(2));
            }
        }
        List<Claimed> claimed = new ArrayList<>(n);
        for (int p = 0; p < n; p++) {
            TaskRecord t = picks.get(p);
            Long token = tokens.get(t.id());
            if (token == null) continue;
            TaskRecord next = claimed(t, to[p], attributes[p], new Lease(request.owner(), token, expires), now);
            claimed.add(new Claimed(next, new HistoryEntry(t.id(), next.version(), t.state(), to[p], events[p],
                    TriggerSource.SYSTEM, request.owner(), "claimed", now, null)));
        }
        return claimed;
    }

    /** Returns {@code t} as a claim leaves it: in {@code state}, leased, one attempt more, no not-before time. */
    private static TaskRecord claimed(TaskRecord t, String state, Attributes attributes, Lease lease, Instant now) {
        return t.toBuilder()
                .state(state)
                .attributes(attributes)
                .lease(lease)
                .attempts(t.attempts() + 1)
                .notBefore(null)
                .updatedAt(now)
                .version(t.version() + 1)
                .build();
    }

    /** Draws {@code n} fencing tokens with one query. */
    private long[] tokens(Connection c, int n) throws SQLException {
        long[] tokens = new long[n];
        try (PreparedStatement ps = c.prepareStatement(sql.nextTokens)) {
            ps.setInt(1, n);
            try (ResultSet rs = ps.executeQuery()) {
                for (int i = 0; i < n; i++) {
                    if (!rs.next()) throw new SQLException("the fencing sequence returned " + i + " values, not " + n);
                    tokens[i] = rs.getLong(1);
                }
            }
        }
        return tokens;
    }

    /** Inserts history entries, up to 1,000 per statement. */
    private void insertHistory(Connection c, List<HistoryEntry> entries) throws SQLException {
        for (int from = 0; from < entries.size(); from += INSERT_CHUNK) {
            List<HistoryEntry> chunk = entries.subList(from, Math.min(entries.size(), from + INSERT_CHUNK));
            try (PreparedStatement ps = c.prepareStatement(chunk.size() == 1 ? sql.insertHistory : sql.insertHistories(chunk.size()))) {
                int i = 1;
                for (HistoryEntry e : chunk) {
                    Rows.bindHistory(ps, i, e);
                    i += HISTORY_PARAMETERS;
                }
                ps.executeUpdate();
            }
        }
    }

    /**
     * The runnable tasks of one claim, read lazily in claim order. On PostgreSQL they are not
     * locked: the queue row the claim holds keeps other claimers of the queue out, and the claim's
     * update takes a task only while it is still at the version read, so a task another writer
     * changed meanwhile is left alone. On H2 each row read is locked by id.
     *
     * <p>{@code main} is a prefix of the claim order. Since a claim picks at most {@code room}
     * tasks, the first untaken task of a prefix of {@code room} rows is the first untaken runnable
     * task overall; the best task of a lower priority is looked up beyond the prefix only when the
     * prefix holds none.
     */
    private final class Candidates {
        final Connection c;
        final ClaimRequest request;
        final List<String> states = new ArrayList<>();
        final int batch;
        final boolean pg = dialect == Dialect.POSTGRESQL;
        final List<TaskRecord> main = new ArrayList<>();
        final Set<Long> taken = new HashSet<>();
        final Set<Long> bad = new HashSet<>();
        int topCursor;
        int lowerCursor;
        long @Nullable [] last;            // priority, sequence, id of the last row read into main
        boolean exhausted;
        int noLowerBelow = Integer.MIN_VALUE;   // beyond main, no runnable task has a priority below this
        @Nullable TaskRecord beyondLower;

        Candidates(Connection c, ClaimRequest request, int batch) {
            this.c = c;
            this.request = request;
            this.batch = batch;
            for (ClaimRule r : request.rules()) if (!states.contains(r.from())) states.add(r.from());
        }

        @Nullable TaskRecord top() throws SQLException {
            while (true) {
                // Tasks are only ever taken: the first untaken one of main moves forward only.
                while (topCursor < main.size() && taken.contains(main.get(topCursor).id())) topCursor++;
                if (topCursor < main.size()) return main.get(topCursor);
                if (exhausted) return null;
                fetch();
            }
        }

        @Nullable TaskRecord lower(int priority) throws SQLException {
            // main is in claim order and the priorities asked for never rise within a claim: the
            // first untaken task of a lower priority moves forward only.
            while (lowerCursor < main.size()
                    && (main.get(lowerCursor).priority() >= priority || taken.contains(main.get(lowerCursor).id()))) {
                lowerCursor++;
            }
            if (lowerCursor < main.size()) return main.get(lowerCursor);
            if (exhausted || priority <= noLowerBelow) return null;
            TaskRecord cached = beyondLower;
            if (cached != null && cached.priority() < priority && !taken.contains(cached.id())) return cached;
            if (priority == Integer.MIN_VALUE) return null;
            while (true) {
                int limit = taken.size() + bad.size() + 1;
                List<TaskRecord> read = new ArrayList<>();
                int rows;
                try (PreparedStatement ps = c.prepareStatement(sql.runnable(states.size(), true, true, limit))) {
                    int i = bind(ps);
                    // H2 seeks a descending index column on an inclusive bound only.
                    ps.setInt(i, pg ? priority : priority - 1);
                    rows = read(ps, read, false);
                }
                for (TaskRecord t : lock(read)) {
                    if (!taken.contains(t.id())) {
                        beyondLower = t;
                        return t;
                    }
                }
                if (rows < limit) break;
            }
            noLowerBelow = Math.max(noLowerBelow, priority);
            beyondLower = null;
            return null;
        }

        private void fetch() throws SQLException {
            List<TaskRecord> read = new ArrayList<>();
            int rows;
            try (PreparedStatement ps = c.prepareStatement(sql.runnable(states.size(), last != null, false, batch))) {
                bind(ps);
                rows = read(ps, read, true);
            }
            for (TaskRecord t : lock(read)) if (!taken.contains(t.id())) main.add(t);
            if (rows < batch) exhausted = true;
        }

        /** Reads the rows of a runnable-tasks query into {@code into}; returns how many rows it returned. */
        private int read(PreparedStatement ps, List<TaskRecord> into, boolean keepLast) throws SQLException {
            int rows = 0;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows++;
                    if (keepLast) last = new long[] {rs.getInt(6), rs.getLong(7), rs.getLong(1)};
                    TaskRecord t = readCandidate(rs);
                    if (t != null) into.add(t);
                }
            }
            return rows;
        }

        /**
         * On PostgreSQL, returns {@code read} (see above). On H2, whose {@code FOR UPDATE} with a
         * limit locks every row the condition matches, locks the rows
         * read by id, skipping those another transaction holds and those no longer runnable, and
         * returns them as they are now, in the order read.
         */
        private List<TaskRecord> lock(List<TaskRecord> read) throws SQLException {
            if (pg || read.isEmpty()) return read;
            java.util.Map<Long, TaskRecord> locked = new java.util.HashMap<>();
            try (PreparedStatement ps = c.prepareStatement(sql.lockRunnable(states.size(), read.size()))) {
                int i = 1;
                for (TaskRecord t : read) ps.setLong(i++, t.id());
                ps.setString(i++, request.machine());
                ps.setString(i++, request.queue());
                for (String s : states) ps.setString(i++, s);
                Rows.setInstant(ps, i, request.now());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        TaskRecord t = readCandidate(rs);
                        if (t != null) locked.put(t.id(), t);
                    }
                }
            }
            List<TaskRecord> result = new ArrayList<>(locked.size());
            for (TaskRecord t : read) {
                TaskRecord now = locked.get(t.id());
                if (now != null) result.add(now);
            }
            return result;
        }

        /** Binds machine, queue, states, now and the key after which rows are read; returns the next index. */
        private int bind(PreparedStatement ps) throws SQLException {
            int i = 1;
            ps.setString(i++, request.machine());
            ps.setString(i++, request.queue());
            for (String s : states) ps.setString(i++, s);
            Rows.setInstant(ps, i++, request.now());
            if (last != null) {
                ps.setInt(i++, (int) last[0]);
                ps.setInt(i++, (int) last[0]);
                ps.setLong(i++, last[1]);
                ps.setLong(i++, last[1]);
                ps.setLong(i++, last[2]);
            }
            return i;
        }

        private @Nullable TaskRecord readCandidate(ResultSet rs) throws SQLException {
            long id = rs.getLong(1);
            if (bad.contains(id)) return null;
            try {
                return Rows.task(rs);
            } catch (StatekitException e) {
                bad.add(id);
                log.warn("task {} on queue {} cannot be read and is not claimed: {}", id, request.queue(), e.getMessage());
                return null;
            }
        }
    }

    private QueueRecord lockQueue(Connection c, String queue) throws SQLException {
        QueueRecord q = selectQueue(c, sql.lockQueue, queue);
        if (q != null) return q;
        try (PreparedStatement ps = c.prepareStatement(sql.insertQueue)) {
            ps.setString(1, queue);
            ps.executeUpdate();
        } catch (SQLException e) {
            // H2 waits for a concurrent creator of the row, then reports the duplicate: the row is there.
            if (dialect == Dialect.POSTGRESQL || !SqlErrors.uniqueViolation(e)) throw e;
        }
        q = selectQueue(c, sql.lockQueue, queue);
        if (q == null) throw new IllegalStateException("the control row of queue " + queue + " vanished");
        return q;
    }

    private static @Nullable QueueRecord selectQueue(Connection c, String statement, String queue) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(statement)) {
            ps.setString(1, queue);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Rows.queue(rs) : null;
            }
        }
    }

    private int leased(Connection c, String queue) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.leased)) {
            ps.setString(1, queue);
            return (int) single(ps);
        }
    }

    @Override
    public RenewResult renew(long taskId, long fencingToken, Instant now, Instant expiresAt) {
        Objects.requireNonNull(now, "now");
        Objects.requireNonNull(expiresAt, "expiresAt");
        return transaction("renewing a lease", taskId, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.renew)) {
                Rows.setInstant(ps, 1, expiresAt);
                ps.setLong(2, taskId);
                ps.setLong(3, fencingToken);
                Rows.setInstant(ps, 4, now);
                if (ps.executeUpdate() == 0) return RenewResult.LOST;
            }
            return cancelFlag(c, taskId) ? RenewResult.RENEWED_CANCEL_REQUESTED : RenewResult.RENEWED;
        });
    }

    private boolean cancelFlag(Connection c, long taskId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.cancelFlag)) {
            ps.setLong(1, taskId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    @Override
    public List<TaskRecord> expiredLeases(Instant now, int max) {
        Objects.requireNonNull(now, "now");
        if (max <= 0) return List.of();
        return read("scanning expired leases", null, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.expired)) {
                Rows.setInstant(ps, 1, now);
                ps.setInt(2, max);
                try (ResultSet rs = ps.executeQuery()) {
                    return tasks(rs);
                }
            }
        });
    }

    @Override
    public List<TaskRecord> due(String machine, Collection<String> states, Instant now, int max) {
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(now, "now");
        if (states.isEmpty() || max <= 0) return List.of();
        int n = new TreeSet<>(states).size();
        return read("scanning due tasks", null, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.due(n))) {
                ps.setString(1, machine);
                bindStates(ps, 2, states);
                int i = 2 + n;
                Rows.setInstant(ps, i++, now);
                ps.setInt(i, max);
                try (ResultSet rs = ps.executeQuery()) {
                    return tasks(rs);
                }
            }
        });
    }

    @Override
    public @Nullable Instant nextDue(String machine, Collection<String> states, Instant now) {
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(now, "now");
        if (states.isEmpty()) return null;
        int n = new TreeSet<>(states).size();
        return read("scanning due tasks", null, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.nextDue(n))) {
                ps.setString(1, machine);
                bindStates(ps, 2, states);
                Rows.setInstant(ps, 2 + n, now);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Rows.getInstant(rs, 1) : null;
                }
            }
        });
    }

    @Override
    public List<TaskRecord> leasedBy(String owner, int max) {
        Objects.requireNonNull(owner, "owner");
        if (max <= 0) return List.of();
        return read("reading leases of " + owner, null, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.leasedBy)) {
                ps.setString(1, owner);
                ps.setInt(2, max);
                try (ResultSet rs = ps.executeQuery()) {
                    return tasks(rs);
                }
            }
        });
    }

    @Override
    public List<TaskRecord> peek(ClaimRequest request) {
        List<String> states = new ArrayList<>();
        for (ClaimRule r : request.rules()) if (!states.contains(r.from())) states.add(r.from());
        return read("peeking at queue " + request.queue(), null, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.runnable(states.size(), false, false, request.max()))) {
                int i = 1;
                ps.setString(i++, request.machine());
                ps.setString(i++, request.queue());
                for (String s : states) ps.setString(i++, s);
                Rows.setInstant(ps, i, request.now());
                try (ResultSet rs = ps.executeQuery()) {
                    return tasks(rs);
                }
            }
        });
    }

    @Override
    public int leased(String queue) {
        Objects.requireNonNull(queue, "queue");
        return read("counting leases of queue " + queue, null, c -> leased(c, queue));
    }

    @Override
    public boolean requestCancel(long taskId) {
        return transaction("requesting cancellation", taskId, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.requestCancel)) {
                ps.setLong(1, taskId);
                return ps.executeUpdate() > 0;
            }
        });
    }

    @Override
    public boolean cancelRequested(long taskId) {
        return read("reading the cancellation flag", taskId, c -> cancelFlag(c, taskId));
    }

    @Override
    public boolean reorder(long taskId, int priority, long sequence) {
        return transaction("reordering a task", taskId, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.reorder)) {
                ps.setInt(1, priority);
                ps.setLong(2, sequence);
                ps.setLong(3, taskId);
                return ps.executeUpdate() > 0;
            }
        });
    }

    @Override
    public long nextSequence(boolean front) {
        return transaction("drawing a sequence number", null, c -> {
            try (PreparedStatement ps = c.prepareStatement(front ? sql.nextFront : sql.nextSequence)) {
                long v = single(ps);
                return front ? -v : v;
            }
        });
    }

    @Override
    public int purge(String machine, Collection<String> states, Instant updatedBefore, int max) {
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(updatedBefore, "updatedBefore");
        if (states.isEmpty() || max <= 0) return 0;
        int n = new TreeSet<>(states).size();
        int purged = transaction("purging tasks of machine " + machine, null, c -> {
            List<long[]> candidates = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql.purgeCandidates(n))) {
                ps.setString(1, machine);
                bindStates(ps, 2, states);
                Rows.setInstant(ps, 2 + n, updatedBefore);
                ps.setInt(3 + n, max);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) candidates.add(new long[] {rs.getLong(1), rs.getLong(2)});
                }
            }
            int deleted = 0;
            try (PreparedStatement task = c.prepareStatement(sql.deleteTask);
                 PreparedStatement history = c.prepareStatement(sql.deleteHistory)) {
                for (long[] candidate : candidates) {
                    // Deleted only if unchanged since it was selected, still lease-free and childless.
                    task.setLong(1, candidate[0]);
                    task.setLong(2, candidate[1]);
                    task.setLong(3, candidate[0]);
                    if (task.executeUpdate() == 0) continue;
                    history.setLong(1, candidate[0]);
                    history.executeUpdate();
                    deleted++;
                }
            }
            return deleted;
        });
        if (purged > 0) log.debug("purged {} task(s) of machine {}", purged, machine);
        return purged;
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
        Objects.requireNonNull(wake, "wake");
        if (dialect != Dialect.POSTGRESQL) return () -> { };
        return new PgListener(dataSource, sql.channel, wake);
    }

    // --- queues -----------------------------------------------------------------------------

    @Override
    public QueueRecord queue(String queue) {
        Objects.requireNonNull(queue, "queue");
        return read("reading queue " + queue, null, c -> {
            QueueRecord q = selectQueue(c, sql.queue, queue);
            return q != null ? q : QueueRecord.defaults(queue);
        });
    }

    @Override
    public QueueRecord pauseQueue(String queue, @Nullable String reason) {
        Objects.requireNonNull(queue, "queue");
        return transaction("pausing queue " + queue, null, c -> {
            QueueRecord q = lockQueue(c, queue);
            try (PreparedStatement ps = c.prepareStatement(sql.pauseQueue)) {
                Rows.setString(ps, 1, reason);
                ps.setString(2, queue);
                ps.executeUpdate();
            }
            return new QueueRecord(queue, true, reason, q.concurrency(), q.skippedLower());
        });
    }

    @Override
    public QueueRecord resumeQueue(String queue) {
        Objects.requireNonNull(queue, "queue");
        return transaction("resuming queue " + queue, null, c -> {
            QueueRecord q = lockQueue(c, queue);
            try (PreparedStatement ps = c.prepareStatement(sql.resumeQueue)) {
                ps.setString(1, queue);
                ps.executeUpdate();
            }
            notifyWaiters(c);
            return new QueueRecord(queue, false, null, q.concurrency(), q.skippedLower());
        });
    }

    @Override
    public QueueRecord setConcurrency(String queue, int limit) {
        Objects.requireNonNull(queue, "queue");
        if (limit < 0) throw new IllegalArgumentException("concurrency limit must be >= 0, was " + limit);
        return transaction("limiting queue " + queue, null, c -> {
            QueueRecord q = lockQueue(c, queue);
            try (PreparedStatement ps = c.prepareStatement(sql.setConcurrency)) {
                ps.setInt(1, limit);
                ps.setString(2, queue);
                ps.executeUpdate();
            }
            if (limit == 0 || limit > q.concurrency()) notifyWaiters(c);
            return new QueueRecord(queue, q.paused(), q.pauseReason(), limit, q.skippedLower());
        });
    }

    // --- builder ----------------------------------------------------------------------------

    /**
     * A builder of {@link JdbcStore}s. Not thread-safe; {@link #build()} checks every setting
     * and reports every defect at once.
     */
    public static final class Builder {
        private final DataSource dataSource;
        private String tablePrefix = DEFAULT_TABLE_PREFIX;
        private @Nullable Dialect dialect;
        private int maxPayloadChars = DEFAULT_MAX_PAYLOAD_CHARS;
        private boolean createSchemaIfMissing;

        private Builder(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        /**
         * Sets the prefix of every table, sequence, index and notification channel name; default
         * {@value JdbcStore#DEFAULT_TABLE_PREFIX}. It must match {@code [a-z][a-z0-9_]{0,30}}
         * (checked by {@link #build()}), so that names need no quoting and leave room for suffixes.
         *
         * @param prefix the prefix, for example {@code jobs_}
         * @return this builder
         * @throws NullPointerException if {@code prefix} is null
         */
        public Builder tablePrefix(String prefix) {
            this.tablePrefix = Objects.requireNonNull(prefix, "prefix");
            return this;
        }

        /**
         * Sets the dialect, instead of detecting it from the database's product name when the store
         * is built.
         *
         * @param value the dialect
         * @return this builder
         * @throws NullPointerException if {@code value} is null
         */
        public Builder dialect(Dialect value) {
            this.dialect = Objects.requireNonNull(value, "dialect");
            return this;
        }

        /**
         * Sets the largest payload accepted, in characters; default {@value JdbcStore#DEFAULT_MAX_PAYLOAD_CHARS}.
         * Larger payloads are refused with {@link ErrorCode#PAYLOAD_TOO_LARGE}. Must not be negative
         * (checked by {@link #build()}).
         *
         * @param value the limit
         * @return this builder
         */
        public Builder maxPayloadChars(int value) {
            this.maxPayloadChars = value;
            return this;
        }

        /**
         * Sets whether {@link #build()} applies the schema (creating what is missing, leaving what
         * exists); default false, for hosts that apply {@link JdbcStore#ddl} with their migration
         * tool.
         *
         * @param create whether to create missing tables, sequences and indexes
         * @return this builder
         */
        public Builder createSchemaIfMissing(boolean create) {
            this.createSchemaIfMissing = create;
            return this;
        }

        /**
         * Builds the store. Connects once when the dialect must be detected or the schema created;
         * logs the dialect at INFO. On H2, borrows one more connection, once per data source, to warn
         * when the data source opens the database again for every operation.
         *
         * @return the store
         * @throws IllegalArgumentException listing every invalid setting, or when the database is
         *                                  neither PostgreSQL nor H2
         * @throws StatekitException        {@link ErrorCode#STORE_UNAVAILABLE} or {@link ErrorCode#STORE_FAILURE}
         *                                  when connecting or creating the schema fails
         */
        public JdbcStore build() {
            List<String> problems = new ArrayList<>();
            String prefixProblem = Schema.checkPrefix(tablePrefix);
            if (prefixProblem != null) problems.add(prefixProblem);
            if (maxPayloadChars < 0) problems.add("maxPayloadChars must be >= 0, was " + maxPayloadChars);
            if (!problems.isEmpty()) throw new IllegalArgumentException("invalid JdbcStore settings: " + String.join("; ", problems));
            Dialect chosen = dialect;
            if (chosen == null || createSchemaIfMissing) {
                String doing = chosen == null ? "detecting the database" : "creating the schema";
                JdbcStore probe = new JdbcStore(dataSource, chosen == null ? Dialect.H2 : chosen, tablePrefix, maxPayloadChars);
                Connection c = probe.connect(doing, null);
                try {
                    if (chosen == null) {
                        String product = c.getMetaData().getDatabaseProductName();
                        chosen = Dialect.fromProductName(product);
                        log.info("statekit store on tables {}*: dialect {} detected from database product '{}'",
                                tablePrefix, chosen, product);
                    } else {
                        log.info("statekit store on tables {}*: dialect {} as configured", tablePrefix, chosen);
                    }
                    if (createSchemaIfMissing) {
                        boolean autoCommit = c.getAutoCommit();
                        if (!autoCommit) c.setAutoCommit(true);
                        try {
                            Schema.apply(c, chosen, tablePrefix);
                        } finally {
                            if (!autoCommit) c.setAutoCommit(false);
                        }
                        log.info("statekit schema version {} applied on tables {}*", SCHEMA_VERSION, tablePrefix);
                    }
                } catch (SQLException e) {
                    throw SqlErrors.translate(e, doing, null);
                } finally {
                    close(c);
                }
            } else {
                log.info("statekit store on tables {}*: dialect {} as configured", tablePrefix, chosen);
            }
            DataSourceCheck.warnIfReopening(dataSource, chosen);
            return new JdbcStore(dataSource, chosen, tablePrefix, maxPayloadChars);
        }
    }
}
