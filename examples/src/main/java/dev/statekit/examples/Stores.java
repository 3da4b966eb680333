package dev.statekit.examples;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.statekit.examples.serve.Options;
import dev.statekit.jdbc.Dialect;
import dev.statekit.jdbc.JdbcStore;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.Store;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Opens the store a sample host runs on: an H2 database in a file (the default), PostgreSQL, MariaDB
 * or any database the JDBC store speaks given its URL, or an in-memory store.
 *
 * <p>A JDBC store of a run gets tables of its own, under a table prefix no other run uses (created
 * when the store opens, dropped when it closes), so runs never see each other's tasks and task ids
 * start at 1. Connections come from a HikariCP pool of at most {@value #POOL_SIZE}; on MariaDB the
 * pool hands them out at READ COMMITTED, the isolation the store needs there (InnoDB's default is
 * REPEATABLE READ).
 *
 * <p>Before its pool exists a store connects once by itself, so that a database that refuses it
 * says why at once: a {@link StartFailure} of one line with the database's own words (PostgreSQL's
 * {@code FATAL: database "x" does not exist}, {@code password authentication failed for user "x"},
 * MariaDB's {@code Access denied for user 'x'@'host'}, H2's {@code Database may be already in use})
 * and the option to change. Only a database that does not answer yet (a refused connection, one
 * starting up or full) is waited for, up to the wait the caller gives (a service
 * {@link #STARTING_WAIT}), and so is a transient failure while a service's tables are checked (a
 * deadlock with another process starting on the same tables).
 */
public final class Stores {
    /** The most connections a run's store holds at once. */
    public static final int POOL_SIZE = 8;

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Stores.class);
    private static final AtomicInteger RUNS = new AtomicInteger();
    private static final String[] TABLES = {"tasks", "history", "queues", "groups", "group_counts", "dependencies", "marks", "archived_tasks", "archived_history", "rate_starts", "rate_holds", "schedules", "processes", "schema_version", "wakes"};
    private static final String[] SEQUENCES = {"fifo_seq", "front_seq", "fencing_seq", "check_seq"};

    /** {@code --jdbc-url URL}: the database of the store, PostgreSQL, MariaDB or H2. */
    public static final Options.Option<String> JDBC_URL = Options.text("jdbc-url", "URL", null,
            "the database at URL (PostgreSQL, MariaDB or H2)");
    /** {@code --user U}: the database's user. */
    public static final Options.Option<String> USER = Options.text("user", "U", null, "the user of --jdbc-url");
    /** {@code --password P}: the database user's password. */
    public static final Options.Option<String> PASSWORD = Options.text("password", "P", null, "the password of --jdbc-url");
    /** {@code --in-memory}: an in-memory store. */
    public static final Options.Option<Boolean> IN_MEMORY = Options.flag("in-memory", "an in-memory store: nothing survives the process");
    /** The options choosing a store, shared by {@code examples demo} and {@code examples serve}. */
    public static final Options OPTIONS = Options.of(JDBC_URL, USER, PASSWORD, IN_MEMORY);

    /** How long a service waits for a database that does not answer yet: refuses connections, starts up, or has no connection free. */
    public static final Duration STARTING_WAIT = Duration.ofSeconds(30);
    /** How often a database that does not answer yet is asked again. */
    private static final long RETRY_MILLIS = 500;
    /** MariaDB's error of a database that does not exist (ER_BAD_DB_ERROR), to a user who may see that. */
    private static final int MARIADB_UNKNOWN_DATABASE = 1049;
    /** MariaDB's error of a database the user may not use, or that does not exist (ER_DBACCESS_DENIED_ERROR). */
    private static final int MARIADB_DATABASE_ACCESS_DENIED = 1044;
    /** MariaDB's error of a server without a free connection (ER_CON_COUNT_ERROR). */
    private static final int MARIADB_TOO_MANY_CONNECTIONS = 1040;
    /** MariaDB's error of a user without a free connection (ER_TOO_MANY_USER_CONNECTIONS). */
    private static final int MARIADB_TOO_MANY_USER_CONNECTIONS = 1203;

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

    /**
     * Drops the tables of {@code store}, a run's store on {@code pool}, then closes the pool; a table
     * one database's schema has and another's has not (MariaDB's {@code wakes}) is skipped where it
     * does not exist.
     */
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
     * Returns a store on the database at {@code url} (PostgreSQL, MariaDB or H2, detected), on tables of
     * a fresh prefix, created now.
     *
     * @param user     the user, or null for none
     * @param password the password, or null for none
     * @throws dev.statekit.store.StatekitException when the database cannot be reached or the tables cannot be created
     */
    public static Opened jdbc(String url, @Nullable String user, @Nullable String password) {
        // a database that cannot be reached fails here, at once, saying why
        connectOnce(url, user, password, Duration.ZERO, notice -> { });
        HikariDataSource pool = pool(url, user, password, "statekit-run-" + RUNS.get(), POOL_SIZE, 1);
        try {
            JdbcStore store = JdbcStore.builder(pool).tablePrefix(freshPrefix()).createSchemaIfMissing(true).build();
            String description = name(store.dialect()) + " at " + url + ", tables " + store.tablePrefix() + "* (dropped at the end)";
            return new Opened(store, description, () -> dropAndClose(store, pool, description));
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
    }

    /** Returns the name of the database of {@code dialect}, for people. */
    static String name(Dialect dialect) {
        return switch (dialect) {
            case POSTGRESQL -> "PostgreSQL";
            case MARIADB -> "MariaDB";
            case H2 -> "H2";
        };
    }

    /**
     * Returns a HikariCP pool of at most {@code size} connections to {@code url}. A pool of MariaDB
     * hands out its connections at READ COMMITTED, which the store needs there; the store would
     * otherwise set it on each connection it borrows.
     *
     * @param initializationFailTimeout HikariCP's: 1 to fail at once when the database cannot be
     *                                  reached, -1 to start without a connection
     */
    static HikariDataSource pool(String url, @Nullable String user, @Nullable String password, String name, int size,
                                 long initializationFailTimeout) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        if (user != null) config.setUsername(user);
        if (password != null) config.setPassword(password);
        config.setMaximumPoolSize(size);
        config.setPoolName(name);
        config.setConnectionTimeout(10_000);
        config.setInitializationFailTimeout(initializationFailTimeout);
        if (database(url).equals("MariaDB")) config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        return new HikariDataSource(config);
    }

    /**
     * Connects to {@code url} once, through the driver the pool would use, and closes the
     * connection: a database that refuses it fails here with the reason in its own words. A
     * database that does not answer yet is asked again every {@value #RETRY_MILLIS} ms for up to
     * {@code wait}, and {@code notice} is told once.
     *
     * @throws StartFailure saying why the database cannot be used and what to change
     */
    static void connectOnce(String url, @Nullable String user, @Nullable String password, Duration wait, Consumer<String> notice) {
        String database = database(url);
        Driver driver;
        try {
            driver = DriverManager.getDriver(url);
        } catch (SQLException e) {
            throw new StartFailure(StartFailure.Kind.NO_DRIVER, "cannot open " + url, "no JDBC driver on the class path takes this URL",
                    "--jdbc-url takes a PostgreSQL URL (jdbc:postgresql://HOST:PORT/DATABASE), a MariaDB one"
                            + " (jdbc:mariadb://HOST:PORT/DATABASE) or an H2 one (jdbc:h2:file:PATH)", e);
        }
        Properties properties = new Properties();
        if (user != null) properties.setProperty("user", user);
        if (password != null) properties.setProperty("password", password);
        long deadline = System.nanoTime() + wait.toNanos();
        boolean told = false;
        while (true) {
            try (Connection c = driver.connect(url, properties)) {
                if (c == null) throw new SQLException("the driver " + driver.getClass().getName() + " does not take this URL", "08001");
                return;
            } catch (SQLException e) {
                boolean notYet = answersLater(e);
                if (!notYet) throw refused(database, url, e);
                if (System.nanoTime() - deadline >= 0) {
                    throw new StartFailure(StartFailure.Kind.UNREACHABLE, "cannot reach " + database + " at " + url
                            + (wait.isZero() ? "" : " within " + wait.toSeconds() + " s"), reason(e),
                            "start the database, or correct the host and port in --jdbc-url", e);
                }
                if (!told) {
                    notice.accept(database + " at " + url + " does not answer yet (" + reason(e) + "); waiting up to " + wait.toSeconds() + " s");
                    told = true;
                }
                try {
                    TimeUnit.MILLISECONDS.sleep(RETRY_MILLIS);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new StartFailure(StartFailure.Kind.UNREACHABLE, "cannot reach " + database + " at " + url, "interrupted while waiting",
                            "start the database first", e);
                }
            }
        }
    }

    /**
     * Returns whether {@code e} says the database does not answer yet: a refused or broken
     * connection (SQL state class 08), a database starting up (PostgreSQL's 57P03) or without a free
     * connection (PostgreSQL's 53300; MariaDB's errors 1040 and 1203, which it may send before the
     * connection has agreed on SQL states). Anything else (no such database, wrong credentials, a
     * file in use) waiting cannot mend.
     */
    static boolean answersLater(SQLException e) {
        if (e.getErrorCode() == MARIADB_TOO_MANY_CONNECTIONS || e.getErrorCode() == MARIADB_TOO_MANY_USER_CONNECTIONS) return true;
        String state = e.getSQLState();
        if (state == null) return false;
        return state.startsWith("08") || state.equals("57P03") || state.equals("53300");
    }

    /** Returns the failure of a database that refused the connection with {@code e}: its words and what to change. */
    private static StartFailure refused(String database, String url, SQLException e) {
        String state = String.valueOf(e.getSQLState());
        String what = "cannot open " + database + " at " + url;
        String reason = reason(e);
        String lower = reason.toLowerCase(Locale.ROOT);
        if (database.equals("MariaDB")) {
            switch (e.getErrorCode()) {
                case MARIADB_UNKNOWN_DATABASE:
                    return new StartFailure(StartFailure.Kind.NO_DATABASE, what, reason, "create the database, or name an existing one in --jdbc-url", e);
                case MARIADB_DATABASE_ACCESS_DENIED:
                    // said alike of a database that does not exist and of one the user may not use
                    return new StartFailure(StartFailure.Kind.NO_DATABASE, what, reason,
                            "create the database and grant --user all privileges on it, or name one --user may use in --jdbc-url", e);
                default:
                    break;
            }
        }
        switch (state) {
            case "3D000", "90146":   // PostgreSQL's invalid catalog name; H2's database not found
                return new StartFailure(StartFailure.Kind.NO_DATABASE, what, reason, "create the database, or name an existing one in --jdbc-url", e);
            case "28P01", "28000":   // invalid password; invalid authorization (H2's wrong user name or password too)
                return new StartFailure(StartFailure.Kind.CREDENTIALS, what, reason, "give the database's user and password as --user and --password", e);
            case "90020":            // H2's database already open (locked by another process)
                return new StartFailure(StartFailure.Kind.IN_USE, what, reason,
                        "stop the process that has it open, or give --jdbc-url another database", e);
            default:
                if (lower.contains("permission denied") || lower.contains("access denied") || lower.contains("not permitted")
                        || lower.contains("read-only")) {
                    return new StartFailure(StartFailure.Kind.NOT_WRITABLE, what, reason, "put the database in a folder this user can write", e);
                }
                return new StartFailure(StartFailure.Kind.OTHER, what, reason, "check --jdbc-url, --user and --password", e);
        }
    }

    /**
     * Returns the database's own words of {@code e}: its message on one line, without the driver's
     * exception class or the number MariaDB's driver gives the connection ({@code (conn=12) }).
     */
    static String reason(SQLException e) {
        String message = e.getMessage();
        if (message == null || message.isBlank()) {
            Throwable cause = e.getCause();
            message = cause == null ? "SQL state " + e.getSQLState() : String.valueOf(cause.getMessage());
        }
        return StartFailure.oneLine(message.replaceFirst("^\\(conn=\\d+\\)\\s*", ""));
    }

    /** Returns the name of the database {@code url} is for: PostgreSQL, MariaDB, H2, or the URL's sub-protocol. */
    static String database(String url) {
        String lower = url.toLowerCase(Locale.ROOT);
        if (lower.startsWith("jdbc:postgresql:")) return "PostgreSQL";
        if (lower.startsWith("jdbc:mariadb:")) return "MariaDB";
        if (lower.startsWith("jdbc:h2:")) return "H2";
        String[] parts = url.split(":", 3);
        return parts.length >= 2 && parts[0].equalsIgnoreCase("jdbc") ? parts[1] : "the database";
    }

    /**
     * The URL of an H2 database in a file, with the settings a service needs.
     *
     * @param url     the URL to open
     * @param warning one line saying what the URL lacks, or null when it lacks nothing
     */
    public record H2Url(String url, @Nullable String warning) {}

    /**
     * Returns {@code url} with the settings the default H2 database of a service has, added when it
     * is an embedded H2 file ({@code jdbc:h2:file:PATH} or {@code jdbc:h2:PATH}) and lacks them:
     * {@code WRITE_DELAY=0}, so that a commit is in the file when it returns (by default H2 writes
     * it up to 500 ms later, and a killed process loses it), and {@code DB_CLOSE_ON_EXIT=FALSE}, so
     * that the service closes the database after its work stopped rather than H2's own shutdown hook
     * under it. A URL that sets {@code WRITE_DELAY} to another value keeps it, with a warning; any
     * other URL (PostgreSQL, MariaDB, {@code mem:}, {@code tcp:}, {@code ssl:}, {@code zip:}) is returned as given.
     */
    public static H2Url durable(String url) {
        String lower = url.toLowerCase(Locale.ROOT);
        if (!lower.startsWith("jdbc:h2:")) return new H2Url(url, null);
        String rest = lower.substring("jdbc:h2:".length());
        for (String kind : new String[] {"mem:", "tcp:", "ssl:", "zip:"}) if (rest.startsWith(kind)) return new H2Url(url, null);
        String writeDelay = null;
        boolean closeOnExit = false;
        String[] parts = url.split(";");
        for (int i = 1; i < parts.length; i++) {
            String[] kv = parts[i].split("=", 2);
            String key = kv[0].trim().toUpperCase(Locale.ROOT);
            if (key.equals("WRITE_DELAY")) writeDelay = kv.length > 1 ? kv[1].trim() : "";
            if (key.equals("DB_CLOSE_ON_EXIT")) closeOnExit = true;
        }
        String durable = url;
        String warning = null;
        if (writeDelay == null) {
            durable += ";WRITE_DELAY=0";
        } else if (!writeDelay.equals("0")) {
            warning = "--jdbc-url sets H2's WRITE_DELAY=" + writeDelay + ": a commit reaches the file up to " + writeDelay
                    + " ms after it returns, and a killed service loses it; WRITE_DELAY=0 (added when the URL has none) writes it at once";
        }
        if (!closeOnExit) durable += ";DB_CLOSE_ON_EXIT=FALSE";
        return new H2Url(durable, warning);
    }

    /** Returns a table prefix no other run uses: the time, the process and a counter. */
    static String freshPrefix() {
        return ("ex_" + Long.toString(System.currentTimeMillis(), 36) + "_" + Long.toString(ProcessHandle.current().pid(), 36)
                + "_" + RUNS.incrementAndGet() + "_").toLowerCase(Locale.ROOT);
    }

    /**
     * Returns a store on the database at {@code url} (PostgreSQL, MariaDB or H2) on the tables of
     * {@code prefix}, created when missing and kept when the store closes: the store of a service,
     * which every process serving the same system opens alike. Its connections come from a
     * HikariCP pool of at most {@code poolSize}.
     *
     * @param user     the user, or null for none
     * @param password the password, or null for none
     * @param poolSize the most connections the store holds at once
     * @throws StartFailure when the database refuses the connection, or does not answer within {@link #STARTING_WAIT}
     * @throws dev.statekit.store.StatekitException when the tables cannot be created
     */
    public static Opened persistent(String url, @Nullable String user, @Nullable String password, String prefix, int poolSize) {
        return persistent(url, user, password, prefix, poolSize, STARTING_WAIT, notice -> log.warn("{}", notice));
    }

    /**
     * Returns a store as {@link #persistent(String, String, String, String, int)} does, waiting up to
     * {@code wait} for a database that does not answer yet and telling {@code notice} once that it
     * waits.
     *
     * @throws StartFailure when the database refuses the connection, or does not answer within {@code wait}
     * @throws dev.statekit.store.StatekitException when the tables cannot be created
     */
    public static Opened persistent(String url, @Nullable String user, @Nullable String password, String prefix, int poolSize,
                                    Duration wait, Consumer<String> notice) {
        connectOnce(url, user, password, wait, notice);
        // the database answered: a pool that loses it later waits for it on each use
        HikariDataSource pool = pool(url, user, password, "statekit-" + prefix, poolSize, -1);
        long deadline = System.nanoTime() + wait.toNanos();
        try {
            while (true) {
                try {
                    JdbcStore store = JdbcStore.builder(pool).tablePrefix(prefix).createSchemaIfMissing(true).build();
                    return new Opened(store, name(store.dialect()) + " at " + url + ", tables " + prefix + "*", pool::close);
                } catch (dev.statekit.store.StatekitException e) {
                    // a transient failure (a deadlock with another process creating or using the same tables) is tried again
                    if (e.code() != dev.statekit.store.ErrorCode.STORE_UNAVAILABLE || System.nanoTime() - deadline >= 0) throw e;
                    log.debug("the store's tables could not be checked this time: {}", e.getMessage());
                    TimeUnit.MILLISECONDS.sleep(RETRY_MILLIS);
                }
            }
        } catch (InterruptedException e) {
            pool.close();
            Thread.currentThread().interrupt();
            throw new StartFailure(StartFailure.Kind.UNREACHABLE, "cannot open the tables " + prefix + "* at " + url, "interrupted",
                    "start again", e);
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
    }
}
