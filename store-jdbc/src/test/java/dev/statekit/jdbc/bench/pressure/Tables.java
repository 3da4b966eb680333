package dev.statekit.jdbc.bench.pressure;

import dev.statekit.jdbc.bench.Bench;

import dev.statekit.jdbc.TestPool;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;

/** What the benchmark reads from statekit's tables of one prefix and from PostgreSQL's statistics about them. */
final class Tables {
    /** Dead tuples and total size (with indexes and TOAST) of one table. */
    record Stat(long deadTuples, long bytes) {}

    /** Counts of the history that tell of a task run twice. */
    record Twice(long doneTwice, long completedByAnother, long startedAgain) {
        long total() {
            return doneTwice + completedByAnother;
        }
    }

    private final TestPool side;
    final String prefix;

    Tables(TestPool side, String prefix) {
        this.side = side;
        this.prefix = prefix;
    }

    /** Per table of the prefix (named without it): dead tuples and size, from pg_stat_user_tables. */
    Map<String, Stat> stats() throws SQLException {
        Map<String, Stat> out = new TreeMap<>();
        try (Connection c = side.getConnection(); PreparedStatement s = c.prepareStatement(
                "select relname, n_dead_tup, pg_total_relation_size(relid) from pg_stat_user_tables where starts_with(relname, ?)")) {
            s.setString(1, prefix);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) out.put(rs.getString(1).substring(prefix.length()), new Stat(rs.getLong(2), rs.getLong(3)));
            }
        }
        return out;
    }

    /** Tasks not done: queued ones (read through the claim index) and leased ones (through the lease index). */
    long notDone() throws SQLException {
        return count("select (select count(*) from " + prefix + "tasks where machine = '" + Bench.NOOP.name()
                + "' and state = 'QUEUED' and lease_token is null) + (select count(*) from " + prefix
                + "tasks where lease_token is not null)");
    }

    /** Queued tasks nobody holds. */
    long queued() throws SQLException {
        return count("select count(*) from " + prefix + "tasks where machine = '" + Bench.NOOP.name()
                + "' and state = 'QUEUED' and lease_token is null");
    }

    /** Every task not in DONE (a full scan). */
    long notDoneScan() throws SQLException {
        return count("select count(*) from " + prefix + "tasks where state <> 'DONE'");
    }

    long rows() throws SQLException {
        return count("select count(*) from " + prefix + "tasks");
    }

    /** Ids of the tasks {@code owner} holds a lease on. */
    long[] leasedBy(String owner) throws SQLException {
        try (Connection c = side.getConnection(); PreparedStatement s = c.prepareStatement(
                "select id from " + prefix + "tasks where lease_owner = ?")) {
            s.setString(1, owner);
            try (ResultSet rs = s.executeQuery()) {
                java.util.List<Long> ids = new java.util.ArrayList<>();
                while (rs.next()) ids.add(rs.getLong(1));
                return ids.stream().mapToLong(Long::longValue).toArray();
            }
        }
    }

    /** How many of {@code ids} are done. */
    long doneOf(long[] ids) throws SQLException {
        if (ids.length == 0) return 0;
        try (Connection c = side.getConnection(); PreparedStatement s = c.prepareStatement(
                "select count(*) from " + prefix + "tasks where state = 'DONE' and id = any(?)")) {
            Long[] boxed = new Long[ids.length];
            for (int i = 0; i < ids.length; i++) boxed[i] = ids[i];
            s.setArray(1, c.createArrayOf("bigint", boxed));
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /**
     * From the history: tasks with more than one entry into DONE; tasks completed by another actor
     * than the one whose claim the completion follows (a completion written while another process
     * held the lease); and tasks started more than once (each start after a release: at-least-once
     * re-runs, as after a killed process's leases expired).
     */
    Twice twice() throws SQLException {
        String h = prefix + "history";
        long doneTwice = count("select count(*) from (select task_id from " + h
                + " where to_state = 'DONE' group by task_id having count(*) > 1) x");
        long another = count("select count(*) from (select to_state, actor, lag(to_state) over w as prev_state,"
                + " lag(actor) over w as prev_actor from " + h + " window w as (partition by task_id order by version)) x"
                + " where to_state = 'DONE' and prev_state = 'RUNNING' and prev_actor is distinct from actor");
        long again = count("select count(*) from (select task_id from " + h
                + " where to_state = 'RUNNING' group by task_id having count(*) > 1) x");
        return new Twice(doneTwice, another, again);
    }

    private long count(String sql) throws SQLException {
        try (Connection c = side.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Drops every table and sequence of the prefix. */
    void drop() throws SQLException {
        try (Connection c = side.getConnection(); Statement s = c.createStatement()) {
            java.util.List<String> tables = new java.util.ArrayList<>();
            java.util.List<String> sequences = new java.util.ArrayList<>();
            try (PreparedStatement q = c.prepareStatement("select relname, relkind from pg_class where starts_with(relname, ?)"
                    + " and relkind in ('r', 'S') and relnamespace = 'public'::regnamespace")) {
                q.setString(1, prefix);
                try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) (rs.getString(2).equals("r") ? tables : sequences).add(rs.getString(1));
                }
            }
            for (String t : tables) s.execute("drop table if exists " + t + " cascade");
            for (String q : sequences) s.execute("drop sequence if exists " + q);
        }
    }
}
