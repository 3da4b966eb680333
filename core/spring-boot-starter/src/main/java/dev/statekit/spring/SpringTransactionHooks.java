package dev.statekit.spring;

import dev.statekit.jdbc.TransactionHooks;
import java.sql.Connection;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The store's {@link TransactionHooks} over Spring's transaction management: on a thread in a
 * Spring-managed transaction that holds a connection of the store's {@code DataSource}
 * ({@code DataSourceTransactionManager}, {@code JdbcTransactionManager}, or {@code JpaTransactionManager}
 * on the same {@code DataSource}), every operation of the store runs on that connection and commits or
 * rolls back with it, and what the engine tells its listeners (so the wake-up of the runtime) waits
 * for its commit. Elsewhere (no transaction, a transaction of another resource, the runtime's own
 * threads) the store commits each write itself. Thread-safe.
 */
public final class SpringTransactionHooks implements TransactionHooks {
    private final DataSource dataSource;

    /**
     * Creates the hooks of the store on {@code dataSource}.
     *
     * @param dataSource the store's data source, the one the transaction manager manages
     */
    public SpringTransactionHooks(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * Returns the connection of the Spring-managed transaction the calling thread is in, when it is
     * an actual transaction (not a non-transactional scope of {@code SUPPORTS}) holding a connection of
     * the store's data source; else null.
     */
    @Override
    public @Nullable Connection current() {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) return null;
        if (!(TransactionSynchronizationManager.getResource(dataSource) instanceof ConnectionHolder holder)) return null;
        if (!holder.isSynchronizedWithTransaction()) return null;
        return holder.getConnection();
    }

    /** Registers a synchronization of the current transaction whose {@code afterCommit()} runs {@code action}. */
    @Override
    public void afterCommit(Runnable action) {
        Objects.requireNonNull(action, "action");
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCommit() {
                action.run();
            }
        });
    }
}
