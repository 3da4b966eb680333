package dev.statekit.jdbc.internal;


/**
 * The SQL text of one store's retention and archive (schema version 3): finding and locking finished
 * trees in the tasks table, moving them to the archive tables, reading and deleting archived trees.
 * Table names come only from the validated prefix; every value is a bound parameter. Texts with a
 * variable number of parameters are built per call.
 */
public final class ArchiveSql {
    /** The columns a retention batch reads of a task it locks, in the order {@link FinishedTrees} reads them. */
    private static final String TREE_COLUMNS = "id, parent_id, machine, state, lease_token, updated_at";

    /** The archived tasks table. */
    public final String archivedTasks;
    /** The archived history table. */
    public final String archivedHistory;
    /** Selects an archived task with its history, one row per entry (none: one row with null entry columns), in one snapshot. */
    public final String archivedById;

    /** How the dialect's time columns travel. */
    public final Times times;

    private final SqlFlavor flavor;
    private final String tasks;
    /** The tasks table read through its retention index (H2 names it; PostgreSQL chooses it by itself). */
    private final String tasksByAge;
    private final String history;
    private final GroupSql groups;

    /** Builds the SQL of a store's archive; {@code prefix} must have been validated. */
    public ArchiveSql(SqlFlavor flavor, String prefix, GroupSql groups) {
        this.flavor = flavor;
        this.times = flavor.times();
        this.groups = groups;
        tasks = prefix + "tasks";
        tasksByAge = flavor.indexHint(tasks, prefix + "tasks_finished_idx");
        history = prefix + "history";
        archivedTasks = prefix + "archived_tasks";
        archivedHistory = prefix + "archived_history";
        archivedById = "select " + qualified("t", Rows.TASK_COLUMNS) + ", t.root_id, t.archived_at, "
                + qualified("h", Rows.HISTORY_COLUMNS) + " from " + archivedTasks + " t left join " + archivedHistory
                + " h on h.task_id = t.id where t.id = ? order by h.version";
    }

    private static String qualified(String alias, String columns) {
        StringBuilder b = new StringBuilder();
        for (String c : columns.split(", ")) b.append(b.length() == 0 ? "" : ", ").append(alias).append('.').append(c);
        return b.toString();
    }

    /**
     * Selects the ids of up to a limit of roots a retention batch may take: lease-free tasks of a
     * machine without a parent, in one of {@code states} states, last changed before a time.
     * Parameters: machine, the states, the time, the limit. Read through the retention index
     * (machine, state, updated_at) of lease-free tasks, which holds none younger than the time; in
     * no particular order, so that the scan stops at the limit. On
     * PostgreSQL it locks them, passing over rows other transactions hold, so that concurrent batches
     * take different roots; H2 (whose {@code FOR UPDATE} with a limit locks every row the condition
     * matches) locks them by id afterwards ({@link #lockTasks}).
     */
    public String roots(int states) {
        return "select id from " + tasksByAge + " where machine = ? and state in " + Sql.params(states)
                + " and lease_token is null and parent_id is null and updated_at < ? limit ?" + flavor.lockLimited();
    }

    /** Locks, passing over rows other transactions hold, the tasks with {@code n} ids, returning {@link #TREE_COLUMNS} as they are now. */
    public String lockTasks(int n) {
        return "select " + TREE_COLUMNS + " from " + tasks + " where id in " + Sql.params(n) + " for update skip locked";
    }

    /** Selects (id, parent id) of the children of {@code n} tasks, without locks. */
    public String children(int n) {
        return "select id, parent_id from " + tasks + " where parent_id in " + Sql.params(n);
    }

    /** Locks, passing over rows other transactions hold, the children of {@code n} tasks, returning {@link #TREE_COLUMNS}. */
    public String lockChildren(int n) {
        return "select " + TREE_COLUMNS + " from " + tasks + " where parent_id in " + Sql.params(n) + " for update skip locked";
    }

    /** Selects which of {@code n} tasks have marks waiting for them as owners. */
    public String marked(int n) {
        return "select distinct owner_id from " + groups.marks + " where owner_id in " + Sql.params(n);
    }

    /** Selects (member, owner) of the dependency edges whose member is one of {@code n} tasks. */
    public String dependents(int n) {
        return "select member_id, owner_id from " + groups.dependencies + " where member_id in " + Sql.params(n);
    }

    /**
     * Copies {@code n} tasks into the archive: parameters the time archived, then (id, root id) of
     * each task.
     */
    public String copyTasks(int n) {
        return "insert into " + archivedTasks + " (" + Rows.TASK_COLUMNS + ", root_id, archived_at) select "
                + qualified("t", Rows.TASK_COLUMNS) + ", v.root_id, ? from " + tasks + " t join " + flavor.pairs(n) + " on t.id = v.id";
    }

    /** Copies the history of {@code n} tasks into the archive. */
    public String copyHistory(int n) {
        return "insert into " + archivedHistory + " (" + Rows.HISTORY_COLUMNS + ") select " + Rows.HISTORY_COLUMNS + " from " + history
                + " where task_id in " + Sql.params(n);
    }

    /** Deletes the history of {@code n} tasks. */
    public String deleteHistory(int n) {
        return "delete from " + history + " where task_id in " + Sql.params(n);
    }

    /** Deletes {@code n} tasks. */
    public String deleteTasks(int n) {
        return "delete from " + tasks + " where id in " + Sql.params(n);
    }

    /** Deletes the groups, counts, dependency edges and marks owned by {@code n} tasks: one statement each. */
    public String[] deleteOwned(int n) {
        String in = " where owner_id in " + Sql.params(n);
        return new String[] {"delete from " + groups.groups + in, "delete from " + groups.counts + in,
            "delete from " + groups.dependencies + in, "delete from " + groups.marks + in};
    }

    /**
     * Selects the ids of up to a limit of archived roots of a machine archived before a time, oldest
     * first: parameters machine, time, limit. On PostgreSQL locked as {@link #roots} is.
     */
    public String oldRoots() {
        return "select id from " + archivedTasks + " where machine = ? and root_id = id and archived_at < ? order by archived_at, id"
                + " limit ?" + flavor.lockLimited();
    }

    /** Locks, passing over rows other transactions hold, the archived roots among {@code n} ids, returning their ids. */
    public String lockArchivedRoots(int n) {
        return "select id from " + archivedTasks + " where id in " + Sql.params(n) + " and root_id = id for update skip locked";
    }

    /** Deletes the archived history of the tasks of {@code n} archived trees (by root). */
    public String deleteArchivedHistory(int n) {
        return "delete from " + archivedHistory + " where task_id in (select id from " + archivedTasks + " where root_id in "
                + Sql.params(n) + ")";
    }

    /** Deletes the archived tasks of {@code n} archived trees (by root). */
    public String deleteArchivedTrees(int n) {
        return "delete from " + archivedTasks + " where root_id in " + Sql.params(n);
    }
}
