package dev.statekit.jdbc.multiprocess;

import static org.junit.jupiter.api.Assertions.fail;

import dev.statekit.jdbc.Dialect;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.Properties;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;

/**
 * A database server of the tests across processes, with the SQL of the tests' own tables: the
 * PostgreSQL server of {@link Pg}, or the MariaDB server at {@code STATEKIT_MARIADB_URL} (default
 * {@code jdbc:mariadb://127.0.0.1:3306/statekit}, user and password {@code statekit}; system
 * properties {@code statekit.mariadb.url}, {@code .user}, {@code .password} override). When it
 * cannot be reached the tests fail on CI ({@code CI=true}) and are skipped elsewhere. A node gets
 * its server's name as the argument {@code server}.
 */
enum Server {
    POSTGRESQL(Dialect.POSTGRESQL) {
        @Override
        void require() {
            Pg.require();
        }

        @Override
        String url() {
            return Pg.url();
        }

        @Override
        String user() {
            return Pg.user();
        }

        @Override
        String password() {
            return Pg.password();
        }

        @Override
        Properties properties(String user, String password) {
            return Pg.properties(user, password);
        }

        @Override
        Properties withoutDiskWait(Properties p) {
            return Pg.withoutDiskWait(p);
        }

        @Override
        void name(Properties p, String app) {
            p.setProperty("ApplicationName", app);
        }

        @Override
        String sessionsOf() {
            return "select count(*) from pg_stat_activity where application_name = ?";
        }

        @Override
        String text() {
            return "text";
        }

        @Override
        String clockColumn() {
            return "timestamptz";
        }

        @Override
        String clockNow() {
            return "clock_timestamp()";
        }

        @Override
        Instant clock(ResultSet rs, int i) throws SQLException {
            java.sql.Timestamp t = rs.getTimestamp(i);
            return t == null ? null : t.toInstant();
        }

        @Override
        Instant storeTime(ResultSet rs, int i) throws SQLException {
            return clock(rs, i);
        }

        @Override
        String insertIgnoring(String intoAndValues) {
            return "insert into " + intoAndValues + " on conflict do nothing";
        }

        @Override
        void recordHistoryInserts(Statement s, String prefix) throws SQLException {
            s.execute("create table " + prefix + "history_seen (seq bigserial primary key, task_id bigint not null,"
                    + " version bigint not null, event text not null, actor text, at timestamptz not null,"
                    + " db_at timestamptz not null default clock_timestamp())");
            s.execute("create function " + prefix + "seen() returns trigger language plpgsql as $$ begin"
                    + " insert into " + prefix + "history_seen (task_id, version, event, actor, at)"
                    + " values (new.task_id, new.version, new.event, new.actor, new.at); return null; end $$");
            s.execute("create trigger " + prefix + "seen after insert on " + prefix + "history for each row execute procedure "
                    + prefix + "seen()");
        }

        @Override
        void drop(DataSource ds, String prefix, String... extraTables) throws SQLException {
            super.drop(ds, prefix, extraTables);
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                s.execute("drop function if exists " + prefix + "seen() cascade");
            }
        }
    },
    MARIADB(Dialect.MARIADB) {
        @Override
        String url() {
            return setting("statekit.mariadb.url", "STATEKIT_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/statekit");
        }

        @Override
        String user() {
            return setting("statekit.mariadb.user", "STATEKIT_MARIADB_USER", "statekit");
        }

        @Override
        String password() {
            return setting("statekit.mariadb.password", "STATEKIT_MARIADB_PASSWORD", "statekit");
        }

        @Override
        Properties properties(String user, String password) {
            Properties p = new Properties();
            p.setProperty("user", user);
            p.setProperty("password", password);
            p.setProperty("connectTimeout", "5000");
            p.setProperty("socketTimeout", "60000");
            return p;
        }

        /** As it is: InnoDB's flush at commit is the server's setting, not a session's. */
        @Override
        Properties withoutDiskWait(Properties p) {
            return p;
        }

        @Override
        void name(Properties p, String app) {
            p.setProperty("connectionAttributes", "program_name:" + app);
        }

        /** The sessions' attributes live in the performance schema, which {@code .ci/mariadb.sh} turns on. */
        @Override
        String sessionsOf() {
            return "select count(*) from performance_schema.session_connect_attrs where attr_name = 'program_name' and attr_value = ?";
        }

        @Override
        String text() {
            return "varchar(190)";
        }

        /** Seconds since the epoch, to the microsecond: the server's clock without its zone. */
        @Override
        String clockColumn() {
            return "decimal(17, 6)";
        }

        @Override
        String clockNow() {
            return "(unix_timestamp(sysdate(6)))";
        }

        @Override
        Instant clock(ResultSet rs, int i) throws SQLException {
            BigDecimal seconds = rs.getBigDecimal(i);
            if (seconds == null) return null;
            long micros = seconds.movePointRight(6).longValueExact();
            return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L);
        }

        /** The store keeps microseconds since the epoch. */
        @Override
        Instant storeTime(ResultSet rs, int i) throws SQLException {
            long micros = rs.getLong(i);
            if (rs.wasNull()) return null;
            return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L);
        }

        @Override
        String insertIgnoring(String intoAndValues) {
            return "insert ignore into " + intoAndValues;
        }

        @Override
        void recordHistoryInserts(Statement s, String prefix) throws SQLException {
            s.execute("create table " + prefix + "history_seen (seq bigint auto_increment primary key, task_id bigint not null,"
                    + " version bigint not null, event varchar(190) not null, actor varchar(190), at bigint not null,"
                    + " db_at decimal(17, 6) not null default (unix_timestamp(sysdate(6))))");
            s.execute("create trigger " + prefix + "seen after insert on " + prefix + "history for each row"
                    + " insert into " + prefix + "history_seen (task_id, version, event, actor, at)"
                    + " values (new.task_id, new.version, new.event, new.actor, new.at)");
        }

    };

    /** The store's dialect on this server. */
    final Dialect dialect;

    Server(Dialect dialect) {
        this.dialect = dialect;
    }

    abstract String url();

    abstract String user();

    abstract String password();

    /** Returns the connection properties of {@code user}: short connect timeouts, a socket timeout as a safety net. */
    abstract Properties properties(String user, String password);

    Properties properties() {
        return properties(user(), password());
    }

    /** Returns {@code p} for sessions whose commits need not wait for the disk, where the server lets a session choose. */
    abstract Properties withoutDiskWait(Properties p);

    /** Names the sessions of {@code p} as those of application {@code app}, as {@link #sessionsOf} finds them. */
    abstract void name(Properties p, String app);

    /** Counts the sessions of an application: parameter its name. */
    abstract String sessionsOf();

    /** The type of a text column of the tests' tables. */
    abstract String text();

    /** The type of a column of the database's clock. */
    abstract String clockColumn();

    /** The database's clock now, as a value of {@link #clockColumn} (and as a column default). */
    abstract String clockNow();

    /** Reads a value of {@link #clockColumn}, or null. */
    abstract Instant clock(ResultSet rs, int i) throws SQLException;

    /** Reads a time the store wrote (a history entry's {@code at}), or null. */
    abstract Instant storeTime(ResultSet rs, int i) throws SQLException;

    /** {@code insert into intoAndValues} that does nothing when the row's key is taken. */
    abstract String insertIgnoring(String intoAndValues);

    /** Creates {@code history_seen} and the trigger that copies each history row into it, numbered in insert order. */
    abstract void recordHistoryInserts(Statement s, String prefix) throws SQLException;

    /** Drops the statekit tables and sequences of {@code prefix} and the named extra tables (PostgreSQL: and the trigger's function). */
    void drop(DataSource ds, String prefix, String... extraTables) throws SQLException {
        Pg.drop(ds, prefix, extraTables);
    }

    /** Fails the calling test on CI, and skips it elsewhere, when the server cannot be reached. */
    void require() {
        String problem;
        try (Connection c = DriverManager.getConnection(url(), properties())) {
            c.isValid(10);
            return;
        } catch (SQLException e) {
            problem = "MariaDB at " + url() + " cannot be reached (" + e.getMessage()
                    + "); start it with .ci/mariadb.sh or point STATEKIT_MARIADB_URL, STATEKIT_MARIADB_USER and"
                    + " STATEKIT_MARIADB_PASSWORD at a server";
        }
        if ("true".equalsIgnoreCase(System.getenv("CI"))) fail(problem + " (CI=true: MariaDB tests must run)");
        Assumptions.abort(problem + " — skipping the MariaDB tests outside CI");
    }

    private static String setting(String property, String variable, String fallback) {
        String v = System.getProperty(property);
        if (v == null || v.isBlank()) v = System.getenv(variable);
        return v == null || v.isBlank() ? fallback : v;
    }
}
