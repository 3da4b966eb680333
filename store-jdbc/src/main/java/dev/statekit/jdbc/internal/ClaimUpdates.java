package dev.statekit.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;

/**
 * How the generic path ({@link BatchOps}) writes the claims of the rows it locked: the owner, a
 * fencing token and the lease expiry, the claim rule's state and attributes, one more attempt and
 * version. Every row must be updated: another write of a locked row is a defect.
 */
public enum ClaimUpdates {
    /** One statement per row, sent as a JDBC batch ({@link Sql#claimTask}): H2. */
    BATCH {
        @Override
        void update(Connection c, Sql sql, List<Row> rows, String owner, Instant expires) throws SQLException {
            try (PreparedStatement update = c.prepareStatement(sql.claimTask)) {
                for (Row r : rows) {
                    update.setString(1, r.state());
                    update.setString(2, r.attributes());
                    update.setString(3, owner);
                    update.setLong(4, r.token());
                    sql.times.set(update, 5, expires);
                    sql.times.set(update, 6, r.updatedAt());
                    update.setLong(7, r.id());
                    update.setLong(8, r.version());
                    update.addBatch();
                }
                int[] counts = update.executeBatch();
                for (int i = 0; i < counts.length; i++) {
                    if (counts[i] != 1 && counts[i] != Statement.SUCCESS_NO_INFO) {
                        throw new IllegalStateException(counts[i] + " rows updated claiming locked task " + rows.get(i).id());
                    }
                }
            }
        }
    },
    /**
     * One statement per {@value #CHUNK} rows, joining the table to the rows' values
     * ({@link Sql#claimRows}): MariaDB, which spends about a third of the time per row so that it
     * spends in a batch of single-row updates (23 against 50 to 90 µs on a table of 20,000 rows).
     */
    JOINED {
        @Override
        void update(Connection c, Sql sql, List<Row> rows, String owner, Instant expires) throws SQLException {
            for (int from = 0; from < rows.size(); from += CHUNK) {
                List<Row> chunk = rows.subList(from, Math.min(rows.size(), from + CHUNK));
                int updated;
                try (PreparedStatement update = c.prepareStatement(sql.claimRows(chunk.size()))) {
                    int p = 1;
                    for (Row r : chunk) {
                        update.setLong(p++, r.id());
                        update.setLong(p++, r.version());
                        update.setString(p++, r.state());
                        update.setString(p++, r.attributes());
                        update.setLong(p++, r.token());
                        sql.times.set(update, p++, r.updatedAt());
                    }
                    update.setString(p++, owner);
                    sql.times.set(update, p, expires);
                    updated = update.executeUpdate();
                }
                if (updated != chunk.size()) {
                    throw new IllegalStateException(updated + " rows updated claiming " + chunk.size() + " locked tasks from "
                            + chunk.get(0).id());
                }
            }
        }
    };

    /** The most rows {@link #JOINED} writes with one statement. */
    static final int CHUNK = 500;

    /** One claim's values for a locked row: the state and encoded attributes its rule gives, its token and time. */
    record Row(long id, long version, String state, String attributes, long token, Instant updatedAt) {}

    /** Writes the claims of {@code rows}, each still at its version, for {@code owner} until {@code expires}. */
    abstract void update(Connection c, Sql sql, List<Row> rows, String owner, Instant expires) throws SQLException;
}
