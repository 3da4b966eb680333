package dev.statekit.jdbc.internal;

import dev.statekit.jdbc.Dialect;
import org.jspecify.annotations.Nullable;

/**
 * The pieces of SQL text in which the dialects differ; {@link Sql}, {@link GroupSql},
 * {@link ArchiveSql} and the tables build every statement from these and from text they share.
 * PostgreSQL claims and writes batches in statements of its own ({@link PostgresOps}); H2 and
 * MariaDB take the generic path, reading and then locking by id ({@link BatchOps}).
 */
public enum SqlFlavor {
    /** PostgreSQL 10 or later. */
    POSTGRESQL {
        @Override
        public String indexHint(String table, String index) {
            return table;
        }

        @Override
        public String nextValue(String sequence) {
            return "nextval('" + sequence + "')";
        }

        @Override
        public String nextValues(String sequence) {
            return "select nextval('" + sequence + "') from generate_series(1, ?)";
        }

        @Override
        public String insertNew(String insert, String columns) {
            return insert + " on conflict do nothing returning " + columns;
        }

        @Override
        public String shareLock() {
            return " for share";
        }

        @Override
        public String onConflictDoNothing(String key) {
            return " on conflict (" + key + ") do nothing";
        }

        @Override
        public String lockLimited() {
            return " for update skip locked";
        }

        @Override
        public String nonNullRange(String column) {
            return "";
        }

        @Override
        public String castText() {
            return "text";
        }

        @Override
        public String planFence() {
            return " offset 0";
        }

        @Override
        public String belowPriority() {
            return " and priority < ?";
        }

        @Override
        public int priorityBelow(int priority) {
            return priority;
        }

        @Override
        public String lockOrWait() {
            return " for update skip locked";
        }

        @Override
        public Times times() {
            return Times.ZONED;
        }
    },
    /** H2 2.x. */
    H2 {
        @Override
        public String nextValues(String sequence) {
            return "select next value for " + sequence + " from system_range(1, ?)";
        }

        @Override
        public String insertReturning(String insert, String columns) {
            return "select " + columns + " from final table (" + insert + ")";
        }

        @Override
        public String deleteReturning(String delete, String columns) {
            return "select " + columns + " from old table (" + delete + ")";
        }

        /**
         * A condition that always holds but that H2 cannot take for deterministic, which keeps H2
         * from handing out a query's earlier result. H2 hands a session the result of its last run
         * of a query again when the parameters are the same and no table the query reads was
         * written since. A commit marks its tables written just before its changes become visible:
         * a result read in between misses them and is handed out again after the commit, until the
         * next write. A count of a queue's leases read so missed the tasks a claim was committing,
         * and the next claim on that connection went over the queue's concurrency limit.
         */
        @Override
        public String fresh() {
            return " and rand() < 1";
        }

        @Override
        public String castText() {
            return "varchar";
        }

        @Override
        public String firstInClaimOrder(int states) {
            return states == 1 ? " order by machine, state, queue, priority desc, sequence, id limit 1" : " limit 1";
        }

        /** H2 reads rows in the order of an index only when the order names the index's leading columns. */
        @Override
        public String claimOrder(int states) {
            return states != 1 ? " order by" : " order by machine, state, queue,";
        }

        @Override
        public Times times() {
            return Times.ZONED;
        }
    },
    /** MariaDB 10.6 or later. */
    MARIADB {
        @Override
        public String nextValues(String sequence) {
            return "with recursive n (i) as (select 1 union all select i + 1 from n where i < ?) select next value for "
                    + sequence + " from n";
        }

        @Override
        public String castText() {
            return "char";
        }

        @Override
        public String pairs(int n) {
            StringBuilder values = new StringBuilder();
            for (int i = 0; i < n; i++) values.append(i == 0 ? "select ? as id, ? as root_id" : " union all select ?, ?");
            return "(" + values + ") v";
        }

        @Override
        public Times times() {
            return Times.EPOCH_MICROS;
        }

        /**
         * An update of the key to itself: InnoDB answers a plain insert's duplicate with a shared
         * lock on the row, and two creators that then lock it for update deadlock; this takes the
         * row's exclusive lock at once.
         */
        @Override
        public String onConflictDoNothing(String key) {
            return " on duplicate key update " + key + " = " + key;
        }

        @Override
        public String claimIndex(String table, String index) {
            return table + " force index (" + index + ")";
        }

        @Override
        public String tableExists() {
            return "select 1 from information_schema.tables where table_schema = database() and table_name = ?";
        }

        /** No: MariaDB's driver sends a batch through the server's bulk protocol, which takes no {@code INSERT ... SELECT}. */
        @Override
        public boolean batchesInsertSelect() {
            return false;
        }

        /**
         * Reads committed: InnoDB's default, repeatable read, would read a transaction's first
         * snapshot after the rows it locked since, and lock the gaps of the ranges it reads. Set
         * only when the connection is not so already: a pool that hands out connections at read
         * committed saves the statement.
         */
        @Override
        public void prepare(java.sql.Connection c) throws java.sql.SQLException {
            if (c.getTransactionIsolation() != java.sql.Connection.TRANSACTION_READ_COMMITTED) {
                c.setTransactionIsolation(java.sql.Connection.TRANSACTION_READ_COMMITTED);
            }
        }
    };

    /** Returns the flavor of {@code dialect}. */
    public static SqlFlavor of(Dialect dialect) {
        return switch (dialect) {
            case POSTGRESQL -> POSTGRESQL;
            case H2 -> H2;
            case MARIADB -> MARIADB;
        };
    }

    /**
     * {@code table} read through {@code index}. H2 and MariaDB otherwise prefer an index that leads
     * with the machine, and scan every task of the machine to find the few leased or waiting ones;
     * PostgreSQL's partial indexes hold only those tasks, and it chooses them by itself.
     */
    public String indexHint(String table, String index) {
        return table + " use index (" + index + ")";
    }

    /**
     * {@code table} read through its claim index {@code index} in a read of runnable tasks. Only
     * MariaDB names it: with statistics from a table that was empty (a new queue filled since),
     * it took another index that leads with the machine and state, read every runnable task of the
     * queue and sorted them, at every claim.
     */
    public String claimIndex(String table, String index) {
        return table;
    }

    /** The next value of {@code sequence}, as an expression. */
    public String nextValue(String sequence) {
        return "next value for " + sequence;
    }

    /** Selects as many next values of {@code sequence} as its parameter says, one per row. */
    public abstract String nextValues(String sequence);

    /**
     * {@code insert} returning {@code columns} of the row inserted, none when a unique key was taken
     * where the database can say so without an error (PostgreSQL); elsewhere a taken key fails it.
     */
    public String insertNew(String insert, String columns) {
        return insertReturning(insert, columns);
    }

    /** {@code insert} returning {@code columns} of each row inserted, in the order of its rows. */
    public String insertReturning(String insert, String columns) {
        return insert + " returning " + columns;
    }

    /** {@code delete} returning {@code columns} of each row deleted. */
    public String deleteReturning(String delete, String columns) {
        return delete + " returning " + columns;
    }

    /** The lock a reader takes to keep a row from changing while others may read it so too; H2 and MariaDB lock it for update. */
    public String shareLock() {
        return " for update";
    }

    /** The end of an insert that does nothing when the row of {@code key} exists; empty where the insert reports the duplicate. */
    public String onConflictDoNothing(String key) {
        return "";
    }

    /**
     * The lock a limited read takes of its rows, passing over rows other transactions hold; empty
     * where a limited {@code FOR UPDATE} locks more than the rows it returns, and the rows read
     * are then locked by id.
     */
    public String lockLimited() {
        return "";
    }

    /**
     * A lower bound on {@code column} for a range read of an index that keeps its nulls first: H2
     * and MariaDB then read only the non-null entries.
     */
    public String nonNullRange(String column) {
        return " and " + column + " >= " + times().earliest();
    }

    /** A condition that keeps the database from handing out an earlier result of the same query; see {@link #H2}. */
    public String fresh() {
        return "";
    }

    /** The type a text parameter is cast to. */
    public abstract String castText();

    /** The end of a subquery that keeps the planner from pulling it into the outer query; see {@link GroupSql#notHeld}. */
    public String planFence() {
        return "";
    }

    /** A derived table {@code v (id, root_id)} of {@code n} rows of two bigint parameters. */
    public String pairs(int n) {
        StringBuilder values = new StringBuilder();
        for (int i = 0; i < n; i++) values.append(i == 0 ? "" : ", ").append("(cast(? as bigint), cast(? as bigint))");
        return "(values " + values + ") v (id, root_id)";
    }

    /**
     * The start of the order of a read of runnable tasks of {@code states} states: the order alone.
     * MariaDB, given it with the columns an equality binds, sorted every runnable task of the queue
     * at each claim when the connection's collation was not the columns' (its driver's default,
     * {@code utf8mb4_general_ci}, against {@code utf8mb4_bin}).
     */
    public String claimOrder(int states) {
        return " order by";
    }

    /**
     * The condition "priority below the parameter" ({@link #priorityBelow}). H2 seeks a descending
     * index column on an inclusive bound only: it reads "priority &lt;= ?".
     */
    public String belowPriority() {
        return " and priority <= ?";
    }

    /** Returns the value to bind for "priority below {@code priority}" in {@link #belowPriority}. */
    public int priorityBelow(int priority) {
        return priority - 1;
    }

    /**
     * The end of a read of one runnable task. PostgreSQL, for one state, reads the claim index in
     * claim order from the queue's first runnable entry, where a bare {@code limit 1} (or an
     * {@code exists}, whose order PostgreSQL drops) may be planned as a scan of the table that
     * passes every finished and dead row before the first runnable one, a cost that grows with the
     * table. Several states cannot be read in claim order from the index in one range; their read
     * keeps the bare limit. H2 names the index's leading columns in the order, or it sorts.
     */
    public String firstInClaimOrder(int states) {
        return states == 1 ? " order by priority desc, sequence, id limit 1" : " limit 1";
    }

    /** The lock a limited read takes of its rows where it may wait for them: PostgreSQL passes over rows others hold. */
    public String lockOrWait() {
        return " for update";
    }

    /** How time columns travel. */
    public abstract Times times();

    /** Milliseconds since the epoch of the time column {@code column}, as a number. */
    public String epochMillis(String column) {
        return times().epochMillis(column);
    }

    /**
     * Selects a row when the table its parameter names exists in the connection's database, or null
     * where a read of the table that fails says so instead.
     */
    public @Nullable String tableExists() {
        return null;
    }

    /** Returns whether an {@code INSERT ... SELECT} can go as a JDBC batch; else each runs on its own. */
    public boolean batchesInsertSelect() {
        return true;
    }

    /** Prepares a connection borrowed from the pool for the store's work. */
    public void prepare(java.sql.Connection c) throws java.sql.SQLException {
    }
}
