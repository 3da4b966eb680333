package dev.statekit.examples;

import dev.statekit.jdbc.JdbcStore;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.Store;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Opens the store a sample host runs on: an H2 database in a file (the default), PostgreSQL or any
 * database the JDBC store speaks given its URL, or an in-memory store.
 *
 * <p>A JDBC store of a run gets tables of its own, under a table prefix no other run uses (created
 * when the store opens, dropped when it closes), so runs never see each other's tasks and task ids
 * start at 1. Connections come from a small pool of {@value #POOL_SIZE}.
 */
public final class Stores {
    /** The most connections a run's store holds at once. */
    public static final int POOL_SIZE = 8;

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Stores.class);
    private static final AtomicInteger RUNS = new AtomicInteger();
    private static final String[] TABLES = {"tasks", "history", "queues", "groups", "group_counts", "dependencies", "marks", "archived_tasks", "archived_history", "schema_version"};
    private static final String[] SEQUENCES = {"fifo_seq", "front_seq", "fencing_seq", "check_seq"};

    private Stores() {}

    /** A store opened for one run; closing it drops the run's tables and closes its connections. */
    public static final class Opened implements AutoCloseable {
        private final Store store;
        private final String description;
        private final Runnable closer;

        private Opened(Store store, String description, Runnable closer) {
            this.store = store;
            this.description = description;
            this.closer = closer;
        }

        /** Returns the store. */
        public Store store() {
            return store;
        }

        /** Returns what the store is, for people: the database and the table prefix. */
        public String description() {
            return description;
        }

        /**
         * Drops the run's tables and closes the pool (a {@linkplain #persistent persistent} store
         * only closes its pool); call it after the host's runtime stopped. A failure to drop the tables
         * is logged at WARN.
         */
        @Override
        public void close() {
            closer.run();
        }
    }

    /** Drops the tables of {@code store}, a run's store on {@code pool}, then closes the pool. */
    private static void dropAndClose(JdbcStore store, SmallPool pool, String description) {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            String prefix = store.tablePrefix();
            for (String table : TABLES) s.execute("drop table if exists " + prefix + table);
            for (String sequence : SEQUENCES) s.execute("drop sequence if exists " + prefix + sequence);
        } catch (SQLException e) {
            log.warn("could not drop the tables of {}: {}", description, e.getMessage());
        } finally {
            pool.close();
        }
    }

    /** Returns an in-memory store: nothing survives the run. */
    public static Opened inMemory() {
        return new Opened(new InMemoryStore(), "in-memory store", () -> { });
    }

    /** Returns a store on the H2 database {@code statekit} in {@code dir}, creating both when missing. */
    public static Opened h2(Path dir) {
        Path absolute = dir.toAbsolutePath().normalize();
        try {
            Files.createDirectories(absolute);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot create the H2 directory " + absolute + ": " + e.getMessage(), e);
        }
        // WRITE_DELAY=0: every commit is in the file when it returns, so a killed program loses nothing it reported
        return jdbc("jdbc:h2:file:" + absolute.resolve("statekit") + ";WRITE_DELAY=0", "sa", "");
    }

    /**
     * Returns a store on the database at {@code url} (PostgreSQL or H2, detected), on tables of
     * a fresh prefix, created now.
     *
     * @param user     the user, or null for none
     * @param password the password, or null for none
     * @throws dev.statekit.store.StatekitException when the database cannot be reached or the tables cannot be created
     */
    public static Opened jdbc(String url, @Nullable String user, @Nullable String password) {
        Properties properties = new Properties();
        if (user != null) properties.setProperty("user", user);
        if (password != null) properties.setProperty("password", password);
        SmallPool pool = new SmallPool(url, properties, POOL_SIZE);
        try {
            JdbcStore store = JdbcStore.builder(pool).tablePrefix(freshPrefix()).createSchemaIfMissing(true).build();
            String database = store.dialect() == dev.statekit.jdbc.Dialect.H2 ? "H2" : "PostgreSQL";
            String description = database + " at " + url + ", tables " + store.tablePrefix() + "* (dropped at the end)";
            return new Opened(store, description, () -> dropAndClose(store, pool, description));
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
    }

    /** Returns a table prefix no other run uses: the time, the process and a counter. */
    static String freshPrefix() {
        return ("ex_" + Long.toString(System.currentTimeMillis(), 36) + "_" + Long.toString(ProcessHandle.current().pid(), 36)
                + "_" + RUNS.incrementAndGet() + "_").toLowerCase(Locale.ROOT);
    }

    /**
     * Returns a store on the database at {@code url} (PostgreSQL or H2) on the tables of
     * {@code prefix}, created when missing and kept when the store closes: the store of a service,
     * which every process serving the same system opens alike. Its connections come from a
     * HikariCP pool of at most {@code poolSize}.
     *
     * @param user     the user, or null for none
     * @param password the password, or null for none
     * @param poolSize the most connections the store holds at once
     * @throws dev.statekit.store.StatekitException when the database cannot be reached or the tables cannot be created
     */
    public static Opened persistent(String url, @Nullable String user, @Nullable String password, String prefix, int poolSize) {
        com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
        config.setJdbcUrl(url);
        if (user != null) config.setUsername(user);
        if (password != null) config.setPassword(password);
        config.setMaximumPoolSize(poolSize);
        config.setPoolName("statekit-" + prefix);
        config.setConnectionTimeout(10_000);
        config.setInitializationFailTimeout(-1);
        com.zaxxer.hikari.HikariDataSource pool = new com.zaxxer.hikari.HikariDataSource(config);
        try {
            JdbcStore store = JdbcStore.builder(pool).tablePrefix(prefix).createSchemaIfMissing(true).build();
            String database = store.dialect() == dev.statekit.jdbc.Dialect.H2 ? "H2" : "PostgreSQL";
            return new Opened(store, database + " at " + url + ", tables " + prefix + "*", pool::close);
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
    }
}
