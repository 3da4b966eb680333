package dev.statekit.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

/**
 * A store of the tests on tables of their own: the pool, the store, and on close the tables
 * dropped and the pools closed.
 */
final class Opened implements AutoCloseable {
    private final TestPool pool;
    private final JdbcStore store;
    private final List<TestPool> others = new CopyOnWriteArrayList<>();

    private Opened(TestPool pool, JdbcStore store) {
        this.pool = pool;
        this.store = store;
    }

    TestPool pool() {
        return pool;
    }

    JdbcStore store() {
        return store;
    }

    /** Opens a store with its own prefix on the database of {@code dialect}. */
    static Opened open(Dialect dialect) {
        return open(dialect, b -> b);
    }

    /** Opens a store with its own prefix on the database of {@code dialect}, its builder adjusted by {@code settings}. */
    static Opened open(Dialect dialect, UnaryOperator<JdbcStoreBuilder> settings) {
        TestPool pool = Databases.pool(dialect);
        JdbcStore store = settings.apply(JdbcStore.builder(pool).tablePrefix(Databases.uniquePrefix(dialect == Dialect.H2 ? "h" : "p"))
                .createSchemaIfMissing(true)).build();
        return new Opened(pool, store);
    }

    /**
     * Returns another store on the same tables: on PostgreSQL with a pool of its own, as a second
     * process would have; on H2 (an embedded database belongs to one process) on the same pool.
     */
    JdbcStore twin() {
        TestPool other = pool;
        if (store.dialect() == Dialect.POSTGRESQL) {
            other = Databases.postgres();
            others.add(other);
        }
        return JdbcStore.builder(other).tablePrefix(store.tablePrefix()).dialect(store.dialect()).build();
    }

    /** Runs an update on the store's tables; {@code {p}} in {@code sql} stands for the prefix. */
    int update(String sql, Object... values) throws SQLException {
        try (Connection c = pool.getConnection();
             PreparedStatement ps = c.prepareStatement(sql.replace("{p}", store.tablePrefix()))) {
            for (int i = 0; i < values.length; i++) ps.setObject(i + 1, values[i]);
            return ps.executeUpdate();
        }
    }

    /** Returns the single long of a query on the store's tables; {@code {p}} stands for the prefix. */
    long queryLong(String sql, Object... values) throws SQLException {
        try (Connection c = pool.getConnection();
             PreparedStatement ps = c.prepareStatement(sql.replace("{p}", store.tablePrefix()))) {
            for (int i = 0; i < values.length; i++) ps.setObject(i + 1, values[i]);
            try (var rs = ps.executeQuery()) {
                if (!rs.next()) throw new AssertionError("no row from " + sql);
                return rs.getLong(1);
            }
        }
    }

    @Override
    public void close() throws SQLException {
        try {
            Databases.drop(pool, store.tablePrefix());
        } finally {
            pool.close();
            for (TestPool other : others) other.close();
        }
    }
}
