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
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

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
}
