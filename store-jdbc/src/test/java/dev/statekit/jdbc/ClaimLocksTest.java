package dev.statekit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.Attributes;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.Claimed;
import dev.statekit.store.NewTask;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL: which locks a claim takes on the queue's control row. Claims of a queue without a
 * limit share it with each other, so that processes claim side by side; a change of the queue
 * (pausing, a limit) takes it exclusively and so waits for the claims under way, and they for it;
 * a claim on an idle queue takes no lock at all.
 */
class ClaimLocksTest {
    private static final Instant T0 = Instant.parse("2031-04-05T13:30:00Z");
    private static final String QUEUE = "q";

    private static ClaimRequest claim(String owner) {
        return new ClaimRequest("job", QUEUE, List.of(new ClaimRule("READY", "START", "RUNNING")), owner, T0.plusSeconds(1),
                Duration.ofMinutes(1), 10, 3);
    }

    private static long create(JdbcStore store) {
        return store.create(new NewTask("job", 1, "READY", QUEUE, 0, null, Attributes.EMPTY, null, null, null, T0)).task().id();
    }

    /** Holds a lock on the queue's row in a transaction of its own until closed. */
    private static final class QueueRowLock implements AutoCloseable {
        private final Connection c;
        final int pid;

        QueueRowLock(Opened db, String mode) throws SQLException {
            c = db.pool().getConnection();
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("select name from " + db.store().tablePrefix() + "queues where name = ? for " + mode)) {
                ps.setString(1, QUEUE);
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).as("the queue's row").isTrue();
                }
            }
            try (PreparedStatement ps = c.prepareStatement("select pg_backend_pid()"); ResultSet rs = ps.executeQuery()) {
                rs.next();
                pid = rs.getInt(1);
            }
        }

        @Override
        public void close() throws SQLException {
            c.rollback();
            c.close();
        }
    }

    private static List<Long> ids(List<Claimed> claimed) {
        return claimed.stream().map(t -> t.task().id()).toList();
    }

    @Test
    void aClaimOnAnIdleQueueTakesNoLock() throws Exception {
        Databases.requirePostgres();
        try (Opened db = Opened.open(Dialect.POSTGRESQL)) {
            JdbcStore store = db.store();
            store.setConcurrency(QUEUE, 0);                   // the queue's row exists
            QueueRowLock pausing = new QueueRowLock(db, "update");
            try {
                // Waiting for the lock would never end while it is held: the claim must return without it.
                CompletableFuture<List<Claimed>> idle = CompletableFuture.supplyAsync(() -> store.claim(claim("a")));
                assertThat(idle.get(60, TimeUnit.SECONDS)).isEmpty();
            } finally {
                pausing.close();
            }
        }
    }

    @Test
    void claimsOfAQueueWithoutLimitShareItsRow() throws Exception {
        Databases.requirePostgres();
        try (Opened db = Opened.open(Dialect.POSTGRESQL)) {
            JdbcStore store = db.store();
            store.setConcurrency(QUEUE, 0);
            long task = create(store);
            QueueRowLock otherClaim = new QueueRowLock(db, "share");
            try {
                CompletableFuture<List<Claimed>> claimed = CompletableFuture.supplyAsync(() -> store.claim(claim("a")));
                assertThat(ids(claimed.get(60, TimeUnit.SECONDS))).containsExactly(task);
            } finally {
                otherClaim.close();
            }
        }
    }

    @Test
    void aClaimWaitsForAChangeOfTheQueueUnderWay() throws Exception {
        Databases.requirePostgres();
        try (Opened db = Opened.open(Dialect.POSTGRESQL)) {
            JdbcStore store = db.store();
            store.setConcurrency(QUEUE, 0);
            long task = create(store);
            CompletableFuture<List<Claimed>> claimed;
            try (QueueRowLock pausing = new QueueRowLock(db, "update")) {
                claimed = CompletableFuture.supplyAsync(() -> store.claim(claim("a")));
                awaitWaitingForLock(db, pausing.pid);
                assertThat(claimed).isNotDone();
            }
            assertThat(ids(claimed.get(60, TimeUnit.SECONDS))).containsExactly(task);
        }
    }

    @Test
    void aClaimThatFindsPausedQueueTakesNothing() throws Exception {
        Databases.requirePostgres();
        try (Opened db = Opened.open(Dialect.POSTGRESQL)) {
            JdbcStore store = db.store();
            long task = create(store);
            store.pauseQueue(QUEUE, "maintenance");
            assertThat(store.claim(claim("a"))).isEmpty();
            store.resumeQueue(QUEUE);
            assertThat(ids(store.claim(claim("a")))).containsExactly(task);
        }
    }

    /** Waits, up to a minute, until some session waits for a lock that the session {@code holder} holds. */
    private static void awaitWaitingForLock(Opened db, int holder) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (db.queryLong("select count(*) from pg_stat_activity where ? = any(pg_blocking_pids(pid))", holder) == 0) {
            assertThat(System.nanoTime()).as("a claim waiting for the queue's row").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }
}
