package dev.statekit.examples;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A tiny connection pool over {@link DriverManager}, enough for the sample hosts: at most
 * {@code size} connections are lent at once (a borrower waits up to 30 seconds for one); closing a
 * borrowed connection gives it back, rolled back and in auto-commit mode. A connection that was
 * unwrapped (as the PostgreSQL listener of the JDBC store does) is closed for real when given back.
 * Production hosts bring a real pool instead.
 */
final class SmallPool implements DataSource, AutoCloseable {
    private final String url;
    private final Properties properties;
    private final Semaphore permits;
    private final ArrayDeque<Connection> idle = new ArrayDeque<>();
    private final List<Connection> open = new ArrayList<>();
    private boolean closed;

    SmallPool(String url, Properties properties, int size) {
        if (size < 1) throw new IllegalArgumentException("pool size must be >= 1, was " + size);
        this.url = url;
        this.properties = properties;
        this.permits = new Semaphore(size, true);
    }

    @Override
    public Connection getConnection() throws SQLException {
        try {
            if (!permits.tryAcquire(30, TimeUnit.SECONDS)) throw new SQLException("no free connection within 30 s", "08001");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while waiting for a connection", "08001", e);
        }
        try {
            Connection physical;
            synchronized (this) {
                if (closed) throw new SQLException("pool closed", "08003");
                physical = idle.poll();
            }
            if (physical == null) {
                physical = DriverManager.getConnection(url, properties);
                synchronized (this) {
                    open.add(physical);
                }
            }
            return (Connection) Proxy.newProxyInstance(SmallPool.class.getClassLoader(), new Class<?>[] {Connection.class},
                    new Borrowed(physical));
        } catch (SQLException | RuntimeException e) {
            permits.release();
            throw e;
        }
    }

    private void giveBack(Connection physical, boolean discard) {
        synchronized (this) {
            if (closed || discard) {
                open.remove(physical);
                quietlyClose(physical);
            } else {
                idle.push(physical);
            }
        }
        permits.release();
    }

    private static void quietlyClose(Connection c) {
        try {
            c.close();
        } catch (SQLException ignored) {
            // already broken
        }
    }

    /** Closes every connection; those lent out are closed when given back. */
    @Override
    public synchronized void close() {
        closed = true;
        for (Connection c : idle) {
            open.remove(c);
            quietlyClose(c);
        }
        idle.clear();
    }

    /** The handler of one borrowed connection. */
    private final class Borrowed implements InvocationHandler {
        private final Connection physical;
        private boolean returned;
        private boolean unwrapped;

        Borrowed(Connection physical) {
            this.physical = physical;
        }

        @Override
        public @org.jspecify.annotations.Nullable Object invoke(Object proxy, Method method,
                @org.jspecify.annotations.Nullable Object @org.jspecify.annotations.Nullable [] args) throws Throwable {
            switch (method.getName()) {
                case "close" -> {
                    synchronized (this) {
                        if (returned) return null;
                        returned = true;
                    }
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
                case "unwrap" -> unwrapped = true;
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

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("the pool has fixed credentials");
    }

    @Override
    public PrintWriter getLogWriter() {
        return new PrintWriter(System.err);
    }

    @Override
    public void setLogWriter(PrintWriter out) {
    }

    @Override
    public void setLoginTimeout(int seconds) {
    }

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return false;
    }
}
