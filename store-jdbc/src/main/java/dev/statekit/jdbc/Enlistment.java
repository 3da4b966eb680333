package dev.statekit.jdbc;

import dev.statekit.store.Store;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link JdbcStore} enlisted in an application's transaction on a plain {@link Connection}:
 * {@link #store()} runs every operation on that connection, each within a savepoint of its own, and
 * commits nothing, so tasks created and commands fired through it commit or roll back with the
 * application's own writes. Made by {@link JdbcStore#enlist(Connection)}.
 *
 * <p>The application commits or rolls back the connection itself, then says so:
 * {@link #committed()} runs the actions registered with {@link #afterCommit} (the engine's listeners,
 * so the wake-ups of a runtime in this process), {@link #rolledBack()} drops them. Other processes on
 * PostgreSQL wake when the transaction's notification is delivered, at its commit. After either call
 * the enlistment is over and its store refuses work. An enlistment belongs to the transaction of one
 * thread, as its connection does.
 */
public final class Enlistment {
    private static final Logger log = LoggerFactory.getLogger(JdbcStore.class);

    private enum Phase { OPEN, COMMITTED, ROLLED_BACK }

    private final Connection connection;
    private final JdbcStore store;
    private final List<Runnable> actions = new ArrayList<>();
    private Phase phase = Phase.OPEN;

    Enlistment(JdbcStore base, Connection connection) {
        this.connection = connection;
        this.store = base.enlisted(this);
    }

    /** Returns the store whose every operation runs in this transaction; give it to {@code TransitionEngine.within}. */
    public Store store() {
        return store;
    }

    /** Returns the connection of the transaction. */
    public Connection connection() {
        return connection;
    }

    /**
     * Returns the connection while the enlistment is open.
     *
     * @throws IllegalStateException once it is over
     */
    synchronized Connection open() {
        if (phase != Phase.OPEN) {
            throw new IllegalStateException("the transaction this store was enlisted in has "
                    + (phase == Phase.COMMITTED ? "committed" : "rolled back") + ": enlist the next transaction's connection");
        }
        return connection;
    }

    /**
     * Runs {@code action} when {@link #committed()} is called; never if {@link #rolledBack()} is.
     *
     * @param action what to run after the commit
     * @throws IllegalStateException if the enlistment is over
     */
    public synchronized void afterCommit(Runnable action) {
        Objects.requireNonNull(action, "action");
        if (phase != Phase.OPEN) throw new IllegalStateException("the enlistment is over (" + phase + ")");
        actions.add(action);
    }

    /**
     * Says that the application committed the transaction: runs the actions registered with
     * {@link #afterCommit}, in order, each failure logged at WARN and the next run anyway.
     *
     * @throws IllegalStateException if the enlistment is over
     */
    public void committed() {
        List<Runnable> now;
        synchronized (this) {
            if (phase != Phase.OPEN) throw new IllegalStateException("the enlistment is over (" + phase + ")");
            phase = Phase.COMMITTED;
            now = List.copyOf(actions);
            actions.clear();
        }
        for (Runnable action : now) {
            try {
                action.run();
            } catch (RuntimeException e) {
                log.warn("an action after the commit of an enlisted transaction failed; the commit stands", e);
            }
        }
    }

    /**
     * Says that the application rolled the transaction back: the actions registered with
     * {@link #afterCommit} are dropped; nothing heard of the changes made through {@link #store()}.
     *
     * @throws IllegalStateException if the enlistment is over
     */
    public synchronized void rolledBack() {
        if (phase != Phase.OPEN) throw new IllegalStateException("the enlistment is over (" + phase + ")");
        phase = Phase.ROLLED_BACK;
        actions.clear();
    }
}
