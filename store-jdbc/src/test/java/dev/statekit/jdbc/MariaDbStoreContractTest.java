package dev.statekit.jdbc;

import dev.statekit.store.Store;
import dev.statekit.store.tck.StoreContract;
import java.sql.SQLException;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * The store contract on MariaDB, through MariaDB's driver: every store has tables of its own prefix, which no other store
 * uses while it is open. A closed store's tables are emptied (rows, sequences) and given to the
 * next store, which finds them as a store finds the tables it just created: creating them is most
 * of what a test costs the database. The tables left are dropped when the JVM exits.
 */
@AddLifecycleHook(SkipWithoutMariaDb.class)
class MariaDbStoreContractTest extends StoreContract {
    private static final int MAX_PAYLOAD = 4096;
    private static final Queue<String> EMPTIED = new ConcurrentLinkedQueue<>();
    private static final Queue<String> MADE = new ConcurrentLinkedQueue<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (MADE.isEmpty()) return;
            try (TestPool pool = Databases.mariaDb()) {
                for (String prefix : MADE) Databases.drop(pool, prefix);
            } catch (SQLException | RuntimeException e) {
                System.err.println("the contract's tables were not all dropped: " + e);
            }
        }, "drop-contract-tables"));
    }

    private final Map<Store, TestPool> pools = new ConcurrentHashMap<>();

    @Override
    protected Store newStore() {
        TestPool pool = pool();
        String prefix = EMPTIED.poll();
        if (prefix == null) {
            prefix = Databases.uniquePrefix("my");
            MADE.add(prefix);
        }
        JdbcStore store = JdbcStore.builder(pool).tablePrefix(prefix).maxPayloadChars(MAX_PAYLOAD).createSchemaIfMissing(true).build();
        pools.put(store, pool);
        return store;
    }

    @Override
    protected void closeStore(Store store) throws Exception {
        if (store == null) return;            // newStore() failed or was skipped
        TestPool pool = pools.remove(store);
        if (pool == null) return;
        String prefix = ((JdbcStore) store).tablePrefix();
        try {
            Databases.emptyMariaDb(pool, prefix);
            EMPTIED.add(prefix);
        } catch (SQLException e) {
            System.err.println("tables " + prefix + "* not emptied, not used again: " + e);
        } finally {
            pool.close();
        }
    }

    /** Returns a pool on the MariaDB server, through MariaDB's driver. */
    TestPool pool() {
        return Databases.mariaDb();
    }

    @Override
    protected int maxPayloadChars() {
        return MAX_PAYLOAD;
    }
}
