package dev.statekit.jdbc;

import dev.statekit.store.Store;
import dev.statekit.store.tck.StoreContract;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/** The store contract on PostgreSQL: every store has tables of its own prefix, dropped when it is closed. */
@AddLifecycleHook(SkipWithoutPostgres.class)
class PostgresStoreContractTest extends StoreContract {
    private static final int MAX_PAYLOAD = 4096;
    private final Map<Store, TestPool> pools = new ConcurrentHashMap<>();

    @Override
    protected Store newStore() {
        TestPool pool = Databases.postgres();
        JdbcStore store = JdbcStore.builder(pool).tablePrefix(Databases.uniquePrefix("pg"))
                .maxPayloadChars(MAX_PAYLOAD).createSchemaIfMissing(true).build();
        pools.put(store, pool);
        return store;
    }

    @Override
    protected void closeStore(Store store) throws Exception {
        if (store == null) return;            // newStore() failed or was skipped
        TestPool pool = pools.remove(store);
        if (pool == null) return;
        try {
            Databases.drop(pool, ((JdbcStore) store).tablePrefix());
        } finally {
            pool.close();
        }
    }

    @Override
    protected int maxPayloadChars() {
        return MAX_PAYLOAD;
    }
}
