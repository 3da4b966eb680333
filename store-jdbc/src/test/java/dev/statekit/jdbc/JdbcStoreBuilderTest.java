package dev.statekit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.store.ErrorCode;
import dev.statekit.store.StatekitException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The builder: prefix validation, every defect at once, dialect detection and override. */
class JdbcStoreBuilderTest {

    @ParameterizedTest
    @ValueSource(strings = {"", "Statekit_", "1jobs_", "_jobs", "jobs-", "jobs.", "jöbs_", "jobs ", "q'; drop table x; --",
            "jobs\"_", "abcdefghijklmnopqrstuvwxyz0123456", "İ_", "ı_"})
    void refusesATablePrefixOutsideTheNamePattern(String prefix) {
        DataSource unused = Failing.dataSource(new SQLException("never connected", "08001"));
        assertThatThrownBy(() -> JdbcStore.builder(unused).tablePrefix(prefix).dialect(Dialect.H2).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + prefix + "'")
                .hasMessageContaining("[a-z][a-z0-9_]{0,30}");
        assertThatThrownBy(() -> JdbcStore.ddl(Dialect.POSTGRESQL, prefix)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"a", "statekit_", "jobs2_", "abcdefghijklmnopqrstuvwxyz01234", "x_y_z"})
    void acceptsEveryPrefixOfThePattern(String prefix) {
        DataSource unused = Failing.dataSource(new SQLException("never connected", "08001"));
        JdbcStore store = JdbcStore.builder(unused).tablePrefix(prefix).dialect(Dialect.POSTGRESQL).build();
        assertThat(store.tablePrefix()).isEqualTo(prefix);
        assertThat(store.dialect()).isEqualTo(Dialect.POSTGRESQL);
    }

    @Test
    void reportsEveryDefectAtOnce() {
        DataSource unused = Failing.dataSource(new SQLException("never connected", "08001"));
        assertThatThrownBy(() -> JdbcStore.builder(unused).tablePrefix("Bad").maxPayloadChars(-1).dialect(Dialect.H2).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'Bad'")
                .hasMessageContaining("maxPayloadChars must be >= 0, was -1");
    }

    @Test
    void hasDocumentedDefaults() {
        DataSource unused = Failing.dataSource(new SQLException("never connected", "08001"));
        JdbcStore store = JdbcStore.builder(unused).dialect(Dialect.H2).build();
        assertThat(store.tablePrefix()).isEqualTo("statekit_").isEqualTo(JdbcStore.DEFAULT_TABLE_PREFIX);
        assertThat(store.maxPayloadChars()).isEqualTo(1 << 20);
    }

    @Test
    void aDialectSetExplicitlyNeedsNoConnection() {
        DataSource down = Failing.dataSource(new SQLException("connection refused", "08001"));
        JdbcStore store = JdbcStore.builder(down).dialect(Dialect.POSTGRESQL).build();
        assertThat(store.dialect()).isEqualTo(Dialect.POSTGRESQL);
    }

    @Test
    void detectingTheDialectOfAnUnreachableDatabaseIsStoreUnavailable() {
        SQLException refused = new SQLException("connection refused", "08001");
        assertThatThrownBy(() -> JdbcStore.builder(Failing.dataSource(refused)).build())
                .isInstanceOfSatisfying(StatekitException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.STORE_UNAVAILABLE);
                    assertThat(e.getCause()).isSameAs(refused);
                });
    }

    @Test
    void theDialectComesFromTheProductName() {
        assertThat(Dialect.fromProductName("PostgreSQL")).isEqualTo(Dialect.POSTGRESQL);
        assertThat(Dialect.fromProductName("H2")).isEqualTo(Dialect.H2);
        assertThatThrownBy(() -> Dialect.fromProductName("MySQL")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("MySQL");
        assertThatThrownBy(() -> Dialect.fromProductName("SQLite")).isInstanceOf(IllegalArgumentException.class);
        assertThat(Dialect.fromProductName("MariaDB")).isEqualTo(Dialect.MARIADB);
    }

    @Test
    void mariaDbIsKnownByEitherDriverFromVersionTenSixOn() {
        assertThat(Dialect.of("MariaDB", "10.11.18-MariaDB-0+deb12u1")).isEqualTo(Dialect.MARIADB);
        assertThat(Dialect.of("MySQL", "5.5.5-10.11.18-MariaDB-0+deb12u1")).isEqualTo(Dialect.MARIADB);
        assertThat(Dialect.of("MariaDB", "11.4.2-MariaDB")).isEqualTo(Dialect.MARIADB);
        assertThat(Dialect.of("PostgreSQL", "15.18")).isEqualTo(Dialect.POSTGRESQL);
        assertThatThrownBy(() -> Dialect.of("MariaDB", "10.5.23-MariaDB")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("10.6 or later").hasMessageContaining("10.5.23");
        assertThatThrownBy(() -> Dialect.of("MySQL", "8.0.36")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("MySQL 8.0.36");
        assertThatThrownBy(() -> JdbcStore.builder(productNamed("MySQL", "5.5.5-10.5.9-MariaDB")).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("10.6 or later");
    }

    @Test
    void aDatabaseStatekitDoesNotSpeakIsRefusedWhenBuilt() {
        DataSource mysql = productNamed("MySQL");
        assertThatThrownBy(() -> JdbcStore.builder(mysql).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("MySQL");
        assertThat(JdbcStore.builder(mysql).dialect(Dialect.POSTGRESQL).build().dialect()).isEqualTo(Dialect.POSTGRESQL);
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void detectsTheDialectOfARealDatabase(Dialect dialect) throws Exception {
        try (Opened db = Opened.open(dialect)) {
            JdbcStore detected = JdbcStore.builder(db.pool()).tablePrefix(db.store().tablePrefix()).build();
            assertThat(detected.dialect()).isEqualTo(dialect);
            assertThat(detected.queue("q").name()).isEqualTo("q");
        }
    }

    @Test
    void theSchemaResourcesAreNamedByDialectAndVersion() {
        assertThat(Dialect.POSTGRESQL.schemaResource(1)).isEqualTo("dev/statekit/jdbc/postgresql/V1__statekit.sql");
        assertThat(Dialect.H2.schemaResource(1)).isEqualTo("dev/statekit/jdbc/h2/V1__statekit.sql");
        assertThatThrownBy(() -> Dialect.H2.schemaResource(0)).isInstanceOf(IllegalArgumentException.class);
    }

    /** A data source whose connections report {@code product} as their database and do nothing else. */
    static DataSource productNamed(String product) {
        return productNamed(product, "8.0.36");
    }

    static DataSource productNamed(String product, String version) {
        DatabaseMetaData metaData = (DatabaseMetaData) Proxy.newProxyInstance(JdbcStoreBuilderTest.class.getClassLoader(),
                new Class<?>[] {DatabaseMetaData.class}, (p, m, a) -> {
                    if (m.getName().equals("getDatabaseProductName")) return product;
                    if (m.getName().equals("getDatabaseProductVersion")) return version;
                    throw new SQLException("not supported here", "0A000");
                });
        Connection connection = (Connection) Proxy.newProxyInstance(JdbcStoreBuilderTest.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (p, m, a) -> switch (m.getName()) {
                    case "getMetaData" -> metaData;
                    case "close" -> null;
                    case "getAutoCommit" -> true;
                    default -> throw new SQLException("not supported here", "0A000");
                });
        return Failing.dataSource(() -> connection);
    }
}
