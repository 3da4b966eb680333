/**
 * Implementation details of the JDBC store. Not API: anything here may change without notice,
 * and no public signature outside this package mentions its types.
 *
 * <p>{@code JdbcStore} is a façade over parts with one duty each ({@link dev.statekit.jdbc.internal.JdbcParts} holds them), sharing one {@link
 * dev.statekit.jdbc.internal.JdbcContext}: {@link dev.statekit.jdbc.internal.TaskInserts},
 * {@link dev.statekit.jdbc.internal.TaskReads}, {@link dev.statekit.jdbc.internal.TaskWrites},
 * {@link dev.statekit.jdbc.internal.TaskMetadata}, {@link dev.statekit.jdbc.internal.Claims} with
 * {@link dev.statekit.jdbc.internal.ClaimCandidates}, {@link dev.statekit.jdbc.internal.QueueTable},
 * the groups' {@link dev.statekit.jdbc.internal.GroupWrites}, {@link dev.statekit.jdbc.internal.GroupReads}
 * and {@link dev.statekit.jdbc.internal.Resolutions} (the resolution passes), and
 * {@link dev.statekit.jdbc.internal.Purges} with {@link dev.statekit.jdbc.internal.ArchiveTable}, and
 * {@link dev.statekit.jdbc.internal.ScheduleTable} (recurring schedules and their passes, which create
 * occurrences through {@code TaskInserts}). What differs by database sits behind
 * {@link dev.statekit.jdbc.internal.DialectOps} ({@link dev.statekit.jdbc.internal.PostgresOps},
 * {@link dev.statekit.jdbc.internal.BatchOps}), over the writes both share
 * ({@link dev.statekit.jdbc.internal.RowWrites}). Below them: {@link dev.statekit.jdbc.internal.Jdbc}
 * (connections, transactions, statements), the SQL text ({@link dev.statekit.jdbc.internal.Sql}),
 * row mapping, the attribute encoding, error translation, the schema and the PostgreSQL listener.
 */
@NullMarked
package dev.statekit.jdbc.internal;

import org.jspecify.annotations.NullMarked;
