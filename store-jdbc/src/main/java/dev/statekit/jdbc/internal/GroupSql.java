package dev.statekit.jdbc.internal;


/**
 * The SQL text of one store's groups: the group rows, their counts, the dependency edges and the
 * marks (schema version 2). Table names come only from the validated prefix; every value is a bound
 * parameter. Texts with a variable number of parameters are built per call.
 */
public final class GroupSql {
    /** The columns of a group row, in the order {@link GroupRows#group} reads them. */
    public static final String GROUP_COLUMNS = "owner_id, owner_machine, kind, sealed, total, resolution, hold, awaiting";

    /** The groups table. */
    public final String groups;
    /** The group counts table. */
    public final String counts;
    /** The dependency edges table. */
    public final String dependencies;
    /** The marks table. */
    public final String marks;

    /** Locks a task against changes (PostgreSQL: shared; H2: exclusive) and returns its (id, machine, state). */
    public final String lockShared;
    /** Locks a task for update and returns its (id, machine, state). */
    public final String lockTask;
    /** Selects a group row. */
    public final String group;
    /** Selects a group row with its counts, one row per count (none: one row of nulls), in one snapshot. */
    public final String groupWithCounts;
    /** Inserts a group row: owner, owner machine, kind, sealed, total, hold; not awaiting, never checked. */
    public final String insertGroup;
    /** Sets a group's total, sealed and hold flags: parameters total, sealed, hold, owner. */
    public final String updateGroup;
    /** Sets what a pass decided: total, resolution, awaiting, owner; the group is checked now. */
    public final String resolveGroup;
    /** Deletes a group's counts. */
    public final String deleteCounts;
    /** Inserts one count: owner, machine, state, n. */
    public final String insertCount;
    /** Inserts a dependency edge: owner, member, position. */
    public final String insertDependency;
    /** Selects the dependencies of a task, in the order given. */
    public final String dependenciesOf;
    /**
     * Marks a task's change of state for every group it counts in: its parent's group of children,
     * the groups of the tasks that depend on it, and its own group (a look, with no member machine).
     * Parameters: machine, from, to, the kind of children, parent (null for none); machine, from, to,
     * id; id. Each part is one index lookup: a task in no group costs one cheap statement.
     */
    public final String markChange;
    /** Inserts a mark: owner, owner machine, member machine (null for a look), from state, to state. */
    public final String insertMark;
    /** Counts the marks. */
    public final String pendingMarks;
    /** Counts one mark if any is left (0 or 1), cheaper than {@link #pendingMarks}. */
    public final String anyMark;
    /** Selects whether any group exists. */
    public final String anyGroup;
    /** Selects the members of a group of children in one state after an id: owner, machine, state, after id, limit. */
    public final String childrenInState;
    /** Selects the members of a group of dependencies in one state after an id: owner, machine, state, after id, limit. */
    public final String dependenciesInState;
    /** Deletes the groups, counts, edges and marks of a deleted task: one statement each, parameter the task. */
    public final String[] deleteOwned;

    private final SqlFlavor flavor;
    private final String tasks;
    private final String nextCheck;

    /** Builds the SQL of a store's groups; {@code prefix} must have been validated. */
    public GroupSql(SqlFlavor flavor, String prefix) {
        String text = flavor.castText();
        this.flavor = flavor;
        tasks = prefix + "tasks";
        groups = prefix + "groups";
        counts = prefix + "group_counts";
        dependencies = prefix + "dependencies";
        marks = prefix + "marks";
        nextCheck = flavor.nextValue(prefix + "check_seq");

        lockShared = "select id, machine, state from " + tasks + " where id = ?" + flavor.shareLock();
        lockTask = "select id, machine, state from " + tasks + " where id = ? for update";
        group = "select " + GROUP_COLUMNS + " from " + groups + " where owner_id = ?";
        groupWithCounts = "select g.owner_id, g.owner_machine, g.kind, g.sealed, g.total, g.resolution, g.hold, g.awaiting,"
                + " c.machine, c.state, c.n from " + groups + " g left join " + counts + " c on c.owner_id = g.owner_id"
                + " where g.owner_id = ?";
        insertGroup = "insert into " + groups + " (" + GROUP_COLUMNS + ", checked) values (?, ?, ?, ?, ?, null, ?, false, 0)";
        updateGroup = "update " + groups + " set total = ?, sealed = ?, hold = ? where owner_id = ?";
        resolveGroup = "update " + groups + " set total = ?, resolution = ?, awaiting = ?, hold = coalesce(?, hold), checked = "
                + nextCheck + " where owner_id = ?";
        deleteCounts = "delete from " + counts + " where owner_id = ?";
        insertCount = "insert into " + counts + " (owner_id, machine, state, n) values (?, ?, ?, ?)";
        insertDependency = "insert into " + dependencies + " (owner_id, member_id, position) values (?, ?, ?)";
        dependenciesOf = "select member_id from " + dependencies + " where owner_id = ? order by position";
        String member = "cast(? as " + text + "), cast(? as " + text + "), cast(? as " + text + ")";
        markChange = "insert into " + marks + " (owner_id, owner_machine, member_machine, from_state, to_state)"
                + " select g.owner_id, g.owner_machine, " + member + " from " + groups + " g where g.kind = ? and g.owner_id = ?"
                + " union all select g.owner_id, g.owner_machine, " + member + " from " + dependencies + " d join " + groups
                + " g on g.owner_id = d.owner_id where d.member_id = ?"
                + " union all select g.owner_id, g.owner_machine, cast(null as " + text + "), cast(null as " + text + "),"
                + " cast(null as " + text + ") from " + groups + " g where g.owner_id = ?";
        insertMark = "insert into " + marks + " (owner_id, owner_machine, member_machine, from_state, to_state) values (?, ?, ?, ?, ?)";
        pendingMarks = "select count(*) from " + marks;
        anyMark = "select count(*) from (select 1 from " + marks + " limit 1) m";
        anyGroup = "select 1 from " + groups + " fetch first 1 rows only";
        String inState = " and machine = ? and state = ? and id > ? order by id limit ?";
        childrenInState = "select " + Rows.TASK_COLUMNS + " from " + tasks + " where parent_id = ?" + inState;
        dependenciesInState = "select " + Rows.TASK_COLUMNS + " from " + tasks + " where id in (select member_id from "
                + dependencies + " where owner_id = ?)" + inState;
        deleteOwned = new String[] {
            "delete from " + groups + " where owner_id = ?",
            "delete from " + counts + " where owner_id = ?",
            "delete from " + dependencies + " where owner_id = ?",
            "delete from " + marks + " where owner_id = ?"};
    }

    /**
     * PostgreSQL: the common table expressions, to follow others in a {@code WITH}, that mark the
     * groups in which the tasks of {@code moved} count: {@code moved} names an earlier expression
     * with columns {@code id, parent_id, machine, from_state, to_state}, one row per task written;
     * rows whose state did not change mark nothing. The marks are those {@link #markChange} writes
     * for one task, written for the whole batch by the statement that writes the tasks.
     *
     * <p>The lookups by each task's own id (its dependents, its own group) run only when a
     * dependency edge, or a group, exists at all: each is one probe of an index per task written,
     * a sixth of the statement's work when the tables are empty. Whether they exist is read with
     * the statement's snapshot, the one its lookups would read with.
     */
    public String marksOf(String moved) {
        String x = "mx";
        String select = " select g.owner_id, g.owner_machine, " + x + ".machine, " + x + ".from_state, " + x + ".to_state from " + x;
        return x + " as (select id, parent_id, machine, from_state, to_state from " + moved + " where from_state <> to_state),"
                + " mi as (insert into " + marks + " (owner_id, owner_machine, member_machine, from_state, to_state)"
                + select + " join " + groups + " g on g.owner_id = " + x + ".parent_id and g.kind = 'CHILDREN'"
                + " union all" + select + " join " + dependencies + " d on d.member_id = " + x + ".id join " + groups
                + " g on g.owner_id = d.owner_id where exists (select 1 from " + dependencies + ")"
                + " union all select g.owner_id, g.owner_machine, null, null, null from " + x + " join " + groups
                + " g on g.owner_id = " + x + ".id where exists (select 1 from " + groups + "))";
    }

    /**
     * The condition, on a query of the tasks table, that a task is not held: neither its parent holds
     * its group's members, nor its own dependencies hold it.
     */
    public String notHeld() {
        // Two lookups by primary key: with an "or" of them, H2 reads every group for every candidate.
        // PostgreSQL: "offset 0" keeps each a lookup per candidate. Turned into anti-joins, they are
        // estimated from the groups table's statistics: with the parent of many children in it, the
        // planner expected almost no candidate to be left, and read and sorted every task of the
        // queue at each claim instead of reading the claim index in order up to the limit.
        String fence = flavor.planFence();
        return " and not exists (select 1 from " + groups + " h where h.owner_id = " + tasks + ".parent_id and h.hold = true"
                + " and h.kind = 'CHILDREN'" + fence + ")"
                + " and not exists (select 1 from " + groups + " d where d.owner_id = " + tasks + ".id and d.hold = true"
                + " and d.kind = 'DEPENDENCIES'" + fence + ")";
    }

    /** Returns whether {@link #markChange} can go as a JDBC batch; see {@link SqlFlavor#batchesInsertSelect}. */
    public boolean batchesInsertSelect() {
        return flavor.batchesInsertSelect();
    }

    /** The conditions, on a query of the tasks table as {@code task}, that no mark waits for the task and no task depends on it. */
    public String unclaimedByGroups(String task) {
        return " and not exists (select 1 from " + marks + " m where m.owner_id = " + task + ".id)"
                + " and not exists (select 1 from " + dependencies + " d where d.member_id = " + task + ".id)";
    }

    /** Selects the owners of marks of {@code machines} owner machines, oldest mark first, one row per mark: parameters the machines, limit. */
    public String marked(int machines) {
        return "select owner_id from " + marks + " where owner_machine in " + Sql.params(machines) + " order by id limit ?";
    }

    /** Selects owners of awaiting groups of {@code machines} machines, least recently checked first: parameters the machines, limit. */
    public String awaiting(int machines) {
        return "select owner_id from " + groups + " where awaiting = true and owner_machine in " + Sql.params(machines)
                + " order by checked, owner_id limit ?";
    }

    /** Locks, skipping those other transactions hold, owners among {@code n} ids, and returns them as tasks in id order. */
    public String lockOwners(int n) {
        return "select " + Rows.TASK_COLUMNS + " from " + tasks + " where id in " + Sql.params(n) + " order by id for update skip locked";
    }

    /** Selects groups of {@code n} owners ({@link #GROUP_COLUMNS}). */
    public String groupsOf(int n) {
        return "select " + GROUP_COLUMNS + " from " + groups + " where owner_id in " + Sql.params(n);
    }

    /** Selects (owner, machine, state, n) of the counts of {@code n} owners. */
    public String countsOf(int n) {
        return "select owner_id, machine, state, n from " + counts + " where owner_id in " + Sql.params(n);
    }

    /** Deletes every mark of {@code n} owners, returning (owner, id, member machine, from, to) of each. */
    public String takeMarks(int n) {
        String delete = "delete from " + marks + " where owner_id in " + Sql.params(n);
        String columns = "owner_id, id, member_machine, from_state, to_state";
        return flavor.deleteReturning(delete, columns);
    }

    /** Selects which of {@code n} tasks exist, without locks. */
    public String existing(int n) {
        return "select id from " + tasks + " where id in " + Sql.params(n);
    }

    /**
     * Deletes the marks of {@code n} owners that no longer exist (deleted while a member's change
     * marked them), as {@link #existing} found them. Apart from that read: a delete whose condition
     * reads the tasks would lock them on MariaDB, after the marks, where a pass locks its owner
     * first and its marks after.
     */
    public String deleteOrphanMarks(int n) {
        return "delete from " + marks + " where owner_id in " + Sql.params(n);
    }
}
