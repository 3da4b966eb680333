package dev.statekit.jdbc;

import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * The store contract on MariaDB through MySQL's driver (Connector/J), as {@link MariaDbStoreContractTest}
 * runs it through MariaDB's. The driver differs where the store meets it: it calls the server
 * "MySQL" (the store reads "MariaDB" in its version), it cuts a time's fraction when it talks to
 * MariaDB 10.x (the store keeps times as numbers), and it asks the server for the isolation level at
 * every call (the store sets READ COMMITTED on the connections it borrows).
 */
@AddLifecycleHook(SkipWithoutMariaDb.class)
class MariaDbMySqlDriverStoreContractTest extends MariaDbStoreContractTest {
    @Override
    TestPool pool() {
        return Databases.mariaDbThroughMySqlDriver();
    }
}
