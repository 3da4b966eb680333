package dev.statekit.jdbc.internal;

import dev.statekit.store.CreateResult;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.NewTask;
import dev.statekit.store.StatekitException;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.support.StoreChecks;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Creating tasks: one at a time, or several in one transaction (tasks without an idempotency key or
 * dependencies by up to 1,000 per statement, the others one by one). A task whose key another task
 * holds is not created again; when that task is deleted between the insert and the read, the whole
 * creation starts again, at most five times. Tasks with parents or dependencies lock them first
 * and mark or open groups ({@link GroupCreations}). Immutable and thread-safe.
 */
public final class TaskInserts {
    private static final int CREATE_ATTEMPTS = 5;
    private static final int INSERT_CHUNK = 1000;

    private final Jdbc jdbc;
    private final Sql sql;
    private final DialectOps ops;
    private final int maxPayloadChars;

    /** Creates the inserts of one store. */
    public TaskInserts(JdbcContext context) {
        this.jdbc = context.jdbc();
        this.sql = context.sql();
        this.ops = context.ops();
        this.maxPayloadChars = context.maxPayloadChars();
    }

    /** Creates one task as {@link dev.statekit.store.Store#create} describes. */
    public CreateResult create(NewTask spec) {
        Objects.requireNonNull(spec, "spec");
        for (long d : spec.dependsOn()) {
            if (d < 0) throw new IllegalArgumentException("a dependency on an earlier task of the list is only for createAll: " + d);
        }
        StoreChecks.checkPayload(spec, maxPayloadChars);
        String attributes = AttributeCodec.encode(spec.attributes());
        boolean grouped = spec.parentId() != null || !spec.dependsOn().isEmpty();
        for (int attempt = 1; ; attempt++) {
            Optional<CreateResult> result = jdbc.transaction("creating a task of machine " + spec.machine(), null, c -> {
                Optional<CreateResult> r = grouped
                        ? insertAll(c, List.of(spec), new String[] {attributes}, false).map(rs -> rs.get(0))
                        : insert(c, spec, attributes);
                if (r.isPresent() && r.get().created()) ops.notifyWaiters(c);
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

    /** Creates several tasks in one transaction, with one notification, as {@link dev.statekit.store.Store#createAll} describes. */
    public List<CreateResult> createAll(List<NewTask> specs) {
        List<NewTask> list = List.copyOf(specs);
        if (list.isEmpty()) return List.of();
        if (list.size() == 1) return List.of(create(list.get(0)));
        String[] attributes = new String[list.size()];
        for (int i = 0; i < list.size(); i++) {
            for (long d : list.get(i).dependsOn()) {
                if (d < 0 && -d > i) {
                    throw new StatekitException(ErrorCode.DEPENDENCY_CYCLE, "dependency " + d + " of task " + (i + 1)
                            + " of the list names itself or a later task: the dependencies would form a cycle");
                }
            }
            StoreChecks.checkPayload(list.get(i), maxPayloadChars);
            attributes[i] = AttributeCodec.encode(list.get(i).attributes());
        }
        for (int attempt = 1; ; attempt++) {
            Optional<List<CreateResult>> result = jdbc.transaction("creating " + list.size() + " tasks", null, c -> {
                Optional<List<CreateResult>> r = insertAll(c, list, attributes, false);
                if (r.isPresent() && r.get().stream().anyMatch(CreateResult::created)) ops.notifyWaiters(c);
                return r;
            });
            if (result.isPresent()) return result.get();
            if (attempt >= CREATE_ATTEMPTS) {
                throw new StatekitException(ErrorCode.STORE_UNAVAILABLE, "creating " + list.size()
                        + " tasks raced with the deletion of a task holding one of their idempotency keys " + attempt + " times");
            }
        }
    }

    /**
     * Creates {@code specs} on {@code c}, inside the caller's transaction, as {@link #createAll} does
     * (dependencies on earlier tasks of the list as {@code -k}), with what creating them does to groups
     * ({@link GroupCreations}); empty when a task holding one of their keys was deleted meanwhile.
     *
     * @param countedByWrite whether a group write creates them (children of one owner it holds) and counts them itself
     */
    public Optional<List<CreateResult>> insertAll(Connection c, List<NewTask> specs, String[] attributes, boolean countedByWrite)
            throws SQLException {
        GroupCreations groups = GroupCreations.prepare(c, sql, specs, countedByWrite);
        List<CreateResult> results = new ArrayList<>(specs.size());
        int i = 0;
        while (i < specs.size()) {
            if (specs.get(i).idempotencyKey() != null || specs.get(i).uniqueKey() != null || !specs.get(i).dependsOn().isEmpty()) {
                NewTask spec = GroupCreations.resolve(specs.get(i), results);
                Optional<CreateResult> r = insert(c, spec, attributes[i]);
                if (r.isEmpty()) return Optional.empty();     // its key's task was deleted meanwhile: start again
                results.add(r.get());
                if (r.get().created()) groups.created(spec, r.get().task());
                i++;
                continue;
            }
            int end = i;
            while (end < specs.size() && end - i < INSERT_CHUNK && specs.get(end).idempotencyKey() == null
                    && specs.get(end).uniqueKey() == null && specs.get(end).dependsOn().isEmpty()) {
                end++;
            }
            int first = results.size();
            insertRows(c, specs.subList(i, end), attributes, i, results);
            for (int k = first; k < results.size(); k++) groups.created(specs.get(k), results.get(k).task());
            i = end;
        }
        groups.finish();
        return Optional.of(results);
    }

    /** Attributes encoded for {@link #insertAll}, checking each payload against the limit. */
    public String[] encode(List<NewTask> specs) {
        String[] attributes = new String[specs.size()];
        for (int i = 0; i < specs.size(); i++) {
            StoreChecks.checkPayload(specs.get(i), maxPayloadChars);
            attributes[i] = AttributeCodec.encode(specs.get(i).attributes());
        }
        return attributes;
    }

    /** Inserts tasks without idempotency keys with one statement; ids and sequences follow the order given. */
    private void insertRows(Connection c, List<NewTask> specs, String[] attributes, int offset, List<CreateResult> results)
            throws SQLException {
        List<InsertedRow> keys = ops.insertRows(c, specs, Arrays.asList(attributes).subList(offset, offset + specs.size()));
        if (keys.size() != specs.size()) throw new IllegalStateException(keys.size() + " rows inserted for " + specs.size() + " tasks");
        // Rows are numbered in the order of the values: ids and sequences both ascend along the list.
        List<InsertedRow> sorted = new ArrayList<>(keys);
        sorted.sort(Comparator.comparingLong(InsertedRow::id));
        for (int i = 0; i < specs.size(); i++) {
            results.add(new CreateResult(firstRecord(specs.get(i), sorted.get(i)), true));
        }
        Jdbc.LOG.debug("created {} tasks", specs.size());
    }

    /** Binds the thirteen parameters of one row of {@link Sql#insertTask} from {@code p} on; returns the next index. */
    static int bindInsert(Times times, PreparedStatement ps, int p, NewTask spec, String attributes, @org.jspecify.annotations.Nullable String key)
            throws SQLException {
        ps.setString(p, spec.machine());
        ps.setInt(p + 1, spec.machineVersion());
        ps.setString(p + 2, spec.state());
        ps.setString(p + 3, spec.queue());
        ps.setInt(p + 4, spec.priority());
        Rows.setLong(ps, p + 5, spec.parentId());
        times.set(ps, p + 6, spec.notBefore());
        ps.setString(p + 7, attributes);
        Rows.setString(ps, p + 8, spec.payload());
        Rows.setString(ps, p + 9, key);
        times.set(ps, p + 10, spec.createdAt());
        times.set(ps, p + 11, spec.createdAt());
        Rows.setString(ps, p + 12, spec.uniqueKey());
        return p + 13;
    }

    /** The first snapshot of a new task as the database keeps it: its times cut to the microsecond. */
    private static TaskRecord firstRecord(NewTask spec, InsertedRow row) {
        NewTask stored = new NewTask(spec.machine(), spec.machineVersion(), spec.state(), spec.queue(), spec.priority(),
                spec.parentId(), spec.attributes(), spec.payload(), spec.idempotencyKey(), Rows.micros(spec.notBefore()),
                Objects.requireNonNull(Rows.micros(spec.createdAt())), spec.dependsOn(), spec.uniqueKey(), spec.uniqueStates());
        return stored.toRecord(row.id(), row.sequence());
    }

    private @org.jspecify.annotations.Nullable TaskRecord byKey(Connection c, String query, String machine, String key)
            throws SQLException {
        return Jdbc.queryOne(c, query, ps -> {
            ps.setString(1, machine);
            ps.setString(2, key);
        }, sql.times::task);
    }

    /**
     * Inserts one task, or reads the task that holds its idempotency key, else its unique key (the
     * idempotency key is looked at first); empty when that task was deleted, or gave up its unique
     * key, meanwhile.
     */
    private Optional<CreateResult> insert(Connection c, NewTask spec, String attributes) throws SQLException {
        String key = spec.idempotencyKey();
        String unique = spec.uniqueKey();
        InsertedRow row = null;
        try {
            // PostgreSQL returns no row when a key is taken.
            row = Jdbc.queryOne(c, sql.insertTask, ps -> bindInsert(sql.times, ps, 1, spec, attributes, key),
                    rs -> new InsertedRow(rs.getLong(1), rs.getLong(2)));
        } catch (SQLException e) {
            // H2 waits for a concurrent creator of the same key, then reports the duplicate.
            if ((key == null && unique == null) || !SqlErrors.uniqueViolation(e)) throw e;
        }
        if (row == null) {
            if (key == null && unique == null) throw new IllegalStateException("a task without a key was not inserted");
            TaskRecord existing = key == null ? null : byKey(c, sql.taskByKey, spec.machine(), key);
            if (existing == null && unique != null) existing = byKey(c, sql.taskByUniqueKey, spec.machine(), unique);
            return existing == null ? Optional.empty() : Optional.of(new CreateResult(existing, false));
        }
        Jdbc.LOG.debug("created task {} of machine {} on queue {}", row.id(), spec.machine(), spec.queue());
        return Optional.of(new CreateResult(firstRecord(spec, row), true));
    }
}
