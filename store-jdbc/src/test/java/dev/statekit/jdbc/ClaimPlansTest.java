package dev.statekit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.jdbc.internal.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL reads a queue's first runnable task through the claim index, however many finished
 * tasks the table holds: the idle probe and the at-once claim's probe and lower-priority check are
 * planned as index scans, not as scans of the table that pass every finished row (whose cost would
 * grow with the table). The table here has 50,000 finished tasks before its few runnable ones, and
 * fresh statistics, so that a bare {@code limit 1} would be planned as a scan of the table.
 */
class ClaimPlansTest {
    private static final Instant NOW = Instant.parse("2031-04-05T13:30:00Z");

    /** Binds {@code params} in order: text arrays, instants as timestamps, anything else as itself. */
    static void bind(Connection c, PreparedStatement ps, Object... params) throws Exception {
        for (int i = 0; i < params.length; i++) {
            Object p = params[i];
            if (p instanceof String[] array) ps.setArray(i + 1, c.createArrayOf("text", array));
            else if (p instanceof Instant at) ps.setTimestamp(i + 1, Timestamp.from(at));
            else ps.setObject(i + 1, p);
        }
    }

    /** Inserts {@code count} runnable tasks of queue q (READY, priority 0, sequences 1 to count) and analyzes the table. */
    static void insertReady(Statement s, String tasks, int count) throws Exception {
        s.execute("insert into " + tasks + " (machine, machine_version, state, queue, priority, sequence, attempts, retries,"
                + " attributes, created_at, updated_at, version, cancel_requested) select 'job', 1, 'READY', 'q', 0, g, 0, 0,"
                + " '{}', now(), now(), 1, false from generate_series(1, " + count + ") g");
        s.execute("analyze " + tasks);
    }

    private static String plan(Connection c, String sql, Object... params) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("explain " + sql)) {
            bind(c, ps, params);
            List<String> lines = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) lines.add(rs.getString(1));
            }
            return String.join("\n", lines).toLowerCase(Locale.ROOT);
        }
    }

    /**
     * The parameters of {@link Sql#claimAtOnce} for one claim rule READY -START-> RUNNING of queue q,
     * in the order it binds them; with a start (priority, sequence, id), those of
     * {@link Sql#claimAtOnceFrom}.
     */
    static Object[] atOnceParameters(Object[] runnable, long... start) {
        List<Object> params = new ArrayList<>(List.of("q", new String[] {"READY"}, new String[] {"START"}, new String[] {"RUNNING"}));
        params.addAll(List.of(runnable));      // the claim
        if (start.length > 0) {                // from the start, then the lower priorities
            params.addAll(List.of((int) start[0], start[1], start[2]));
            params.addAll(List.of(runnable));
            params.add((int) start[0]);
        }
        params.add("q");                       // the queue's row, locked
        params.addAll(List.of(runnable));      // whether any is runnable, when the queue is not open
        params.addAll(List.of(runnable));      // whether any of a lower priority is
        params.addAll(List.of("owner", NOW.plusSeconds(60), NOW, "SYSTEM", "owner", "claim"));
        return params.toArray();
    }

    @Test
    void theFirstRunnableTaskIsReadThroughTheClaimIndex() throws Exception {
        Databases.requirePostgres();
        try (Opened db = Opened.open(Dialect.POSTGRESQL); Connection c = db.pool().getConnection()) {
            String prefix = db.store().tablePrefix();
            String tasks = prefix + "tasks";
            try (Statement s = c.createStatement()) {
                String insert = "insert into " + tasks + " (machine, machine_version, state, queue, priority, sequence, attempts, retries,"
                        + " attributes, created_at, updated_at, version, cancel_requested) select 'job', 1, '%s', 'q', 0, g, 1, 0,"
                        + " '{}', now(), now(), 2, false from generate_series(%d, %d) g";
                s.execute(String.format(insert, "DONE", 1, 50_000));
                s.execute(String.format(insert, "READY", 50_001, 50_050));
                s.execute("analyze " + tasks);
            }
            Sql sql = new Sql(Dialect.POSTGRESQL, prefix);
            Object[] runnable = {"job", "q", "READY", NOW};
            String probe = plan(c, sql.anyRunnable(1), runnable);
            assertThat(probe).as("the idle probe").contains(prefix + "tasks_claim_idx").doesNotContain("seq scan on " + tasks);

            String atOnce = plan(c, sql.claimAtOnce(1, 100), atOnceParameters(runnable));
            assertThat(atOnce).as("the at-once claim").contains(prefix + "tasks_claim_idx").doesNotContain("seq scan on " + tasks);
        }
    }

    /**
     * The at-once claim of an open queue reads the runnable range from its start once, for the
     * claim itself: whether any task is runnable is then known from what the claim found. (While a
     * transaction holds the xmin horizon, every such read passes the index entries of every task
     * claimed since.) The read of a lower priority starts past the claim's priority.
     */
    @Test
    void anOpenQueuesClaimReadsTheRunnableRangeFromItsStartOnce() throws Exception {
        Databases.requirePostgres();
        try (Opened db = Opened.open(Dialect.POSTGRESQL); Connection c = db.pool().getConnection()) {
            String prefix = db.store().tablePrefix();
            String tasks = prefix + "tasks";
            db.store().setConcurrency("q", 0);      // a queue row without a limit: open
            try (Statement s = c.createStatement()) {
                insertReady(s, tasks, 50);
            }
            Sql sql = new Sql(Dialect.POSTGRESQL, prefix);
            Object[] runnable = {"job", "q", "READY", NOW};
            c.setAutoCommit(false);
            String analyzed = plan(c, "(analyze, costs off, timing off) " + sql.claimAtOnce(1, 10), atOnceParameters(runnable));
            c.rollback();
            List<String> scans = analyzed.lines().filter(l -> l.contains("scan") && l.contains(prefix + "tasks_claim_idx")).toList();
            assertThat(scans).as(analyzed).hasSize(3);
            assertThat(scans.stream().filter(l -> l.contains("never executed"))).as(analyzed).hasSize(1);
            assertThat(analyzed).contains("rows=10 loops=1");
        }
    }
}
