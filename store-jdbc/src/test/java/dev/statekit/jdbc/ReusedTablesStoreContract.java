package dev.statekit.jdbc;

import dev.statekit.store.Store;
import dev.statekit.store.tck.StoreContract;
import java.sql.SQLException;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import javax.sql.DataSource;

/**
 * The store contract on a database server: every store has tables of its own prefix, which no
 * other store uses while it is open. A closed store's tables are emptied (rows, sequences) and
 * given to the next store of the same server, which finds them as a store finds the tables it just
 * created: creating them is most of what a test costs the database. The tables left are dropped
 * when the JVM exits.
 */
abstract class ReusedTablesStoreContract extends StoreContract {
    private static final int MAX_PAYLOAD = 4096;
    /** By server ({@link #server()}): the prefixes of emptied tables, free for the next store. */
    private static final Map<String, Queue<String>> EMPTIED = new ConcurrentHashMap<>();
    /** By server: the prefixes of every table set made, dropped when the JVM exits. */
    private static final Map<String, Queue<String>> MADE = new ConcurrentHashMap<>();

    private final Map<Store, TestPool> pools = new ConcurrentHashMap<>();

    /** Returns a new pool on the server. */
    abstract TestPool pool();

    /** Names the server in table prefixes, and the tables its stores share. */
    abstract String server();

    /** Empties the tables of {@code prefix} as a store found them when it created them. */
    abstract void empty(DataSource ds, String prefix) throws SQLException;

    /** Returns {@code builder} with the settings of this contract's stores beyond the common ones. */
    JdbcStoreBuilder configure(JdbcStoreBuilder builder) {
        return builder;
    }

    @Override
    protected Store newStore() {
        TestPool pool = pool();
        String prefix = EMPTIED.computeIfAbsent(server(), k -> new ConcurrentLinkedQueue<>()).poll();
        if (prefix == null) {
            prefix = Databases.uniquePrefix(server());
            made().add(prefix);
        }
        JdbcStore store = configure(JdbcStore.builder(pool).tablePrefix(prefix).maxPayloadChars(MAX_PAYLOAD)
                .createSchemaIfMissing(true)).build();
        pools.put(store, pool);
        return store;
    }

    /** The prefixes made on this server; the first call registers their drop when the JVM exits. */
    private Queue<String> made() {
        return MADE.computeIfAbsent(server(), k -> {
            Queue<String> made = new ConcurrentLinkedQueue<>();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try (TestPool pool = pool()) {
                    for (String prefix : made) Databases.drop(pool, prefix);
                } catch (SQLException | RuntimeException e) {
                    System.err.println("the contract's tables were not all dropped: " + e);
                }
            }, "drop-contract-tables-" + k));
            return made;
        });
    }

    @Override
    protected void closeStore(Store store) throws Exception {
        if (store == null) return;            // newStore() failed or was skipped
        TestPool pool = pools.remove(store);
        if (pool == null) return;
        String prefix = ((JdbcStore) store).tablePrefix();
        try {
            empty(pool, prefix);
            EMPTIED.computeIfAbsent(server(), k -> new ConcurrentLinkedQueue<>()).add(prefix);
        } catch (SQLException e) {
            System.err.println("tables " + prefix + "* not emptied, not used again: " + e);
        } finally {
            pool.close();
        }
    }

    @Override
    protected int maxPayloadChars() {
        return MAX_PAYLOAD;
    }
}
