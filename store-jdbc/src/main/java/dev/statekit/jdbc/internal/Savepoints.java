package dev.statekit.jdbc.internal;

import dev.statekit.store.ErrorCode;
import dev.statekit.store.StatekitException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import org.jspecify.annotations.Nullable;

/**
 * Work of the store on the connection of an application's transaction: each piece within a
 * savepoint of its own. The work sees a connection whose {@code commit()} does nothing (the
 * application commits), whose {@code rollback()} rolls back to the savepoint, and whose
 * {@code close()} and {@code setAutoCommit} do nothing. When the work fails the savepoint is rolled
 * back to, so that the transaction stays usable: on PostgreSQL a failed statement outside a savepoint
 * would abort the whole transaction, and a refused compare-and-set, which the store undoes with a
 * rollback, would undo the application's own writes.
 */
final class Savepoints {
    private Savepoints() {
    }

    /** Runs {@code work} within a savepoint of {@code c}; translates its {@link SQLException}s. */
    static <T> T run(Connection c, String doing, @Nullable Long taskId, Jdbc.Work<T> work) {
        try {
            if (c.getAutoCommit()) {
                throw new StatekitException(ErrorCode.INVALID_ARGUMENT, "the store joins a transaction only on a connection with "
                        + "auto-commit off (" + doing + ")", taskId, null);
            }
            Savepoint savepoint = c.setSavepoint();
            T result;
            try {
                result = work.run(scoped(c, savepoint));
            } catch (SQLException | RuntimeException | Error e) {
                try {
                    c.rollback(savepoint);
                    c.releaseSavepoint(savepoint);
                } catch (SQLException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
            c.releaseSavepoint(savepoint);
            return result;
        } catch (SQLException e) {
            throw SqlErrors.translate(e, doing, taskId);
        }
    }

    private static Connection scoped(Connection c, Savepoint savepoint) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> invoke(c, savepoint, proxy, method, args));
    }

    private static @Nullable Object invoke(Connection c, Savepoint savepoint, Object proxy, Method method, @Nullable Object @Nullable [] args)
            throws Throwable {
        int n = args == null ? 0 : args.length;
        switch (method.getName()) {
            case "commit":
            case "close":
            case "setAutoCommit":
                if (n <= 1) return null;
                break;
            case "rollback":
                if (n == 0) {
                    c.rollback(savepoint);
                    return null;
                }
                break;
            case "equals":
                if (n == 1) return args[0] == proxy;
                break;
            case "hashCode":
                if (n == 0) return System.identityHashCode(proxy);
                break;
            default:
                break;
        }
        try {
            return method.invoke(c, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
