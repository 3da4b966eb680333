package dev.statekit.jdbc;

import dev.statekit.store.Store;
import dev.statekit.store.tck.StoreContract;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The store contract on H2: every store has tables of its own prefix in one database file per test class instance. */
class H2StoreContractTest extends StoreContract {
    private static final int MAX_PAYLOAD = 4096;
    private final Map<Store, TestPool> pools = new ConcurrentHashMap<>();

    @Override
    protected Store newStore() {
        TestPool pool = Databases.h2();
        JdbcStore store = JdbcStore.builder(pool).tablePrefix(Databases.uniquePrefix("h2"))
                .maxPayloadChars(MAX_PAYLOAD).createSchemaIfMissing(true).build();
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
