package dev.statekit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.jdbc.internal.SqlErrors;
import dev.statekit.store.Attributes;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.NewTask;
import dev.statekit.store.StatekitException;
import dev.statekit.store.TaskQuery;
import java.lang.reflect.Constructor;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** SQLExceptions become StatekitExceptions: retryable failures STORE_UNAVAILABLE, the rest STORE_FAILURE. */
class ErrorTranslationTest {
    static final Instant T0 = Instant.parse("2031-04-05T13:30:00Z");
    static final NewTask NEW = new NewTask("job", 1, "READY", "q", 0, null, Attributes.EMPTY, null, null, null, T0);
    static final ClaimRequest CLAIM = new ClaimRequest("job", "q", List.of(new ClaimRule("READY", "START", "RUNNING")),
            "w", T0, Duration.ofMinutes(1), 1, 0);

    static void assertCode(ThrowingCallable call, ErrorCode code, SQLException cause, Consumer<StatekitException> more) {
        assertThatThrownBy(call).isInstanceOfSatisfying(StatekitException.class, e -> {
            assertThat(e.code()).isEqualTo(code);
            assertThat(e.getCause()).isSameAs(cause);
            more.accept(e);
        });
    }

    @Test
    void aDataSourceWhoseConnectionsFailMakesEveryOperationStoreUnavailable() {
        SQLException refused = new SQLException("Connection to 127.0.0.1:5432 refused", "08001");
        JdbcStore store = JdbcStore.builder(Failing.dataSource(refused)).dialect(Dialect.POSTGRESQL).build();
        assertCode(() -> store.find(42), ErrorCode.STORE_UNAVAILABLE, refused, e -> {
            assertThat(e.taskId()).isEqualTo(42L);
            assertThat(e.getMessage()).contains("task 42").contains("refused");
        });
        assertCode(() -> store.create(NEW), ErrorCode.STORE_UNAVAILABLE, refused, e -> { });
        assertCode(() -> store.claim(CLAIM), ErrorCode.STORE_UNAVAILABLE, refused, e -> assertThat(e.getMessage()).contains("queue q"));
        assertCode(() -> store.renew(7, 1, T0, T0.plusSeconds(5)), ErrorCode.STORE_UNAVAILABLE, refused,
                e -> assertThat(e.taskId()).isEqualTo(7L));
        assertCode(() -> store.query(TaskQuery.all()), ErrorCode.STORE_UNAVAILABLE, refused, e -> { });
        assertCode(() -> store.pauseQueue("q", null), ErrorCode.STORE_UNAVAILABLE, refused, e -> { });
    }

    @Test
    void aDeadlocksOrSerializationConflictsVictimIsToldApartFromOtherFailures() {
        SQLException deadlock = new SQLException("Deadlock detected", "40001");
        SQLException pgDeadlock = new SQLException("deadlock detected", "40P01");
        SQLException refused = new SQLException("Connection refused", "08001");
        SQLException wrapped = new SQLException("batch failed", "HY000");
        wrapped.setNextException(pgDeadlock);
        assertThat(SqlErrors.conflictVictim(SqlErrors.translate(deadlock, "firing schedules", null))).isTrue();
        assertThat(SqlErrors.conflictVictim(SqlErrors.translate(wrapped, "firing schedules", null))).isTrue();
        assertThat(SqlErrors.conflictVictim(SqlErrors.translate(refused, "firing schedules", null))).isFalse();
        assertThat(SqlErrors.conflictVictim(new IllegalStateException("no SQL here"))).isFalse();
    }

    @Test
    void aConnectionFailureWithoutSqlStateIsStillUnavailable() {
        SQLException failure = new SQLException("pool exhausted");
        JdbcStore store = JdbcStore.builder(Failing.dataSource(failure)).dialect(Dialect.H2).build();
        assertCode(() -> store.find(1), ErrorCode.STORE_UNAVAILABLE, failure, e -> { });
    }

    @Test
    void refusedCredentialsAreAFailureRetryingWillNotFix() {
        SQLException denied = new SQLException("password authentication failed for user \"statekit\"", "28P01");
        JdbcStore store = JdbcStore.builder(Failing.dataSource(denied)).dialect(Dialect.POSTGRESQL).build();
        assertCode(() -> store.find(1), ErrorCode.STORE_FAILURE, denied, e -> assertThat(e.getMessage()).contains("28P01"));
    }

    @ParameterizedTest
    @CsvSource({
            "08006, STORE_UNAVAILABLE",   // connection failure
            "57P01, STORE_UNAVAILABLE",   // administrator shutdown
            "40001, STORE_UNAVAILABLE",   // serialization failure
            "40P01, STORE_UNAVAILABLE",   // deadlock
            "55P03, STORE_UNAVAILABLE",   // lock not available
            "HYT00, STORE_UNAVAILABLE",   // lock timeout (H2)
            "42601, STORE_FAILURE",       // syntax error
            "23502, STORE_FAILURE",       // not null violation
            "22021, STORE_FAILURE"})      // bad character in a value
    void statementFailuresAreTranslatedBySqlState(String state, ErrorCode code) {
        SQLException failure = new SQLException("failure " + state, state);
        JdbcStore store = JdbcStore.builder(Failing.statementsFailWith(failure)).dialect(Dialect.POSTGRESQL).build();
        assertCode(() -> store.find(9), code, failure, e -> {
            assertThat(e.taskId()).isEqualTo(9L);
            assertThat(e.getMessage()).contains("task 9").contains("SQLState " + state);
        });
        assertCode(() -> store.create(NEW), code, failure, e -> assertThat(e.taskId()).isNull());
    }

    @Test
    void transientExceptionTypesAndChainedStatesAreRetryable() {
        assertThat(SqlErrors.retryable(new SQLTransientConnectionException("gone"))).isTrue();
        BatchUpdateException batch = new BatchUpdateException("batch failed", "XX000", new int[0]);
        batch.setNextException(new SQLException("deadlock detected", "40P01"));
        assertThat(SqlErrors.retryable(batch)).isTrue();
        assertThat(SqlErrors.retryable(new SQLException("duplicate key", "23505"))).isFalse();
        BatchUpdateException duplicate = new BatchUpdateException("batch failed", null, new int[0]);
        duplicate.setNextException(new SQLException("duplicate key", "23505"));
        assertThat(SqlErrors.uniqueViolation(duplicate)).isTrue();
        assertThat(SqlErrors.uniqueViolation(new SQLException("other", "23503"))).isFalse();
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void tablesThatAreMissingAreAFailureThatPointsAtTheSchema(Dialect dialect) throws Exception {
        try (TestPool pool = Databases.pool(dialect)) {
            JdbcStore store = JdbcStore.builder(pool).tablePrefix(Databases.uniquePrefix("none")).dialect(dialect).build();
            assertThatThrownBy(() -> store.find(3)).isInstanceOfSatisfying(StatekitException.class, e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.STORE_FAILURE);
                assertThat(e.taskId()).isEqualTo(3L);
                assertThat(e.getCause()).isInstanceOf(SQLException.class);
                assertThat(e.getMessage()).contains("task 3").contains("schema applied").contains("JdbcStore.ddl");
            });
        }
    }

    @Test
    void aConnectionTheServerTerminatedIsStoreUnavailable() throws Exception {
        try (Opened db = Opened.open(Dialect.POSTGRESQL)) {
            JdbcStore store = db.store();
            long id = store.create(NEW).task().id();
            // the pool now holds one idle connection: terminate its server process behind the pool's back
            int pid;
            try (Connection c = db.pool().getConnection(); PreparedStatement ps = c.prepareStatement("select pg_backend_pid()");
                 ResultSet rs = ps.executeQuery()) {
                rs.next();
                pid = rs.getInt(1);
            }
            DataSource admin = Databases.postgres();
            try (Connection c = admin.getConnection(); PreparedStatement ps = c.prepareStatement("select pg_terminate_backend(?)")) {
                ps.setInt(1, pid);
                ps.executeQuery().close();
            } finally {
                ((TestPool) admin).close();
            }
            assertThatThrownBy(() -> store.find(id)).isInstanceOfSatisfying(StatekitException.class, e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.STORE_UNAVAILABLE);
                assertThat(e.taskId()).isEqualTo(id);
                assertThat(e.getCause()).isInstanceOf(SQLException.class);
            });
            // the broken connection was discarded: the next operation works
            assertThat(store.find(id)).isPresent();
        }
    }

    // --- the classification table of docs/store-jdbc.md ---------------------------------------

    private static final String TABLE_HEADER = "| SQLState | condition | code | why |";
    private static final Pattern BACKTICKED = Pattern.compile("`([^`]+)`");

    /** One row of the documented table: the SQLStates it names (null for none), its condition and its code. */
    record Row(int index, List<String> states, String condition, ErrorCode code, String text) {
        @Override
        public String toString() {
            return text;
        }

        boolean connecting() {
            return !condition.equals("in a statement");
        }

        boolean inStatements() {
            return !condition.equals("getting a connection");
        }
    }

    static List<Row> documentedRows() throws Exception {
        List<String> lines = Files.readAllLines(DocExamplesTest.ROOT.resolve("docs/store-jdbc.md"));
        int header = lines.indexOf(TABLE_HEADER);
        assertThat(header).as("the classification table of docs/store-jdbc.md").isNotNegative();
        List<Row> rows = new ArrayList<>();
        for (int i = header + 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
            String line = lines.get(i);
            String[] cells = line.split("\\|", -1);
            assertThat(cells).as("cells of %s", line).hasSize(6);
            List<String> states = new ArrayList<>();
            Matcher m = BACKTICKED.matcher(cells[1]);
            while (m.find()) states.add(m.group(1));
            if (states.isEmpty() || cells[1].contains("none")) states.add(null);
            String code = cells[3].trim();
            assertThat(code).as("code of %s", line).startsWith("`").endsWith("`");
            rows.add(new Row(rows.size(), states, cells[2].trim(), ErrorCode.valueOf(code.substring(1, code.length() - 1)),
                    cells[1].trim() + " | " + cells[2].trim()));
        }
        return rows;
    }

    /** Returns the failures a row describes: one per SQLState it names and per class its condition names. */
    static List<SQLException> failuresOf(Row row) throws ReflectiveOperationException {
        List<SQLException> result = new ArrayList<>();
        String condition = row.condition();
        for (String named : row.states()) {
            // a class of two characters stands for every state of the class: check its generic state and another one
            List<String> states = named != null && named.length() == 2 ? List.of(named + "000", named + "Q9Z")
                    : Collections.singletonList(named);
            for (String state : states) {
                if (state != null) assertThat(state).as("a SQLState of %s", row).hasSize(5);
                if (condition.isEmpty() || condition.equals("getting a connection") || condition.equals("in a statement")) {
                    result.add(new SQLException("failure " + state, state));
                } else if (condition.startsWith("error code ")) {
                    for (String code : backticked(condition)) result.add(new SQLException("failure " + state, state, Integer.parseInt(code)));
                } else if (condition.startsWith("message starts with ")) {
                    result.add(new SQLException(backticked(condition).get(0) + " found for jdbc:nowhere:db", state));
                } else if (condition.startsWith("cause ")) {
                    for (String type : backticked(condition)) {
                        Throwable cause = Class.forName(type).asSubclass(Throwable.class).getConstructor(String.class)
                                .newInstance("failure of " + type);
                        result.add(new SQLException("failure " + state, state, cause));
                    }
                } else if (condition.startsWith("type ")) {
                    for (String type : backticked(condition)) {
                        Constructor<? extends SQLException> c = Class.forName(type).asSubclass(SQLException.class)
                                .getConstructor(String.class, String.class);
                        result.add(c.newInstance("failure of " + type, state));
                    }
                } else {
                    throw new AssertionError("a condition this test does not know: " + condition);
                }
            }
        }
        return result;
    }

    private static List<String> backticked(String text) {
        List<String> result = new ArrayList<>();
        Matcher m = BACKTICKED.matcher(text);
        while (m.find()) result.add(m.group(1));
        assertThat(result).as("names in %s", text).isNotEmpty();
        return result;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("documentedRows")
    void everyRowOfTheDocumentedClassificationHolds(Row row) throws Exception {
        List<Row> rows = documentedRows();
        Row transientType = rows.stream().filter(r -> r.condition().startsWith("type ")).findFirst().orElseThrow();
        for (SQLException failure : failuresOf(row)) {
            // alone, as the next exception of a failed batch, and wrapped by a pool: the row decides
            BatchUpdateException batch = new BatchUpdateException("batch failed", null, new int[0]);
            batch.setNextException(failure);
            SQLException wrapped = new SQLException("the pool could not connect", (String) null, failure);
            for (SQLException shape : List.of(failure, batch, wrapped)) checkRow(row, shape, row.code());
            // under an exception that says retrying may help, only the rows above that one decide otherwise
            SQLException timedOut = new SQLTransientConnectionException("timed out waiting for a connection", null, failure);
            checkRow(row, timedOut, row.index() < transientType.index() ? row.code() : transientType.code());
        }
    }

    private static void checkRow(Row row, SQLException failure, ErrorCode expected) {
        String what = row + " for " + failure + " caused by " + failure.getCause() + " then " + failure.getNextException();
        if (row.connecting()) {
            JdbcStore store = JdbcStore.builder(Failing.dataSource(failure)).dialect(Dialect.POSTGRESQL).build();
            assertThatThrownBy(() -> store.find(1)).as("getting a connection: %s", what)
                    .isInstanceOfSatisfying(StatekitException.class, e -> {
                        assertThat(e.code()).as("getting a connection: %s", what).isEqualTo(expected);
                        assertThat(e.getCause()).isSameAs(failure);
                        assertThat(e.getMessage()).contains("task 1").contains("no connection");
                    });
        }
        if (row.inStatements()) {
            JdbcStore store = JdbcStore.builder(Failing.statementsFailWith(failure)).dialect(Dialect.POSTGRESQL).build();
            assertThatThrownBy(() -> store.find(1)).as("in a statement: %s", what)
                    .isInstanceOfSatisfying(StatekitException.class, e -> {
                        assertThat(e.code()).as("in a statement: %s", what).isEqualTo(expected);
                        assertThat(e.getCause()).isSameAs(failure);
                        assertThat(e.getMessage()).contains("task 1");
                    });
            assertThat(SqlErrors.retryable(failure)).as(what).isEqualTo(expected == ErrorCode.STORE_UNAVAILABLE);
        }
    }

    @Test
    void theDocumentedTableNamesBothCodesAndBothWaysOfFailing() throws Exception {
        List<Row> rows = documentedRows();
        assertThat(rows).extracting(Row::code).contains(ErrorCode.STORE_FAILURE, ErrorCode.STORE_UNAVAILABLE);
        assertThat(rows).extracting(Row::condition).contains("getting a connection", "in a statement");
        assertThat(rows).filteredOn(r -> r.condition().startsWith("type ")).hasSize(1);
    }

    @Test
    void aPoolTimeoutOverRefusedCredentialsIsAFailureThatNamesThem() {
        SQLException denied = new SQLException("password authentication failed for user \"statekit\"", "28P01");
        SQLException timedOut = new SQLTransientConnectionException("pool - Connection is not available, request timed out", null, denied);
        timedOut.setNextException(denied);
        JdbcStore store = JdbcStore.builder(Failing.dataSource(timedOut)).dialect(Dialect.POSTGRESQL).build();
        assertCode(() -> store.find(5), ErrorCode.STORE_FAILURE, timedOut,
                e -> assertThat(e.getMessage()).contains("request timed out").contains("caused by SQLState 28P01"));
    }

    // --- the real drivers ------------------------------------------------------------------------

    /** The password of the tests' PostgreSQL user, found as {@link Databases} finds it. */
    private static String pgPassword() {
        String v = System.getProperty("statekit.pg.password");
        if (v == null || v.isBlank()) v = System.getenv("STATEKIT_PG_PASSWORD");
        return v == null || v.isBlank() ? "statekit" : v;
    }

    private static Properties credentials(String user, @Nullable String password) {
        Properties p = new Properties();
        p.setProperty("user", user);
        if (password != null) p.setProperty("password", password);
        p.setProperty("connectTimeout", "10");
        return p;
    }

    private static StatekitException failureOf(TestPool pool) {
        try (pool) {
            JdbcStore store = JdbcStore.builder(pool).dialect(Dialect.POSTGRESQL).build();
            try {
                store.find(11);
            } catch (StatekitException e) {
                assertThat(e.taskId()).isEqualTo(11L);
                assertThat(e.getCause()).isInstanceOf(SQLException.class);
                return e;
            }
            throw new AssertionError("find succeeded on " + pool);
        }
    }

    private static String sqlState(StatekitException e) {
        return ((SQLException) e.getCause()).getSQLState();
    }

    @Test
    void postgresRefusingAWrongPasswordOrNoneIsAFailure() throws Exception {
        String user;
        try (TestPool pool = Databases.postgres(); Connection c = pool.getConnection()) {
            user = c.getMetaData().getUserName();
        }
        StatekitException wrong = failureOf(new TestPool(Databases.pgUrl(), credentials(user, "not the password")));
        assertThat(wrong.code()).isEqualTo(ErrorCode.STORE_FAILURE);
        assertThat(sqlState(wrong)).isEqualTo("28P01");
        assertThat(wrong.getMessage()).contains("store failed while").contains("no connection").contains("SQLState 28P01");

        StatekitException none = failureOf(new TestPool(Databases.pgUrl(), credentials(user, null)));
        assertThat(none.code()).isEqualTo(ErrorCode.STORE_FAILURE);
        assertThat(sqlState(none)).as(none.getMessage()).isEqualTo("08004");
        assertThat(none.getMessage()).contains("store failed while").contains("no connection").contains("SQLState 08004");
    }

    @Test
    void postgresWithoutTheDatabaseIsAFailureAndWithoutTheServerUnavailable() throws Exception {
        String user;
        try (TestPool pool = Databases.postgres(); Connection c = pool.getConnection()) {
            user = c.getMetaData().getUserName();
        }
        String url = Databases.pgUrl();
        String noDatabase = url.replaceFirst("^(jdbc:postgresql://[^/]*/)[^?]*", "$1statekit_no_such_database");
        assertThat(noDatabase).isNotEqualTo(url);
        StatekitException missing = failureOf(new TestPool(noDatabase, credentials(user, pgPassword())));
        assertThat(missing.code()).isEqualTo(ErrorCode.STORE_FAILURE);
        assertThat(sqlState(missing)).isEqualTo("3D000");

        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        StatekitException refused = failureOf(new TestPool("jdbc:postgresql://127.0.0.1:" + closedPort + "/statekit",
                credentials(user, pgPassword())));
        assertThat(refused.code()).isEqualTo(ErrorCode.STORE_UNAVAILABLE);
        assertThat(sqlState(refused)).isEqualTo("08001");
        assertThat(refused.getCause()).hasRootCauseInstanceOf(ConnectException.class);
    }

    @Test
    void aUrlNoDriverAcceptsIsAFailure() {
        StatekitException noDriver = failureOf(new TestPool("jdbc:postgresq://127.0.0.1:5432/statekit", credentials("statekit", "statekit")));
        assertThat(noDriver.code()).isEqualTo(ErrorCode.STORE_FAILURE);
        assertThat(sqlState(noDriver)).isEqualTo("08001");
        assertThat(noDriver.getMessage()).contains("No suitable driver");
    }

    @Test
    void h2RefusingAWrongPasswordIsAFailure() throws Exception {
        Properties owner = new Properties();
        owner.setProperty("user", "sa");
        owner.setProperty("password", "");
        String url = "jdbc:h2:file:" + Databases.buildDir().resolve("h2").resolve("password-" + Databases.uniquePrefix("pw"));
        try (TestPool pool = new TestPool(url, owner); Connection c = pool.getConnection()) {
            assertThat(c.isValid(1)).isTrue();
        }
        Properties wrong = new Properties();
        wrong.setProperty("user", "sa");
        wrong.setProperty("password", "not the password");
        try (TestPool pool = new TestPool(url, wrong)) {
            JdbcStore store = JdbcStore.builder(pool).dialect(Dialect.H2).build();
            assertThatThrownBy(() -> store.find(2)).isInstanceOfSatisfying(StatekitException.class, e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.STORE_FAILURE);
                assertThat(((SQLException) e.getCause()).getSQLState()).isEqualTo("28000");
            });
        }
    }
}
