package dev.statekit.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * How a store's writes wake the runtimes of other processes, where the database has no
 * notifications of its own ({@link BatchOps}). Waking is never needed for correctness: runtimes
 * also poll; a wake-up only shortens the time until another process sees new work.
 */
public interface Wakes {
    /** Nothing wakes other processes: H2, the database of one process, whose runtimes wake each other in memory. */
    Wakes NONE = new Wakes() {
        @Override
        public void notifyWaiters(Connection c) {
        }

        @Override
        public AutoCloseable watch(Runnable wake) {
            return () -> { };
        }
    };

    /** Records, inside the writing transaction, that work may have become runnable. */
    void notifyWaiters(Connection c) throws SQLException;

    /** Starts calling {@code wake} when another process may have made work runnable. */
    AutoCloseable watch(Runnable wake);
}
