package dev.statekit.jdbc;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Assumptions;

/**
 * The databases of the tests: H2 in files under the build directory, and the PostgreSQL server at
 * {@code STATEKIT_PG_URL} (default {@code jdbc:postgresql://127.0.0.1:5432/statekit}, user and
 * password {@code statekit}; system properties {@code statekit.pg.url}, {@code .user},
 * {@code .password} override), and the MariaDB server at {@code STATEKIT_MARIADB_URL} (default
 * {@code jdbc:mariadb://127.0.0.1:3306/statekit}, user and password {@code statekit}; system
 * properties {@code statekit.mariadb.url}, {@code .user}, {@code .password}). When a server cannot be
 * reached its tests fail on CI ({@code CI=true}) and are skipped elsewhere.
 */
final class Databases {
    private static final AtomicLong COUNTER = new AtomicLong();
    private static final String RUN = Long.toString(ProcessHandle.current().pid(), 36)
            + Long.toString(Math.floorMod(System.nanoTime(), 1_000_000L), 36);
    private static volatile String postgresProblem;
    private static volatile boolean postgresChecked;
    private static volatile String mariaDbProblem;
    private static volatile boolean mariaDbChecked;

    private Databases() {
    }

    /** Returns a table prefix no other test and no concurrent run uses. */
    static String uniquePrefix(String kind) {
        return ("t" + kind + RUN + "_" + COUNTER.incrementAndGet() + "_").toLowerCase(java.util.Locale.ROOT);
    }

    static Path buildDir() {
        String dir = System.getProperty("statekit.buildDir");
        return (dir != null ? Paths.get(dir) : Paths.get("build")).toAbsolutePath();
    }

    /** Returns a pool over a new H2 database file under the build directory. */
    static TestPool h2() {
        Path file = buildDir().resolve("h2").resolve("db-" + RUN + "-" + COUNTER.incrementAndGet());
        Properties p = new Properties();
        p.setProperty("user", "sa");
        p.setProperty("password", "");
        return new TestPool("jdbc:h2:file:" + file, p);
    }

    static String pgUrl() {
        return setting("statekit.pg.url", "STATEKIT_PG_URL", "jdbc:postgresql://127.0.0.1:5432/statekit");
    }

    private static Properties pgProperties() {
        Properties p = new Properties();
        p.setProperty("user", setting("statekit.pg.user", "STATEKIT_PG_USER", "statekit"));
        p.setProperty("password", setting("statekit.pg.password", "STATEKIT_PG_PASSWORD", "statekit"));
        p.setProperty("connectTimeout", "10");
        p.setProperty("loginTimeout", "10");
        return p;
    }

    private static String setting(String property, String variable, String fallback) {
        String v = System.getProperty(property);
        if (v == null || v.isBlank()) v = System.getenv(variable);
        return v == null || v.isBlank() ? fallback : v;
    }

    /**
     * Returns a pool on the PostgreSQL server; when it cannot be reached, fails the calling test on
     * CI and skips it elsewhere.
     */
    static TestPool postgres() {
        requirePostgres();
        return new TestPool(pgUrl(), pgProperties());
    }

    /** Fails (on CI) or skips (elsewhere) the calling test when PostgreSQL cannot be reached. */
    static void requirePostgres() {
        String problem = postgresProblem();
        if (problem == null) return;
        if (onCi()) fail(problem + " (CI=true: PostgreSQL tests must run)");
        Assumptions.abort(problem + " — skipping the PostgreSQL tests outside CI");
    }

    /** Returns whether the tests run on CI, where nothing may be skipped. */
    static boolean onCi() {
        return "true".equalsIgnoreCase(System.getenv("CI"));
    }

    /** Returns why PostgreSQL cannot be reached, or null when it can; tries once per run. */
    static String postgresProblem() {
        if (!postgresChecked) {
            synchronized (Databases.class) {
                if (!postgresChecked) {
                    try (Connection c = DriverManager.getConnection(pgUrl(), pgProperties())) {
                        c.isValid(10);
                        postgresProblem = null;
                    } catch (SQLException e) {
                        postgresProblem = "PostgreSQL at " + pgUrl() + " cannot be reached (" + e.getMessage()
                                + "); start it with .ci/postgres.sh or point STATEKIT_PG_URL, STATEKIT_PG_USER and"
                                + " STATEKIT_PG_PASSWORD at a server";
                    }
                    postgresChecked = true;
                }
            }
        }
        return postgresProblem;
    }

    static String mariaDbUrl() {
        return setting("statekit.mariadb.url", "STATEKIT_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/statekit");
    }

    private static Properties mariaDbProperties() {
        Properties p = new Properties();
        p.setProperty("user", setting("statekit.mariadb.user", "STATEKIT_MARIADB_USER", "statekit"));
        p.setProperty("password", setting("statekit.mariadb.password", "STATEKIT_MARIADB_PASSWORD", "statekit"));
        p.setProperty("connectTimeout", "10000");
        return p;
    }

    /** Returns a pool on the MariaDB server through MariaDB's driver; when it cannot be reached, fails the calling test on CI and skips it elsewhere. */
    static TestPool mariaDb() {
        requireMariaDb();
        return new TestPool(mariaDbUrl(), mariaDbProperties());
    }

    /** Returns a pool on the same MariaDB server through MySQL's driver (Connector/J). */
    static TestPool mariaDbThroughMySqlDriver() {
        requireMariaDb();
        String url = mariaDbUrl().replaceFirst("^jdbc:mariadb:", "jdbc:mysql:");
        return new TestPool(url, mariaDbProperties());
    }

    /** Fails (on CI) or skips (elsewhere) the calling test when MariaDB cannot be reached. */
    static void requireMariaDb() {
        String problem = mariaDbProblem();
        if (problem == null) return;
        if (onCi()) fail(problem + " (CI=true: MariaDB tests must run)");
        Assumptions.abort(problem + " — skipping the MariaDB tests outside CI");
    }

    /** Returns why MariaDB cannot be reached, or null when it can; tries once per run. */
    static String mariaDbProblem() {
        if (!mariaDbChecked) {
            synchronized (Databases.class) {
                if (!mariaDbChecked) {
                    try (Connection c = DriverManager.getConnection(mariaDbUrl(), mariaDbProperties())) {
                        c.isValid(10);
                        mariaDbProblem = null;
                    } catch (SQLException e) {
                        mariaDbProblem = "MariaDB at " + mariaDbUrl() + " cannot be reached (" + e.getMessage()
                                + "); start it with .ci/mariadb.sh or point STATEKIT_MARIADB_URL, STATEKIT_MARIADB_USER and"
                                + " STATEKIT_MARIADB_PASSWORD at a server";
                    }
                    mariaDbChecked = true;
                }
            }
        }
        return mariaDbProblem;
    }

    /** Returns a pool on the database of {@code dialect}. */
    static TestPool pool(Dialect dialect) {
        return switch (dialect) {
            case POSTGRESQL -> postgres();
            case MARIADB -> mariaDb();
            case H2 -> h2();
        };
    }

    /** Drops every table and sequence of {@code prefix}. */
    static void drop(javax.sql.DataSource ds, String prefix) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            for (String table : TABLES) s.execute("drop table if exists " + prefix + table);
            for (String sequence : SEQUENCES) s.execute("drop sequence if exists " + prefix + sequence);
        }
    }

    /** The tables of a store, {@code schema_version} last. */
    static final List<String> TABLES = List.of("tasks", "history", "queues", "groups", "group_counts", "dependencies", "marks",
            "archived_tasks", "archived_history", "rate_starts", "rate_holds", "schedules", "processes", "wakes", "schema_version");
    /** The sequences of a store. */
    static final List<String> SEQUENCES = List.of("fifo_seq", "front_seq", "fencing_seq", "check_seq");

    /**
     * Empties the PostgreSQL tables of {@code prefix} as a store found them when it created them:
     * every row gone but the schema's version, every sequence back at its start.
     */
    static void emptyPostgres(javax.sql.DataSource ds, String prefix) throws SQLException {
        List<String> rows = new java.util.ArrayList<>();
        for (String table : TABLES) if (!table.equals("schema_version")) rows.add(prefix + table);
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("set lock_timeout = '10s'");      // a connection a test left in a transaction fails this, not the run
            s.execute("truncate table " + String.join(", ", rows) + " restart identity");
            for (String sequence : SEQUENCES) s.execute("alter sequence " + prefix + sequence + " restart");
        }
    }

    /**
     * Empties the MariaDB tables of {@code prefix} as a store found them when it created them:
     * every row gone but the schema's version, every sequence and counter back at its start.
     */
    static void emptyMariaDb(javax.sql.DataSource ds, String prefix) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("set session lock_wait_timeout = 10");      // a connection a test left in a transaction fails this, not the run
            for (String table : TABLES) {
                if (!table.equals("schema_version")) s.execute("truncate table " + prefix + table);
            }
            for (String sequence : SEQUENCES) s.execute("alter sequence " + prefix + sequence + " restart");
        }
    }
}
