package dev.statekit.jdbc.internal;

import dev.statekit.store.ErrorCode;
import dev.statekit.store.StatekitException;
import java.io.EOFException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Translates {@link SQLException}s into {@link StatekitException}s with a stable code.
 *
 * <p>The classification is the table of docs/store-jdbc.md, section "How a failure is classified",
 * and a test checks every row of that table against this class. Every exception of the chain
 * counts: the SQLException, its next exceptions (a batch reports the real failure there) and the
 * causes of each (a pool wraps the driver's exception). A configuration error anywhere in the
 * chain decides {@link ErrorCode#STORE_FAILURE}, even under an exception that looks transient (a
 * pool whose wait timed out because the database refuses its password); else a retryable failure
 * anywhere decides {@link ErrorCode#STORE_UNAVAILABLE}; else the failure is unavailable when it
 * came from getting a connection and a failure when it came from a statement.
 */
public final class SqlErrors {
    /** More exceptions than any driver chains; a bound against chains that loop through their causes. */
    private static final int MAX_CHAIN = 64;

    /** MariaDB's error for a taken unique key (SQLState 23000, which other integrity errors share). */
    private static final int MARIADB_DUPLICATE_KEY = 1062;
    /** MariaDB's lock wait timeout: the statement was rolled back, or with it the transaction. */
    private static final int MARIADB_LOCK_WAIT_TIMEOUT = 1205;
    /**
     * MariaDB's errors that a retry may get past, under SQLStates that say nothing of it (HY000,
     * 70100) or that say otherwise (08004): too many connections (1040), server shutdown (1053),
     * lock wait timeout (1205), query interrupted (1317), connection killed (1927).
     */
    private static final Set<Integer> MARIADB_TRANSIENT = Set.of(1040, 1053, MARIADB_LOCK_WAIT_TIMEOUT, 1317, 1927);
    /** The SQLStates MariaDB's drivers report those errors with. */
    private static final Set<String> MARIADB_STATES = Set.of("HY000", "70100", "08004", "08S01", "40001", "41000");

    private SqlErrors() {
    }

    /** What one exception of a chain says about retrying. */
    private enum Kind {
        /** The configuration or the SQL is wrong: retrying will not help. */
        CONFIGURATION,
        /** The database or the network failed for now: retrying may help. */
        TRANSIENT,
        /** Nothing either way. */
        NEUTRAL
    }

    /** The kind of a chain, and the exception of the chain that decided it (null when none did). */
    private record Verdict(Kind kind, @Nullable Throwable decidedBy) {}

    /**
     * Returns the exception to throw for {@code e}, raised by a statement:
     * {@link ErrorCode#STORE_UNAVAILABLE} when retrying may help (lost or refused connections,
     * shutdowns, serialization failures, deadlocks, lock timeouts), else
     * {@link ErrorCode#STORE_FAILURE}. The SQLException is kept as the cause.
     *
     * @param e      the failure
     * @param doing  what the store was doing, for example "applying a change"
     * @param taskId the task concerned, if known
     */
    public static StatekitException translate(SQLException e, String doing, @Nullable Long taskId) {
        Verdict v = classify(e);
        return exception(v.kind() == Kind.TRANSIENT, e, v, doing, taskId, "");
    }

    /**
     * Returns the exception to throw for {@code e}, raised by {@code DataSource.getConnection()}:
     * {@link ErrorCode#STORE_FAILURE} when the configuration is wrong (no driver for the URL,
     * refused credentials, an unknown database, a connection the server rejects for what it was
     * given), else {@link ErrorCode#STORE_UNAVAILABLE}. The SQLException is kept as the cause.
     *
     * @param e      the failure
     * @param doing  what the store was doing, for example "applying a change"
     * @param taskId the task concerned, if known
     */
    public static StatekitException noConnection(SQLException e, String doing, @Nullable Long taskId) {
        Verdict v = classify(e);
        return exception(v.kind() != Kind.CONFIGURATION, e, v, doing, taskId, "no connection: ");
    }

    /** Returns whether retrying a statement that failed with {@code e} may succeed. */
    public static boolean retryable(SQLException e) {
        return classify(e).kind() == Kind.TRANSIENT;
    }

    /** Returns whether {@code e} reports a unique or primary key violation. */
    public static boolean uniqueViolation(SQLException e) {
        for (Throwable t : chain(e)) {
            if (t instanceof SQLException s && ("23505".equals(s.getSQLState())
                    || ("23000".equals(s.getSQLState()) && s.getErrorCode() == MARIADB_DUPLICATE_KEY))) {
                return true;
            }
        }
        return false;
    }

    private static StatekitException exception(boolean retryable, SQLException e, Verdict v, String doing,
                                               @Nullable Long taskId, String what) {
        StringBuilder m = new StringBuilder(retryable ? "store unavailable while " : "store failed while ").append(doing);
        if (taskId != null) m.append(" (task ").append(taskId).append(')');
        m.append(": ").append(what);
        appendFailure(m, e);
        Throwable decidedBy = v.decidedBy();
        if (decidedBy != null && decidedBy != e) appendFailure(m.append("; caused by "), decidedBy);
        if (missingTable(e)) m.append(" (is the statekit schema applied? see JdbcStore.ddl and createSchemaIfMissing)");
        return new StatekitException(retryable ? ErrorCode.STORE_UNAVAILABLE : ErrorCode.STORE_FAILURE, m.toString(), taskId, e);
    }

    private static void appendFailure(StringBuilder m, Throwable t) {
        String state = t instanceof SQLException s ? s.getSQLState() : null;
        if (state != null) m.append("SQLState ").append(state).append(", ");
        else if (!(t instanceof SQLException)) m.append(t.getClass().getName()).append(": ");
        m.append(t.getMessage());
    }

    private static Verdict classify(SQLException e) {
        Throwable transientOne = null;
        for (Throwable t : chain(e)) {
            Kind k = kind(t);
            if (k == Kind.CONFIGURATION) return new Verdict(k, t);
            if (k == Kind.TRANSIENT && transientOne == null) transientOne = t;
        }
        return transientOne != null ? new Verdict(Kind.TRANSIENT, transientOne) : new Verdict(Kind.NEUTRAL, null);
    }

    /** One row of the table, for one exception of a chain. */
    private static Kind kind(Throwable t) {
        if (t instanceof SQLException s) {
            String state = s.getSQLState();
            if (MARIADB_TRANSIENT.contains(s.getErrorCode()) && state != null && MARIADB_STATES.contains(state)) return Kind.TRANSIENT;
            if (state != null) {
                if (configuration(state, s.getMessage())) return Kind.CONFIGURATION;
                if (transientState(state)) return Kind.TRANSIENT;
            }
            return t instanceof SQLTransientException || t instanceof SQLRecoverableException ? Kind.TRANSIENT : Kind.NEUTRAL;
        }
        // the network failed: refused, reset, no route (SocketException), timed out, closed by the server
        if (t instanceof SocketException || t instanceof SocketTimeoutException || t instanceof EOFException) return Kind.TRANSIENT;
        return Kind.NEUTRAL;
    }

    private static boolean configuration(String state, @Nullable String message) {
        // DriverManager's own wording (not translated) when no registered driver accepts the URL
        if (state.equals("08001") && message != null && message.startsWith("No suitable driver")) return true;
        return state.equals("08004")                          // the server rejected the connection for what it was given
                || state.startsWith("28")                     // invalid authorization
                || state.equals("3D000")                      // unknown database
                || state.equals("90013") || state.equals("90146") || state.equals("90149")   // H2: database not found
                || state.startsWith("42");                    // syntax error or access rule violation
    }

    /**
     * Returns whether {@code e} (a store's exception) was caused by the database choosing this
     * transaction as a deadlock's or a serialization conflict's victim: it was rolled back, and
     * running it again may succeed.
     */
    public static boolean conflictVictim(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql) {
                for (Throwable u : chain(sql)) {
                    if (u instanceof SQLException s && s.getSQLState() != null
                            && (s.getSQLState().equals("40001") || s.getSQLState().equals("40P01")
                            || (s.getErrorCode() == MARIADB_LOCK_WAIT_TIMEOUT && MARIADB_STATES.contains(s.getSQLState())))) {
                        return true;
                    }
                }
                return false;
            }
        }
        return false;
    }

    private static boolean transientState(String state) {
        return state.startsWith("08")                         // connection exception
                || state.equals("57P01") || state.equals("57P02") || state.equals("57P03")   // shutdown, cannot connect now
                || state.equals("53300")                      // too many connections
                || state.equals("40001") || state.equals("40P01")                           // serialization failure, deadlock
                || state.equals("55P03")                      // lock not available
                || state.equals("HYT00") || state.equals("HYT01");                          // lock or connection timeout
    }

    /** Returns {@code e}, its next exceptions and the causes of each, each once, breadth first. */
    private static List<Throwable> chain(SQLException e) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        ArrayDeque<Throwable> todo = new ArrayDeque<>();
        List<Throwable> result = new ArrayList<>();
        todo.add(e);
        while (!todo.isEmpty() && result.size() < MAX_CHAIN) {
            Throwable t = todo.poll();
            if (!seen.add(t)) continue;
            result.add(t);
            if (t instanceof SQLException s && s.getNextException() != null) todo.add(s.getNextException());
            if (t.getCause() != null) todo.add(t.getCause());
        }
        return result;
    }

    private static boolean missingTable(SQLException e) {
        for (Throwable t : chain(e)) {
            String state = t instanceof SQLException s ? s.getSQLState() : null;
            // PostgreSQL: undefined table or sequence; H2: table not found (42S02, 42S04), sequence not found (90036)
            if ("42P01".equals(state) || "42S02".equals(state) || "42S04".equals(state) || "90036".equals(state)) return true;
        }
        return false;
    }
}
