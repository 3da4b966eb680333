package dev.statekit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.jdbc.internal.Schema;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.StatekitException;
import java.util.List;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.assertj.core.api.AbstractStringAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The schema version {@link JdbcStoreBuilder#build()} checks whenever it connects: tables that are
 * missing, at an older version, with a version left out, or at a newer one are refused with what to
 * run; tables at the current version build.
 */
class SchemaVersionCheckTest {

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void missingTablesAreRefusedWithEveryVersionToRunUnlessTheBuilderDoesNotConnect(Dialect dialect) throws Exception {
        try (TestPool pool = Databases.pool(dialect)) {
            String prefix = Databases.uniquePrefix("missing");
            assertRefused(pool, prefix, m -> m.isEqualTo("[STORE_FAILURE] the statekit tables with prefix " + prefix
                    + " are missing (there is no table " + prefix + "schema_version); this statekit-store-jdbc needs "
                    + Schema.VERSION + ": run V1 to V" + Schema.VERSION + " (classpath:" + Schema.location(dialect)
                    + "/V<n>__statekit.sql, or the Liquibase changelog " + Schema.location(dialect)
                    + "/changelog.xml) with your migration tool, or build the store with createSchemaIfMissing(true)"));
            // a dialect set and no schema to create: build() does not connect, and checks nothing
            assertThat(JdbcStore.builder(pool).tablePrefix(prefix).dialect(dialect).build().tablePrefix()).isEqualTo(prefix);
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void anEmptyVersionTableIsRefused(Dialect dialect) throws Exception {
        try (Opened db = Opened.open(dialect)) {
            db.update("delete from {p}schema_version");
            assertRefused(db.pool(), db.store().tablePrefix(), m -> m.contains("record no schema version ("
                    + db.store().tablePrefix() + "schema_version is empty)").contains("run V1 to V" + Schema.VERSION));
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void aVersionLeftOutIsRefusedNamingIt(Dialect dialect) throws Exception {
        try (Opened db = Opened.open(dialect)) {
            db.update("delete from {p}schema_version where version = 3");
            assertRefused(db.pool(), db.store().tablePrefix(), m -> m.contains("are at version " + Schema.VERSION
                    + " without V3; this statekit-store-jdbc needs " + Schema.VERSION + ": run V3 (classpath:"));
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void anOlderVersionIsRefusedAndCreatingTheSchemaBringsItUp(Dialect dialect) throws Exception {
        try (Opened db = Opened.open(dialect)) {
            db.update("delete from {p}schema_version where version > 2");
            assertRefused(db.pool(), db.store().tablePrefix(), m -> m.contains("are at version 2; this statekit-store-jdbc needs "
                    + Schema.VERSION + ": run V3 to V" + Schema.VERSION + " (classpath:"));

            JdbcStore.builder(db.pool()).tablePrefix(db.store().tablePrefix()).createSchemaIfMissing(true).build();
            assertThat(MigrationToolsTest.versions(db.pool(), db.store().tablePrefix())).isEqualTo(Schema.VERSIONS);
            assertThat(JdbcStore.builder(db.pool()).tablePrefix(db.store().tablePrefix()).build().dialect()).isEqualTo(dialect);
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void aNewerVersionIsRefusedEvenWhenCreatingTheSchema(Dialect dialect) throws Exception {
        try (Opened db = Opened.open(dialect)) {
            int newer = Schema.VERSION + 1;
            db.update("insert into {p}schema_version (version, description) values (?, 'from a later statekit')", newer);
            String expected = "[STORE_FAILURE] the statekit tables with prefix " + db.store().tablePrefix() + " are at version "
                    + newer + ", newer than this statekit-store-jdbc (" + Schema.VERSION + ") knows: upgrade statekit-store-jdbc"
                    + " to a version that knows schema version " + newer;
            assertRefused(db.pool(), db.store().tablePrefix(), m -> m.isEqualTo(expected));
            assertThatThrownBy(() -> JdbcStore.builder(db.pool()).tablePrefix(db.store().tablePrefix()).dialect(dialect)
                    .createSchemaIfMissing(true).build()).hasMessage(expected);
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void tablesAtTheVersionAreLeftAloneByCreatingTheSchemaSoAWriterBesideItHoldsNothingUp(Dialect dialect) throws Exception {
        try (Opened db = Opened.open(dialect)) {
            String prefix = db.store().tablePrefix();
            // a process at work: a transaction that has written a task and holds its locks
            try (java.sql.Connection writer = db.pool().getConnection()) {
                writer.setAutoCommit(false);
                try (java.sql.Statement s = writer.createStatement()) {
                    for (String table : List.of("tasks", "history", "queues", "schema_version")) {
                        s.executeUpdate("update " + prefix + table + " set " + (table.equals("schema_version") ? "description = description"
                                : table.equals("queues") ? "paused = paused" : "version = version"));
                    }
                }
                java.util.concurrent.CompletableFuture<JdbcStore> second = java.util.concurrent.CompletableFuture.supplyAsync(
                        () -> JdbcStore.builder(db.pool()).tablePrefix(prefix).createSchemaIfMissing(true).build());
                // Applying the schema again would wait for the writer's locks (DDL on its tables) until it ends.
                assertThat(second.get(20, java.util.concurrent.TimeUnit.SECONDS).dialect()).isEqualTo(dialect);
                writer.rollback();
            }
        }
    }

    @Test
    void versionsAreNamedForAPerson() {
        assertThat(Schema.versionList(List.of(5))).isEqualTo("V5");
        assertThat(Schema.versionList(List.of(5, 6))).isEqualTo("V5 and V6");
        assertThat(Schema.versionList(List.of(3, 5, 6))).isEqualTo("V3, V5 and V6");
        assertThat(Schema.versionList(List.of(1, 2, 3, 4, 5, 6))).isEqualTo("V1 to V6");
        assertThat(Schema.location(Dialect.POSTGRESQL)).isEqualTo("dev/statekit/jdbc/postgresql");
        assertThat(Schema.location(Dialect.H2)).isEqualTo("dev/statekit/jdbc/h2");
    }

    /** Asserts that building a store on {@code prefix}, the dialect detected, fails with STORE_FAILURE and a message {@code message} accepts. */
    static void assertRefused(DataSource pool, String prefix, Consumer<AbstractStringAssert<?>> message) {
        assertThatThrownBy(() -> JdbcStore.builder(pool).tablePrefix(prefix).build())
                .isInstanceOfSatisfying(StatekitException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.STORE_FAILURE);
                    message.accept(assertThat(e.getMessage()));
                });
    }
}
