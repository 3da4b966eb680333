package dev.statekit.jdbc.internal;

import dev.statekit.jdbc.Dialect;
import javax.sql.DataSource;

/**
 * What every part of one store shares: the JDBC plumbing, the SQL text, the writes below the
 * dialects, the dialect's own operations and the payload limit. Immutable and thread-safe.
 *
 * @param jdbc            connections, transactions and statements
 * @param sql             the SQL text of the store's tables
 * @param rows            the writes both dialects share
 * @param ops             what differs by database
 * @param maxPayloadChars the largest payload accepted, in characters
 */
public record JdbcContext(Jdbc jdbc, Sql sql, RowWrites rows, DialectOps ops, int maxPayloadChars) {

    /** Returns the context of a store on {@code dataSource}; {@code prefix} must have been validated. */
    public static JdbcContext of(DataSource dataSource, Dialect dialect, String prefix, int maxPayloadChars) {
        return of(new Jdbc(dataSource), dialect, prefix, maxPayloadChars);
    }

    /** Returns the context of a store working through {@code jdbc}; {@code prefix} must have been validated. */
    public static JdbcContext of(Jdbc jdbc, Dialect dialect, String prefix, int maxPayloadChars) {
        Sql sql = new Sql(dialect, prefix);
        jdbc = jdbc.preparing(sql.flavor::prepare);
        RowWrites rows = new RowWrites(sql);
        DialectOps ops = switch (dialect) {
            case POSTGRESQL -> new PostgresOps(jdbc, sql);
            case H2 -> new BatchOps(sql, rows, Wakes.NONE, ClaimUpdates.BATCH);
            case MARIADB -> new BatchOps(sql, rows, new WakeTable(jdbc.dataSource(), sql.wakes), ClaimUpdates.JOINED);
        };
        return new JdbcContext(jdbc, sql, rows, ops, maxPayloadChars);
    }
}
