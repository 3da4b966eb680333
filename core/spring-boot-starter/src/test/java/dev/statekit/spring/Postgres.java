package dev.statekit.spring;

import static org.junit.jupiter.api.Assertions.fail;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The PostgreSQL server of the starter's tests: {@code STATEKIT_PG_URL} (default
 * {@code jdbc:postgresql://127.0.0.1:5432/statekit}), {@code STATEKIT_PG_USER} and
 * {@code STATEKIT_PG_PASSWORD} (default {@code statekit}); system properties {@code statekit.pg.url},
 * {@code .user} and {@code .password} override. Without it the test fails on CI ({@code CI=true})
 * and is skipped elsewhere.
 */
final class Postgres {
    private Postgres() {}

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

    static DataSource dataSource() {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(url());
        ds.setUser(user());
        ds.setPassword(password());
        ds.setConnectTimeout(5);
        return ds;
    }

    /** Fails the calling test on CI, and skips it elsewhere, when PostgreSQL cannot be reached. */
    static void require() {
        String problem;
        try (Connection c = dataSource().getConnection()) {
            c.isValid(10);
            return;
        } catch (SQLException e) {
            problem = "PostgreSQL at " + url() + " cannot be reached (" + e.getMessage()
                    + "); start it with .ci/postgres.sh or point STATEKIT_PG_URL, STATEKIT_PG_USER and STATEKIT_PG_PASSWORD at a server";
        }
        if ("true".equalsIgnoreCase(System.getenv("CI"))) fail(problem + " (CI=true: PostgreSQL tests must run)");
        Assumptions.abort(problem + " — skipping the PostgreSQL tests outside CI");
    }

    /** Returns a table prefix no concurrent run uses. */
    static String uniquePrefix() {
        return ("tspring" + Long.toString(ProcessHandle.current().pid(), 36)
                + Long.toString(Math.floorMod(System.nanoTime(), 1_000_000_000L), 36) + "_").toLowerCase(Locale.ROOT);
    }

    /** Drops every table and sequence whose name starts with {@code prefix}. */
    static void drop(String prefix) throws SQLException {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("do $$ declare r record; begin"
                    + " for r in select tablename from pg_tables where schemaname = current_schema() and tablename like '" + prefix + "%' loop"
                    + " execute 'drop table if exists ' || quote_ident(r.tablename) || ' cascade'; end loop;"
                    + " for r in select sequencename from pg_sequences where schemaname = current_schema() and sequencename like '" + prefix + "%' loop"
                    + " execute 'drop sequence if exists ' || quote_ident(r.sequencename); end loop; end $$");
        }
    }
}
