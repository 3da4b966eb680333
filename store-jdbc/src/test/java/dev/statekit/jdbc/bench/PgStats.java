package dev.statekit.jdbc.bench;

import dev.statekit.jdbc.TestPool;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * What PostgreSQL spent on a run, per task, from the server's own statistics: server time, blocks,
 * WAL records and bytes of each statement ({@code pg_stat_statements}, when the server loads it),
 * WAL records, bytes and full-page images in all ({@code pg_stat_wal}), commits
 * ({@code pg_stat_database}), and rows inserted, updated (HOT or not) and deleted and dead tuples
 * of each table of the run ({@code pg_stat_user_tables}). A snapshot before the run and one after;
 * the report is their difference. The server should serve nothing else meanwhile.
 */
final class PgStats {
    /** One statement's counters. */
    record Statement(String query, long calls, double millis, long rows, long blocks, long walRecords, long walBytes) {}

    /** One table's counters. */
    record Table(long inserted, long updated, long hot, long deleted, long dead, long bytes) {}

    final Map<Long, Statement> statements;
    final Map<String, Table> tables;
    final long walRecords;
    final long walBytes;
    final long walFpi;
    final long commits;

    private PgStats(Map<Long, Statement> statements, Map<String, Table> tables, long walRecords, long walBytes, long walFpi,
                    long commits) {
        this.statements = statements;
        this.tables = tables;
        this.walRecords = walRecords;
        this.walBytes = walBytes;
        this.walFpi = walFpi;
        this.commits = commits;
    }

    /** The counters now, for the tables whose names start with {@code prefix}. */
    static PgStats take(TestPool pool, String prefix) throws SQLException {
        Map<Long, Statement> statements = new LinkedHashMap<>();
        Map<String, Table> tables = new LinkedHashMap<>();
        long[] wal = new long[3];
        long commits;
        try (Connection c = pool.getConnection(); java.sql.Statement s = c.createStatement()) {
            boolean installed;
            try (ResultSet rs = s.executeQuery("select count(*) from pg_extension where extname = 'pg_stat_statements'")) {
                installed = rs.next() && rs.getLong(1) > 0;
            }
            if (installed) {
                // created in the database but not loaded by the server, the view refuses to be read
                try (ResultSet rs = s.executeQuery("select queryid, query, calls, total_exec_time, rows,"
                        + " shared_blks_hit + shared_blks_read, wal_records, wal_bytes from pg_stat_statements"
                        + " where dbid = (select oid from pg_database where datname = current_database())"
                        + " and userid = (select oid from pg_roles where rolname = current_user)")) {
                    while (rs.next()) {
                        statements.put(rs.getLong(1), new Statement(rs.getString(2), rs.getLong(3), rs.getDouble(4), rs.getLong(5),
                                rs.getLong(6), rs.getLong(7), rs.getBigDecimal(8).longValue()));
                    }
                } catch (SQLException e) {
                    statements.clear();
                }
            }
            try (ResultSet rs = s.executeQuery("select wal_records, wal_bytes, wal_fpi from pg_stat_wal")) {
                rs.next();
                wal[0] = rs.getLong(1);
                wal[1] = rs.getBigDecimal(2).longValue();
                wal[2] = rs.getLong(3);
            }
            try (ResultSet rs = s.executeQuery("select xact_commit from pg_stat_database where datname = current_database()")) {
                rs.next();
                commits = rs.getLong(1);
            }
            try (ResultSet rs = s.executeQuery("select relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del, n_dead_tup,"
                    + " pg_total_relation_size(relid) from pg_stat_user_tables where relname like '" + prefix + "%'")) {
                while (rs.next()) {
                    tables.put(rs.getString(1).substring(prefix.length()), new Table(rs.getLong(2), rs.getLong(3), rs.getLong(4),
                            rs.getLong(5), rs.getLong(6), rs.getLong(7)));
                }
            }
        }
        return new PgStats(statements, tables, wal[0], wal[1], wal[2], commits);
    }

    /**
     * The counters once the server has published the run's: backends publish their table and WAL
     * counters when idle, up to some seconds late, so the counters are read until they stay the
     * same for a second and a half (at most 15 seconds).
     */
    static PgStats settled(TestPool pool, String prefix) throws SQLException {
        PgStats last = take(pool, prefix);
        long stableSince = System.nanoTime();
        long deadline = stableSince + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() - stableSince < TimeUnit.MILLISECONDS.toNanos(1500) && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(250));
            PgStats now = take(pool, prefix);
            if (now.walRecords != last.walRecords || now.commits != last.commits || !now.tables.equals(last.tables)) {
                stableSince = System.nanoTime();
            }
            last = now;
        }
        return last;
    }

    /** Prints what the run between {@code before} and this snapshot cost per task, {@code tasks} tasks. */
    List<String> report(PgStats before, long tasks, String prefix) {
        List<String> lines = new ArrayList<>();
        List<Statement> spent = new ArrayList<>();
        double millis = 0;
        for (Map.Entry<Long, Statement> e : statements.entrySet()) {
            Statement b = before.statements.get(e.getKey());
            Statement a = e.getValue();
            Statement d = b == null ? a : new Statement(a.query(), a.calls() - b.calls(), a.millis() - b.millis(), a.rows() - b.rows(),
                    a.blocks() - b.blocks(), a.walRecords() - b.walRecords(), a.walBytes() - b.walBytes());
            if (d.calls() == 0 || !d.query().contains(prefix)) continue;
            spent.add(d);
            millis += d.millis();
        }
        spent.sort((x, y) -> Double.compare(y.millis(), x.millis()));
        long wr = walRecords - before.walRecords;
        long wb = walBytes - before.walBytes;
        lines.add(String.format(Locale.ROOT, "PostgreSQL per task (%,d tasks created, claimed and completed): statements %.1f µs of"
                        + " server time; WAL %.1f records, %,.0f bytes, %.3f full-page images; %.3f commits", tasks, millis * 1000 / tasks,
                (double) wr / tasks, (double) wb / tasks, (double) (walFpi - before.walFpi) / tasks, (double) (commits - before.commits) / tasks));
        if (!spent.isEmpty()) {
            lines.add(String.format(Locale.ROOT, "  %9s %8s %8s %8s %8s  %s", "µs/task", "calls", "blk/task", "WALr/t", "WALB/t", "statement"));
            for (Statement d : spent) {
                if (d.millis() * 1000 / tasks < 0.05) continue;
                String q = d.query().replaceAll("\\s+", " ").replace(prefix, "");
                lines.add(String.format(Locale.ROOT, "  %9.2f %8d %8.1f %8.2f %8.0f  %s", d.millis() * 1000 / tasks, d.calls(),
                        (double) d.blocks() / tasks, (double) d.walRecords() / tasks, (double) d.walBytes() / tasks,
                        q.length() > 90 ? q.substring(0, 90) + "…" : q));
            }
        } else {
            lines.add("  (per statement: load pg_stat_statements in shared_preload_libraries and create the extension in this database)");
        }
        lines.add(String.format(Locale.ROOT, "  %-16s %9s %9s %6s %9s %10s %9s", "table", "ins/task", "upd/task", "HOT %", "del/task",
                "dead/task", "MB"));
        for (Map.Entry<String, Table> e : tables.entrySet()) {
            Table a = e.getValue();
            Table b = before.tables.getOrDefault(e.getKey(), new Table(0, 0, 0, 0, 0, 0));
            long ins = a.inserted() - b.inserted();
            long upd = a.updated() - b.updated();
            long del = a.deleted() - b.deleted();
            if (ins + upd + del == 0) continue;
            lines.add(String.format(Locale.ROOT, "  %-16s %9.2f %9.2f %6.0f %9.2f %10.3f %9.1f", e.getKey(), (double) ins / tasks,
                    (double) upd / tasks, upd == 0 ? 0 : 100.0 * (a.hot() - b.hot()) / upd, (double) del / tasks,
                    (double) a.dead() / tasks, a.bytes() / 1e6));
        }
        return lines;
    }
}
