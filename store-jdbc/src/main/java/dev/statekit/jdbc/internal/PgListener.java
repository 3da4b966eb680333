package dev.statekit.jdbc.internal;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listens on a PostgreSQL notification channel on a dedicated connection, in a daemon thread, and
 * calls a wake-up action for every batch of notifications.
 *
 * <p>The driver stays off the compile classpath: notifications are read through the driver's
 * {@code org.postgresql.PGConnection.getNotifications(int)}, found by reflection on the unwrapped
 * connection. The thread waits inside that call (up to {@value #WAIT_MILLIS} ms at a time), so
 * it costs no queries while idle. When the connection fails it reconnects with a capped backoff,
 * and wakes once after every (re)connection so that nothing sent in between is missed.
 */
public final class PgListener implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PgListener.class);
    private static final int WAIT_MILLIS = 500;
    private static final long MAX_BACKOFF_MILLIS = 30_000;
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final DataSource dataSource;
    private final String channel;
    private final Runnable wake;
    private final CountDownLatch closed = new CountDownLatch(1);
    private final CountDownLatch listening = new CountDownLatch(1);
    private final Thread thread;

    /**
     * Starts listening.
     *
     * @param dataSource where the dedicated connection comes from
     * @param channel    the channel, a validated lower-case identifier
     * @param wake       called after notifications arrive
     */
    public PgListener(DataSource dataSource, String channel, Runnable wake) {
        this.dataSource = dataSource;
        this.channel = channel;
        this.wake = wake;
        this.thread = new Thread(this::run, "statekit-listen-" + channel + "-" + THREADS.incrementAndGet());
        thread.setDaemon(true);
        thread.start();
    }

    /** Waits until the listener has subscribed once, at most {@code millis}; returns whether it has. */
    public boolean awaitListening(long millis) throws InterruptedException {
        return listening.await(millis, TimeUnit.MILLISECONDS);
    }

    private void run() {
        long backoff = 500;
        while (closed.getCount() > 0) {
            try (Connection c = dataSource.getConnection()) {
                if (!c.getAutoCommit()) c.setAutoCommit(true);
                Method getNotifications;
                Object pg;
                Class<?> type = pgConnectionType(c);
                if (type == null) {
                    log.warn("cannot listen on channel {}: the connection does not expose org.postgresql.PGConnection;"
                            + " runtimes poll instead", channel);
                    return;
                }
                pg = c.unwrap(type);
                getNotifications = type.getMethod("getNotifications", int.class);
                try (Statement s = c.createStatement()) {
                    s.execute("listen " + channel);
                }
                log.debug("listening on channel {}", channel);
                listening.countDown();
                backoff = 500;
                wake();                                   // whatever was sent while not listening
                while (closed.getCount() > 0) {
                    Object[] batch = (Object[]) getNotifications.invoke(pg, WAIT_MILLIS);
                    if (batch != null && batch.length > 0 && closed.getCount() > 0) wake();
                }
            } catch (SQLException | ReflectiveOperationException | RuntimeException e) {
                if (closed.getCount() == 0) return;
                Throwable cause = e instanceof InvocationTargetException ite && ite.getCause() != null ? ite.getCause() : e;
                log.warn("listening on channel {} failed, reconnecting in {} ms: {}", channel, backoff, cause.toString());
                try {
                    if (closed.await(backoff, TimeUnit.MILLISECONDS)) return;
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
                backoff = Math.min(backoff * 2, MAX_BACKOFF_MILLIS);
            }
        }
    }

    private void wake() {
        try {
            wake.run();
        } catch (RuntimeException e) {
            log.warn("a wake-up action of channel {} failed", channel, e);
        }
    }

    private static @Nullable Class<?> pgConnectionType(Connection c) throws SQLException {
        ClassLoader[] loaders = {c.getClass().getClassLoader(), Thread.currentThread().getContextClassLoader(),
                PgListener.class.getClassLoader()};
        for (ClassLoader loader : loaders) {
            if (loader == null) continue;
            try {
                Class<?> type = Class.forName("org.postgresql.PGConnection", false, loader);
                if (c.isWrapperFor(type)) return type;
            } catch (ClassNotFoundException ignored) {
                // try the next loader
            }
        }
        return null;
    }

    /** Stops listening; the thread closes its connection within {@value #WAIT_MILLIS} ms. */
    @Override
    public void close() {
        closed.countDown();
    }
}
