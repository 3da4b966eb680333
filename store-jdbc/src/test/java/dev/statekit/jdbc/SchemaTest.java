package dev.statekit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.Attributes;
import dev.statekit.store.NewTask;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Instant;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The versioned DDL shipped as resources, and what applying it does. */
class SchemaTest {
    static final Instant T0 = Instant.parse("2031-04-05T13:30:00Z");

    static String resource(Dialect dialect, int version) throws Exception {
        try (InputStream in = SchemaTest.class.getClassLoader().getResourceAsStream(dialect.schemaResource(version))) {
            assertThat(in).as("resource %s", dialect.schemaResource(version)).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** The shipped files of every version, in order, as one text. */
    static String resource(Dialect dialect) throws Exception {
        StringBuilder text = new StringBuilder();
        for (int version : dev.statekit.jdbc.internal.Schema.VERSIONS) {
            if (version > 1) text.append('\n');
            text.append(resource(dialect, version));
        }
        return text.toString();
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void ddlIsTheShippedFileWithThePrefixFilledIn(Dialect dialect) throws Exception {
        String shipped = resource(dialect);
        String ddl = JdbcStore.ddl(dialect, "jobs_");
        assertThat(ddl).isEqualTo(shipped.replace("${prefix}", "jobs_"));
        assertThat(ddl).doesNotContain("${").contains("create table if not exists jobs_tasks")
                .contains("create table if not exists jobs_history").contains("create table if not exists jobs_queues")
                .contains("create table if not exists jobs_schema_version").contains("create table if not exists jobs_groups")
                .contains("create table if not exists jobs_group_counts").contains("create table if not exists jobs_dependencies")
                .contains("create table if not exists jobs_marks").contains("create table if not exists jobs_archived_tasks")
                .contains("create table if not exists jobs_archived_history").contains("create table if not exists jobs_schedules");
        assertThat(JdbcStore.SCHEMA_VERSION).isEqualTo(7);
        assertThat(dev.statekit.jdbc.internal.Schema.VERSIONS).startsWith(1).endsWith(JdbcStore.SCHEMA_VERSION).isSorted();
        // each version records itself
        for (int version : dev.statekit.jdbc.internal.Schema.VERSIONS) {
            assertThat(resource(dialect, version)).contains("select " + version + ", '");
        }
        // the only placeholder is ${prefix}, as a migration tool's placeholder replacement expects
        Matcher m = Pattern.compile("\\$\\{([^}]*)}").matcher(shipped);
        int placeholders = 0;
        while (m.find()) {
            assertThat(m.group(1)).isEqualTo("prefix");
            placeholders++;
        }
        assertThat(placeholders).isGreaterThan(10);
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void applyingTheSchemaTwiceIsHarmless(Dialect dialect) throws Exception {
        try (Opened db = Opened.open(dialect)) {
            long id = db.store().create(new NewTask("job", 1, "READY", "q", 0, null, Attributes.of("k", "v"), "p", "key-1",
                    null, T0)).task().id();
            db.store().pauseQueue("q", "maintenance");

            // again through the builder, and once more as a migration tool would run the text
            JdbcStore again = JdbcStore.builder(db.pool()).tablePrefix(db.store().tablePrefix()).dialect(dialect)
                    .createSchemaIfMissing(true).build();
            try (Connection c = db.pool().getConnection(); Statement s = c.createStatement()) {
                for (String sql : JdbcStore.ddl(dialect, db.store().tablePrefix()).split(";\\s*\\n")) {
                    String statement = sql.lines().filter(l -> !l.strip().startsWith("--")).reduce("", (a, b) -> a + "\n" + b).strip();
                    if (!statement.isEmpty()) s.execute(statement.endsWith(";") ? statement.substring(0, statement.length() - 1) : statement);
                }
            }

            assertThat(again.find(id)).hasValueSatisfying(t -> {
                assertThat(t.attributes()).isEqualTo(Attributes.of("k", "v"));
                assertThat(t.idempotencyKey()).isEqualTo("key-1");
            });
            assertThat(again.queue("q").paused()).isTrue();
            assertThat(db.queryLong("select count(*) from {p}schema_version")).as("one row per version")
                    .isEqualTo(dev.statekit.jdbc.internal.Schema.VERSIONS.size());
            assertThat(db.queryLong("select max(version) from {p}schema_version")).isEqualTo(JdbcStore.SCHEMA_VERSION);
            // sequences were not reset
            assertThat(again.create(new NewTask("job", 1, "READY", "q", 0, null, Attributes.EMPTY, null, null, null, T0))
                    .task().sequence()).isGreaterThan(1);
        }
    }
}
