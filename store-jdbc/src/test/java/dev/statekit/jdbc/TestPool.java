package dev.statekit.jdbc;

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
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A small connection pool over {@link DriverManager}, standing in for the pool a host brings:
 * closing a borrowed connection gives it back (rolled back, in auto-commit mode). A connection
 * that was unwrapped (as the PostgreSQL listener does) is closed for real instead.
 */
public final class TestPool implements DataSource, AutoCloseable {
    private final String url;
    private final Properties properties;
    private final ArrayDeque<Connection> idle = new ArrayDeque<>();
    private final List<Connection> all = new ArrayList<>();
    private boolean closed;

    /** Returns whether the pool connects to PostgreSQL. */
    public boolean postgres() {
        return url.startsWith("jdbc:postgresql:");
    }

    /** Creates a pool that connects to {@code url} with {@code properties} (user, password, ...). */
    public TestPool(String url, Properties properties) {
        this.url = url;
        this.properties = properties;
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection physical;
        synchronized (this) {
            if (closed) throw new SQLException("pool closed", "08003");
            physical = idle.poll();
        }
        if (physical == null) {
            physical = DriverManager.getConnection(url, properties);
            synchronized (this) {
                all.add(physical);
            }
        }
        return (Connection) Proxy.newProxyInstance(TestPool.class.getClassLoader(), new Class<?>[] {Connection.class},
                new Borrowed(physical));
    }

    private synchronized void giveBack(Connection physical, boolean discard) {
        if (closed || discard) {
            all.remove(physical);
            try {
                physical.close();
            } catch (SQLException ignored) {
                // already broken
            }
            return;
        }
        idle.push(physical);
    }

    @Override
    public synchronized void close() {
        closed = true;
        for (Connection c : all) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // already broken
            }
        }
        all.clear();
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
        throw new SQLFeatureNotSupportedException("the test pool has fixed credentials");
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
