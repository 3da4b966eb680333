package dev.statekit.jdbc;

import dev.statekit.store.Store;
import dev.statekit.store.tck.StoreContract;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The store contract on H2 tables that Flyway made from the shipped files (the prefix as its
 * placeholder), the store built on them without creating the schema: the schema a host's
 * migration tool applies is the one the store is tested on.
 */
class FlywayH2StoreContractTest extends StoreContract {
    private static final int MAX_PAYLOAD = 4096;
    private final Map<Store, TestPool> pools = new ConcurrentHashMap<>();

    @Override
    protected Store newStore() {
        TestPool pool = Databases.h2();
        String prefix = Databases.uniquePrefix("fwc");
        MigrationToolsTest.flyway(pool, Dialect.H2, prefix, null).migrate();
        JdbcStore store = JdbcStore.builder(pool).tablePrefix(prefix).maxPayloadChars(MAX_PAYLOAD).build();
        pools.put(store, pool);
        return store;
    }

    @Override
    protected void closeStore(Store store) {
        if (store == null) return;            // newStore() failed or was skipped
        TestPool pool = pools.remove(store);
        if (pool != null) pool.close();
    }

    @Override
    protected int maxPayloadChars() {
        return MAX_PAYLOAD;
    }
}
