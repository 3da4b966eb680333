package dev.statekit.jdbc;

import java.sql.Connection;
import org.jspecify.annotations.Nullable;

/**
 * How a {@link JdbcStore} joins the transactions an application's framework manages: given to
 * {@link JdbcStoreBuilder#transactions(TransactionHooks)}, it names the connection of the transaction
 * the calling thread is in, and runs actions once that transaction has committed.
 *
 * <p>While {@link #current()} names a connection, every operation of the store runs on it, each
 * within a savepoint of its own, and commits nothing: a task created or a command fired there exists
 * only if the framework commits the transaction. The engine's listeners, and so the wake-ups of a
 * runtime in this process, are handed to {@link #afterCommit}; other processes on PostgreSQL wake
 * when the transaction's notification is delivered, at its commit. When {@link #current()} returns
 * null (no transaction, or a thread of the runtime) the store borrows connections from its pool and
 * commits each write, as without hooks.
 *
 * <p>A Spring integration implements it with {@code TransactionSynchronizationManager}: {@code current()}
 * returns {@code DataSourceUtils.getConnection(dataSource)} when
 * {@code TransactionSynchronizationManager.isActualTransactionActive()}, else null; {@code afterCommit}
 * registers a {@code TransactionSynchronization} whose {@code afterCommit()} runs the action. This
 * library depends on no framework. Implementations must be thread-safe and cheap when no transaction
 * is open: {@link #current()} is called by every operation of the store.
 */
public interface TransactionHooks {

    /**
     * Returns the connection of the transaction the calling thread is in (auto-commit off), or null
     * when it is in none. The store never commits, rolls back or closes it.
     *
     * @return the connection, or null
     */
    @Nullable Connection current();

    /**
     * Runs {@code action} once the transaction the calling thread is in has committed, and never if
     * it rolls back. Called only while {@link #current()} names a connection on this thread.
     *
     * @param action what to run after the commit
     */
    void afterCommit(Runnable action);

    /**
     * Runs {@code action} after the commit of the transaction under way ({@link #afterCommit}), or at
     * once when there is none: how the store tells listeners of a change.
     */
    default void afterCommitOrNow(Runnable action) {
        if (current() != null) afterCommit(action);
        else action.run();
    }
}
