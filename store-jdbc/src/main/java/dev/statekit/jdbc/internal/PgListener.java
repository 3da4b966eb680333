package dev.statekit.jdbc.internal;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.SocketTimeoutException;
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
 * connection. The thread waits for the server's next message (up to {@value #WAIT_MILLIS} ms at a
 * time), so it costs no queries while idle. When the connection fails it reconnects with a capped
 * backoff, and wakes once after every (re)connection so that nothing sent in between is missed.
 *
 * <p>The driver's {@code getNotifications}, having read a notification, waits another millisecond
 * on the socket for more before it returns. So where the driver lets it, the thread waits for the
 * first byte of the next message itself ({@link Arrival}), wakes, and only then has the driver read
 * the messages; it wakes once more when they were several, since the later ones may have come after
 * the wake-up. Elsewhere it waits inside {@code getNotifications}.
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
    private volatile boolean waitsItself;

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

    /**
     * Returns whether the listener, once listening, waits for the server's messages itself rather
     * than inside the driver's {@code getNotifications} (see the class comment).
     */
    public boolean waitsForMessagesItself() {
        return waitsItself;
    }

    /** Waits until the listener's thread has ended after {@link #close()}, at most {@code millis}; returns whether it has. */
    public boolean awaitClosed(long millis) throws InterruptedException {
        thread.join(millis);
        return !thread.isAlive();
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
                Arrival arrival = Arrival.of(pg);
                waitsItself = arrival != null;
                log.debug("listening on channel {}{}", channel, arrival == null ? " (inside the driver's wait)" : "");
                listening.countDown();
                backoff = 500;
                wake();                                   // whatever was sent while not listening
                if (arrival == null) listenInsideTheDriver(pg, getNotifications);
                else listenItself(c, pg, getNotifications, arrival);
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

    /** Waits inside the driver's {@code getNotifications}, and wakes after each batch, until closed. */
    private void listenInsideTheDriver(Object pg, Method getNotifications) throws ReflectiveOperationException {
        while (closed.getCount() > 0) {
            Object[] batch = (Object[]) getNotifications.invoke(pg, WAIT_MILLIS);
            if (batch != null && batch.length > 0 && closed.getCount() > 0) wake();
        }
    }

    /**
     * Waits for each message itself and wakes before the driver reads it, until closed; the
     * connection's network timeout is the wait meanwhile, and as lent again afterwards.
     */
    private void listenItself(Connection c, Object pg, Method getNotifications, Arrival arrival)
            throws SQLException, ReflectiveOperationException {
        int timeout = c.getNetworkTimeout();
        c.setNetworkTimeout(Runnable::run, WAIT_MILLIS);
        try {
            while (closed.getCount() > 0) {
                if (!arrival.await() || closed.getCount() == 0) continue;
                wake();
                Object[] batch = (Object[]) getNotifications.invoke(pg, -1);
                if (batch != null && batch.length > 1 && closed.getCount() > 0) wake();
            }
        } finally {
            c.setNetworkTimeout(Runnable::run, timeout);    // the pool gets its connection back as lent
        }
    }

    private void wake() {
        try {
            wake.run();
        } catch (RuntimeException e) {
            log.warn("a wake-up action of channel {} failed", channel, e);
        }
    }

    /**
     * Waits for the first byte of the server's next message on the listening connection, through
     * the driver's stream ({@code QueryExecutorBase.pgStream}, {@code PGStream.peekChar()}): the byte
     * stays in the driver's buffer for it to read. The socket's timeout is the connection's network
     * timeout, which the listener sets.
     */
    private record Arrival(Object stream, Method peek) {
        /** Returns the way to wait for the next message of {@code pg}, or null where the driver differs. */
        static @Nullable Arrival of(Object pg) {
            try {
                Object executor = pg.getClass().getMethod("getQueryExecutor").invoke(pg);
                for (Class<?> k = executor.getClass(); k != null; k = k.getSuperclass()) {
                    Field field;
                    try {
                        field = k.getDeclaredField("pgStream");
                    } catch (NoSuchFieldException e) {
                        continue;
                    }
                    field.setAccessible(true);
                    Object stream = field.get(executor);
                    return stream == null ? null : new Arrival(stream, stream.getClass().getMethod("peekChar"));
                }
                return null;
            } catch (ReflectiveOperationException | RuntimeException e) {
                log.debug("waiting inside the driver for notifications: {}", e.toString());
                return null;
            }
        }

        /** Returns whether a message has begun to arrive; false when the socket's timeout passed first. */
        boolean await() throws SQLException {
            try {
                peek.invoke(stream);
                return true;
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof SocketTimeoutException) return false;
                throw new SQLException("the listening connection failed: " + e.getCause(), "08006", e.getCause());
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
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
