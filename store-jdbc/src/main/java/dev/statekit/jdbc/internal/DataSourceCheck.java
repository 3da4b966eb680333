package dev.statekit.jdbc.internal;

import dev.statekit.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collections;
import java.util.Locale;
import java.util.Set;
import java.util.WeakHashMap;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warns once, when a store is built, about an H2 data source that opens its database again for
 * every operation.
 *
 * <p>H2 closes an embedded database when its last connection closes, unless its
 * {@code DB_CLOSE_DELAY} says otherwise. A pool keeps connections open between operations; a data
 * source without one (H2's {@code JdbcDataSource}, a data source over {@code DriverManager}) closes
 * the only connection after each operation, and the next one opens the database files again: a
 * large part of a second each time instead of a millisecond. The rule, using only JDBC:
 *
 * <ol>
 *   <li>the store's dialect is H2, and the data source hands out a connection (when it does not,
 *       the check says nothing: the store reports the failure when it is used);
 *   <li>the data source lends H2's own connections: its class is {@code org.h2.jdbcx.JdbcDataSource},
 *       or the connection's class is exactly {@code org.h2.jdbc.JdbcConnection}. A pool wraps the
 *       connections it lends, to take them back when they are closed (H2's own
 *       {@code JdbcConnectionPool} lends a subclass), so an unwrapped connection means no pool;
 *   <li>the database lives in files: the URL of {@link java.sql.DatabaseMetaData#getURL()} is
 *       {@code jdbc:h2:} and neither an in-memory ({@code mem:}, {@code memFS:}, {@code memLZF:}) nor
 *       a server ({@code tcp:}, {@code ssl:}) one;
 *   <li>the database's {@code DB_CLOSE_DELAY} is 0, the default. It is read from
 *       {@code INFORMATION_SCHEMA.SETTINGS}, not from the URL: H2 keeps the setting in the database
 *       once set, and {@code getURL()} leaves the URL's settings out.
 * </ol>
 *
 * <p>Each data source is checked once per class loader, at the first store built on it (data
 * sources that are {@code equals} count as one); later stores on it borrow no connection for the
 * check. Thread-safe.
 */
public final class DataSourceCheck {
    private static final Logger log = LoggerFactory.getLogger(DataSourceCheck.class);
    private static final String H2_DATA_SOURCE = "org.h2.jdbcx.JdbcDataSource";
    private static final String H2_CONNECTION = "org.h2.jdbc.JdbcConnection";
    private static final String CLOSE_DELAY = "select setting_value from information_schema.settings where setting_name = 'DB_CLOSE_DELAY'";

    /** The data sources checked so far; weak, so that the check never keeps a host's pool alive. */
    private static final Set<DataSource> checked = Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

    private DataSourceCheck() {
    }

    /**
     * Logs at WARN, once per data source, when {@code dataSource} reopens an H2 database for every
     * connection; borrows one connection for the check when the dialect is H2 and this data
     * source was not checked before. Never throws: a failure of the check is logged at DEBUG.
     *
     * @param dataSource the store's data source
     * @param dialect    the store's dialect
     */
    public static void warnIfReopening(DataSource dataSource, Dialect dialect) {
        if (dialect != Dialect.H2 || checked.contains(dataSource)) return;
        String problem;
        try (Connection c = dataSource.getConnection()) {
            problem = problem(dataSource, c);
        } catch (SQLException | RuntimeException e) {
            log.debug("could not check whether the data source keeps its H2 database open", e);
            return;
        }
        if (checked.add(dataSource) && problem != null) log.warn(problem);
    }

    /** Returns what to tell the operator about {@code c}, borrowed from {@code dataSource}, or null when all is well. */
    private static @Nullable String problem(DataSource dataSource, Connection c) throws SQLException {
        String dataSourceClass = dataSource.getClass().getName();
        boolean unpooled = dataSourceClass.equals(H2_DATA_SOURCE) || c.getClass().getName().equals(H2_CONNECTION);
        if (!unpooled) return null;
        String url = c.getMetaData().getURL();
        if (url == null || !inFiles(url) || closeDelaySeconds(c) != 0) return null;
        return "the H2 database " + url + " is closed whenever its last connection closes, and the data source ("
                + dataSourceClass + ") keeps no connection open: every operation of the statekit store opens the"
                + " database files again, which makes each one slower by a large part of a second. Give the store a"
                + " connection pool (such as HikariCP or org.h2.jdbcx.JdbcConnectionPool), or add ;DB_CLOSE_DELAY=-1"
                + " to the database URL";
    }

    /** Returns whether {@code url}, as {@code DatabaseMetaData.getURL()} gives it, names an embedded H2 database in files. */
    static boolean inFiles(String url) {
        String lower = url.toLowerCase(Locale.ROOT);
        if (!lower.startsWith("jdbc:h2:")) return false;
        String rest = lower.substring("jdbc:h2:".length());
        for (String other : new String[] {"mem:", "memfs:", "memlzf:", "tcp:", "ssl:"}) {
            if (rest.startsWith(other)) return false;
        }
        return true;
    }

    /** Returns the database's DB_CLOSE_DELAY in seconds: H2 lists it only when it is not the default, 0. */
    private static int closeDelaySeconds(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(CLOSE_DELAY); ResultSet rs = ps.executeQuery()) {
            return rs.next() ? Integer.parseInt(rs.getString(1).trim()) : 0;
        }
    }
}
