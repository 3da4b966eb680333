package dev.statekit.jdbc;

import java.sql.SQLException;
import javax.sql.DataSource;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * The store contract on MariaDB, through MariaDB's driver, on tables reused from store to store
 * ({@link ReusedTablesStoreContract}).
 */
@AddLifecycleHook(SkipWithoutMariaDb.class)
class MariaDbStoreContractTest extends ReusedTablesStoreContract {
    @Override
    TestPool pool() {
        return Databases.mariaDb();
    }

    @Override
    String server() {
        return "my";
    }

    @Override
    void empty(DataSource ds, String prefix) throws SQLException {
        Databases.emptyMariaDb(ds, prefix);
    }
}
