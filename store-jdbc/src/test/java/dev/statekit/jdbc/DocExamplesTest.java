package dev.statekit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.test.fixtures.Jobs;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** The code docs/store-jdbc.md shows: it stands in this file, and runs here on H2. */
class DocExamplesTest {
    static final Path ROOT = Databases.buildDir().getParent().getParent();

    @Test
    void theBuilderExampleRuns() throws Exception {
        try (TestPool dataSource = Databases.h2()) {
            JdbcStore store = JdbcStore.builder(dataSource)          // the host's pool
                    .tablePrefix("statekit_")                        // the default
                    .maxPayloadChars(1 << 20)                        // the default: 1 Mi characters
                    .createSchemaIfMissing(true)                     // opt-in; default false
                    .build();                                        // detects PostgreSQL, H2 or MariaDB, logs it once
            TransitionEngine engine = TransitionEngine.builder().store(store).build();
            long id = engine.create(Jobs.SIMPLE, TaskSpec.defaults()).task().id();
            assertThat(engine.find(Jobs.SIMPLE, id)).isPresent();
            assertThat(store.dialect()).isEqualTo(Dialect.H2);

            JdbcStore pinned = JdbcStore.builder(dataSource).dialect(Dialect.POSTGRESQL).build();
            assertThat(pinned.dialect()).isEqualTo(Dialect.POSTGRESQL);

            String ddl = JdbcStore.ddl(Dialect.POSTGRESQL, "statekit_");
            assertThat(ddl).contains("create table if not exists statekit_tasks");
        }
    }

    @Test
    void theEnlistExampleCommitsTheTaskWithTheOrder() throws Exception {
        try (TestPool dataSource = Databases.h2()) {
            JdbcStore store = JdbcStore.builder(dataSource).createSchemaIfMissing(true).build();
            TransitionEngine engine = TransitionEngine.builder().store(store).build();
            try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
                s.execute("create table orders (id bigint primary key, task_id bigint)");
            }
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(false);
                Enlistment tx = store.enlist(c);
                TransitionEngine inTx = engine.within(tx.store());
                long id = inTx.create(Jobs.SIMPLE, TaskSpec.defaults().idempotencyKey("order-42")).task().id();
                insertOrder(c, 42, id);                                  // the application's own write
                c.commit();
                tx.committed();                                          // runs what waited for the commit
                assertThat(engine.find(Jobs.SIMPLE, id)).isPresent();
            }
            assertThat(engine.create(Jobs.SIMPLE, TaskSpec.defaults().idempotencyKey("order-42")).created()).isFalse();

            TransactionHooks hooks = new TransactionHooks() {
                @Override
                public @Nullable Connection current() {
                    return null;
                }

                @Override
                public void afterCommit(Runnable action) {
                    throw new IllegalStateException("no transaction is open");
                }
            };
            JdbcStore joining = JdbcStore.builder(dataSource).transactions(hooks).build();
            assertThat(joining.find(1)).isPresent();
        }
    }

    static void insertOrder(Connection c, long order, long taskId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("insert into orders (id, task_id) values (?, ?)")) {
            ps.setLong(1, order);
            ps.setLong(2, taskId);
            ps.executeUpdate();
        }
    }

    @Test
    void everyLineOfJavaInTheDocStandsInThisFile() throws Exception {
        Set<String> source = new HashSet<>();
        for (String line : Files.readAllLines(ROOT.resolve("store-jdbc/src/test/java/dev/statekit/jdbc/DocExamplesTest.java"))) {
            source.add(line.strip());
        }
        List<String> shown = new ArrayList<>();
        boolean inJava = false;
        for (String line : Files.readAllLines(ROOT.resolve("docs/store-jdbc.md"))) {
            if (line.startsWith("```")) {
                inJava = !inJava && line.equals("```java");
                continue;
            }
            if (inJava && !line.isBlank()) shown.add(line.strip());
        }
        assertThat(shown).isNotEmpty();
        assertThat(shown).allSatisfy(line -> assertThat(source).as("doc line %s", line).contains(line));
    }
}
