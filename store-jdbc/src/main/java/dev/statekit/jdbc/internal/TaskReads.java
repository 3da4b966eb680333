package dev.statekit.jdbc.internal;

import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.Page;
import dev.statekit.store.StateCount;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Reading tasks and history: by id, by command key, pages of a query, and the scans the runtime
 * makes (expired leases, due tasks, the leases of one owner, a queue's next claims). Scans and
 * queries skip, and log at WARN, a row that cannot be read; {@link #find} of that task fails.
 * Immutable and thread-safe.
 */
public final class TaskReads {
    private static final int FIND_CHUNK = 500;

    private final Jdbc jdbc;
    private final Sql sql;
    private final LeaseFloors floors;

    /** Creates the reads of one store, whose scans of expired leases start at {@code floors}. */
    public TaskReads(JdbcContext context, LeaseFloors floors) {
        this.jdbc = context.jdbc();
        this.sql = context.sql();
        this.floors = floors;
    }

    /** Returns the task with {@code id}, if it exists. */
    public Optional<TaskRecord> find(long id) {
        return jdbc.read("reading a task", id, c -> Optional.ofNullable(Jdbc.queryOne(c, sql.taskById, ps -> ps.setLong(1, id), sql.times::task)));
    }

    /** Returns the tasks with {@code ids} that exist, by id: one query per 500 ids. */
    public Map<Long, TaskRecord> findAll(Collection<Long> ids) {
        List<Long> distinct = new ArrayList<>(new TreeSet<>(ids));
        Map<Long, TaskRecord> found = new HashMap<>();
        if (distinct.isEmpty()) return found;
        return jdbc.read("reading " + distinct.size() + " tasks", null, c -> {
            for (int from = 0; from < distinct.size(); from += FIND_CHUNK) {
                List<Long> chunk = distinct.subList(from, Math.min(distinct.size(), from + FIND_CHUNK));
                List<TaskRecord> tasks = Jdbc.tasks(c, sql.times, sql.tasksByIds(chunk.size()), ps -> {
                    for (int i = 0; i < chunk.size(); i++) ps.setLong(i + 1, chunk.get(i));
                });
                for (TaskRecord t : tasks) found.put(t.id(), t);
            }
            return found;
        });
    }

    /** Returns the entry of the command applied to {@code taskId} with {@code commandKey}, if one was. */
    public Optional<HistoryEntry> findCommand(long taskId, String commandKey) {
        Objects.requireNonNull(commandKey, "commandKey");
        return jdbc.read("reading a command", taskId, c -> command(c, taskId, commandKey));
    }

    /** Returns the entry of the command applied to {@code taskId} with {@code commandKey} on {@code c}, if one was. */
    public Optional<HistoryEntry> command(Connection c, long taskId, String commandKey) throws SQLException {
        return Optional.ofNullable(Jdbc.queryOne(c, sql.command, ps -> {
            ps.setLong(1, taskId);
            ps.setString(2, commandKey);
        }, rs -> Rows.history(sql.times, rs, 1)));
    }

    /** Returns whether task {@code id} exists, on {@code c}. */
    public boolean exists(Connection c, long id) throws SQLException {
        return Jdbc.queryOne(c, sql.taskExists, ps -> ps.setLong(1, id), rs -> Boolean.TRUE) != null;
    }

    /** Returns the history of {@code taskId}, oldest first. */
    public List<HistoryEntry> history(long taskId) {
        return jdbc.read("reading history", taskId,
                c -> Jdbc.query(c, sql.historyOf, ps -> ps.setLong(1, taskId), rs -> Rows.history(sql.times, rs, 1)));
    }

    /** Returns one page of the tasks matching {@code query}, in ascending id order. */
    public Page<TaskRecord> query(TaskQuery query) {
        String machine = query.machine();
        Long parent = query.parentId();
        String queue = query.queue();
        String errorCode = query.errorCode();
        return jdbc.read("querying tasks", null, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.query(query))) {
                int i = 1;
                ps.setLong(i++, query.afterId());
                if (machine != null) ps.setString(i++, machine);
                i = Jdbc.bindStates(ps, i, query.states());
                if (parent != null) ps.setLong(i++, parent);
                if (queue != null) ps.setString(i++, queue);
                if (errorCode != null) ps.setString(i++, errorCode);
                for (Instant t : new Instant[] {query.createdFrom(), query.createdTo(), query.updatedFrom(), query.updatedTo()}) {
                    if (t != null) sql.times.set(ps, i++, t);
                }
                ps.setInt(i, query.limit() + 1);
                return page(ps, query.limit());
            }
        });
    }

    // The page's next key is the id of its last row, even when that row cannot be read.
    private Page<TaskRecord> page(PreparedStatement ps, int limit) throws SQLException {
        List<TaskRecord> items = new ArrayList<>();
        long lastId = 0;
        int rows = 0;
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                if (++rows > limit) return new Page<>(items, lastId);
                lastId = rs.getLong(1);
                TaskRecord t = Jdbc.readTaskOrNull(sql.times, rs);
                if (t != null) items.add(t);
            }
        }
        return new Page<>(items, null);
    }

    /** Returns tasks whose lease expired at or before {@code now}, oldest expiry first, at most {@code max}. */
    public List<TaskRecord> expiredLeases(Instant now, int max) {
        Objects.requireNonNull(now, "now");
        if (max <= 0) return List.of();
        return expired(null, now, (c, floor) -> Jdbc.tasks(c, sql.times, floor == null ? sql.expired : sql.expiredFrom, ps -> {
            int i = 1;
            sql.times.set(ps, i++, now);
            if (floor != null) sql.times.set(ps, i++, floor);
            ps.setInt(i, max);
        }));
    }

    /** Returns tasks of {@code machines} whose lease expired at or before {@code now}, oldest expiry first, at most {@code max}. */
    public List<TaskRecord> expiredLeases(Collection<String> machines, Instant now, int max) {
        Objects.requireNonNull(now, "now");
        if (machines.isEmpty() || max <= 0) return List.of();
        int n = new TreeSet<>(machines).size();
        return expired(machines, now, (c, floor) -> Jdbc.tasks(c, sql.times, floor == null ? sql.expiredOf(n) : sql.expiredOfFrom(n), ps -> {
            int i = 1;
            sql.times.set(ps, i++, now);
            if (floor != null) sql.times.set(ps, i++, floor);
            i = Jdbc.bindStates(ps, i, machines);
            ps.setInt(i, max);
        }));
    }

    /** A scan of expired leases from a floor, or from the earliest expiry when there is none. */
    private interface ExpiredScan {
        List<TaskRecord> scan(Connection c, @Nullable Instant floor) throws SQLException;
    }

    /** Scans from the floor of {@code machines} (every machine when null) and moves the floor on. */
    private List<TaskRecord> expired(@Nullable Collection<String> machines, Instant now, ExpiredScan scan) {
        LeaseFloors.Scan s = floors.begin(machines);
        List<TaskRecord> found = null;
        try {
            found = jdbc.read("scanning expired leases", null, c -> scan.scan(c, s.floor()));
            return found;
        } finally {
            Instant earliest = null;
            if (found != null) {
                for (TaskRecord t : found) {
                    Lease lease = t.lease();
                    if (lease != null && (earliest == null || lease.expiresAt().isBefore(earliest))) earliest = lease.expiresAt();
                }
            }
            floors.end(s, found == null ? null : Rows.micros(now), earliest);
        }
    }

    /** Returns lease-free tasks of {@code machine} in {@code states} whose not-before time has come, earliest first. */
    public List<TaskRecord> due(String machine, Collection<String> states, Instant now, int max) {
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(now, "now");
        if (states.isEmpty() || max <= 0) return List.of();
        int n = new TreeSet<>(states).size();
        return jdbc.read("scanning due tasks", null, c -> Jdbc.tasks(c, sql.times, sql.due(n), ps -> {
            ps.setString(1, machine);
            int i = Jdbc.bindStates(ps, 2, states);
            sql.times.set(ps, i++, now);
            ps.setInt(i, max);
        }));
    }

    /** Returns the earliest not-before time after {@code now} of lease-free tasks of {@code machine} in {@code states}, or null. */
    public @Nullable Instant nextDue(String machine, Collection<String> states, Instant now) {
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(now, "now");
        if (states.isEmpty()) return null;
        return jdbc.read("scanning due tasks", null, c -> nextDue(c, sql, machine, states, now));
    }

    /** As {@link #nextDue(String, Collection, Instant)}, on {@code c}; {@code states} must not be empty. */
    static @Nullable Instant nextDue(Connection c, Sql sql, String machine, Collection<String> states, Instant now) throws SQLException {
        return Jdbc.queryOne(c, sql.nextDue(new TreeSet<>(states).size()), ps -> {
            ps.setString(1, machine);
            int i = Jdbc.bindStates(ps, 2, states);
            sql.times.set(ps, i, now);
        }, rs -> sql.times.get(rs, 1));
    }

    /** Returns the tasks whose lease {@code owner} holds, by id, at most {@code max}. */
    public List<TaskRecord> leasedBy(String owner, int max) {
        Objects.requireNonNull(owner, "owner");
        if (max <= 0) return List.of();
        return jdbc.read("reading leases of " + owner, null, c -> Jdbc.tasks(c, sql.times, sql.leasedBy, ps -> {
            ps.setString(1, owner);
            ps.setInt(2, max);
        }));
    }

    /** Returns, without claiming them, the tasks {@code request} would claim next (no anti-starvation). */
    public List<TaskRecord> peek(ClaimRequest request) {
        List<String> states = new ArrayList<>();
        for (ClaimRule r : request.rules()) if (!states.contains(r.from())) states.add(r.from());
        return jdbc.read("peeking at queue " + request.queue(), null,
                c -> Jdbc.tasks(c, sql.times, sql.runnable(states.size(), false, false, request.max(), false), ps -> {
                    int i = 1;
                    ps.setString(i++, request.machine());
                    ps.setString(i++, request.queue());
                    for (String s : states) ps.setString(i++, s);
                    sql.times.set(ps, i, request.now());
                }));
    }

    /** Returns the tasks counted by machine, queue and state, as {@link dev.statekit.store.Store#stateCounts} describes. */
    public List<StateCount> stateCounts(Instant now) {
        Objects.requireNonNull(now, "now");
        List<StateCount> counts = jdbc.read("counting tasks by state", null, c -> Jdbc.query(c, sql.stateCounts(),
                ps -> sql.times.set(ps, 1, now),
                rs -> new StateCount(rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4), rs.getLong(5),
                        sql.times.get(rs, 6))));
        List<StateCount> sorted = new ArrayList<>(counts);
        sorted.sort(StateCount.ORDER);      // in Java: the database's collation may order strings otherwise
        return sorted;
    }
}
