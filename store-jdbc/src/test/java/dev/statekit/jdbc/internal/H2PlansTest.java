package dev.statekit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.jdbc.Dialect;
import dev.statekit.jdbc.JdbcStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * H2 reads the few leased or waiting tasks through the lease and due-time indexes, not through an
 * index that leads with the machine (which would scan every task of the machine): the plans of
 * the housekeeping scans name those indexes, on a table where the machine's tasks are many.
 */
class H2PlansTest {
    @TempDir
    Path dir;

    private static String plan(Connection c, String sql) throws Exception {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("explain " + sql)) {
            rs.next();
            return rs.getString(1).toLowerCase(java.util.Locale.ROOT);
        }
    }

    @Test
    void housekeepingScansReadTheLeaseAndDueIndexes() throws Exception {
        Files.createDirectories(dir);
        try (Connection c = DriverManager.getConnection("jdbc:h2:" + dir.resolve("plans").toAbsolutePath(), "sa", "")) {
            try (Statement s = c.createStatement()) {
                s.execute(JdbcStore.ddl(Dialect.H2, "p_"));
                s.execute("insert into p_tasks (machine, machine_version, state, queue, priority, sequence, attempts, retries,"
                        + " attributes, created_at, updated_at, version, cancel_requested) select 'job', 1, 'DONE', 'q', 0, x, 1, 0,"
                        + " '{}', current_timestamp, current_timestamp, 2, false from system_range(1, 5000)");
                s.execute("analyze");
            }
            Sql sql = new Sql(Dialect.H2, "p_");
            String now = "current_timestamp";
            assertThat(plan(c, sql.expiredOf(1).replaceFirst("\\?", now).replaceFirst("\\?", "'job'").replace("?", "10")))
                    .contains("p_tasks_lease_idx");
            assertThat(plan(c, sql.expired.replaceFirst("\\?", now).replace("?", "10"))).contains("p_tasks_lease_idx");
            assertThat(plan(c, sql.leasedBy.replaceFirst("\\?", "'owner'").replace("?", "10"))).contains("p_tasks_lease_idx");
            assertThat(plan(c, sql.leased.replace("?", "'q'"))).contains("p_tasks_lease_idx");
            assertThat(plan(c, sql.nextDue(1).replaceFirst("\\?", "'job'").replaceFirst("\\?", "'WAITING'").replace("?", now)))
                    .contains("p_tasks_due_idx");
            assertThat(plan(c, sql.due(1).replaceFirst("\\?", "'job'").replaceFirst("\\?", "'WAITING'").replaceFirst("\\?", now)
                    .replace("?", "10"))).contains("p_tasks_due_idx");
        }
    }
}
