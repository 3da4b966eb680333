package dev.statekit.jdbc.internal;

import dev.statekit.store.Change;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.Claimed;
import dev.statekit.store.NewTask;
import dev.statekit.store.TaskRecord;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What the store does differently on each database, chosen once when the store is built
 * ({@link PostgresOps}, {@link BatchOps}); everything else is shared. The SQL text of each dialect
 * lives in {@link Sql}. Implementations are immutable and thread-safe; each call runs on the
 * caller's connection, inside the caller's transaction.
 */
public interface DialectOps {

    /** Tells other processes that work may have become runnable, inside the writing transaction. */
    void notifyWaiters(Connection c) throws SQLException;

    /** Starts calling {@code wake} when another process may have made work runnable; see {@code Store.watch}. */
    AutoCloseable watch(Runnable wake);

    /**
     * Inserts tasks without idempotency keys, unique keys or dependencies, as one statement, in the
     * order given: their ids and FIFO sequences ascend along the list.
     *
     * @param attributes the encoded attributes of each task, in the order of {@code specs}
     * @return the id and sequence of each row, in any order
     */
    List<InsertedRow> insertRows(Connection c, List<NewTask> specs, List<String> attributes) throws SQLException;

    /**
     * Writes changes without command keys, each on its own: a change whose task is still at its
     * expected version takes its snapshot and its history entry, and marks the groups it counts in
     * ({@link GroupRows#marked}); the others write nothing.
     *
     * @param sorted the changes, in ascending task id order (the order rows are locked in)
     * @return the ids of the tasks updated
     */
    Set<Long> writeEach(Connection c, List<Change> sorted) throws SQLException;

    /**
     * Claims the tasks a claim picked (read at their current versions, in claim order) and writes
     * their history, drawing a fencing token for each in claim order, and marks the groups the
     * claimed tasks count in; a task that changed since it was read is not claimed.
     *
     * @param now     the claim's time, cut to the microsecond
     * @param expires the lease expiry, cut to the microsecond
     * @return the claimed tasks with their entries, in claim order
     */
    List<Claimed> claim(Connection c, ClaimRequest request, List<TaskRecord> picks, Instant now, Instant expires)
            throws SQLException;

    /**
     * Returns the candidates of a claim that it may take, as they are now, in the order read:
     * {@code read} itself where the claim's queue row is enough, or the rows that could be locked.
     *
     * @param states the claim's from-states, in the order the SQL binds them
     * @param reader reads a candidate row, or returns null for one that cannot be read
     */
    List<TaskRecord> lockCandidates(Connection c, ClaimRequest request, List<String> states, List<TaskRecord> read,
                                    Jdbc.RowReader<@Nullable TaskRecord> reader) throws SQLException;

    /**
     * Returns whether claims of a queue without a concurrency limit may run side by side: each
     * locks the queue row against changes only ({@link QueueTable#share}) and locks the tasks it
     * reads, passing over those another claim holds.
     */
    boolean claimsSideBySide();

}
