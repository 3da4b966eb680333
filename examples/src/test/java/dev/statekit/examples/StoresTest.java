package dev.statekit.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.examples.serve.TestDatabase;
import dev.statekit.jdbc.JdbcStore;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The stores of the sample hosts: H2 by default, a JDBC URL, in memory; each run on tables of its own. */
class StoresTest {
    @TempDir
    Path dir;

    record Run(int status, String out, String err) {}

    static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static long tables(Connection c, String prefix) throws SQLException {
        try (ResultSet rs = c.getMetaData().getTables(null, null, "%", new String[] {"TABLE"})) {
            long n = 0;
            while (rs.next()) if (rs.getString("TABLE_NAME").toLowerCase(java.util.Locale.ROOT).startsWith(prefix)) n++;
            return n;
        }
    }

    @Test
    void aHostRunsOnAnH2FileGivenByUrlAndItsTablesAreDroppedAfterwards() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("db");
        Run r = run("demo", "compression", "--jdbc-url", url, "--user", "sa", "--password", "");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("store: H2 at " + url + ", tables ex_")
                .contains("summary: 5/5 completed, at most 1 running at once");
        try (Connection c = DriverManager.getConnection(url, "sa", "")) {
            assertThat(tables(c, "ex_")).isZero();
        }
    }

    @Test
    void twoRunsOnOneDatabaseUseTablesOfTheirOwn() throws Exception {
        try (Stores.Opened first = Stores.h2(dir); Stores.Opened second = Stores.h2(dir)) {
            String a = ((JdbcStore) first.store()).tablePrefix();
            String b = ((JdbcStore) second.store()).tablePrefix();
            assertThat(a).isNotEqualTo(b);
            assertThat(first.description()).contains(a);
            Run r = run("demo", "read-do", "--jdbc-url", "jdbc:h2:file:" + dir.resolve("statekit"), "--user", "sa");
            assertThat(r.status()).as(r.err()).isZero();
            assertThat(r.out()).contains("summary: 3/3 items shipped");
            try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + dir.resolve("statekit"), "sa", "")) {
                assertThat(tables(c, a)).as("every table of the schema").isEqualTo(14);
                assertThat(tables(c, b)).isEqualTo(14);
            }
        }
    }

    @Test
    void theInMemoryStoreIsKept() {
        Run r = run("demo", "etl", "--in-memory");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("store: in-memory store").contains("summary: 3 completed");
    }

    @Test
    void badStoreOptionsAreUsageErrors() {
        assertUsageError(run("demo", "etl", "--in-memory", "--jdbc-url", "jdbc:h2:mem:x"), "--in-memory and --jdbc-url are two stores; give one");
        assertUsageError(run("demo", "etl", "--user", "sa"), "--user and --password go with --jdbc-url");
        assertUsageError(run("demo", "etl", "--jdbc-url"), "--jdbc-url needs a value");
        assertUsageError(run("demo", "etl", "--jdbc-url", "--in-memory"), "--jdbc-url needs a value");
        assertUsageError(run("demo", "etl", "--in-memory", "--in-memory"), "--in-memory is given twice");
        assertUsageError(run("demo", "etl", "--jdbc-url", "a", "--jdbc-url", "b"), "--jdbc-url is given twice");
        assertUsageError(run("demo", "etl", "--frobnicate", "x"), "unknown option --frobnicate");
        assertUsageError(run("demo", "etl", "stray"), "unexpected argument 'stray'");
    }

    private static void assertUsageError(Run r, String problem) {
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).startsWith("examples: " + problem).contains("--jdbc-url URL").contains("--in-memory");
    }

    @Test
    void aDatabaseThatCannotBeReachedEndsWithStatus1() {
        Run r = run("demo", "etl", "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/none", "--user", "x", "--password", "y");
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.err()).startsWith("cannot open the store:");
    }

    @Test
    void onlyADatabaseThatDoesNotAnswerYetIsWaitedFor() {
        // refused or broken connections, a database starting up, one without a free connection: waited for
        for (String state : List.of("08001", "08006", "57P03", "53300")) {
            assertThat(Stores.answersLater(new SQLException("x", state))).as(state).isTrue();
        }
        // no such database, wrong credentials, an H2 file in use, no state at all: at once
        for (String state : java.util.Arrays.asList("3D000", "28P01", "28000", "90020", "90028", null)) {
            assertThat(Stores.answersLater(new SQLException("x", state))).as(String.valueOf(state)).isFalse();
        }
        // MariaDB: too many connections to the server or of the user, which it may send without a state, waited for;
        // an unknown database, one the user may not use, wrong credentials, at once
        assertThat(Stores.answersLater(new SQLException("Too many connections", "HY000", 1040))).isTrue();
        assertThat(Stores.answersLater(new SQLException("x", "42000", 1203))).isTrue();
        assertThat(Stores.answersLater(new SQLException("x", "42000", 1049))).isFalse();
        assertThat(Stores.answersLater(new SQLException("x", "42000", 1044))).isFalse();
        assertThat(Stores.answersLater(new SQLException("x", "28000", 1045))).isFalse();
    }

    @Test
    void aDemoOnADatabaseThatRefusesItSaysWhyInOneLine() {
        Run r = run("demo", "etl", "--jdbc-url", "jdbc:mysql://127.0.0.1:1/none");
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.err().lines().filter(l -> !l.isBlank())).containsExactly(
                "cannot open the store: cannot open jdbc:mysql://127.0.0.1:1/none: no JDBC driver on the class path takes this URL; "
                        + "--jdbc-url takes a PostgreSQL URL (jdbc:postgresql://HOST:PORT/DATABASE), a MariaDB one"
                        + " (jdbc:mariadb://HOST:PORT/DATABASE) or an H2 one (jdbc:h2:file:PATH)");
    }

    @Test
    void aMariaDbPoolHandsOutItsConnectionsAtReadCommitted() throws Exception {
        TestDatabase mariaDb = TestDatabase.MARIADB;
        mariaDb.require();
        try (com.zaxxer.hikari.HikariDataSource pool = Stores.pool(mariaDb.url(), mariaDb.user(), mariaDb.password(), "isolation-test", 2, 1);
             Connection c = pool.getConnection(); java.sql.Statement s = c.createStatement(); ResultSet rs = s.executeQuery("select @@tx_isolation")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).as("the session's isolation, as the server has it").isEqualTo("READ-COMMITTED");
        }
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(TestDatabase.class)
    void aHostRunsOnADatabaseGivenItsUrlAndDropsAllItsTablesAfterwards(TestDatabase database) throws Exception {
        database.require();
        Run r = run("demo", "novel-proofer", "--jdbc-url", database.url(), "--user", database.user(), "--password", database.password());
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("store: " + database + " at " + database.url()).contains("summary: job 1 DONE, 6/6 chunks done");
        String prefix = r.out().replaceAll("(?s).*tables (ex_[a-z0-9_]+)\\*.*", "$1");
        assertThat(prefix).startsWith("ex_");
        try (Connection c = database.connect(); ResultSet rs = c.getMetaData().getTables(c.getCatalog(), null, "%", null)) {
            List<String> left = new java.util.ArrayList<>();
            while (rs.next()) if (rs.getString("TABLE_NAME").toLowerCase(java.util.Locale.ROOT).startsWith(prefix)) left.add(rs.getString("TABLE_NAME"));
            assertThat(left).as("the tables, sequences and indexes of the run").isEmpty();
        }
    }
}
