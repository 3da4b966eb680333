package dev.statekit.jdbc;

import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * The store contract on PostgreSQL, on tables reused from store to store
 * ({@link ReusedTablesStoreContract}). Its claims read from the queue's start once they have read
 * from the first entry, for an hour: the model checks every claim made from a start.
 */
@AddLifecycleHook(SkipWithoutPostgres.class)
class PostgresStoreContractTest extends ReusedTablesStoreContract {
    @Override
    TestPool pool() {
        return Databases.postgres();
    }

    @Override
    String server() {
        return "pg";
    }

    @Override
    void empty(DataSource ds, String prefix) throws SQLException {
        Databases.emptyPostgres(ds, prefix);
    }

    @Override
    JdbcStoreBuilder configure(JdbcStoreBuilder builder) {
        return builder.claimsReadFromFirstEvery(Duration.ofHours(1));
    }
}
