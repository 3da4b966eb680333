package dev.statekit.jdbc.internal;

import dev.statekit.store.ProcessRecord;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The process records table ({@code processes}): one row per runtime by owner name, its machines and
 * queues one name per line. A registration replaces the row of its owner in one transaction; a
 * touch moves {@code last_seen} forward only. Immutable and thread-safe.
 */
public final class ProcessTable {
    private static final String COLUMNS = "owner, host, pid, machines, queues, started_at, last_seen, gone_after_ms, stopped_at";

    private final Jdbc jdbc;
    private final String all;
    private final String delete;
    private final String insert;
    private final String touch;
    private final String stop;
    private final String purge;
    private final Times times;

    /** Creates the process records table of one store. */
    public ProcessTable(JdbcContext context) {
        this.times = context.sql().times;
        this.jdbc = context.jdbc();
        String table = context.sql().processes;
        this.all = "select " + COLUMNS + " from " + table + " order by owner";
        this.delete = "delete from " + table + " where owner = ?";
        this.insert = "insert into " + table + " (" + COLUMNS + ") values (?, ?, ?, ?, ?, ?, ?, ?, ?)";
        this.touch = "update " + table + " set last_seen = case when last_seen < ? then ? else last_seen end where owner = ?";
        this.stop = "update " + table + " set stopped_at = ?, last_seen = case when last_seen < ? then ? else last_seen end"
                + " where owner = ?";
        this.purge = "delete from " + table + " where last_seen < ?";
    }

    /** Writes {@code p}, replacing the row of its owner. */
    public void register(ProcessRecord p) {
        jdbc.transaction("registering process " + p.owner(), null, c -> {
            Jdbc.update(c, delete, ps -> ps.setString(1, p.owner()));
            return Jdbc.update(c, insert, ps -> {
                ps.setString(1, p.owner());
                Rows.setString(ps, 2, p.host());
                Rows.setLong(ps, 3, p.pid());
                ps.setString(4, String.join("\n", p.machines()));
                ps.setString(5, String.join("\n", p.queues()));
                times.set(ps, 6, p.startedAt());
                times.set(ps, 7, p.lastSeen());
                ps.setLong(8, p.goneAfter().toMillis());
                times.set(ps, 9, p.stoppedAt());
            });
        });
    }

    /** Moves the {@code last_seen} of {@code owner} to {@code at} unless it is later; returns whether there is a row. */
    public boolean touch(String owner, Instant at) {
        return jdbc.transaction("refreshing process " + owner, null, c -> Jdbc.update(c, touch, ps -> {
            times.set(ps, 1, at);
            times.set(ps, 2, at);
            ps.setString(3, owner);
        })) > 0;
    }

    /** Marks {@code owner} stopped at {@code at}; returns whether there is a row. */
    public boolean stop(String owner, Instant at) {
        return jdbc.transaction("stopping process " + owner, null, c -> Jdbc.update(c, stop, ps -> {
            times.set(ps, 1, at);
            times.set(ps, 2, at);
            times.set(ps, 3, at);
            ps.setString(4, owner);
        })) > 0;
    }

    /** Returns every record, by owner. */
    public List<ProcessRecord> all() {
        return jdbc.read("reading processes", null, c -> Jdbc.query(c, all, ps -> { }, this::record));
    }

    /** Deletes the records last seen before {@code seenBefore}; returns how many. */
    public int purge(Instant seenBefore) {
        return jdbc.transaction("purging processes", null, c -> Jdbc.update(c, purge, ps -> times.set(ps, 1, seenBefore)));
    }

    private ProcessRecord record(ResultSet rs) throws SQLException {
        return new ProcessRecord(rs.getString(1), rs.getString(2), Rows.getLong(rs, 3), names(rs.getString(4)), names(rs.getString(5)),
                Objects.requireNonNull(times.get(rs, 6), "started_at"), Objects.requireNonNull(times.get(rs, 7), "last_seen"),
                Duration.ofMillis(rs.getLong(8)), times.get(rs, 9));
    }

    private static List<String> names(@Nullable String joined) {
        return joined == null || joined.isEmpty() ? List.of() : Arrays.asList(joined.split("\n"));
    }
}
