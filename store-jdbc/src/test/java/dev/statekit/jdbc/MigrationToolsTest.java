package dev.statekit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.jdbc.internal.Schema;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.StatekitException;
import dev.statekit.test.fixtures.Jobs;
import java.io.InputStream;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import liquibase.Scope;
import liquibase.changelog.ChangeLogParameters;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.UpdateCountCommandStep;
import liquibase.command.core.helpers.DatabaseChangelogCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.output.MigrateResult;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The shipped schema as a host's migration tool runs it, as docs/store-jdbc.md configures them:
 * Flyway on the class-path location of a dialect with the prefix as its placeholder, Liquibase on
 * the dialect's changelog with the prefix as its parameter. From nothing to the current version,
 * and to an older one, which {@link JdbcStoreBuilder#build()} refuses until the tool migrates on.
 */
class MigrationToolsTest {

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void flywayMigratesFromNothingAndAStoreBuiltWithoutCreatingTheSchemaRunsATask(Dialect dialect) throws Exception {
        String prefix = Databases.uniquePrefix("fw");
        try (TestPool pool = Databases.pool(dialect)) {
            try {
                MigrateResult result = flyway(pool, dialect, prefix, null).migrate();
                assertThat(result.success).isTrue();
                assertThat(result.migrationsExecuted).isEqualTo(Schema.VERSIONS.size());
                MigrationInfo[] applied = flyway(pool, dialect, prefix, null).info().applied();
                assertThat(applied).extracting(m -> m.getVersion().getVersion())
                        .containsSubsequence(Schema.VERSIONS.stream().map(String::valueOf).toList());
                assertThat(applied).extracting(MigrationInfo::getScript).contains("V" + Schema.VERSION + "__statekit.sql");
                flyway(pool, dialect, prefix, null).validate();

                runsATask(JdbcStore.builder(pool).tablePrefix(prefix).build(), dialect);
                assertThat(versions(pool, prefix)).isEqualTo(Schema.VERSIONS);
            } finally {
                drop(pool, prefix);
            }
        }
    }

    /**
     * The tables, columns, keys, indexes and sequences Flyway and Liquibase make from the shipped
     * files are those the store makes itself, on which the store contract runs: described through
     * the driver's metadata, the prefix taken out, the names the database gives unnamed
     * constraints' indexes left aside.
     */
    @ParameterizedTest
    @EnumSource(Dialect.class)
    void theSchemaEachToolMakesIsTheOneTheStoreMakesItself(Dialect dialect) throws Exception {
        String own = Databases.uniquePrefix("own");
        String fw = Databases.uniquePrefix("fw");
        String lb = Databases.uniquePrefix("lb");
        try (TestPool pool = Databases.pool(dialect)) {
            try {
                JdbcStore.builder(pool).tablePrefix(own).createSchemaIfMissing(true).build();
                flyway(pool, dialect, fw, null).migrate();
                liquibase(pool, changelog(dialect), lb, null);
                List<String> made = describe(pool, own);
                assertThat(made).as("the store's own schema").anyMatch(l -> l.startsWith("table tasks"))
                        .anyMatch(l -> l.startsWith("index ")).anyMatch(l -> l.startsWith("sequence "));
                assertThat(describe(pool, fw)).as("Flyway's").containsExactlyElementsOf(made);
                assertThat(describe(pool, lb)).as("Liquibase's").containsExactlyElementsOf(made);
            } finally {
                drop(pool, own);
                drop(pool, fw);
                drop(pool, lb);
            }
        }
    }

    /** One sorted line per table, column, primary key column, index column and sequence of {@code prefix}, without the prefix. */
    static List<String> describe(DataSource pool, String prefix) throws SQLException {
        List<String> lines = new ArrayList<>();
        Set<String> toolTables = Set.of("flyway_history", "changelog", "changelog_lock");
        try (Connection c = pool.getConnection()) {
            java.sql.DatabaseMetaData meta = c.getMetaData();
            String p = meta.storesUpperCaseIdentifiers() ? prefix.toUpperCase(Locale.ROOT) : prefix;
            String like = p.replace("_", meta.getSearchStringEscape() + "_") + "%";
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = meta.getTables(null, null, like, new String[] {"TABLE"})) {
                while (rs.next()) {
                    String name = rs.getString("TABLE_NAME");
                    String bare = name.substring(p.length()).toLowerCase(Locale.ROOT);
                    if (toolTables.contains(bare)) continue;
                    lines.add("table " + bare);
                    tables.add(name);
                }
            }
            // the standard's view of sequences, which PostgreSQL and H2 have; MariaDB lists its sequences as tables of their own type
            String sequences = meta.getDatabaseProductName().equals("MariaDB")
                    ? "select table_name from information_schema.tables where table_schema = database() and table_type = 'SEQUENCE' and table_name like ?"
                    : "select sequence_name from information_schema.sequences where sequence_name like ?";
            try (java.sql.PreparedStatement ps = c.prepareStatement(sequences)) {
                ps.setString(1, like);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) lines.add("sequence " + rs.getString(1).substring(p.length()).toLowerCase(Locale.ROOT));
                }
            }
            for (String table : tables) {
                String bare = table.substring(p.length()).toLowerCase(Locale.ROOT);
                try (ResultSet rs = meta.getColumns(null, null, table, "%")) {
                    while (rs.next()) {
                        lines.add("column " + bare + "." + rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT) + " " + rs.getString("TYPE_NAME")
                                + "(" + rs.getInt("COLUMN_SIZE") + ") nullable=" + rs.getString("IS_NULLABLE") + " default="
                                + withoutPrefix(rs.getString("COLUMN_DEF"), prefix));
                    }
                }
                try (ResultSet rs = meta.getPrimaryKeys(null, null, table)) {
                    while (rs.next()) lines.add("key " + bare + " " + rs.getShort("KEY_SEQ") + " " + rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
                }
                try (ResultSet rs = meta.getIndexInfo(null, null, table, false, false)) {
                    while (rs.next()) {
                        String index = rs.getString("INDEX_NAME");
                        if (index == null) continue;
                        // A named index carries the prefix; the database names those of unnamed keys itself.
                        // H2 names the index of a named constraint after it with a counter ("_INDEX_A"), which is left out.
                        String name = index.toLowerCase(Locale.ROOT).startsWith(prefix.toLowerCase(Locale.ROOT))
                                ? index.substring(prefix.length()).toLowerCase(Locale.ROOT).replaceFirst("_index_[0-9a-z]+$", "_index")
                                : "(unnamed on " + bare + ")";
                        lines.add("index " + name + " unique=" + !rs.getBoolean("NON_UNIQUE") + " " + rs.getShort("ORDINAL_POSITION") + " "
                                + withoutPrefix(rs.getString("COLUMN_NAME"), prefix) + " " + rs.getString("ASC_OR_DESC") + " where "
                                + withoutPrefix(rs.getString("FILTER_CONDITION"), prefix));
                    }
                }
            }
        }
        lines.sort(null);
        return lines;
    }

    private static @Nullable String withoutPrefix(@Nullable String text, String prefix) {
        if (text == null) return null;
        return Pattern.compile(Pattern.quote(prefix), Pattern.CASE_INSENSITIVE).matcher(text).replaceAll("<prefix>").toLowerCase(Locale.ROOT);
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void flywayToAnOlderVersionIsRefusedByTheBuilderUntilFlywayMigratesOn(Dialect dialect) throws Exception {
        String prefix = Databases.uniquePrefix("fo");
        try (TestPool pool = Databases.pool(dialect)) {
            try {
                assertThat(flyway(pool, dialect, prefix, "4").migrate().migrationsExecuted).isEqualTo(4);
                assertThat(versions(pool, prefix)).containsExactly(1, 2, 3, 4);
                assertRefusedAsOlder(pool, dialect, prefix);

                assertThat(flyway(pool, dialect, prefix, null).migrate().migrationsExecuted).isEqualTo(Schema.VERSIONS.size() - 4);
                runsATask(JdbcStore.builder(pool).tablePrefix(prefix).build(), dialect);
            } finally {
                drop(pool, prefix);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void liquibaseUpdatesFromNothingAndAStoreBuiltWithoutCreatingTheSchemaRunsATask(Dialect dialect) throws Exception {
        String prefix = Databases.uniquePrefix("lb");
        try (TestPool pool = Databases.pool(dialect)) {
            try {
                liquibase(pool, changelog(dialect), prefix, null);
                assertThat(versions(pool, prefix)).isEqualTo(Schema.VERSIONS);
                assertThat(changeSets(pool, prefix)).isEqualTo(Schema.VERSIONS.stream().map(v -> "statekit-" + v).toList());
                // once more: nothing left to run, and the recorded checksums still match the files
                liquibase(pool, changelog(dialect), prefix, null);
                assertThat(changeSets(pool, prefix)).hasSize(Schema.VERSIONS.size());

                runsATask(JdbcStore.builder(pool).tablePrefix(prefix).build(), dialect);
            } finally {
                drop(pool, prefix);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void liquibaseToAnOlderVersionIsRefusedByTheBuilderUntilLiquibaseUpdatesOn(Dialect dialect) throws Exception {
        String prefix = Databases.uniquePrefix("lo");
        try (TestPool pool = Databases.pool(dialect)) {
            try {
                liquibase(pool, changelog(dialect), prefix, 4);
                assertThat(versions(pool, prefix)).containsExactly(1, 2, 3, 4);
                assertRefusedAsOlder(pool, dialect, prefix);

                liquibase(pool, changelog(dialect), prefix, null);
                runsATask(JdbcStore.builder(pool).tablePrefix(prefix).build(), dialect);
            } finally {
                drop(pool, prefix);
            }
        }
    }

    @Test
    void theLiquibasePrefixDefaultsToTheStoresAndAPropertyOfTheIncludingChangelogSetsIt() throws Exception {
        try (TestPool pool = Databases.h2()) {
            liquibase(pool, changelog(Dialect.H2), null, "one_", null);
            assertThat(versions(pool, JdbcStore.DEFAULT_TABLE_PREFIX)).isEqualTo(Schema.VERSIONS);
            JdbcStore.builder(pool).build();

            liquibase(pool, "dev/statekit/jdbc/liquibase-master.xml", null, "two_", null);
            assertThat(versions(pool, "jobs_")).isEqualTo(Schema.VERSIONS);
            runsATask(JdbcStore.builder(pool).tablePrefix("jobs_").build(), Dialect.H2);
        }
    }

    @Test
    void flywayRefusesTheFilesWithoutAPrefix() throws Exception {
        try (TestPool pool = Databases.h2()) {
            var flyway = Flyway.configure().dataSource(pool).locations("classpath:" + Schema.location(Dialect.H2)).load();
            assertThatThrownBy(flyway::migrate).isInstanceOf(FlywayException.class).hasMessageContaining("${prefix}");
            assertThat(MigrationToolsTest.tables(pool)).noneMatch(t -> t.toLowerCase(java.util.Locale.ROOT).endsWith("tasks"));
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void eachChangelogRunsTheFileOfEachVersionInOrder(Dialect dialect) throws Exception {
        String text;
        try (InputStream in = getClass().getClassLoader().getResourceAsStream(changelog(dialect))) {
            assertThat(in).as(changelog(dialect)).isNotNull();
            text = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        Matcher m = Pattern.compile("<changeSet id=\"statekit-(\\d+)\" author=\"statekit\">\\s*"
                + "<sqlFile path=\"V(\\d+)__statekit\\.sql\" relativeToChangelogFile=\"true\"").matcher(text);
        List<Integer> versions = new ArrayList<>();
        while (m.find()) {
            assertThat(m.group(2)).isEqualTo(m.group(1));
            versions.add(Integer.parseInt(m.group(1)));
        }
        assertThat(versions).isEqualTo(Schema.VERSIONS);
        assertThat(text).contains("logicalFilePath=\"" + changelog(dialect) + "\"")
                .contains("<property name=\"prefix\" value=\"" + JdbcStore.DEFAULT_TABLE_PREFIX + "\" global=\"false\"/>");
        assertThat(Schema.location(dialect) + "/changelog.xml").isEqualTo(changelog(dialect));
    }

    static void assertRefusedAsOlder(DataSource pool, Dialect dialect, String prefix) {
        String expected = "the statekit tables with prefix " + prefix + " are at version 4; this statekit-store-jdbc needs "
                + Schema.VERSION + ": run V5 to V7 (classpath:dev/statekit/jdbc/" + directory(dialect)
                + "/V<n>__statekit.sql";
        assertThatThrownBy(() -> JdbcStore.builder(pool).tablePrefix(prefix).build())
                .isInstanceOfSatisfying(StatekitException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.STORE_FAILURE);
                    assertThat(e.getMessage()).startsWith("[STORE_FAILURE] " + expected).contains("with your migration tool")
                            .endsWith("or build the store with createSchemaIfMissing(true)");
                });
    }

    /** Runs one task of {@link Jobs#SIMPLE} through a runtime on {@code store}, to its end. */
    static void runsATask(JdbcStore store, Dialect dialect) throws Exception {
        assertThat(store.dialect()).isEqualTo(dialect);
        TransitionEngine engine = TransitionEngine.builder().store(store).build();
        long id = engine.create(Jobs.SIMPLE, TaskSpec.defaults()).task().id();
        CountDownLatch ran = new CountDownLatch(1);
        TaskRuntime runtime = TaskRuntime.builder(engine).owner("migrated").workers(1).pollInterval(Duration.ofMillis(20))
                .register(Jobs.SIMPLE, ctx -> {
                    ran.countDown();
                    return WorkResult.success();
                }).build();
        runtime.start();
        try {
            assertThat(ran.await(60, TimeUnit.SECONDS)).as("the task ran").isTrue();
            engine.awaitTerminal(Jobs.SIMPLE, id, Duration.ofSeconds(60)).get(70, TimeUnit.SECONDS);
        } finally {
            runtime.stop(Duration.ofSeconds(10)).get(60, TimeUnit.SECONDS);
        }
        assertThat(engine.find(Jobs.SIMPLE, id).orElseThrow().state()).isEqualTo(Jobs.State.DONE);
    }

    /** Flyway as docs/store-jdbc.md configures it: the dialect's location, a history table of its own, the prefix as placeholder. */
    static Flyway flyway(DataSource pool, Dialect dialect, String prefix, @Nullable String target) {
        var configuration = Flyway.configure().dataSource(pool)
                .locations("classpath:" + Schema.location(dialect))
                .table(prefix + "flyway_history")
                .placeholders(Map.of("prefix", prefix))
                .baselineOnMigrate(true)
                .baselineVersion("0");
        if (target != null) configuration.target(target);
        return configuration.load();
    }

    static String changelog(Dialect dialect) {
        return "dev/statekit/jdbc/" + directory(dialect) + "/changelog.xml";
    }

    static String directory(Dialect dialect) {
        return dialect.name().toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * Runs Liquibase's update on {@code changelog} (only the first {@code count} change sets when
     * given), with the parameter prefix, and change log tables of the prefix's own.
     */
    static void liquibase(DataSource pool, String changelog, String prefix, @Nullable Integer count) throws Exception {
        liquibase(pool, changelog, prefix, prefix, count);
    }

    /**
     * Runs Liquibase's update on {@code changelog} (only the first {@code count} change sets when
     * given), with the parameter prefix when given, and change log tables starting with {@code tables}.
     */
    static void liquibase(DataSource pool, String changelog, @Nullable String prefix, String tables, @Nullable Integer count)
            throws Exception {
        try (Connection c = pool.getConnection()) {
            Database database = DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(c));
            database.setDatabaseChangeLogTableName(tables + "changelog");
            database.setDatabaseChangeLogLockTableName(tables + "changelog_lock");
            ChangeLogParameters parameters = new ChangeLogParameters(database);
            if (prefix != null) parameters.set("prefix", prefix);
            CommandScope update = new CommandScope(count == null ? UpdateCommandStep.COMMAND_NAME : UpdateCountCommandStep.COMMAND_NAME)
                    .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                    .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, changelog)
                    .addArgumentValue(DatabaseChangelogCommandStep.CHANGELOG_PARAMETERS, parameters);
            if (count != null) update.addArgumentValue(UpdateCountCommandStep.COUNT_ARG, count);
            Scope.child(Scope.Attr.resourceAccessor.name(), new ClassLoaderResourceAccessor(MigrationToolsTest.class.getClassLoader()),
                    () -> update.execute());
        }
    }

    /** The versions the schema_version table of {@code prefix} records, in order. */
    static List<Integer> versions(DataSource pool, String prefix) throws SQLException {
        List<Integer> versions = new ArrayList<>();
        try (Connection c = pool.getConnection(); Statement s = c.createStatement();
             var rs = s.executeQuery("select version from " + prefix + "schema_version order by version")) {
            while (rs.next()) versions.add(rs.getInt(1));
        }
        return versions;
    }

    /** The names of the tables of the public schema. */
    static List<String> tables(DataSource pool) throws SQLException {
        List<String> tables = new ArrayList<>();
        try (Connection c = pool.getConnection(); var rs = c.getMetaData().getTables(null, null, "%", new String[] {"TABLE"})) {
            while (rs.next()) tables.add(rs.getString("TABLE_NAME"));
        }
        return tables;
    }

    /** The ids of the change sets Liquibase recorded for {@code prefix}, in the order it ran them. */
    static List<String> changeSets(DataSource pool, String prefix) throws SQLException {
        List<String> ids = new ArrayList<>();
        try (Connection c = pool.getConnection(); Statement s = c.createStatement();
             var rs = s.executeQuery("select id from " + prefix + "changelog order by orderexecuted")) {
            while (rs.next()) ids.add(rs.getString(1));
        }
        return ids;
    }

    /** Drops the tables of {@code prefix} and the history tables of both tools. */
    static void drop(DataSource pool, String prefix) throws SQLException {
        Databases.drop(pool, prefix);
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            for (String table : new String[] {"flyway_history", "changelog", "changelog_lock"}) {
                s.execute("drop table if exists " + quoted(c, prefix + table));
                s.execute("drop table if exists " + prefix + table);
            }
        }
    }

    /** {@code name} quoted as the database quotes identifiers (MariaDB with backticks). */
    static String quoted(Connection c, String name) throws SQLException {
        String quote = c.getMetaData().getIdentifierQuoteString();
        return quote + name + quote;
    }
}
