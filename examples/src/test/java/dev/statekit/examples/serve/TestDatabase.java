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
 * A database server the examples' tests run services on besides H2, shared by several processes:
 * PostgreSQL or MariaDB. Each is where the environment says: {@code STATEKIT_PG_URL},
 * {@code STATEKIT_PG_USER}, {@code STATEKIT_PG_PASSWORD} (or the system properties
 * {@code statekit.pg.url}, {@code .user}, {@code .password}), by default
 * {@code jdbc:postgresql://127.0.0.1:5432/statekit}; {@code STATEKIT_MARIADB_URL},
 * {@code STATEKIT_MARIADB_USER}, {@code STATEKIT_MARIADB_PASSWORD} (or {@code statekit.mariadb.*}),
 * by default {@code jdbc:mariadb://127.0.0.1:3306/statekit}; both as {@code statekit}/{@code statekit}.
 * When one cannot be reached a test that needs it fails on CI ({@code CI=true}) and is skipped
 * elsewhere. The tables and sequences of the prefixes handed out by {@link #freshPrefix} are
 * dropped when the test JVM exits.
 */
public enum TestDatabase {
    /** PostgreSQL, started as {@code .ci/postgres.sh} does. */
    POSTGRESQL("PostgreSQL", "pg", "jdbc:postgresql://127.0.0.1:5432/statekit", ".ci/postgres.sh"),
    /** MariaDB, started as {@code .ci/mariadb.sh} does. */
    MARIADB("MariaDB", "mariadb", "jdbc:mariadb://127.0.0.1:3306/statekit", ".ci/mariadb.sh");

    private static final AtomicInteger PREFIXES = new AtomicInteger();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (TestDatabase database : values()) database.dropGivenTables();
        }, "drop-test-tables"));
    }

    private final String title;
    private final String key;
    private final String defaultUrl;
    private final String script;
    /** The prefixes handed out in this JVM, whose tables are dropped when it exits. */
    private final Set<String> given = ConcurrentHashMap.newKeySet();

    TestDatabase(String title, String key, String defaultUrl, String script) {
        this.title = title;
        this.key = key;
        this.defaultUrl = defaultUrl;
        this.script = script;
    }

    /** Returns the URL. */
    public String url() {
        return setting("url", defaultUrl);
    }

    /** Returns the user. */
    public String user() {
        return setting("user", "statekit");
    }

    /** Returns the password. */
    public String password() {
        return setting("password", "statekit");
    }

    /** Returns the store options of {@code examples serve} for this database with the table prefix {@code prefix}. */
    public List<String> serveOptions(String prefix) {
        return List.of("--jdbc-url", url(), "--user", user(), "--password", password(), "--table-prefix", prefix);
    }

    /** Returns a table prefix no other test run uses, whose tables are dropped when this JVM exits. */
    public String freshPrefix(String name) {
        String prefix = (name + "_" + Long.toString(System.currentTimeMillis(), 36) + "_" + Long.toString(ProcessHandle.current().pid(), 36)
                + "_" + PREFIXES.incrementAndGet() + "_").toLowerCase(Locale.ROOT);
        given.add(prefix);
        return prefix;
    }

    /** Returns a connection to this database. */
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), user(), password());
    }

    /** Fails the test on CI, and skips it elsewhere, when the database cannot be reached. */
    public void require() {
        try (Connection c = connect()) {
            c.isValid(5);
        } catch (SQLException e) {
            String message = title + " at " + url() + " cannot be reached: " + e.getMessage();
            if ("true".equals(System.getenv("CI"))) Assertions.fail(message + " (CI=true: the " + title + " tests must run)");
            Assumptions.abort(message + "; start it as " + script + " does to run this test");
        }
    }

    /** Drops the tables and sequences whose names start with {@code prefix}. */
    public void drop(String prefix) throws SQLException {
        try (Connection c = connect()) {
            drop(c, prefix);
        }
    }

    private void drop(Connection c, String prefix) throws SQLException {
        List<String> drops = new ArrayList<>();
        if (this == POSTGRESQL) {
            drops.addAll(names(c, "select table_name from information_schema.tables where table_schema = current_schema()"
                    + " and left(table_name, length(?)) = ?", prefix, "drop table if exists \"%s\" cascade"));
            drops.addAll(names(c, "select sequence_name from information_schema.sequences where sequence_schema = current_schema()"
                    + " and left(sequence_name, length(?)) = ?", prefix, "drop sequence if exists \"%s\""));
        } else {
            // MariaDB lists its sequences among the tables
            drops.addAll(names(c, "select table_name from information_schema.tables where table_schema = database()"
                    + " and table_type <> 'SEQUENCE' and left(table_name, length(?)) = ?", prefix, "drop table if exists `%s`"));
            drops.addAll(names(c, "select table_name from information_schema.tables where table_schema = database()"
                    + " and table_type = 'SEQUENCE' and left(table_name, length(?)) = ?", prefix, "drop sequence if exists `%s`"));
        }
        try (Statement s = c.createStatement()) {
            for (String drop : drops) s.execute(drop);
        }
    }

    /** Returns {@code drop} of each name {@code query} finds for {@code prefix}. */
    private static List<String> names(Connection c, String query, String prefix, String drop) throws SQLException {
        List<String> statements = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(query)) {
            ps.setString(1, prefix);
            ps.setString(2, prefix);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) statements.add(String.format(Locale.ROOT, drop, rs.getString(1)));
            }
        }
        return statements;
    }

    /** Drops the tables of every prefix handed out in this JVM, so that test runs leave no tables behind. */
    private void dropGivenTables() {
        if (given.isEmpty()) return;
        try (Connection c = connect()) {
            for (String prefix : given) drop(c, prefix);
        } catch (SQLException e) {
            System.err.println("could not drop the test tables of " + given + " on " + title + ": " + e.getMessage());
        }
    }

    private String setting(String name, String fallback) {
        String property = System.getProperty("statekit." + key + "." + name);
        if (property != null && !property.isEmpty()) return property;
        String env = System.getenv("STATEKIT_" + key.toUpperCase(Locale.ROOT) + "_" + name.toUpperCase(Locale.ROOT));
        return env == null || env.isEmpty() ? fallback : env;
    }

    /** Returns the database's name, e.g. {@code MariaDB}: the name of a test run on it. */
    @Override
    public String toString() {
        return title;
    }
}
