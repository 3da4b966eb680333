package dev.statekit.jdbc.internal;

import dev.statekit.store.ErrorCode;
import dev.statekit.store.StatekitException;
import dev.statekit.store.TaskRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JDBC plumbing of the store, written once: borrowing a connection, read-only and
 * transactional work with commit and rollback, translating {@link SQLException}s, and the
 * prepared-statement boilerplate ({@link #query}, {@link #queryOne}, {@link #update}).
 *
 * <p>When a {@link Joined} connection is at hand (the connection of an application's transaction),
 * work runs on it instead of a borrowed one, each piece of work within a savepoint of its own
 * ({@link Savepoints}): nothing is committed, and a piece that fails or rolls back undoes only
 * itself, leaving the application's transaction usable.
 *
 * <p>Every statement is prepared; values are bound by a {@link Binder}, rows read by a
 * {@link RowReader}. Thread-safe: it holds only the data source.
 */
public final class Jdbc {
    /** Every part of the store logs under the store's name, so that one logger setting covers them all. */
    public static final Logger LOG = LoggerFactory.getLogger("dev.statekit.jdbc.JdbcStore");

    /** Work on one connection. */
    @FunctionalInterface
    public interface Work<T> {
        /** Runs the work. */
        T run(Connection c) throws SQLException;
    }

    /** Binds the parameters of a prepared statement. */
    @FunctionalInterface
    public interface Binder {
        /** Binds {@code ps}'s parameters. */
        void bind(PreparedStatement ps) throws SQLException;
    }

    /** Reads the current row of a result. */
    @FunctionalInterface
    public interface RowReader<T extends @Nullable Object> {
        /** Returns the value of the current row. */
        T read(ResultSet rs) throws SQLException;
    }

    /** The connection of the application's transaction that work joins, if any. */
    @FunctionalInterface
    public interface Joined {
        /** Returns the connection of the transaction the calling thread is in, or null to borrow one from the pool. */
        @Nullable Connection current();
    }

    /** Binds nothing. */
    public static final Binder NO_PARAMETERS = ps -> { };

    /** What a borrowed connection needs before the store's work runs on it. */
    @FunctionalInterface
    public interface Setup {
        /** Prepares {@code c}, borrowed from the pool, for the store's work. */
        void prepare(Connection c) throws SQLException;
    }

    private final DataSource dataSource;
    private final @Nullable Joined joined;
    private final Setup setup;

    /** Creates the plumbing over {@code dataSource}. */
    public Jdbc(DataSource dataSource) {
        this(dataSource, null);
    }

    /** Creates the plumbing over {@code dataSource}, joining the transaction {@code joined} names whenever it names one. */
    public Jdbc(DataSource dataSource, @Nullable Joined joined) {
        this(dataSource, joined, c -> { });
    }

    private Jdbc(DataSource dataSource, @Nullable Joined joined, Setup setup) {
        this.dataSource = dataSource;
        this.joined = joined;
        this.setup = setup;
    }

    /** Returns this plumbing, preparing every connection it borrows with {@code setup} (not the connection of a joined transaction). */
    public Jdbc preparing(Setup setup) {
        return new Jdbc(dataSource, joined, setup);
    }

    /** Returns the data source. */
    public DataSource dataSource() {
        return dataSource;
    }

    /**
     * Borrows a connection.
     *
     * @throws StatekitException {@link ErrorCode#STORE_UNAVAILABLE} when none can be had, or
     *                           {@link ErrorCode#STORE_FAILURE} when the configuration is at fault
     *                           (no driver, refused or missing credentials, no such database), as
     *                           {@link SqlErrors#noConnection} classifies it
     */
    public Connection connect(String doing, @Nullable Long taskId) {
        Connection c;
        try {
            c = dataSource.getConnection();
        } catch (SQLException e) {
            throw SqlErrors.noConnection(e, doing, taskId);
        }
        try {
            setup.prepare(c);
            return c;
        } catch (SQLException e) {
            close(c);
            throw SqlErrors.translate(e, doing, taskId);
        }
    }

    /** Runs read-only work on a connection as the pool hands it out, or within a savepoint of a joined transaction. */
    public <T> T read(String doing, @Nullable Long taskId, Work<T> work) {
        Connection tx = joined();
        if (tx != null) return Savepoints.run(tx, doing, taskId, work);
        Connection c = connect(doing, taskId);
        try {
            return work.run(c);
        } catch (SQLException e) {
            throw SqlErrors.translate(e, doing, taskId);
        } finally {
            close(c);
        }
    }

    /**
     * Runs work in one transaction: committed when it returns, rolled back when it throws; or, in
     * a joined transaction, within a savepoint released when it returns and rolled back to when it
     * throws or rolls back.
     */
    public <T> T transaction(String doing, @Nullable Long taskId, Work<T> work) {
        Connection tx = joined();
        if (tx != null) return Savepoints.run(tx, doing, taskId, work);
        Connection c = connect(doing, taskId);
        try {
            boolean autoCommit = c.getAutoCommit();
            if (autoCommit) c.setAutoCommit(false);
            T result;
            try {
                result = work.run(c);
                c.commit();
            } catch (SQLException | RuntimeException | Error e) {
                try {
                    c.rollback();
                } catch (SQLException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            } finally {
                if (autoCommit) restoreAutoCommit(c);
            }
            return result;
        } catch (SQLException e) {
            throw SqlErrors.translate(e, doing, taskId);
        } finally {
            close(c);
        }
    }

    private @Nullable Connection joined() {
        return joined == null ? null : joined.current();
    }

    // After the commit or the rollback: a failure here must neither hide the outcome nor the original failure.
    private static void restoreAutoCommit(Connection c) {
        try {
            c.setAutoCommit(true);
        } catch (SQLException e) {
            LOG.debug("restoring auto-commit on a connection failed", e);
        }
    }

    /** Gives a connection back, logging (at DEBUG) a failure to do so. */
    public static void close(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            LOG.debug("closing a connection failed", e);
        }
    }

    // --- statements ---------------------------------------------------------------------------

    /**
     * Runs {@code ps} and returns its rows. Through {@code execute}, not {@code executeQuery}: MySQL's
     * driver refuses the latter for an {@code INSERT} or {@code DELETE} that returns rows ({@code RETURNING}).
     *
     * @throws SQLException if the statement returned no rows, only an update count
     */
    public static ResultSet rows(PreparedStatement ps) throws SQLException {
        if (!ps.execute()) throw new SQLException("the statement returned an update count, not rows");
        return ps.getResultSet();
    }

    /** Runs a query and returns the value of every row, in order. */
    public static <T extends @Nullable Object> List<T> query(Connection c, String sql, Binder binder, RowReader<T> reader) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            binder.bind(ps);
            try (ResultSet rs = rows(ps)) {
                List<T> rows = new ArrayList<>();
                while (rs.next()) rows.add(reader.read(rs));
                return rows;
            }
        }
    }

    /** Runs a query and returns the value of its first row, or null when it returns none. */
    public static <T> @Nullable T queryOne(Connection c, String sql, Binder binder, RowReader<T> reader) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            binder.bind(ps);
            try (ResultSet rs = rows(ps)) {
                return rs.next() ? reader.read(rs) : null;
            }
        }
    }

    /**
     * Runs a query that returns one number in one row.
     *
     * @throws SQLException if it returns no row
     */
    public static long queryLong(Connection c, String sql, Binder binder) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            binder.bind(ps);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) throw new SQLException("no row returned");
                return rs.getLong(1);
            }
        }
    }

    /** Runs an insert, update or delete and returns its update count. */
    public static int update(Connection c, String sql, Binder binder) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            binder.bind(ps);
            return ps.executeUpdate();
        }
    }

    /** Runs a query of task rows and returns the tasks, skipping (and logging at WARN) rows that cannot be read. */
    public static List<TaskRecord> tasks(Connection c, Times times, String sql, Binder binder) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            binder.bind(ps);
            try (ResultSet rs = ps.executeQuery()) {
                List<TaskRecord> tasks = new ArrayList<>();
                while (rs.next()) {
                    TaskRecord t = readTaskOrNull(times, rs);
                    if (t != null) tasks.add(t);
                }
                return tasks;
            }
        }
    }

    /** Reads the task of the current row, or returns null after logging at WARN a row that cannot be read. */
    public static @Nullable TaskRecord readTaskOrNull(Times times, ResultSet rs) throws SQLException {
        try {
            return Rows.task(times, rs);
        } catch (StatekitException e) {
            LOG.warn("skipping task {}: {}", e.taskId(), e.getMessage());
            return null;
        }
    }

    /** Binds {@code states} in their sorted order from parameter {@code first} on; returns the next index. */
    public static int bindStates(PreparedStatement ps, int first, Collection<String> states) throws SQLException {
        int i = first;
        for (String s : new TreeSet<>(states)) ps.setString(i++, s);
        return i;
    }
}
