package dev.statekit.jdbc.internal;

import dev.statekit.jdbc.Dialect;
import dev.statekit.store.CreateResult;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.NewTask;
import dev.statekit.store.ScheduleFirer;
import dev.statekit.store.SchedulePass;
import dev.statekit.store.ScheduleRecord;
import dev.statekit.store.StatekitException;
import dev.statekit.store.TaskRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The recurring schedules table: declaring (upsert under the row's lock), reading, pausing,
 * resuming, deleting, and the schedule pass, which locks due rows ({@code FOR UPDATE SKIP LOCKED}
 * on PostgreSQL, so that processes passing at once split them; {@code FOR UPDATE} on H2), creates
 * their occurrences through {@link TaskInserts} with idempotency keys and writes their progress, in
 * one transaction. Immutable and thread-safe.
 */
public final class ScheduleTable {
    private static final int PASS_ATTEMPTS = 5;
    private static final String COLUMNS = "name, machine, queue, priority, attributes, payload, kind, expression, zone,"
            + " every_interval, anchor, misfire, misfire_limit, misfire_threshold, paused, last_at, next_due, version";

    private final Jdbc jdbc;
    private final DialectOps ops;
    private final TaskInserts inserts;
    private final String table;
    private final String select;
    private final String lock;
    private final String insert;
    private final String update;
    private final String delete;
    private final Times times;
    /** How a pass locks the schedules that are due. */
    private final String lockDue;

    /** Creates the schedules table of one store. */
    public ScheduleTable(JdbcContext context, TaskInserts inserts) {
        this.times = context.sql().times;
        this.jdbc = context.jdbc();
        this.ops = context.ops();
        this.inserts = inserts;
        Sql sql = context.sql();
        this.table = sql.schedules;
        this.select = "select " + COLUMNS + " from " + table;
        this.lock = select + " where name = ? for update";
        this.lockDue = sql.flavor.lockOrWait();
        String values = " values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
        this.insert = "insert into " + table + " (" + COLUMNS + ")" + values + sql.flavor.onConflictDoNothing("name");
        this.update = "update " + table + " set machine = ?, queue = ?, priority = ?, attributes = ?, payload = ?, kind = ?,"
                + " expression = ?, zone = ?, every_interval = ?, anchor = ?, misfire = ?, misfire_limit = ?, misfire_threshold = ?,"
                + " paused = ?, last_at = ?, next_due = ?, version = ? where name = ?";
        this.delete = "delete from " + table + " where name = ?";
    }

    /** Declares or changes a schedule as {@link dev.statekit.store.Store#upsertSchedule} says. */
    public ScheduleRecord upsert(ScheduleRecord given) {
        ScheduleRecord schedule = micros(Objects.requireNonNull(given, "schedule"));
        return jdbc.transaction("declaring schedule " + schedule.name(), null, c -> {
            ScheduleRecord stored = lock(c, schedule.name());
            if (stored == null) {
                ScheduleRecord first = schedule.version() == 0 ? schedule : at(schedule, 0);
                try {
                    Jdbc.update(c, insert, ps -> bind(ps, first));
                } catch (SQLException e) {
                    // H2 waits for a concurrent creator of the row, then reports the duplicate (PostgreSQL's insert does nothing).
                    if (!SqlErrors.uniqueViolation(e)) throw e;
                }
                stored = Objects.requireNonNull(lock(c, schedule.name()), "the schedule row vanished");
                if (stored.equals(first)) return stored;
            }
            ScheduleRecord next = stored.upsertedWith(schedule);
            if (next != stored) write(c, next);
            return next;
        });
    }

    /** Returns the schedule named {@code name}, if any. */
    public Optional<ScheduleRecord> get(String name) {
        Objects.requireNonNull(name, "name");
        return Optional.ofNullable(jdbc.read("reading schedule " + name, null,
                c -> Jdbc.queryOne(c, select + " where name = ?", ps -> ps.setString(1, name), this::read)));
    }

    /** Returns every schedule, by name. */
    public List<ScheduleRecord> all() {
        return jdbc.read("reading the schedules", null, c -> Jdbc.query(c, select + " order by name", Jdbc.NO_PARAMETERS, this::read));
    }

    /** Pauses or resumes the schedule {@code name}; empty when there is none. */
    public Optional<ScheduleRecord> setPaused(String name, boolean paused) {
        Objects.requireNonNull(name, "name");
        return Optional.ofNullable(jdbc.transaction((paused ? "pausing" : "resuming") + " schedule " + name, null, c -> {
            ScheduleRecord stored = lock(c, name);
            if (stored == null) return null;
            ScheduleRecord next = stored.withPaused(paused);
            if (next != stored) write(c, next);
            return next;
        }));
    }

    /** Deletes the schedule {@code name}; whether there was one. */
    public boolean delete(String name) {
        Objects.requireNonNull(name, "name");
        return jdbc.transaction("deleting schedule " + name, null, c -> Jdbc.update(c, delete, ps -> ps.setString(1, name)) > 0);
    }

    /** Runs one schedule pass as {@link dev.statekit.store.Store#fireSchedules} says. */
    public SchedulePass fire(Collection<String> machines, Instant now, int max, ScheduleFirer firer) {
        Objects.requireNonNull(now, "now");
        Objects.requireNonNull(firer, "firer");
        if (max <= 0) throw new IllegalArgumentException("max must be positive, was " + max);
        List<String> of = List.copyOf(machines);
        if (of.isEmpty()) return new SchedulePass(List.of(), null);
        String due = select + " where paused = false and next_due <= ? and machine in " + Sql.params(of.size())
                + " order by next_due, name limit ?" + lockDue;
        String earliest = "select min(next_due) from " + table + " where paused = false and machine in " + Sql.params(of.size());
        for (int attempt = 1; ; attempt++) {
            Optional<SchedulePass> pass;
            try {
                pass = pass(of, now, max, firer, due, earliest);
            } catch (StatekitException e) {
                // Two passes of an embedded database that locks rows as it meets them may deadlock;
                // the victim was rolled back whole, and runs again.
                if (!SqlErrors.conflictVictim(e) || attempt >= PASS_ATTEMPTS) throw e;
                continue;
            }
            if (pass.isPresent()) return pass.get();
            if (attempt >= PASS_ATTEMPTS) {
                throw new StatekitException(ErrorCode.STORE_UNAVAILABLE, "a schedule pass raced with the deletion of a task holding"
                        + " one of its occurrences' idempotency keys " + attempt + " times");
            }
        }
    }

    /** Runs one pass in one transaction; empty when a key's task was deleted meanwhile. */
    private Optional<SchedulePass> pass(List<String> of, Instant now, int max, ScheduleFirer firer, String due, String earliest) {
        return jdbc.transaction("firing schedules", null, c -> {
            List<ScheduleRecord> locked = Jdbc.query(c, due, ps -> {
                times.set(ps, 1, now);
                int p = 2;
                for (String m : of) ps.setString(p++, m);
                ps.setInt(p, max);
            }, this::read);
            List<SchedulePass.Fired> fired = new ArrayList<>();
            boolean any = false;
            for (ScheduleRecord s : locked) {
                ScheduleFirer.Firing firing = firer.fire(s);
                List<NewTask> creates = firing.creates();
                List<TaskRecord> created = new ArrayList<>();
                if (!creates.isEmpty()) {
                    Optional<List<CreateResult>> results = inserts.insertAll(c, creates, inserts.encode(creates), false);
                    if (results.isEmpty()) return Optional.<SchedulePass>empty();    // a key's task was deleted meanwhile: start again
                    for (CreateResult r : results.get()) if (r.created()) created.add(r.task());
                }
                any |= !created.isEmpty();
                ScheduleRecord next = micros(s.fired(firing.last(), firing.nextDue()));
                write(c, next);
                fired.add(new SchedulePass.Fired(next, created));
            }
            if (any) ops.notifyWaiters(c);
            Instant next = Jdbc.queryOne(c, earliest, ps -> {
                int p = 1;
                for (String m : of) ps.setString(p++, m);
            }, rs -> times.get(rs, 1));
            return Optional.of(new SchedulePass(fired, next));
        });
    }

    private @Nullable ScheduleRecord lock(Connection c, String name) throws SQLException {
        return Jdbc.queryOne(c, lock, ps -> ps.setString(1, name), this::read);
    }

    private void write(Connection c, ScheduleRecord s) throws SQLException {
        Jdbc.update(c, update, ps -> {
            int p = bindFrom(ps, 1, s);
            ps.setString(p, s.name());
        });
    }

    private void bind(PreparedStatement ps, ScheduleRecord s) throws SQLException {
        ps.setString(1, s.name());
        bindFrom(ps, 2, s);
    }

    /** Binds every column but the name from {@code p} on; returns the next index. */
    private int bindFrom(PreparedStatement ps, int p, ScheduleRecord s) throws SQLException {
        ps.setString(p, s.machine());
        Rows.setString(ps, p + 1, s.queue());
        ps.setInt(p + 2, s.priority());
        ps.setString(p + 3, AttributeCodec.encode(s.attributes()));
        Rows.setString(ps, p + 4, s.payload());
        ps.setString(p + 5, s.kind());
        Rows.setString(ps, p + 6, s.expression());
        Rows.setString(ps, p + 7, s.zone());
        Rows.setString(ps, p + 8, s.interval() == null ? null : s.interval().toString());
        times.set(ps, p + 9, s.anchor());
        ps.setString(p + 10, s.misfire());
        ps.setInt(p + 11, s.misfireLimit());
        ps.setString(p + 12, s.misfireThreshold().toString());
        ps.setBoolean(p + 13, s.paused());
        times.set(ps, p + 14, s.last());
        times.set(ps, p + 15, s.nextDue());
        ps.setLong(p + 16, s.version());
        return p + 17;
    }

    private ScheduleRecord read(ResultSet rs) throws SQLException {
        String interval = rs.getString(10);
        return new ScheduleRecord(rs.getString(1), rs.getString(2), rs.getString(3), rs.getInt(4), AttributeCodec.decode(rs.getString(5)),
                rs.getString(6), rs.getString(7), rs.getString(8), rs.getString(9), interval == null ? null : Duration.parse(interval),
                times.get(rs, 11), rs.getString(12), rs.getInt(13), Duration.parse(rs.getString(14)), rs.getBoolean(15),
                times.get(rs, 16), Objects.requireNonNull(times.get(rs, 17), "next_due"), rs.getLong(18));
    }

    /** The record as the database keeps it: its instants cut to the microsecond. */
    private static ScheduleRecord micros(ScheduleRecord s) {
        return new ScheduleRecord(s.name(), s.machine(), s.queue(), s.priority(), s.attributes(), s.payload(), s.kind(), s.expression(),
                s.zone(), s.interval(), Rows.micros(s.anchor()), s.misfire(), s.misfireLimit(), s.misfireThreshold(), s.paused(),
                Rows.micros(s.last()), Objects.requireNonNull(Rows.micros(s.nextDue())), s.version());
    }

    private static ScheduleRecord at(ScheduleRecord s, long version) {
        return new ScheduleRecord(s.name(), s.machine(), s.queue(), s.priority(), s.attributes(), s.payload(), s.kind(), s.expression(),
                s.zone(), s.interval(), s.anchor(), s.misfire(), s.misfireLimit(), s.misfireThreshold(), s.paused(), s.last(),
                s.nextDue(), version);
    }
}
