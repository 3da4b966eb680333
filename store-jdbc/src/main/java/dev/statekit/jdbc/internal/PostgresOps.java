package dev.statekit.jdbc.internal;

import dev.statekit.store.Attributes;
import dev.statekit.store.Change;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.Claimed;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.NewTask;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * PostgreSQL: batches travel as arrays, so that a batch of changes or a claim is one statement
 * ({@link Sql#updateEach}, {@link Sql#claimTasks}), with the marks of the groups the written tasks
 * count in; claims of a queue without a limit run side by side, each locking the tasks it reads
 * ({@link Claims}), while an exclusive claim's candidates are read without locks (the queue row it
 * holds keeps other claimers out, and the claim's update takes a task only at the version read);
 * wake-ups go through LISTEN/NOTIFY. Immutable and thread-safe.
 */
public final class PostgresOps implements DialectOps {

    /** One array parameter of {@link Sql#updateEach}: its element type and the value of each change. */
    private record Column(String type, Function<Change, @Nullable Object> value) {}

    // The arrays of Sql.updateEach, in its order. Times travel as microseconds since the epoch.
    private static final List<Column> EACH_COLUMNS = List.of(
            new Column("int8", ch -> ch.next().id()),
            new Column("int8", Change::expectedVersion),
            new Column("int8", ch -> ch.next().version()),
            new Column("text", ch -> ch.next().state()),
            new Column("text", ch -> ch.next().queue()),
            new Column("int4", ch -> ch.next().attempts()),
            new Column("int4", ch -> ch.next().retries()),
            new Column("text", ch -> lease(ch, Lease::owner)),
            new Column("int8", ch -> lease(ch, Lease::fencingToken)),
            new Column("int8", ch -> lease(ch, l -> Rows.epochMicros(l.expiresAt()))),
            new Column("int8", ch -> Rows.epochMicros(ch.next().notBefore())),
            new Column("text", ch -> error(ch, TaskError::code)),
            new Column("text", ch -> error(ch, TaskError::message)),
            new Column("bool", ch -> error(ch, TaskError::retryable)),
            new Column("text", ch -> error(ch, TaskError::step)),
            new Column("text", ch -> AttributeCodec.encode(ch.next().attributes())),
            new Column("text", ch -> ch.next().payload()),
            new Column("int8", ch -> Rows.epochMicros(ch.next().updatedAt())),
            new Column("int8", ch -> ch.entry().version()),
            new Column("text", ch -> ch.entry().from()),
            new Column("text", ch -> ch.entry().to()),
            new Column("text", ch -> ch.entry().event()),
            new Column("text", ch -> ch.entry().source().name()),
            new Column("text", ch -> ch.entry().actor()),
            new Column("text", ch -> ch.entry().reason()),
            new Column("int8", ch -> Rows.epochMicros(ch.entry().at())),
            new Column("int4", ch -> ch.reorders() ? ch.next().priority() : null),    // null keeps the stored place
            new Column("int8", ch -> ch.reorders() ? ch.next().sequence() : null),
            new Column("bool", ch -> ch.next().uniqueKey() != null),               // false frees the unique key
            new Column("text", ch -> error(ch, TaskError::detail)),
            new Column("text", ch -> entryError(ch, TaskError::code)),
            new Column("text", ch -> entryError(ch, TaskError::message)),
            new Column("bool", ch -> entryError(ch, TaskError::retryable)),
            new Column("text", ch -> entryError(ch, TaskError::step)),
            new Column("text", ch -> entryError(ch, TaskError::detail)));

    private static final String[] EACH_TYPES = EACH_COLUMNS.stream().map(Column::type).toArray(String[]::new);

    private final Jdbc jdbc;
    private final Sql sql;

    /** Creates the operations of one store's tables. */
    public PostgresOps(Jdbc jdbc, Sql sql) {
        if (EACH_COLUMNS.size() != Sql.UPDATE_EACH_ARRAYS) throw new IllegalStateException("updateEach takes " + Sql.UPDATE_EACH_ARRAYS + " arrays");
        this.jdbc = jdbc;
        this.sql = sql;
    }

    private static <T> @Nullable T lease(Change change, Function<Lease, T> part) {
        Lease lease = change.next().lease();
        return lease == null ? null : part.apply(lease);
    }

    private static <T> @Nullable T error(Change change, Function<TaskError, T> part) {
        TaskError error = change.next().lastError();
        return error == null ? null : part.apply(error);
    }

    private static <T> @Nullable T entryError(Change change, Function<TaskError, T> part) {
        TaskError error = change.entry().error();
        return error == null ? null : part.apply(error);
    }

    @Override
    public void notifyWaiters(Connection c) throws SQLException {
        Jdbc.queryOne(c, sql.notify, ps -> {
            ps.setString(1, sql.channel);
            ps.setString(2, "");
        }, rs -> Boolean.TRUE);
    }

    @Override
    public AutoCloseable watch(Runnable wake) {
        return new PgListener(jdbc.dataSource(), sql.channel, wake);
    }

    /**
     * One statement: each row still at its expected version takes its change and its history entry.
     * A column with one value for the whole batch travels as that value ({@link Sql#updateEach(long)}).
     */
    @Override
    public Set<Long> writeEach(Connection c, List<Change> sorted) throws SQLException {
        Object[][] values = new Object[EACH_COLUMNS.size()][];
        for (int i = 0; i < values.length; i++) values[i] = values(EACH_COLUMNS.get(i), sorted);
        long single = singleColumns(values);
        Set<Long> updated = new HashSet<>(2 * sorted.size());
        try (PreparedStatement ps = c.prepareStatement(sql.updateEach(single))) {
            bindColumns(c, ps, EACH_TYPES, values, single);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) updated.add(rs.getLong(1));
            }
        }
        return updated;
    }

    /** One statement: the rows unnested from arrays, a column with one value for all of them as that value. */
    @Override
    public List<InsertedRow> insertRows(Connection c, List<NewTask> specs, List<String> attributes) throws SQLException {
        int n = specs.size();
        Object[][] values = {new String[n], new Integer[n], new String[n], new String[n], new Integer[n], new Long[n], new Long[n],
            new String[n], new String[n], new Long[n], new String[n]};
        String[] types = {"text", "int4", "text", "text", "int4", "int8", "int8", "text", "text", "int8", "text"};
        for (int i = 0; i < n; i++) {
            NewTask t = specs.get(i);
            values[0][i] = t.machine();
            values[1][i] = t.machineVersion();
            values[2][i] = t.state();
            values[3][i] = t.queue();
            values[4][i] = t.priority();
            values[5][i] = t.parentId();
            values[6][i] = Rows.epochMicros(t.notBefore());
            values[7][i] = attributes.get(i);
            values[8][i] = t.payload();
            values[9][i] = Rows.epochMicros(t.createdAt());
            values[10][i] = t.uniqueKey();
        }
        long single = singleColumns(values);
        List<InsertedRow> rows = new ArrayList<>(n);
        try (PreparedStatement ps = c.prepareStatement(sql.insertRows(single))) {
            int p = bindColumns(c, ps, types, values, single);
            if (single == (1L << values.length) - 1) ps.setInt(p, n);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) rows.add(new InsertedRow(rs.getLong(1), rs.getLong(2)));
            }
        }
        return rows;
    }

    private static Object[] values(Column column, List<Change> changes) {
        Object[] values = switch (column.type()) {
            case "int8" -> new Long[changes.size()];
            case "int4" -> new Integer[changes.size()];
            case "bool" -> new Boolean[changes.size()];
            default -> new String[changes.size()];
        };
        for (int i = 0; i < values.length; i++) values[i] = column.value().apply(changes.get(i));
        return values;
    }

    /** The columns whose values are the same for the whole batch: bit {@code k} for {@code values[k]}. */
    private static long singleColumns(Object[][] values) {
        long single = 0;
        for (int k = 0; k < values.length; k++) {
            boolean same = true;
            for (int i = 1; i < values[k].length && same; i++) same = Objects.equals(values[k][0], values[k][i]);
            if (same) single |= 1L << k;
        }
        return single;
    }

    /**
     * Binds a batch's columns as {@link Sql#updateEach(long)} and {@link Sql#insertRows(long)} take
     * them: the value of each single column, then the array of each other one, in column order.
     * Returns the next parameter index.
     */
    private static int bindColumns(Connection c, PreparedStatement ps, String[] types, Object[][] values, long single)
            throws SQLException {
        int p = 1;
        for (int k = 0; k < values.length; k++) if ((single & 1L << k) != 0) bindOne(ps, p++, types[k], values[k][0]);
        for (int k = 0; k < values.length; k++) if ((single & 1L << k) == 0) ps.setArray(p++, c.createArrayOf(types[k], values[k]));
        return p;
    }

    private static void bindOne(PreparedStatement ps, int index, String type, @Nullable Object value) throws SQLException {
        int sqlType = switch (type) {
            case "int8" -> Types.BIGINT;
            case "int4" -> Types.INTEGER;
            case "bool" -> Types.BOOLEAN;
            default -> Types.VARCHAR;
        };
        if (value == null) ps.setNull(index, sqlType);
        else ps.setObject(index, value, sqlType);
    }

    /**
     * One statement claims the picked tasks still at the version read, draws their fencing tokens
     * in claim order and writes their history. Each claim rule's effect runs here, before the
     * statement, while the queue row keeps other claimers out.
     */
    @Override
    public List<Claimed> claim(Connection c, ClaimRequest request, List<TaskRecord> picks, Instant now, Instant expires)
            throws SQLException {
        int n = picks.size();
        ClaimRule[] rules = new ClaimRule[n];
        Attributes[] attributes = new Attributes[n];
        Object[][] arrays = {new Long[n], new Long[n], new String[n], new String[n], new String[n], new String[n], new Long[n]};
        for (int p = 0; p < n; p++) {
            TaskRecord t = picks.get(p);
            ClaimRule rule = rules[p] = RowWrites.ruleOf(request, t);
            attributes[p] = rule.attributesOf(t);
            arrays[0][p] = t.id();
            arrays[1][p] = t.version();
            arrays[2][p] = t.state();
            arrays[3][p] = rule.to();
            arrays[4][p] = rule.event();
            arrays[5][p] = rule.effect() == null ? null : AttributeCodec.encode(attributes[p]);   // null keeps the stored text
            arrays[6][p] = Rows.epochMicros(ClaimRule.claimTime(t, now));
        }
        String[] types = {"int8", "int8", "text", "text", "text", "text", "int8"};
        Map<Long, Long> tokens = new HashMap<>(2 * n);
        try (PreparedStatement ps = c.prepareStatement(sql.claimTasks)) {
            for (int i = 0; i < arrays.length; i++) ps.setArray(i + 1, c.createArrayOf(types[i], arrays[i]));
            ps.setString(8, request.owner());
            sql.times.set(ps, 9, expires);
            ps.setString(10, TriggerSource.SYSTEM.name());
            ps.setString(11, request.owner());
            ps.setString(12, ClaimRule.CLAIM_REASON);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) tokens.put(rs.getLong(1), rs.getLong(2));
            }
        }
        List<Claimed> claimed = new ArrayList<>(n);
        for (int p = 0; p < n; p++) {
            TaskRecord t = picks.get(p);
            Long token = tokens.get(t.id());
            if (token == null) continue;      // changed since it was read: not claimed
            ClaimRule rule = rules[p];
            TaskRecord next = rule.claim(t, attributes[p], new Lease(request.owner(), token, expires), now);
            HistoryEntry entry = rule.entry(t, request.owner(), now);
            claimed.add(new Claimed(next, entry, ClaimRule.readySince(t)));
        }
        return claimed;
    }

    /** The candidates as read: they are locked by the read itself, or kept from other claims by the queue row. */
    @Override
    public List<TaskRecord> lockCandidates(Connection c, ClaimRequest request, List<String> states, List<TaskRecord> read,
                                           Jdbc.RowReader<@Nullable TaskRecord> reader) {
        return read;
    }

    /** Yes: {@code FOR SHARE} on the queue row, {@code FOR UPDATE SKIP LOCKED} on the tasks. */
    @Override
    public boolean claimsSideBySide() {
        return true;
    }
}
