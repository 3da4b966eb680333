package dev.statekit.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wake-ups through a table, for a database without notifications (MariaDB). A writing transaction
 * that may make work runnable inserts a row into {@code wakes}; the row becomes visible with the
 * transaction's commit, as a notification would be sent. A watcher reads the table's largest id
 * and its number of rows every {@value #POLL_MILLIS} ms on a daemon thread, with a connection
 * borrowed for the read, and wakes its runtimes when either changed: a row committed after a
 * larger one changes the count. Watchers keep the table short: one that counts more than
 * {@value #KEEP} rows deletes all but the newest. A deletion wakes the other watchers once, which
 * costs them one claim that may find nothing; a wake-up is never needed for correctness.
 */
public final class WakeTable implements Wakes {
    private static final Logger log = LoggerFactory.getLogger(WakeTable.class);
    /** How often a watcher reads the table. */
    static final long POLL_MILLIS = 50;
    /** How many rows the table keeps after a watcher trimmed it. */
    static final int KEEP = 256;
    private static final long MAX_BACKOFF_MILLIS = 30_000;
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final DataSource dataSource;
    private final String insert;
    private final String read;
    private final String trim;

    /** Creates the wake-ups of the table {@code table}, a validated name. */
    public WakeTable(DataSource dataSource, String table) {
        this.dataSource = dataSource;
        this.insert = "insert into " + table + " (at) values (current_timestamp(6))";
        this.read = "select coalesce(max(id), 0), count(*) from " + table;
        this.trim = "delete from " + table + " where id <= ?";
    }

    @Override
    public void notifyWaiters(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.executeUpdate(insert);
        }
    }

    @Override
    public AutoCloseable watch(Runnable wake) {
        Watcher w = new Watcher(wake);
        w.thread.start();
        return w;
    }

    private final class Watcher implements AutoCloseable {
        private final Runnable wake;
        private final CountDownLatch closed = new CountDownLatch(1);
        private final Thread thread;

        Watcher(Runnable wake) {
            this.wake = wake;
            this.thread = new Thread(this::run, "statekit-wakes-" + THREADS.incrementAndGet());
            thread.setDaemon(true);
        }

        private void run() {
            long lastMax = -1;
            long lastCount = -1;
            long backoff = POLL_MILLIS;
            while (closed.getCount() > 0) {
                try (Connection c = dataSource.getConnection()) {
                    if (!c.getAutoCommit()) c.setAutoCommit(true);
                    long max;
                    long count;
                    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(read)) {
                        rs.next();
                        max = rs.getLong(1);
                        count = rs.getLong(2);
                    }
                    // The first read after a start or a failure wakes too: nothing written meanwhile is missed.
                    if (max != lastMax || count != lastCount) wake.run();
                    if (count > 2L * KEEP) {
                        try (PreparedStatement ps = c.prepareStatement(trim)) {
                            ps.setLong(1, max - KEEP);
                            ps.executeUpdate();
                        }
                        count = -1;
                    }
                    lastMax = max;
                    lastCount = count;
                    backoff = POLL_MILLIS;
                } catch (SQLException | RuntimeException e) {
                    log.debug("reading the wake-ups failed; reading again in {} ms", backoff, e);
                    lastMax = -1;
                    backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
                }
                try {
                    if (closed.await(backoff, TimeUnit.MILLISECONDS)) return;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }

        @Override
        public void close() {
            closed.countDown();
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
