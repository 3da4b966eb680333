package dev.statekit.jdbc.internal;

import dev.statekit.jdbc.Dialect;
import dev.statekit.store.TaskQuery;
import java.util.List;

/**
 * The SQL text of one store: table names come only from the validated prefix, every value is a
 * bound parameter. Texts with a variable number of parameters ({@code in (?, ?, ...)}) are built
 * per call from the same pieces.
 */
public final class Sql {
    /** The dialect. */
    public final Dialect dialect;
    /** The dialect's pieces of SQL text. */
    public final SqlFlavor flavor;
    /** How the dialect's time columns travel. */
    public final Times times;
    /** The tasks table. */
    public final String tasks;
    /** The history table. */
    public final String history;
    /** The queues table. */
    public final String queues;
    /** The starts of rate-limited queues. */
    public final String rateStarts;
    /** The key holds of queues. */
    public final String rateHolds;
    /** The recurring schedules table. */
    public final String schedules;
    /** The process records table. */
    public final String processes;
    /** The wake-ups table (MariaDB, {@link WakeTable}). */
    public final String wakes;
    /** The PostgreSQL notification channel of this prefix. */
    public final String channel;
    /** The SQL of the groups. */
    public final GroupSql groups;
    /** The SQL of retention and the archive. */
    public final ArchiveSql archive;
    /** The sequence of fencing tokens. */
    private final String fencing;
    /**
     * H2: the tasks table read through its lease index, or its due-time index. H2 otherwise
     * prefers an index that leads with the machine, and scans every task of the machine to find
     * the few leased or waiting ones. Plain table names on PostgreSQL, whose partial indexes hold
     * only those tasks.
     */
    private final String tasksByLease;
    private final String tasksByDue;
    /** The tasks table read through its claim index, where the dialect must name it ({@link SqlFlavor#claimIndex}). */
    private final String tasksByClaim;
    /** The texts of {@link #claimAtOnce}, by number of states, limit and start: built once, not at every claim. */
    private final java.util.Map<Long, String> atOnce = new java.util.concurrent.ConcurrentHashMap<>();

    /** Inserts a task; PostgreSQL ignores a repeated creation key and returns (id, sequence) of a new row. */
    public final String insertTask;
    /** Inserts several tasks, returning (id, sequence) of each: see {@link #insertTasks(int)}. */
    private final String insertMany;
    private final String insertTaskValues;
    /** Selects a task by (machine, idempotency key). */
    public final String taskByKey;
    /** Reads the task of a machine that holds a unique key: machine, key. */
    public final String taskByUniqueKey;
    /** Selects a task by id. */
    public final String taskById;
    /** Selects a task's version and the history entry of a command key, if any. */
    public final String checkChange;
    /**
     * Updates a task by (id, version) to a snapshot that holds a lease; a lease kept with its token
     * keeps its stored owner and expiry. The priority and sequence are written when bound, kept
     * when bound as null (a change that does not reorder).
     */
    public final String updateLeased;
    /** Updates a task by (id, version) to a snapshot without a lease; priority and sequence as {@link #updateLeased}. */
    public final String updateFree;
    /** Selects whether a task exists. */
    public final String taskExists;
    /** Inserts a history entry. */
    public final String insertHistory;
    /** Selects a task's history. */
    public final String historyOf;
    /** Selects the history entry of one command key. */
    public final String command;
    /** Selects a queue row. */
    public final String queue;
    /** Selects and locks a queue row. */
    public final String lockQueue;
    /** PostgreSQL: selects a queue row and locks it against changes, not against other claims that lock it so. */
    public final String shareQueue;
    /** Inserts a queue row with the defaults (PostgreSQL: unless it exists). */
    public final String insertQueue;
    /** Pauses a queue. */
    public final String pauseQueue;
    /** Resumes a queue. */
    public final String resumeQueue;
    /** Sets a queue's concurrency limit. */
    public final String setConcurrency;
    /** Sets a queue's anti-starvation counter. */
    public final String setSkipped;
    /** Counts the leased tasks of a queue; on H2 afresh every time, never a result H2 kept from an earlier run. */
    public final String leased;
    /** Claims one locked task. */
    public final String claimTask;
    /** Renews a lease. */
    public final String renew;
    /** Reads a task's cancellation flag. */
    public final String cancelFlag;
    /** Sets a task's cancellation flag. */
    public final String requestCancel;
    /** Changes a task's priority and sequence. */
    public final String reorder;
    /** Selects expired leases. */
    public final String expired;
    /** Selects expired leases from a floor ({@link LeaseFloors}): parameters now, the floor, the limit. */
    public final String expiredFrom;
    /** Selects the leases of one owner. */
    public final String leasedBy;
    /** The next FIFO sequence. */
    public final String nextSequence;
    /** The next front sequence (to be negated). */
    public final String nextFront;
    /** The next fencing tokens, as many as the parameter says, one per row. */
    public final String nextTokens;
    /** Locks a task a purge selected, unless it changed or holds a lease since: parameters id, version. */
    public final String lockPurged;
    /** Deletes a locked task unless it has children, marks wait for it or a task depends on it. */
    public final String deleteTask;
    /** Deletes a task's history. */
    public final String deleteHistory;
    /** Sends a notification on a channel (PostgreSQL). */
    public final String notify;
    /**
     * PostgreSQL: claims locked tasks and writes their history in one statement, drawing a fencing
     * token for each; returns (id, lease_token) of each task updated. Parameters: arrays of ids,
     * versions, from states, to states, events, encoded attributes (a null element keeps the stored
     * ones) and claim times (microseconds since the epoch); then owner, lease expiry, and the history's source, actor and
     * reason. The groups the claimed tasks count in are marked by the same statement.
     */
    public final String claimTasks;
    /**
     * PostgreSQL: applies changes without command keys in one statement, each on its own: a row
     * at another version is left alone, and the groups the updated tasks count in are marked.
     * Returns the id of each task updated. See {@link #updateEach(long)}.
     */
    private final String updateEachTail;
    /** The texts of {@link #updateEach(long)}, by the columns that travel as one value. */
    private final java.util.Map<Long, String> eachTexts = new java.util.concurrent.ConcurrentHashMap<>();
    /** The texts of {@link #insertRows(long)}, by the columns that travel as one value. */
    private final java.util.Map<Long, String> insertTexts = new java.util.concurrent.ConcurrentHashMap<>();
    /** The columns of {@link #insertRows(long)}, in the order of their parameters. */
    public static final List<String> INSERT_ROW_NAMES = List.of("machine", "machine_version", "state", "queue", "priority",
            "parent_id", "not_before", "attributes", "payload", "created_at", "unique_key");
    private static final List<String> INSERT_ROW_TYPES = List.of("text", "int", "text", "text", "int", "bigint", "bigint", "text",
            "text", "bigint", "text");
    /** The next FIFO sequence. */
    private final String fifo;
    /** The number of columns of {@link #updateEach(long)}. */
    public static final int UPDATE_EACH_ARRAYS = 35;
    // id, expected, version, state, queue, attempts, retries, lease owner, token, expiry, not before,
    // error code, message, retryable, step, attributes, payload, updated at; then the history entry's
    // version, from, to, event, source, actor, reason, at; then the priority and sequence, null where
    // the change keeps the stored ones; whether the task keeps its unique key; the error's detail; the
    // error the history entry recorded (code, message, retryable, step, detail). Times travel as microseconds since the epoch (fromMicros).
    private static final List<String> EACH_NAMES = List.of("id", "expected", "version", "state", "queue", "attempts", "retries",
            "lease_owner", "lease_token", "lease_expires_at", "not_before", "error_code", "error_message", "error_retryable",
            "error_step", "attributes", "payload", "updated_at", "h_version", "from_state", "to_state", "event", "source", "actor",
            "reason", "at", "priority", "sequence", "keeps_unique", "error_detail", "h_error_code", "h_error_message",
            "h_error_retryable", "h_error_step", "h_error_detail");
    private static final List<String> EACH_TYPES = List.of("bigint", "bigint", "bigint", "text", "text", "int", "int", "text",
            "bigint", "bigint", "bigint", "text", "text", "boolean", "text", "text", "text", "bigint", "bigint", "text", "text",
            "text", "text", "text", "text", "bigint", "int", "bigint", "boolean", "text", "text", "text", "boolean", "text", "text");

    /**
     * Builds the SQL of a store; {@code prefix} must have been validated. Long because it is the
     * list of the store's statements, one assignment each, read top to bottom like a schema file.
     */
    public Sql(Dialect dialect, String prefix) {
        if (Schema.checkPrefix(prefix) != null) throw new IllegalArgumentException(Schema.checkPrefix(prefix));
        this.dialect = dialect;
        flavor = SqlFlavor.of(dialect);
        times = flavor.times();
        tasks = prefix + "tasks";
        history = prefix + "history";
        queues = prefix + "queues";
        rateStarts = prefix + "rate_starts";
        rateHolds = prefix + "rate_holds";
        processes = prefix + "processes";
        schedules = prefix + "schedules";
        channel = prefix + "wake";
        wakes = prefix + "wakes";
        groups = new GroupSql(flavor, prefix);
        archive = new ArchiveSql(flavor, prefix, groups);
        fencing = prefix + "fencing_seq";
        tasksByLease = flavor.indexHint(tasks, prefix + "tasks_lease_idx");
        tasksByDue = flavor.indexHint(tasks, prefix + "tasks_due_idx");
        tasksByClaim = flavor.claimIndex(tasks, prefix + "tasks_claim_idx");
        fifo = flavor.nextValue(prefix + "fifo_seq");
        String insert = "insert into " + tasks + " (machine, machine_version, state, queue, priority, sequence, parent_id,"
                + " attempts, retries, not_before, attributes, payload, idempotency_key, created_at, updated_at, version,"
                + " cancel_requested, unique_key) values (?, ?, ?, ?, ?, " + fifo + ", ?, 0, 0, ?, ?, ?, ?, ?, ?, 0, false, ?)";
        // PostgreSQL: a taken idempotency key or unique key inserts nothing (no row returned), in either index.
        insertTask = flavor.insertNew(insert, "id, sequence");
        insertMany = insert.substring(0, insert.indexOf(" values ("));
        insertTaskValues = insert.substring(insert.indexOf(" values (") + " values ".length());
        taskByKey = "select " + Rows.TASK_COLUMNS + " from " + tasks + " where machine = ? and idempotency_key = ?";
        taskByUniqueKey = "select " + Rows.TASK_COLUMNS + " from " + tasks + " where machine = ? and unique_key = ?";
        taskById = "select " + Rows.TASK_COLUMNS + " from " + tasks + " where id = ?";
        checkChange = "select t.version, h.task_id, h.version, h.from_state, h.to_state, h.event, h.source, h.actor, h.reason,"
                + " h.at, h.command_key, h.error_code, h.error_message, h.error_retryable, h.error_step, h.error_detail from " + tasks + " t left join " + history + " h on h.task_id = t.id and h.command_key = ?"
                + " where t.id = ?";
        String set = "update " + tasks + " set state = ?, queue = ?, attempts = ?, retries = ?, ";
        String rest = ", not_before = ?, last_error_code = ?, last_error_message = ?, last_error_retryable = ?,"
                + " last_error_step = ?, last_error_detail = ?, attributes = ?, payload = ?, updated_at = ?, version = ?,"
                + " priority = coalesce(?, priority), sequence = coalesce(?, sequence),"
                + " unique_key = case when ? then unique_key else null end where id = ? and version = ?";
        updateLeased = set + "lease_owner = case when lease_token = ? then lease_owner else ? end,"
                + " lease_expires_at = case when lease_token = ? then lease_expires_at else ? end,"
                + " lease_token = ?" + rest;
        updateFree = set + "lease_owner = null, lease_token = null, lease_expires_at = null" + rest;
        taskExists = "select 1 from " + tasks + " where id = ?";
        insertHistory = "insert into " + history + " (" + Rows.HISTORY_COLUMNS + ") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
        historyOf = "select " + Rows.HISTORY_COLUMNS + " from " + history + " where task_id = ? order by version";
        command = "select " + Rows.HISTORY_COLUMNS + " from " + history + " where task_id = ? and command_key = ?";
        queue = "select " + Rows.QUEUE_COLUMNS + " from " + queues + " where name = ?";
        lockQueue = queue + " for update";
        shareQueue = queue + flavor.shareLock();
        insertQueue = "insert into " + queues + " (" + Rows.QUEUE_COLUMNS + ") values (?, false, null, 0, 0, 0, 0, null, null)"
                + flavor.onConflictDoNothing("name");
        pauseQueue = "update " + queues + " set paused = true, pause_reason = ? where name = ?";
        resumeQueue = "update " + queues + " set paused = false, pause_reason = null where name = ?";
        setConcurrency = "update " + queues + " set concurrency = ? where name = ?";
        setSkipped = "update " + queues + " set skipped_lower = ? where name = ?";
        // H2's indexes keep nulls first and H2 has no partial indexes: a range on an indexed column
        // needs a lower bound too, or the scan reads every row whose value is null.
        // Leased tasks are read through the lease index: on H2 its range needs the lower bound.
        String anyLease = flavor.nonNullRange("lease_expires_at");
        leased = "select count(*) from " + tasksByLease + " where queue = ? and lease_token is not null" + anyLease + flavor.fresh();
        claimTask = "update " + tasks + " set state = ?, attributes = ?, lease_owner = ?, lease_token = ?, lease_expires_at = ?,"
                + " attempts = attempts + 1, not_before = null, updated_at = ?, version = version + 1, cancel_requested = false"
                + " where id = ? and version = ?";
        renew = "update " + tasks + " set lease_expires_at = greatest(lease_expires_at, ?)"
                + " where id = ? and lease_token = ? and lease_expires_at > ?";
        cancelFlag = "select cancel_requested from " + tasks + " where id = ?";
        requestCancel = "update " + tasks + " set cancel_requested = true where id = ?";
        reorder = "update " + tasks + " set priority = ?, sequence = ? where id = ?";
        expired = "select " + Rows.TASK_COLUMNS + " from " + tasksByLease + " where lease_token is not null and lease_expires_at <= ?"
                + anyLease + " order by lease_expires_at, id limit ?";
        expiredFrom = "select " + Rows.TASK_COLUMNS + " from " + tasksByLease + " where lease_token is not null and lease_expires_at <= ?"
                + " and lease_expires_at >= ? order by lease_expires_at, id limit ?";
        leasedBy = "select " + Rows.TASK_COLUMNS + " from " + tasksByLease + " where lease_token is not null and lease_owner = ?"
                + anyLease + " order by id limit ?";
        nextSequence = "select " + fifo;
        nextFront = "select " + flavor.nextValue(prefix + "front_seq");
        nextTokens = flavor.nextValues(fencing);
        lockPurged = "select id from " + tasks + " where id = ? and version = ? and lease_token is null for update";
        // No alias: MariaDB's single-table delete takes none.
        deleteTask = "delete from " + tasks + " where id = ? and not exists (select 1 from " + tasks + " c where c.parent_id = "
                + tasks + ".id)" + groups.unclaimedByGroups(tasks);
        deleteHistory = "delete from " + history + " where task_id = ?";
        notify = "select pg_notify(?, ?)";
        // Fencing tokens are drawn in claim order (the arrays' order): a volatile output is computed after the sort.
        // The claimed rows are found through the primary key by the array of ids (see updateEach).
        claimTasks = "with v (id, version, from_state, state, event, attributes, at, ord, token) as (select x.*,"
                + " nextval('" + prefix + "fencing_seq') from unnest(?::bigint[], ?::bigint[], ?::text[], ?::text[], ?::text[],"
                + " ?::text[], ?::bigint[]) with ordinality as x order by x.ordinality),"
                + " u as (update " + tasks + " t set state = v.state, attributes = coalesce(v.attributes, t.attributes),"
                + " lease_owner = ?, lease_token = v.token, lease_expires_at = ?,"
                + " attempts = t.attempts + 1, not_before = null, updated_at = " + fromMicros("v.at") + ", version = t.version + 1,"
                + " cancel_requested = false from v where t.id = v.id and t.version = v.version and t.id = any(array(select id from v))"
                + " returning t.id, t.lease_token, t.parent_id, t.machine),"
                + " h as (insert into " + history + " (" + Rows.HISTORY_COLUMNS + ") select v.id, v.version + 1, v.from_state,"
                + " v.state, v.event, ?, ?, ?, " + fromMicros("v.at") + ", null, " + Rows.NO_HISTORY_ERROR + " from v join u on u.id = v.id),"
                + " moved as (select u.id, u.parent_id, u.machine, v.from_state, v.state as to_state from v join u on u.id = v.id), "
                + groups.marksOf("moved")
                + " select id, lease_token from u";
        // The rows are found through the primary key by the array of ids: joined to the unnested arrays
        // alone, a generic plan may read the whole table with a hash join, at every batch.
        // A lease kept with its fencing token keeps its stored owner and expiry: only renew moves them.
        updateEachTail = " u as (update " + tasks + " t set state = v.state, queue = v.queue, attempts = v.attempts, retries = v.retries,"
                + " lease_owner = case when v.lease_token is null then null when t.lease_token = v.lease_token"
                + " then t.lease_owner else v.lease_owner end,"
                + " lease_expires_at = case when v.lease_token is null then null when t.lease_token = v.lease_token"
                + " then t.lease_expires_at else " + fromMicros("v.lease_expires_at") + " end,"
                + " lease_token = v.lease_token, not_before = " + fromMicros("v.not_before") + ", last_error_code = v.error_code,"
                + " last_error_message = v.error_message, last_error_retryable = v.error_retryable,"
                + " last_error_step = v.error_step, last_error_detail = v.error_detail, attributes = v.attributes, payload = v.payload, updated_at = " + fromMicros("v.updated_at") + ","
                + " version = v.version, priority = coalesce(v.priority, t.priority), sequence = coalesce(v.sequence, t.sequence),"
                + " unique_key = case when v.keeps_unique then t.unique_key else null end"
                + " from v where t.id = v.id and t.version = v.expected and t.id = any(array(select id from v))"
                + " returning t.id, t.parent_id, t.machine),"
                + " h as (insert into " + history + " (" + Rows.HISTORY_COLUMNS + ") select v.id, v.h_version, v.from_state,"
                + " v.to_state, v.event, v.source, v.actor, v.reason, " + fromMicros("v.at") + ", null, v.h_error_code, v.h_error_message,"
                + " v.h_error_retryable, v.h_error_step, v.h_error_detail from v join u on u.id = v.id),"
                + " moved as (select u.id, u.parent_id, u.machine, v.from_state, v.to_state from v join u on u.id = v.id), "
                + groups.marksOf("moved")
                + " select id from u";
    }

    /**
     * PostgreSQL: the time {@code micros} microseconds after the epoch, from an expression of type
     * bigint (null stays null). Exact: each part of the sum is a whole number of its unit. Reading
     * a number costs PostgreSQL a fraction of parsing a time's text.
     */
    static String fromMicros(String micros) {
        return "(timestamptz 'epoch' + (" + micros + " / 1000000) * interval '1 second' + (" + micros
                + " % 1000000) * interval '1 microsecond')";
    }

    /**
     * PostgreSQL: the text of {@link #updateEachTail} for a batch whose columns {@code single} names
     * (bit {@code i} for column {@code i} of {@link #UPDATE_EACH_ARRAYS}) hold one value for every
     * change: those travel as one parameter each, the others as an array with one element per
     * change. PostgreSQL reads each element of an array parameter, and most columns of a batch
     * (its errors, its lease when it ends one, its history entry's source and events) hold one value:
     * a batch of results sends a fifth of the elements it would send as arrays only. Parameters: the
     * single values in column order, then the arrays in column order. Built once per set of columns.
     */
    public String updateEach(long single) {
        String text = eachTexts.get(single);
        if (text != null) return text;
        text = "with v as (" + batchRows(EACH_NAMES, EACH_TYPES, single, false) + ")," + updateEachTail;
        // A few sets of single columns recur (results, retries, failures); any other is built when met.
        if (eachTexts.size() < EACH_TEXTS_KEPT) eachTexts.putIfAbsent(single, text);
        return text;
    }

    /** How many texts of {@link #updateEach(long)} are kept. */
    private static final int EACH_TEXTS_KEPT = 256;

    /**
     * PostgreSQL: inserts tasks without idempotency keys, in the order of their rows, returning
     * (id, sequence) of each; the columns {@code single} names (bits as {@link #updateEach(long)},
     * over {@link #INSERT_ROW_NAMES}) travel as one value, the others as arrays, times as
     * microseconds since the epoch. Parameters: the single values, then the arrays, or the number
     * of rows when every column is single.
     */
    public String insertRows(long single) {
        return insertTexts.computeIfAbsent(single, k -> insertMany + " select v.machine, v.machine_version, v.state, v.queue,"
                + " v.priority, " + fifo + ", v.parent_id, 0, 0, " + fromMicros("v.not_before") + ", v.attributes, v.payload, null, "
                + fromMicros("v.created_at") + ", " + fromMicros("v.created_at") + ", 0, false, v.unique_key from ("
                + batchRows(INSERT_ROW_NAMES, INSERT_ROW_TYPES, single, true) + ") v returning id, sequence");
    }

    /**
     * A query of one row per element of the batch, its columns {@code names} of {@code types}: a
     * column whose bit is set in {@code single} is one parameter, the others are arrays unnested
     * side by side; {@code ordered} keeps the rows in the order of the arrays. With every column
     * single, the number of rows is a parameter (or one row, unordered).
     */
    private static String batchRows(List<String> names, List<String> types, long single, boolean ordered) {
        StringBuilder select = new StringBuilder();
        StringBuilder arrays = new StringBuilder();
        StringBuilder unnested = new StringBuilder();
        for (int i = 0; i < names.size(); i++) {
            select.append(i == 0 ? "" : ", ");
            if ((single & 1L << i) != 0) {
                select.append("?::").append(types.get(i)).append(" as ").append(names.get(i));
            } else {
                select.append("x.").append(names.get(i));
                arrays.append(arrays.length() == 0 ? "" : ", ").append("?::").append(types.get(i)).append("[]");
                unnested.append(unnested.length() == 0 ? "" : ", ").append(names.get(i));
            }
        }
        if (arrays.length() > 0) {
            return "select " + select + " from unnest(" + arrays + ")" + (ordered ? " with ordinality" : "") + " as x (" + unnested
                    + (ordered ? ", ord) order by x.ord" : ")");
        }
        return "select " + select + (ordered ? " from generate_series(1, ?::int) as x (ord) order by x.ord" : "");
    }

    /** Returns {@code (?, ?, ...)} with {@code n} parameters. */
    public static String params(int n) {
        StringBuilder b = new StringBuilder(3 * n + 2).append('(');
        for (int i = 0; i < n; i++) b.append(i == 0 ? "?" : ", ?");
        return b.append(')').toString();
    }

    /** Inserts {@code n} tasks without idempotency keys, with the parameters of {@link #insertTask} for each, returning (id, sequence) of each. */
    public String insertTasks(int n) {
        String row = insertTaskValues;
        StringBuilder b = new StringBuilder(insertMany.length() + n * (row.length() + 2)).append(insertMany).append(" values ");
        for (int i = 0; i < n; i++) b.append(i == 0 ? "" : ", ").append(row);
        return flavor.insertReturning(b.toString(), "id, sequence");
    }

    /** Inserts {@code n} history entries, with the parameters of {@link #insertHistory} for each. */
    public String insertHistories(int n) {
        StringBuilder b = new StringBuilder(insertHistory.length() + n * 32).append(insertHistory);
        String row = insertHistory.substring(insertHistory.indexOf(" values ") + " values ".length());
        for (int i = 1; i < n; i++) b.append(", ").append(row);
        return b.toString();
    }

    /**
     * Claims {@code n} locked tasks in one statement, joining the table to their values, each row
     * found at its version: parameters (id, version, state, encoded attributes, fencing token,
     * updated at) of each row, then owner and lease expiry. MariaDB ({@link ClaimUpdates#JOINED}).
     */
    public String claimRows(int n) {
        StringBuilder values = new StringBuilder(40 * n + 100);
        for (int i = 0; i < n; i++) {
            values.append(i == 0 ? "select ? as id, ? as version, ? as state, ? as attributes, ? as token, ? as updated_at"
                    : " union all select ?, ?, ?, ?, ?, ?");
        }
        return "update " + tasks + " t join (" + values + ") v on t.id = v.id and t.version = v.version"
                + " set t.state = v.state, t.attributes = v.attributes, t.lease_owner = ?, t.lease_token = v.token,"
                + " t.lease_expires_at = ?, t.attempts = t.attempts + 1, t.not_before = null, t.updated_at = v.updated_at,"
                + " t.version = t.version + 1, t.cancel_requested = false";
    }

    /** Selects the tasks with {@code n} ids. */
    public String tasksByIds(int n) {
        return "select " + Rows.TASK_COLUMNS + " from " + tasks + " where id in " + params(n);
    }

    /**
     * Selects a page of tasks; the filters {@code query} sets add their conditions, in the order machine,
     * states, parent, queue, error code, created from, created to, updated from, updated to; parameters:
     * the id after which the page starts, those of the conditions, the limit.
     */
    public String query(TaskQuery query) {
        StringBuilder b = new StringBuilder("select ").append(Rows.TASK_COLUMNS).append(" from ").append(tasks).append(" where id > ?");
        if (query.machine() != null) b.append(" and machine = ?");
        if (!query.states().isEmpty()) b.append(" and state in ").append(params(query.states().size()));
        if (query.parentId() != null) b.append(" and parent_id = ?");
        if (query.queue() != null) b.append(" and queue = ?");
        if (query.errorCode() != null) b.append(" and last_error_code = ?");
        if (query.createdFrom() != null) b.append(" and created_at >= ?");
        if (query.createdTo() != null) b.append(" and created_at < ?");
        if (query.updatedFrom() != null) b.append(" and updated_at >= ?");
        if (query.updatedTo() != null) b.append(" and updated_at < ?");
        return b.append(" order by id limit ?").toString();
    }

    /** Selects expired leases of tasks of {@code machines} machines, oldest expiry first. */
    public String expiredOf(int machines) {
        return "select " + Rows.TASK_COLUMNS + " from " + tasksByLease + " where lease_token is not null and lease_expires_at <= ?"
                + flavor.nonNullRange("lease_expires_at") + " and machine in " + params(machines)
                + " order by lease_expires_at, id limit ?";
    }

    /**
     * As {@link #expiredOf}, reading from a floor ({@link LeaseFloors}): parameters now, the floor,
     * the machines, the limit.
     */
    public String expiredOfFrom(int machines) {
        return "select " + Rows.TASK_COLUMNS + " from " + tasksByLease + " where lease_token is not null and lease_expires_at <= ?"
                + " and lease_expires_at >= ? and machine in " + params(machines) + " order by lease_expires_at, id limit ?";
    }

    /** Selects lease-free tasks of a machine in {@code states} whose not-before time has come, earliest first. */
    public String due(int states) {
        return "select " + Rows.TASK_COLUMNS + " from " + tasksByDue + " where machine = ? and state in " + params(states)
                + " and lease_token is null and not_before is not null and not_before <= ?"
                + flavor.nonNullRange("not_before") + " order by not_before, id limit ?";
    }

    /** Selects the earliest future not-before time of lease-free tasks of a machine in {@code states}. */
    public String nextDue(int states) {
        return "select min(not_before) from " + tasksByDue + " where machine = ? and state in " + params(states)
                + " and lease_token is null and not_before is not null and not_before > ?";
    }

    /**
     * Selects runnable tasks of (machine, queue, states) in claim order, leaving out members of held
     * groups: parameters machine, queue,
     * the states, now, then with {@code after} the last key (priority twice, sequence twice, id),
     * then with {@code below} a priority bound. The limit is part of the text: with it known, the
     * database can keep one plan for every execution instead of planning each one.
     *
     * @param limit the most rows to return
     * @param lock  whether to lock the rows returned, passing over rows other transactions hold
     *              (PostgreSQL only: H2 locks every row a limited query's condition matches)
     */
    public String runnable(int states, boolean after, boolean below, int limit, boolean lock) {
        StringBuilder b = new StringBuilder("select ").append(Rows.TASK_COLUMNS).append(" from ").append(tasksByClaim)
                .append(" where ").append(runnableWhere(states));
        if (after) b.append(" and (priority < ? or (priority = ? and (sequence > ? or (sequence = ? and id > ?))))");
        if (below) b.append(flavor.belowPriority());
        b.append(flavor.claimOrder(states)).append(" priority desc, sequence, id limit ").append(limit);
        if (lock) {
            if (flavor.lockLimited().isEmpty()) throw new IllegalArgumentException(dialect + " locks the runnable tasks it reads by id");
            b.append(flavor.lockLimited());
        }
        return b.toString();
    }

    /**
     * PostgreSQL: a whole claim in one statement, its own transaction, for a queue without a
     * concurrency limit, rate limit or key hold whose claim rules have no effects (a queue with a
     * rate limit or hold reads as limited, column 30, and the claim is made the exclusive way). When a task is runnable (read without
     * locks: an idle queue's claim writes nothing, so its commit waits for no disk), it locks the
     * queue row against changes (as {@link #shareQueue}: pausing and limits wait for it, other
     * claims do not), takes up to {@code limit} runnable tasks in claim order, locking them and
     * passing over those that other claims hold, draws their fencing tokens in that order, claims
     * them by their rules, writes their history and marks their groups. It claims only when that
     * order is the claim order anti-starvation gives: the tasks taken share one priority, no
     * runnable task of a lower priority is left, and the queue's anti-starvation count is 0.
     *
     * <p>Returns one row per task claimed, or one row with null task columns when none is: the
     * {@link Rows#TASK_COLUMNS} of the claimed task (columns 1 to 27), its from-state (28), the
     * event (29), whether a task was runnable (30), the queue's paused flag (31) and concurrency
     * limit (32), null when the queue has no row or nothing was runnable, whether the order was
     * the claim order (33), when the claimed task had become ready (34, the later of its last
     * change and its not-before time before the claim), and whether the queue's row could be
     * locked (35: not when another transaction holds it for update).
     *
     * <p>Parameters: machine, queue, the states, now (is a task runnable); queue; the rules'
     * from-states, events and to-states (three arrays, one rule per from-state); machine, queue,
     * the states, now (the candidates); machine, queue, the states, now (a lower task); owner, lease
     * expiry, now (the claim); the history's source, actor and reason.
     */
    public String claimAtOnce(int states, int limit) {
        return atOnce.computeIfAbsent((long) states << 32 | limit, k -> buildClaimAtOnce(states, limit, false));
    }

    /**
     * As {@link #claimAtOnce}, reading the runnable tasks from a start key instead of from the
     * queue's first one: the tasks of the start's priority from its (sequence, id) on, then those
     * of lower priorities. The candidates' parameters (machine, queue, the states, now) are followed
     * by the start's priority, sequence and id, then given again, followed by the start's priority.
     * The entries of the tasks claimed before the start, which vacuum may not yet have removed, are
     * not read.
     */
    public String claimAtOnceFrom(int states, int limit) {
        return atOnce.computeIfAbsent(1L << 62 | (long) states << 32 | limit, k -> buildClaimAtOnce(states, limit, true));
    }

    private String buildClaimAtOnce(int states, int limit, boolean from) {
        String runnable = " from " + tasks + " where " + runnableWhere(states);
        String queue = "select paused, case when rate_limit > 0 or held_until is not null then greatest(concurrency, 1)"
                + " else concurrency end as concurrency, skipped_lower from " + queues + " where name = ?";
        StringBuilder cols = new StringBuilder();
        for (String col : Rows.TASK_COLUMNS.split(", ")) cols.append(cols.length() == 0 ? "" : ", ").append("u.").append(col);
        // The runnable range is read once: an idle queue's claim reads nothing else and locks nothing;
        // the queue's row is locked (against pausing and limits) only once a task was found, and
        // read again then. That lock comes after the tasks' locks, where every other claim takes the
        // queue's row first: a row another transaction holds for update (an exclusive claim, a pause)
        // is skipped, and the claim is made another way, instead of waiting in a deadlock. Whether any task is runnable is read apart only when the queue is
        // paused, limited or missing, to say whether the claim must be made another way.
        return "with q0 as (" + queue + "),"
                + " o as (select exists (select 1 from q0 where not q0.paused and q0.concurrency = 0) as open),"
                + " r (from_state, event, to_state) as (select * from unnest(?::text[], ?::text[], ?::text[])),"
                + (from ? claimFrom(runnable, limit) : " c as (" + candidates(runnable, "", limit) + "),")
                + " q as (" + queue + " and exists (select 1 from c) for share skip locked),"
                + " p as (select case when (select open from o) then exists (select 1 from c)"
                + " else (select 1" + runnable + firstInClaimOrder(states) + ") is not null end as found),"
                + " g as (select (select count(distinct priority) from c) <= 1"
                + " and (select 1" + runnable + " and priority < (select min(priority) from c)" + firstInClaimOrder(states) + ") is null"
                + " and coalesce((select skipped_lower from q), (select skipped_lower from q0), 0) = 0 as ordered),"
                + " k as (select c.id, c.version, c.state, r.event, r.to_state, c.ready_at, nextval('" + fencing + "') as token"
                + " from c join r on r.from_state = c.state where (select ordered from g)"
                + " and exists (select 1 from q where not q.paused and q.concurrency = 0)"
                + " order by c.priority desc, c.sequence, c.id),"
                + " u as (update " + tasks + " t set state = k.to_state, lease_owner = ?, lease_token = k.token,"
                + " lease_expires_at = ?, attempts = t.attempts + 1, not_before = null,"
                + " updated_at = greatest(t.updated_at, ?), version = t.version + 1, cancel_requested = false"
                + " from k where t.id = k.id and t.version = k.version returning t.*, k.state as from_state, k.event, k.ready_at),"
                + " h as (insert into " + history + " (" + Rows.HISTORY_COLUMNS + ") select u.id, u.version, u.from_state,"
                + " u.state, u.event, ?, ?, ?, u.updated_at, null, " + Rows.NO_HISTORY_ERROR + " from u),"
                + " moved as (select id, parent_id, machine, from_state, state as to_state from u), "
                + groups.marksOf("moved")
                + " select " + cols + ", u.from_state, u.event, p.found, coalesce(q.paused, q0.paused), coalesce(q.concurrency, q0.concurrency),"
                + " g.ordered, u.ready_at, exists (select 1 from q)"
                + " from p cross join g left join q0 on true left join q on true left join u on true order by u.lease_token";
    }

    /** The at-once claim's candidates: {@code range} narrows the runnable ones. */
    private static String candidates(String runnable, String range, int limit) {
        return "select id, version, state, priority, sequence, greatest(updated_at, coalesce(not_before, updated_at)) as ready_at"
                + runnable + range + " and (select open from o)"
                + " order by priority desc, sequence, id limit " + limit + " for update skip locked";
    }

    /**
     * The candidates from a start key: its priority's range from the key on, then the lower
     * priorities, each read in claim order from its first entry. PostgreSQL reads the second
     * range only while the first has given fewer than {@code limit} rows, and locks only what it reads.
     */
    private static String claimFrom(String runnable, int limit) {
        return " c1 as (" + candidates(runnable, " and priority = ? and (sequence, id) >= (?, ?)", limit) + "),"
                + " c2 as (" + candidates(runnable, " and priority < ?", limit) + "),"
                + " c as (select * from c1 union all select * from c2 limit " + limit + "),";
    }

    /**
     * The condition on the tasks table that a task of (machine, queue) in one of {@code states} is
     * runnable now and no held group keeps it back: parameters machine, queue, the states, now.
     */
    private String runnableWhere(int states) {
        return "machine = ? and queue = ? and state in " + params(states)
                + " and lease_token is null and (not_before is null or not_before <= ?)" + groups.notHeld();
    }

    /**
     * Selects (priority, sequence, id) of a runnable task of (machine, queue, states) before a key in
     * claim order, reading from the queue's first entry: parameters machine, queue, the states, now,
     * then the key's priority twice, sequence and id. For one state it is the first such task in
     * claim order; for several, any.
     */
    public String runnableBefore(int states) {
        return "select priority, sequence, id from " + tasksByClaim + " where " + runnableWhere(states)
                + " and (priority > ? or (priority = ? and (sequence, id) < (?, ?)))" + firstInClaimOrder(states);
    }

    /**
     * Selects whether (machine, queue, states) has a runnable task that no held group keeps back
     * from a key on in claim order (that task included): parameters machine, queue, the states, now,
     * then the key's priority twice, sequence twice and id.
     */
    public String anyRunnableFrom(int states) {
        return "select 1 from " + tasksByClaim + " where " + runnableWhere(states)
                + " and (priority < ? or (priority = ? and (sequence > ? or (sequence = ? and id >= ?))))" + firstInClaimOrder(states);
    }

    /**
     * Selects whether (machine, queue, states) has a runnable task that no held group keeps back:
     * parameters machine, queue, the states, now.
     */
    public String anyRunnable(int states) {
        return "select 1 from " + tasksByClaim + " where " + runnableWhere(states) + firstInClaimOrder(states);
    }

    private String firstInClaimOrder(int states) {
        return flavor.firstInClaimOrder(states);
    }

    /**
     * Selects and locks, skipping rows other transactions hold, the tasks with {@code n} ids that
     * are still runnable: parameters the ids, machine, queue, the states, now. H2 uses it after
     * {@link #runnable} without the lock, since its {@code FOR UPDATE} with a limit locks every
     * row the condition matches.
     */
    public String lockRunnable(int states, int n) {
        return "select " + Rows.TASK_COLUMNS + " from " + tasks + " where id in " + params(n) + " and " + runnableWhere(states)
                + " for update skip locked";
    }

    /** Selects (id, version) of tasks a purge may delete, in id order. */
    public String purgeCandidates(int states) {
        return "select id, version from " + tasks + " t where machine = ? and state in " + params(states)
                + " and lease_token is null and updated_at < ?"
                + " and not exists (select 1 from " + tasks + " c where c.parent_id = t.id)" + groups.unclaimedByGroups("t")
                + " order by id limit ?";
    }

    /**
     * Counts the tasks by (machine, queue, state) in one pass over the tasks table: how many, how
     * many hold a lease, and the earliest time a lease-free task whose not-before time has come
     * became ready (the later of its last change and its not-before time). Parameter: now.
     */
    public String stateCounts() {
        return "select machine, queue, state, count(*), count(lease_token), min(case when lease_token is null"
                + " and (not_before is null or not_before <= ?) then case when not_before > updated_at then not_before"
                + " else updated_at end end) from " + tasks + " group by machine, queue, state";
    }
}
