package dev.statekit.jdbc.internal;

import dev.statekit.store.ErrorCode;
import dev.statekit.store.StatekitException;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import org.jspecify.annotations.Nullable;

/** Translates {@link SQLException}s into {@link StatekitException}s with a stable code. */
public final class SqlErrors {
    private SqlErrors() {
    }

    /**
     * Returns the exception to throw for {@code e}: {@link ErrorCode#STORE_UNAVAILABLE} when retrying
     * may help (lost or refused connections, shutdowns, serialization failures, deadlocks, lock
     * timeouts), else {@link ErrorCode#STORE_FAILURE}. The SQLException is kept as the cause.
     *
     * @param e      the failure
     * @param doing  what the store was doing, for example "applying a change"
     * @param taskId the task concerned, if known
     */
    public static StatekitException translate(SQLException e, String doing, @Nullable Long taskId) {
        boolean retryable = retryable(e);
        String state = e.getSQLState();
        StringBuilder m = new StringBuilder(retryable ? "store unavailable while " : "store failed while ").append(doing);
        if (taskId != null) m.append(" (task ").append(taskId).append(')');
        m.append(": ");
        if (state != null) m.append("SQLState ").append(state).append(", ");
        m.append(e.getMessage());
        if (missingTable(e)) m.append(" (is the statekit schema applied? see JdbcStore.ddl and createSchemaIfMissing)");
        return new StatekitException(retryable ? ErrorCode.STORE_UNAVAILABLE : ErrorCode.STORE_FAILURE, m.toString(), taskId, e);
    }

    /** Returns whether retrying the operation may succeed. */
    public static boolean retryable(SQLException e) {
        for (SQLException x = e; x != null; x = x.getNextException()) {
            if (x instanceof SQLTransientException || x instanceof SQLRecoverableException) return true;
            String state = x.getSQLState();
            if (state == null) continue;
            if (state.startsWith("08")                       // connection exception
                    || state.equals("57P01") || state.equals("57P02") || state.equals("57P03")   // shutdown, cannot connect now
                    || state.equals("53300")                 // too many connections
                    || state.equals("40001") || state.equals("40P01")                       // serialization failure, deadlock
                    || state.equals("55P03")                 // lock not available
                    || state.equals("HYT00") || state.equals("HYT01")) {                    // lock or connection timeout
                return true;
            }
            if (x.getNextException() == x) break;
        }
        return false;
    }

    /** Returns whether {@code e} reports a unique or primary key violation. */
    public static boolean uniqueViolation(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s) {
                for (SQLException x = s; x != null; x = x.getNextException()) {
                    if ("23505".equals(x.getSQLState())) return true;
                    if (x.getNextException() == x) break;
                }
            }
            if (t.getCause() == t) break;
        }
        return false;
    }

    private static boolean missingTable(SQLException e) {
        String state = e.getSQLState();
        // PostgreSQL: undefined table or sequence; H2: table not found (42S02, 42S04), sequence not found (90036)
        return "42P01".equals(state) || "42S02".equals(state) || "42S04".equals(state) || "90036".equals(state);
    }
}
