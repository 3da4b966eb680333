package dev.statekit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.Attributes;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.Claimed;
import dev.statekit.store.NewTask;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The concurrency limit on H2 when the count of a queue's leases is read while a claim commits.
 * H2 hands a session the result of its last run of a query again when the parameters are the same
 * and no table the query reads was written since. A commit marks its tables written just before
 * its changes become visible: a count read in between misses them, and was handed out again to
 * the next claim on that connection, which then claimed over the limit.
 *
 * <p>Each of {@value #ROUNDS} rounds fills a queue of its own with {@value #TASKS} tasks and limits
 * it to {@value #LIMIT}. {@value #CLAIMERS} threads claim from it, up to the limit at a time, while
 * {@value #READERS} threads count its leases (as the store contract does after each claim) on the
 * same pool and {@value #BUSY} more keep the processors busy, so that threads are often switched in
 * the middle of a commit. Nothing is released: a claim over the limit stays for the check at the end
 * of the round, which counts the leases in a session of its own, with no earlier result to hand
 * out. The claims and the counts of a round that failed are printed. (Before the count was read
 * afresh, about one round in five ended with twice the limit.)
 */
class H2LeaseCountTest {
    static final int ROUNDS = 100;
    static final int TASKS = 8;
    static final int LIMIT = 3;
    static final int CLAIMERS = 3;
    static final int READERS = 4;
    static final int BUSY = 2;
    static final int CLAIMS_PER_CLAIMER = 10;
    static final Instant T0 = Instant.parse("2031-04-05T13:30:00.123456Z");
    static final ClaimRule START = new ClaimRule("READY", "START", "RUNNING");
    /** Where the busy threads leave their sums, so that their loops are not optimized away. */
    static volatile long sink;

    @Test
    void aQueueNeverHasMoreLeasesThanItsLimitWhenItsLeasesAreCountedDuringClaims() throws Exception {
        String url = "jdbc:h2:file:" + Databases.buildDir().resolve("h2").resolve(Databases.uniquePrefix("count"));
        Properties sa = new Properties();
        sa.setProperty("user", "sa");
        sa.setProperty("password", "");
        String prefix = Databases.uniquePrefix("count");
        AtomicBoolean done = new AtomicBoolean();
        List<Thread> busy = new ArrayList<>();
        for (int i = 0; i < BUSY; i++) {
            Thread t = new Thread(() -> {
                long x = 0;
                while (!done.get()) x += Long.numberOfTrailingZeros(System.nanoTime());
                sink = x;
            }, "busy-" + i);
            t.setDaemon(true);
            busy.add(t);
            t.start();
        }
        List<String> failed = new ArrayList<>();
        try (TestPool pool = new TestPool(url, sa, CLAIMERS + READERS + 1)) {
            JdbcStore store = JdbcStore.builder(pool).tablePrefix(prefix).createSchemaIfMissing(true).build();
            for (int round = 0; round < ROUNDS; round++) {
                String queue = "work-" + round;
                for (int i = 0; i < TASKS; i++) {
                    assertThat(store.create(new NewTask("job", 1, "READY", queue, 0, null, Attributes.EMPTY, null, null, null, T0,
                            List.of())).created()).isTrue();
                }
                store.setConcurrency(queue, LIMIT);
                ConcurrentLinkedQueue<String> log = new ConcurrentLinkedQueue<>();
                AtomicLong seq = new AtomicLong();
                AtomicBoolean claimed = new AtomicBoolean();
                runThreads(CLAIMERS + READERS, thread -> {
                    if (thread < CLAIMERS) {
                        String owner = "claimer-" + thread;
                        for (int i = 0; i < CLAIMS_PER_CLAIMER; i++) {
                            List<Long> ids = ids(store.claim(new ClaimRequest("job", queue, List.of(START), owner, T0,
                                    Duration.ofMinutes(5), LIMIT, 0)));
                            if (!ids.isEmpty()) log.add(seq.incrementAndGet() + " " + owner + " claimed " + ids);
                        }
                        claimed.set(true);
                    } else {
                        int last = -1;
                        while (!claimed.get()) {
                            int leased = store.leased(queue);
                            if (leased != last) log.add(seq.incrementAndGet() + " reader-" + thread + " counted " + leased + " leases");
                            last = leased;
                        }
                    }
                });
                int leases = trueCount(url, sa, prefix, queue);
                if (leases != LIMIT) {
                    failed.add(queue + ": " + leases + " leases");
                    System.out.printf(Locale.ROOT, "%s: %d tasks hold a lease, limit %d; its claims:%n", queue, leases, LIMIT);
                    for (String line : log) System.out.println("  " + line);
                }
            }
        } finally {
            done.set(true);
            for (Thread t : busy) t.join(TimeUnit.SECONDS.toMillis(10));
        }
        System.out.printf(Locale.ROOT, "%d rounds, %d with a number of leases other than the limit%n", ROUNDS, failed.size());
        assertThat(failed).as("queues whose leases are not %d", LIMIT).isEmpty();
    }

    /** The body of one claimer thread. */
    private interface Claimer {
        void run(int thread) throws Exception;
    }

    private static void runThreads(int count, Claimer body) throws Exception {
        CyclicBarrier start = new CyclicBarrier(count);
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int thread = i;
            Thread t = new Thread(() -> {
                try {
                    start.await(30, TimeUnit.SECONDS);
                    body.run(thread);
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "claims-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (Thread t : threads) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            assertThat(t.isAlive()).as("%s still running after 60 s", t.getName()).isFalse();
        }
        Throwable first = failures.poll();
        if (first != null) throw new AssertionError("a claimer failed: " + first, first);
    }

    private static List<Long> ids(List<Claimed> claimed) {
        List<Long> ids = new ArrayList<>();
        for (Claimed c : claimed) ids.add(c.task().id());
        return ids;
    }

    /** The leases of {@code queue}, counted by a session of its own: it has no earlier result to hand out. */
    private static int trueCount(String url, Properties sa, String prefix, String queue) throws SQLException {
        try (Connection fresh = DriverManager.getConnection(url, sa);
             PreparedStatement ps = fresh.prepareStatement("select count(*) from " + prefix + "tasks where queue = ? and lease_token is not null")) {
            ps.setString(1, queue);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
}
