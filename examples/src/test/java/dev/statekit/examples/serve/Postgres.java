package dev.statekit.examples.serve;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * The PostgreSQL of the examples' tests: {@code STATEKIT_PG_URL}, {@code STATEKIT_PG_USER},
 * {@code STATEKIT_PG_PASSWORD} (or the system properties {@code statekit.pg.url}, {@code .user},
 * {@code .password}), by default {@code jdbc:postgresql://127.0.0.1:5432/statekit} as
 * {@code statekit}/{@code statekit}. When it cannot be reached a test fails on CI
 * ({@code CI=true}) and is skipped elsewhere. The tables of the prefixes handed out by
 * {@link #freshPrefix} are dropped when the test JVM exits.
 */
public final class Postgres {
    private static final AtomicInteger PREFIXES = new AtomicInteger();
    /** The prefixes handed out in this JVM, whose tables are dropped when it exits. */
    private static final Set<String> GIVEN = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(Postgres::dropGivenTables, "drop-test-tables"));
    }

    private Postgres() {}

    /** Returns the URL. */
    public static String url() {
        return setting("url", "jdbc:postgresql://127.0.0.1:5432/statekit");
    }

    /** Returns the user. */
    public static String user() {
        return setting("user", "statekit");
    }

    /** Returns the password. */
    public static String password() {
        return setting("password", "statekit");
    }

    /** Returns the store options of {@code examples serve} for this database with a table prefix no other test uses. */
    public static List<String> serveOptions(String prefix) {
        return List.of("--jdbc-url", url(), "--user", user(), "--password", password(), "--table-prefix", prefix);
    }

    /** Returns a table prefix no other test run uses. */
    public static String freshPrefix(String name) {
        String prefix = (name + "_" + Long.toString(System.currentTimeMillis(), 36) + "_" + Long.toString(ProcessHandle.current().pid(), 36)
                + "_" + PREFIXES.incrementAndGet() + "_").toLowerCase(Locale.ROOT);
        GIVEN.add(prefix);
        return prefix;
    }

    /** Drops the tables of every prefix handed out in this JVM, so that test runs leave no tables behind. */
    private static void dropGivenTables() {
        if (GIVEN.isEmpty()) return;
        try (Connection c = DriverManager.getConnection(url(), user(), password())) {
            for (String prefix : GIVEN) {
                List<String> tables = new ArrayList<>();
                try (PreparedStatement ps = c.prepareStatement(
                        "select tablename from pg_tables where schemaname = current_schema() and left(tablename, length(?)) = ?")) {
                    ps.setString(1, prefix);
                    ps.setString(2, prefix);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) tables.add(rs.getString(1));
                    }
                }
                try (Statement st = c.createStatement()) {
                    for (String table : tables) st.execute("drop table if exists \"" + table + "\" cascade");
                }
            }
        } catch (SQLException e) {
            System.err.println("could not drop the test tables of " + GIVEN + ": " + e.getMessage());
        }
    }

    /** Fails the test on CI, and skips it elsewhere, when the database cannot be reached. */
    public static void require() {
        try (Connection c = DriverManager.getConnection(url(), user(), password())) {
            c.isValid(5);
        } catch (SQLException e) {
            String message = "PostgreSQL at " + url() + " cannot be reached: " + e.getMessage();
            if ("true".equals(System.getenv("CI"))) Assertions.fail(message + " (CI=true: the PostgreSQL tests must run)");
            Assumptions.abort(message + "; start it as .ci/postgres.sh does to run this test");
        }
    }

    private static String setting(String name, String fallback) {
        String property = System.getProperty("statekit.pg." + name);
        if (property != null && !property.isEmpty()) return property;
        String env = System.getenv("STATEKIT_PG_" + name.toUpperCase(Locale.ROOT));
        return env == null || env.isEmpty() ? fallback : env;
    }
}
