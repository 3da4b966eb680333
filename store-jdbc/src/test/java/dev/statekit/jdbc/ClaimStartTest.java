package dev.statekit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.jdbc.internal.ClaimCandidates;
import dev.statekit.jdbc.internal.ClaimHints;
import dev.statekit.jdbc.internal.JdbcContext;
import dev.statekit.jdbc.internal.Sql;
import dev.statekit.store.ApplyResult;
import dev.statekit.store.Attributes;
import dev.statekit.store.Change;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.Claimed;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.NewTask;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL's at-once claims read on from the last task claimed: while a transaction holds the
 * xmin horizon, a claim from that start passes none of the entries the claims before it left in
 * the claim index, which a claim from the queue's first entry reads one by one (and so for the
 * scans of expired leases, from their floor); and a task another process makes runnable behind the
 * start is still claimed.
 */
class ClaimStartTest {
    private static final Instant NOW = Instant.parse("2031-04-05T13:30:00Z");
    private static final ClaimRule START = new ClaimRule("READY", "START", "RUNNING");

    /** What a run of a claim statement read: its plan, and the claim index entries it read. */
    private record Read(String plan, long entries) {}

    /** Runs {@code sql} under EXPLAIN ANALYZE, rolled back; returns its plan and how many claim index entries it read. */
    private static Read analyzed(Connection c, String index, String sql, Object... params) throws Exception {
        c.setAutoCommit(false);
        long before = returned(c, index);
        try (PreparedStatement ps = c.prepareStatement("explain (analyze, costs off, timing off) " + sql)) {
            ClaimPlansTest.bind(c, ps, params);
            List<String> lines = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) lines.add(rs.getString(1));
            }
            return new Read(String.join("\n", lines).toLowerCase(Locale.ROOT), returned(c, index) - before);
        } finally {
            c.rollback();
            c.setAutoCommit(true);
        }
    }

    /** The entries the index scans of {@code index} returned, as this connection's statistics not yet reported count them. */
    private static long returned(Connection c, String index) throws Exception {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select pg_stat_get_xact_tuples_returned('" + index + "'::regclass)")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Opens a transaction on {@code holder} that takes a transaction id: from then on vacuum keeps every row version. */
    private static void holdXmin(Connection holder) throws Exception {
        holder.setAutoCommit(false);
        try (Statement s = holder.createStatement()) {
            s.execute("select txid_current()");
        }
    }

    @Test
    void whileTheXminIsHeldAClaimFromTheStartPassesNoneOfTheEntriesEarlierClaimsLeft() throws Exception {
        Databases.requirePostgres();
        try (Opened db = Opened.open(Dialect.POSTGRESQL); Connection c = db.pool().getConnection();
             Connection holder = db.pool().getConnection()) {
            String prefix = db.store().tablePrefix();
            String tasks = prefix + "tasks";
            db.store().setConcurrency("q", 0);      // a queue row without a limit: open
            try (Statement s = c.createStatement()) {
                ClaimPlansTest.insertReady(s, tasks, 2010);
            }
            holdXmin(holder);
            try (Statement s = c.createStatement()) {        // 2,000 tasks claimed, as claims would
                s.execute("update " + tasks + " set state = 'RUNNING', lease_owner = 'w', lease_token = id, version = 2"
                        + " where sequence <= 2000");
            }
            long next = db.queryLong("select id from {p}tasks where sequence = 2001");
            Sql sql = new Sql(Dialect.POSTGRESQL, prefix);

            String index = prefix + "tasks_claim_idx";
            Object[] runnable = {"job", "q", "READY", NOW};
            Read first = analyzed(c, index, sql.claimAtOnce(1, 10), ClaimPlansTest.atOnceParameters(runnable));
            Read from = analyzed(c, index, sql.claimAtOnceFrom(1, 10), ClaimPlansTest.atOnceParameters(runnable, 0, 2001, next));
            holder.rollback();

            assertThat(first.plan()).as(first.plan()).contains("rows=10 loops=1");
            assertThat(from.plan()).as(from.plan()).contains("rows=10 loops=1");
            assertThat(first.entries()).as("entries read from the first entry:\n%s", first.plan()).isGreaterThanOrEqualTo(2_010);
            assertThat(from.entries()).as("entries read from the start:\n%s", from.plan()).isLessThan(100);
        }
    }

    /**
     * The same for the candidates of a claim made side by side or the exclusive way (a limited queue,
     * several priorities, H2, MariaDB), read from the queue's start ({@code ClaimCandidates}).
     */
    @Test
    void whileTheXminIsHeldTheCandidatesOfALimitedQueueReadFromTheStartPassNoneOfTheEntriesEarlierClaimsLeft() throws Exception {
        Databases.requirePostgres();
        try (Opened db = Opened.open(Dialect.POSTGRESQL); Connection c = db.pool().getConnection();
             Connection holder = db.pool().getConnection()) {
            String prefix = db.store().tablePrefix();
            String tasks = prefix + "tasks";
            db.store().setConcurrency("q", 20);
            try (Statement s = c.createStatement()) {
                ClaimPlansTest.insertReady(s, tasks, 2010);
            }
            holdXmin(holder);
            try (Statement s = c.createStatement()) {        // 2,000 tasks claimed and finished, as claims would
                s.execute("update " + tasks + " set state = 'DONE', version = 3 where sequence <= 2000");
            }
            long next = db.queryLong("select id from {p}tasks where sequence = 2001");
            JdbcContext context = JdbcContext.of(db.pool(), Dialect.POSTGRESQL, prefix, 4096);
            ClaimRequest request = new ClaimRequest("job", "q", List.of(START), "w", NOW, Duration.ofSeconds(30), 10, 10);
            String index = prefix + "tasks_claim_idx";

            long[] read = new long[2];
            List<Long> tops = new ArrayList<>();
            ClaimHints.Key[] starts = {null, new ClaimHints.Key(0, 2001, next)};
            for (int i = 0; i < 2; i++) {
                c.setAutoCommit(false);
                try {
                    long before = returned(c, index);
                    ClaimCandidates candidates = new ClaimCandidates(c, request, context, 10, true, starts[i]);
                    TaskRecord top = candidates.top();
                    tops.add(top == null ? null : top.id());
                    read[i] = returned(c, index) - before;
                } finally {
                    c.rollback();
                    c.setAutoCommit(true);
                }
            }
            holder.rollback();

            assertThat(tops).as("the first runnable task, read either way").containsExactly(next, next);
            assertThat(read[0]).as("entries read from the first entry").isGreaterThanOrEqualTo(2_010);
            assertThat(read[1]).as("entries read from the start").isLessThan(100);
        }
    }

    /** The same for the scan of expired leases, from the floor the store keeps ({@code LeaseFloors}). */
    @Test
    void whileTheXminIsHeldAScanOfExpiredLeasesFromTheFloorPassesNoneOfTheEntriesFinishedTasksLeft() throws Exception {
        Databases.requirePostgres();
        try (Opened db = Opened.open(Dialect.POSTGRESQL); Connection c = db.pool().getConnection();
             Connection holder = db.pool().getConnection()) {
            String prefix = db.store().tablePrefix();
            String tasks = prefix + "tasks";
            try (Statement s = c.createStatement()) {       // leased tasks, their leases expiring a millisecond apart
                s.execute("insert into " + tasks + " (machine, machine_version, state, queue, priority, sequence, attempts, retries,"
                        + " lease_owner, lease_token, lease_expires_at, attributes, created_at, updated_at, version, cancel_requested)"
                        + " select 'job', 1, 'RUNNING', 'q', 0, g, 1, 0, 'w', g, timestamptz '2031-04-05 13:00:00+00' + g * interval '1 ms',"
                        + " '{}', now(), now(), 1, false from generate_series(1, 2010) g");
                s.execute("analyze " + tasks);
            }
            holdXmin(holder);
            try (Statement s = c.createStatement()) {        // 2,000 of them finished
                s.execute("update " + tasks + " set state = 'DONE', lease_owner = null, lease_token = null, lease_expires_at = null,"
                        + " version = 2 where sequence <= 2000");
            }
            Sql sql = new Sql(Dialect.POSTGRESQL, prefix);
            String index = prefix + "tasks_lease_idx";
            Instant floor = Instant.parse("2031-04-05T13:00:02Z");       // the 2,000th expiry
            Read all = analyzed(c, index, sql.expiredOf(1), NOW, "job", 100);
            Read from = analyzed(c, index, sql.expiredOfFrom(1), NOW, floor, "job", 100);
            holder.rollback();

            assertThat(all.plan()).as(all.plan()).contains("rows=10 loops=1");
            assertThat(from.plan()).as(from.plan()).contains("rows=10 loops=1");
            assertThat(all.entries()).as("entries read from the earliest expiry:\n%s", all.plan()).isGreaterThanOrEqualTo(2_010);
            assertThat(from.entries()).as("entries read from the floor:\n%s", from.plan()).isLessThan(100);
        }
    }

    @Test
    void aTaskAnotherProcessPutsBackBehindTheStartIsStillClaimed() throws Exception {
        Databases.requirePostgres();
        try (Opened db = Opened.open(Dialect.POSTGRESQL)) {
            JdbcStore here = db.store();
            JdbcStore there = db.twin();
            here.setConcurrency("q", 0);
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                ids.add(here.create(new NewTask("job", 1, "READY", "q", 0, null, Attributes.EMPTY, null, null, null, NOW)).task().id());
            }
            assertThat(claim(here, 3)).containsExactlyElementsOf(ids.subList(0, 3));
            assertThat(claim(here, 1)).containsExactly(ids.get(3));

            // The other process gives the first task back, at the front of the queue: behind where this store's claims read on.
            TaskRecord first = there.find(ids.get(0)).orElseThrow();
            Instant at = first.updatedAt().plusSeconds(1);
            TaskRecord back = first.toBuilder().state("READY").lease(null).sequence(there.nextSequence(true))
                    .updatedAt(at).version(first.version() + 1).build();
            HistoryEntry entry = new HistoryEntry(first.id(), back.version(), "RUNNING", "READY", "RELEASE", TriggerSource.SYSTEM,
                    "other", null, at, null);
            assertThat(there.apply(new Change(first.version(), back, entry))).isEqualTo(ApplyResult.APPLIED);

            List<Long> taken = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!taken.contains(ids.get(0)) && System.nanoTime() < deadline) {
                List<Long> got = claim(here, 1);
                taken.addAll(got);
                if (got.isEmpty()) Thread.onSpinWait();
            }
            assertThat(taken).as("claimed after the give-back").contains(ids.get(0));
            assertThat(ids.subList(4, 6)).as("the queue's other tasks").containsAll(taken.subList(0, taken.size() - 1));
        }
    }

    /**
     * The at-once claim locks its tasks, then the queue's row; an exclusive claim or a pause holds
     * the queue's row, then writes tasks. When the row is held for update, the at-once claim does
     * not wait for it (a wait that could close a deadlock): it lets its tasks go and the claim is
     * made side by side, which waits for the row first.
     */
    @Test
    void anAtOnceClaimDoesNotWaitForAQueueRowHeldForUpdateWhileItHoldsItsTasks() throws Exception {
        Databases.requirePostgres();
        try (Opened db = Opened.open(Dialect.POSTGRESQL); Connection x = db.pool().getConnection()) {
            JdbcStore store = db.store();
            store.setConcurrency("q", 0);
            long id = store.create(new NewTask("job", 1, "READY", "q", 0, null, Attributes.EMPTY, null, null, null, NOW)).task().id();
            String prefix = store.tablePrefix();
            x.setAutoCommit(false);
            try (Statement s = x.createStatement()) {
                s.execute("set lock_timeout = '10s'");
                s.execute("select * from " + prefix + "queues where name = 'q' for update");
            }
            java.util.concurrent.CompletableFuture<List<Long>> claimed =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> claim(store, 1));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (db.queryLong("select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
                    + " and query like '%" + prefix + "queues%' and pid <> pg_backend_pid()") == 0) {
                assertThat(System.nanoTime()).as("the claim waits for the queue's row").isLessThan(deadline);
                Thread.onSpinWait();
            }
            try (Statement s = x.createStatement()) {        // the holder of the row now writes the task
                assertThat(s.executeUpdate("update " + prefix + "tasks set updated_at = updated_at where id = " + id)).isEqualTo(1);
            }
            x.commit();
            assertThat(claimed.get(20, java.util.concurrent.TimeUnit.SECONDS)).containsExactly(id);
        }
    }

    private static List<Long> claim(JdbcStore store, int max) {
        List<Long> ids = new ArrayList<>();
        for (Claimed t : store.claim(new ClaimRequest("job", "q", List.of(START), "here", NOW, Duration.ofMinutes(5), max, 0))) {
            ids.add(t.task().id());
        }
        return ids;
    }
}
