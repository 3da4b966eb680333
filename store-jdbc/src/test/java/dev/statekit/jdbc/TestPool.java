package dev.statekit.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A small connection pool over {@link DriverManager}, standing in for the pool a host brings
 * (HikariCP and the like behave the same way where it matters here): closing a borrowed
 * connection gives it back, rolled back and in auto-commit mode; a connection that failed (the
 * driver closed it after an I/O error, or rolling it back failed) or was unwrapped (as the
 * PostgreSQL listener does) is closed for real instead; a connection idle for more than a second
 * is validated before it is lent again, so that connections the database lost while idle are not
 * handed out. Optionally bounded: a borrower then waits up to 30 s for a free connection.
 */
public final class TestPool extends PlainDataSource implements AutoCloseable {
    private static final long VALIDATE_AFTER_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final String url;
    private final Properties properties;
    private final Semaphore permits;
    private final ArrayDeque<Idle> idle = new ArrayDeque<>();
    private final Set<Connection> all = new HashSet<>();
    private boolean closed;
    private long discarded;

    private record Idle(Connection physical, long since) {}

    /** Creates an unbounded pool that connects to {@code url} with {@code properties} (user, password, ...). */
    public TestPool(String url, Properties properties) {
        this(url, properties, Integer.MAX_VALUE);
    }

    /** Creates a pool of at most {@code maxConnections} connections to {@code url}. */
    public TestPool(String url, Properties properties, int maxConnections) {
        this.url = url;
        this.properties = properties;
        this.permits = new Semaphore(maxConnections, true);
    }

    /** Returns whether the pool connects to PostgreSQL. */
    public boolean postgres() {
        return url.startsWith("jdbc:postgresql:");
    }

    /** Returns whether the pool connects to MariaDB, through MariaDB's driver or MySQL's. */
    public boolean mariaDb() {
        return url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:");
    }

    /** Returns how many connections were discarded as broken. */
    public synchronized long discarded() {
        return discarded;
    }

    @Override
    public Connection getConnection() throws SQLException {
        try {
            if (!permits.tryAcquire(30, TimeUnit.SECONDS)) throw new SQLException("no free connection within 30 s", "08001");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted waiting for a connection", "08001", e);
        }
        try {
            Connection physical = reuse();
            if (physical == null) {
                physical = DriverManager.getConnection(url, properties);
                synchronized (this) {
                    if (closed) {
                        physical.close();
                        throw new SQLException("pool closed", "08003");
                    }
                    all.add(physical);
                }
            }
            return (Connection) Proxy.newProxyInstance(TestPool.class.getClassLoader(), new Class<?>[] {Connection.class},
                    new Borrowed(physical));
        } catch (SQLException | RuntimeException e) {
            permits.release();
            throw e;
        }
    }

    private Connection reuse() throws SQLException {
        while (true) {
            Idle candidate;
            synchronized (this) {
                if (closed) throw new SQLException("pool closed", "08003");
                candidate = idle.poll();
            }
            if (candidate == null) return null;
            Connection c = candidate.physical();
            boolean usable = !c.isClosed()
                    && (System.nanoTime() - candidate.since() < VALIDATE_AFTER_NANOS || c.isValid(2));
            if (usable) return c;
            discard(c);
        }
    }

    private void giveBack(Connection physical, boolean broken) {
        try {
            synchronized (this) {
                if (!closed && !broken) {
                    idle.push(new Idle(physical, System.nanoTime()));
                    return;
                }
            }
            discard(physical);
        } finally {
            permits.release();
        }
    }

    private void discard(Connection physical) {
        synchronized (this) {
            all.remove(physical);
            discarded++;
        }
        try {
            physical.close();
        } catch (SQLException ignored) {
            // already broken
        }
    }

    @Override
    public void close() {
        Set<Connection> open;
        synchronized (this) {
            closed = true;
            open = new HashSet<>(all);
            all.clear();
            idle.clear();
        }
        for (Connection c : open) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // already broken
            }
        }
    }

    /** One borrowed connection; closing it gives the physical connection back, or discards it when broken. */
    private final class Borrowed implements InvocationHandler {
        private final Connection physical;
        private boolean returned;
        private boolean unwrapped;

        Borrowed(Connection physical) {
            this.physical = physical;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            switch (method.getName()) {
                case "close" -> {
                    if (returned) return null;
                    returned = true;
                    boolean broken = unwrapped || physical.isClosed();
                    if (!broken) {
                        try {
                            if (!physical.getAutoCommit()) {
                                physical.rollback();
                                physical.setAutoCommit(true);
                            }
                        } catch (SQLException e) {
                            broken = true;
                        }
                    }
                    giveBack(physical, broken);
                    return null;
                }
                case "isClosed" -> {
                    return returned || physical.isClosed();
                }
                case "equals" -> {
                    return proxy == args[0];
                }
                case "hashCode" -> {
                    return System.identityHashCode(proxy);
                }
                case "toString" -> {
                    return "pooled " + physical;
                }
                case "unwrap" -> unwrapped = true;      // the caller holds the physical connection: never lent again
                default -> {
                    if (returned) throw new SQLException("connection already given back", "08003");
                }
            }
            try {
                return method.invoke(physical, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }
}
