package dev.statekit.examples;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.statekit.examples.serve.Options;
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
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Opens the store a sample host runs on: an H2 database in a file (the default), PostgreSQL or any
 * database the JDBC store speaks given its URL, or an in-memory store.
 *
 * <p>A JDBC store of a run gets tables of its own, under a table prefix no other run uses (created
 * when the store opens, dropped when it closes), so runs never see each other's tasks and task ids
 * start at 1. Connections come from a HikariCP pool of at most {@value #POOL_SIZE}.
 */
public final class Stores {
    /** The most connections a run's store holds at once. */
    public static final int POOL_SIZE = 8;

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Stores.class);
    private static final AtomicInteger RUNS = new AtomicInteger();
    private static final String[] TABLES = {"tasks", "history", "queues", "groups", "group_counts", "dependencies", "marks", "archived_tasks", "archived_history", "rate_starts", "rate_holds", "schedules", "schema_version"};
    private static final String[] SEQUENCES = {"fifo_seq", "front_seq", "fencing_seq", "check_seq"};

    /** {@code --jdbc-url URL}: the database of the store, PostgreSQL or H2. */
    public static final Options.Option<String> JDBC_URL = Options.text("jdbc-url", "URL", null, "the database at URL (PostgreSQL or H2)");
    /** {@code --user U}: the database's user. */
    public static final Options.Option<String> USER = Options.text("user", "U", null, "the user of --jdbc-url");
    /** {@code --password P}: the database user's password. */
    public static final Options.Option<String> PASSWORD = Options.text("password", "P", null, "the password of --jdbc-url");
    /** {@code --in-memory}: an in-memory store. */
    public static final Options.Option<Boolean> IN_MEMORY = Options.flag("in-memory", "an in-memory store: nothing survives the process");
    /** The options choosing a store, shared by {@code examples demo} and {@code examples serve}. */
    public static final Options OPTIONS = Options.of(JDBC_URL, USER, PASSWORD, IN_MEMORY);

    private Stores() {}

    /**
     * Checks that the store options in {@code values} choose one store.
     *
     * @throws IllegalArgumentException saying what is wrong with them
     */
    public static void checkChoice(Options.Values values) {
        if (values.has(IN_MEMORY) && values.has(JDBC_URL)) throw new IllegalArgumentException("--in-memory and --jdbc-url are two stores; give one");
        if (!values.has(JDBC_URL) && (values.has(USER) || values.has(PASSWORD))) {
            throw new IllegalArgumentException("--user and --password go with --jdbc-url");
        }
    }

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
    private static void dropAndClose(JdbcStore store, HikariDataSource pool, String description) {
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
        // a database that cannot be reached fails here, at once
        HikariDataSource pool = pool(url, user, password, "statekit-run-" + RUNS.get(), POOL_SIZE, 1);
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

    /**
     * Returns a HikariCP pool of at most {@code size} connections to {@code url}.
     *
     * @param initializationFailTimeout HikariCP's: 1 to fail at once when the database cannot be
     *                                  reached, -1 to start without a connection
     */
    private static HikariDataSource pool(String url, @Nullable String user, @Nullable String password, String name, int size,
                                         long initializationFailTimeout) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        if (user != null) config.setUsername(user);
        if (password != null) config.setPassword(password);
        config.setMaximumPoolSize(size);
        config.setPoolName(name);
        config.setConnectionTimeout(10_000);
        config.setInitializationFailTimeout(initializationFailTimeout);
        return new HikariDataSource(config);
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
        // a service starts before its database answers: the store's first use waits for it
        HikariDataSource pool = pool(url, user, password, "statekit-" + prefix, poolSize, -1);
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
