package dev.statekit.jdbc.internal;

import dev.statekit.store.CreateResult;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.GroupKind;
import dev.statekit.store.MemberState;
import dev.statekit.store.NewTask;
import dev.statekit.store.StatekitException;
import dev.statekit.store.TaskRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * What creating tasks does to groups, inside the creating transaction: before the inserts, the
 * parents and dependencies are locked in id order (PostgreSQL: {@code FOR SHARE}) and the parents'
 * groups read, so that no group is sealed or opened meanwhile and no dependency changes state
 * between being counted and being linked to its dependent; after them, the new children mark their
 * parents' groups of children, and each task with dependencies gets its group, its counts (the
 * dependencies' states as locked), its edges and a look mark.
 *
 * <p>One instance serves one batch of creations on one connection. A batch of children that a group
 * write creates and counts itself ({@code countedByWrite}) locks nothing and marks nothing here.
 */
final class GroupCreations {
    /** A mark of a creation: of a new child for its parent's group, or a look at a new task's own group (no machine). */
    private record Mark(long ownerId, String ownerMachine, @Nullable String memberMachine, @Nullable String to) {}

    private final Connection c;
    private final GroupSql sql;
    private final boolean countedByWrite;
    private final Map<Long, MemberState> locked = new HashMap<>();
    private final Map<Long, GroupRows.Stored> parentGroups = new HashMap<>();
    private final Map<Long, MemberState> createdHere = new HashMap<>();
    private final List<Mark> marks = new ArrayList<>();

    private GroupCreations(Connection c, GroupSql sql, boolean countedByWrite) {
        this.c = c;
        this.sql = sql;
        this.countedByWrite = countedByWrite;
    }

    /**
     * Locks and checks what creating {@code specs} needs, in id order.
     *
     * @param countedByWrite whether a group write creates the specs (all children of one owner it
     *                       holds) and counts them itself
     * @throws StatekitException {@link ErrorCode#UNKNOWN_DEPENDENCY} when a dependency does not exist,
     *                           {@link ErrorCode#GROUP_SEALED} when a new child's parent's group is sealed
     */
    static GroupCreations prepare(Connection c, Sql sql, List<NewTask> specs, boolean countedByWrite) throws SQLException {
        GroupCreations g = new GroupCreations(c, sql.groups, countedByWrite);
        if (countedByWrite) return g;
        TreeSet<Long> lock = new TreeSet<>();
        for (NewTask s : specs) {
            if (s.parentId() != null) lock.add(s.parentId());
            for (long d : s.dependsOn()) if (d > 0) lock.add(d);
        }
        if (lock.isEmpty()) return g;
        for (long id : lock) g.lock(id);
        for (NewTask s : specs) {
            for (long d : s.dependsOn()) {
                if (d > 0 && !g.locked.containsKey(d)) throw unknown(d);
            }
        }
        for (NewTask s : specs) {
            Long parent = s.parentId();
            if (parent == null || !g.locked.containsKey(parent) || g.parentGroups.containsKey(parent)) continue;
            GroupRows.Stored group = GroupRows.find(c, sql.groups, parent);     // read after the lock: as committed now
            if (group != null) g.parentGroups.put(parent, group);
        }
        for (NewTask s : specs) {
            GroupRows.Stored group = s.parentId() == null ? null : g.parentGroups.get(s.parentId());
            if (group == null || group.kind() != GroupKind.CHILDREN || !group.sealed() || exists(c, sql, s)) continue;
            throw new StatekitException(ErrorCode.GROUP_SEALED, "the children of task " + s.parentId() + " are sealed", s.parentId(), null);
        }
        return g;
    }

    private static StatekitException unknown(long id) {
        return new StatekitException(ErrorCode.UNKNOWN_DEPENDENCY, "task " + id + " does not exist", id, null);
    }

    static boolean exists(Connection c, Sql sql, NewTask spec) throws SQLException {
        String key = spec.idempotencyKey();
        if (key == null) return false;
        return Jdbc.queryOne(c, sql.taskByKey, ps -> {
            ps.setString(1, spec.machine());
            ps.setString(2, key);
        }, rs -> Boolean.TRUE) != null;
    }

    private @Nullable MemberState lock(long id) throws SQLException {
        MemberState state = Jdbc.queryOne(c, sql.lockShared, ps -> ps.setLong(1, id), rs -> new MemberState(rs.getString(2), rs.getString(3)));
        if (state != null) locked.put(id, state);
        return state;
    }

    /** Returns {@code spec} with its dependencies on earlier tasks of the list ({@code -k}) replaced by their ids. */
    static NewTask resolve(NewTask spec, List<CreateResult> earlier) {
        if (spec.dependsOn().isEmpty()) return spec;
        List<Long> ids = new ArrayList<>(spec.dependsOn().size());
        for (long d : spec.dependsOn()) ids.add(d > 0 ? d : earlier.get((int) -d - 1).task().id());
        return spec.withDependencies(ids);
    }

    /** Records a task the batch created from {@code spec} (dependencies resolved): its marks, its group of dependencies. */
    void created(NewTask spec, TaskRecord task) throws SQLException {
        createdHere.put(task.id(), new MemberState(task.machine(), task.state()));
        if (countedByWrite) return;
        GroupRows.Stored parent = task.parentId() == null ? null : parentGroups.get(task.parentId());
        if (parent != null && parent.kind() == GroupKind.CHILDREN) {
            marks.add(new Mark(parent.ownerId(), parent.ownerMachine(), task.machine(), task.state()));
        }
        if (spec.dependsOn().isEmpty()) return;
        Map<MemberState, Long> counts = new LinkedHashMap<>();
        for (long d : spec.dependsOn()) {
            MemberState state = locked.get(d);
            if (state == null) state = createdHere.get(d);      // created by this transaction: nobody else sees it yet
            if (state == null) state = lock(d);                  // an earlier task of the list that existed already
            if (state == null) throw unknown(d);
            counts.merge(state, 1L, Long::sum);
        }
        long owner = task.id();
        Jdbc.update(c, sql.insertGroup, ps -> {
            ps.setLong(1, owner);
            ps.setString(2, task.machine());
            ps.setString(3, GroupKind.DEPENDENCIES.name());
            ps.setBoolean(4, true);
            ps.setLong(5, spec.dependsOn().size());
            ps.setBoolean(6, true);          // held until a pass releases it
        });
        GroupRows.writeCounts(c, sql, owner, counts);
        try (PreparedStatement ps = c.prepareStatement(sql.insertDependency)) {
            int position = 0;
            for (long d : spec.dependsOn()) {
                ps.setLong(1, owner);
                ps.setLong(2, d);
                ps.setInt(3, position++);
                ps.addBatch();
            }
            ps.executeBatch();
        }
        marks.add(new Mark(owner, task.machine(), null, null));
    }

    /** Writes the marks of the tasks created, as one batch. */
    void finish() throws SQLException {
        if (marks.isEmpty()) return;
        try (PreparedStatement ps = c.prepareStatement(sql.insertMark)) {
            for (Mark m : marks) {
                GroupRows.bindMark(ps, m.ownerId(), m.ownerMachine(), m.memberMachine(), null, m.to());
                ps.addBatch();
            }
            ps.executeBatch();
        }
        marks.clear();
    }
}
