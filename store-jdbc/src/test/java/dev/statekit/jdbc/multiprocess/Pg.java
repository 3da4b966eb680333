package dev.statekit.jdbc.multiprocess;

import static org.junit.jupiter.api.Assertions.fail;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;

/**
 * The PostgreSQL server of the failure tests, found as the other statekit PostgreSQL tests find it:
 * {@code STATEKIT_PG_URL} (default {@code jdbc:postgresql://127.0.0.1:5432/statekit}, user and
 * password {@code statekit}; system properties {@code statekit.pg.url}, {@code .user},
 * {@code .password} override). When it cannot be reached the tests fail on CI ({@code CI=true})
 * and are skipped elsewhere.
 */
final class Pg {
    private Pg() {
    }

    static String url() {
        return setting("statekit.pg.url", "STATEKIT_PG_URL", "jdbc:postgresql://127.0.0.1:5432/statekit");
    }

    static String user() {
        return setting("statekit.pg.user", "STATEKIT_PG_USER", "statekit");
    }

    static String password() {
        return setting("statekit.pg.password", "STATEKIT_PG_PASSWORD", "statekit");
    }

    private static String setting(String property, String variable, String fallback) {
        String v = System.getProperty(property);
        if (v == null || v.isBlank()) v = System.getenv(variable);
        return v == null || v.isBlank() ? fallback : v;
    }

    /** Returns the connection properties of {@code user}: short connect timeouts, a socket timeout as a safety net. */
    static Properties properties(String user, String password) {
        Properties p = new Properties();
        p.setProperty("user", user);
        p.setProperty("password", password);
        p.setProperty("connectTimeout", "5");
        p.setProperty("loginTimeout", "10");
        p.setProperty("socketTimeout", "60");
        return p;
    }

    static Properties properties() {
        return properties(user(), password());
    }

    /**
     * Returns {@code p} for sessions whose commits need not wait for the disk: the tests' own setup,
     * checks and effect records, never the store under test. The server is not crashed by these
     * tests, so nothing they commit is lost; the store's own commits keep the server's settings.
     */
    static Properties withoutDiskWait(Properties p) {
        p.setProperty("options", "-c synchronous_commit=off");
        return p;
    }

    /** Fails the calling test on CI, and skips it elsewhere, when PostgreSQL cannot be reached. */
    static void require() {
        String problem;
        try (Connection c = DriverManager.getConnection(url(), properties())) {
            c.isValid(10);
            return;
        } catch (SQLException e) {
            problem = "PostgreSQL at " + url() + " cannot be reached (" + e.getMessage()
                    + "); start it with .ci/postgres.sh or point STATEKIT_PG_URL, STATEKIT_PG_USER and"
                    + " STATEKIT_PG_PASSWORD at a server";
        }
        if ("true".equalsIgnoreCase(System.getenv("CI"))) fail(problem + " (CI=true: PostgreSQL tests must run)");
        Assumptions.abort(problem + " — skipping the PostgreSQL tests outside CI");
    }

    /** Returns a table prefix no concurrent run uses. */
    static String uniquePrefix(String kind) {
        String run = Long.toString(ProcessHandle.current().pid(), 36) + Long.toString(Math.floorMod(System.nanoTime(), 1_000_000_000L), 36);
        return ("t" + kind + run + "_").toLowerCase(Locale.ROOT);
    }

    /** Returns host and port of the server of a {@code jdbc:postgresql://host:port/db} URL. */
    static String[] hostAndPort(String jdbcUrl) {
        URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
        String host = uri.getHost() != null ? uri.getHost() : "127.0.0.1";
        int port = uri.getPort() > 0 ? uri.getPort() : 5432;
        return new String[] {host, Integer.toString(port)};
    }

    /** Returns {@code jdbcUrl} with its host and port replaced by 127.0.0.1 and {@code port}. */
    static String throughPort(String jdbcUrl, int port) {
        URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
        String rest = uri.getRawPath() == null ? "/" : uri.getRawPath();
        if (uri.getRawQuery() != null) rest += "?" + uri.getRawQuery();
        return "jdbc:postgresql://127.0.0.1:" + port + rest;
    }

    /**
     * Drops the statekit tables and sequences of {@code prefix}, and the named extra tables (MariaDB
     * takes the statements too: it ignores {@code cascade}).
     */
    static void drop(DataSource ds, String prefix, String... extraTables) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            for (String table : extraTables) s.execute("drop table if exists " + prefix + table + " cascade");
            for (String table : new String[] {"tasks", "history", "queues", "schema_version", "groups",
                    "group_counts", "dependencies", "marks", "archived_tasks", "archived_history", "rate_starts", "rate_holds", "schedules", "processes",
                    "wakes"}) {
                s.execute("drop table if exists " + prefix + table + " cascade");
            }
            for (String sequence : new String[] {"fifo_seq", "front_seq", "fencing_seq", "check_seq"}) {
                s.execute("drop sequence if exists " + prefix + sequence);
            }
        }
    }
}
