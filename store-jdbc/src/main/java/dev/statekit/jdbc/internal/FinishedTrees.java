package dev.statekit.jdbc.internal;

import dev.statekit.store.RetentionRequest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Finds and locks, inside a retention batch's transaction, the trees the batch may take out of the
 * tasks table (see {@link RetentionRequest}).
 *
 * <p>Locks, level by level: the roots first ({@code FOR UPDATE SKIP LOCKED}), then the children of
 * the locked tasks, then theirs. A task is locked before its children are read, and a creation locks
 * a new task's parent first (see {@link GroupCreations}), so no child can join a tree once its parent
 * is locked, and a child committed before that is seen by the next statement (READ COMMITTED). A
 * tree with a task another transaction holds, or that is unfinished or leased as it is now (H2
 * returns a locked row without testing the query's condition again, so every test is made here on
 * the rows as locked), stays whole; so does one with marks waiting for one of its tasks or with a
 * dependent outside it. Nothing here waits for a lock: concurrent batches pass over each other's trees.
 */
final class FinishedTrees {
    /** How many ids one statement names. */
    static final int CHUNK = 500;

    /** A tree a batch holds: its root and every task in it, root first. */
    record Tree(long root, List<Long> members) {}

    /** The columns of a locked task a batch tests. */
    private record Row(long id, @Nullable Long parent, String machine, String state, boolean leased, Instant updatedAt) {}

    private FinishedTrees() {
    }

    /** Locks and returns the trees {@code request} takes, at most its {@code max}; the caller moves them and commits. */
    static List<Tree> lock(Connection c, ArchiveSql sql, RetentionRequest request) throws SQLException {
        List<Long> candidates = candidates(c, sql, request);
        if (candidates.isEmpty()) return List.of();
        Map<Long, Long> rootOf = new HashMap<>();
        Map<Long, List<Long>> trees = new LinkedHashMap<>();
        for (Row row : rows(c, sql.times, sql::lockTasks, candidates)) {
            // RetentionRequest.isRoot, on the columns read
            Set<Long> chosen = request.roots();
            if (row.machine().equals(request.machine()) && row.parent() == null && !row.leased()
                    && request.isFinished(row.machine(), row.state()) && row.updatedAt().isBefore(request.finishedBefore())
                    && (chosen == null || chosen.contains(row.id()))) {
                rootOf.put(row.id(), row.id());
                trees.put(row.id(), new ArrayList<>(List.of(row.id())));
            }
        }
        Set<Long> refused = new HashSet<>();
        List<Long> level = new ArrayList<>(trees.keySet());
        while (!level.isEmpty()) {
            Set<Long> locked = new HashSet<>();
            List<Long> next = new ArrayList<>();
            for (Row row : rows(c, sql.times, sql::lockChildren, level)) {
                long root = rootOf.get(row.parent());
                rootOf.put(row.id(), root);
                locked.add(row.id());
                if (row.leased() || !request.isFinished(row.machine(), row.state())) {    // RetentionRequest.isMovable
                    refused.add(root);
                } else {
                    trees.get(root).add(row.id());
                    next.add(row.id());
                }
            }
            for (long[] child : pairs(c, sql::children, level)) {
                if (!locked.contains(child[0])) refused.add(rootOf.get(child[1]));     // another transaction holds it
            }
            next.removeIf(id -> refused.contains(rootOf.get(id)));
            level = next;
        }
        List<Long> members = new ArrayList<>();
        for (Map.Entry<Long, List<Long>> t : trees.entrySet()) if (!refused.contains(t.getKey())) members.addAll(t.getValue());
        for (int from = 0; from < members.size(); from += CHUNK) {
            List<Long> chunk = members.subList(from, Math.min(members.size(), from + CHUNK));
            for (long owner : Jdbc.query(c, sql.marked(chunk.size()), bindIds(chunk), rs -> rs.getLong(1))) refused.add(rootOf.get(owner));
            for (long[] edge : Jdbc.query(c, sql.dependents(chunk.size()), bindIds(chunk), rs -> new long[] {rs.getLong(1), rs.getLong(2)})) {
                long root = rootOf.get(edge[0]);
                if (!Long.valueOf(root).equals(rootOf.get(edge[1]))) refused.add(root);       // a dependent outside the tree
            }
        }
        List<Tree> result = new ArrayList<>(trees.size());
        for (Map.Entry<Long, List<Long>> t : trees.entrySet()) {
            if (!refused.contains(t.getKey())) result.add(new Tree(t.getKey(), List.copyOf(t.getValue())));
        }
        return result;
    }

    // The roots to lock: the request's own ids in ascending order, or those the roots query finds.
    private static List<Long> candidates(Connection c, ArchiveSql sql, RetentionRequest request) throws SQLException {
        Set<Long> chosen = request.roots();
        if (chosen != null) return new ArrayList<>(new TreeSet<>(chosen));
        List<String> states = new ArrayList<>(new TreeSet<>(request.rootStates()));
        return Jdbc.query(c, sql.roots(states.size()), ps -> {
            int i = 1;
            ps.setString(i++, request.machine());
            for (String s : states) ps.setString(i++, s);
            sql.times.set(ps, i++, request.finishedBefore());
            ps.setInt(i, request.max());
        }, rs -> rs.getLong(1));
    }

    /** Binds {@code ids} from parameter 1 on. */
    static Jdbc.Binder bindIds(List<Long> ids) {
        return ps -> {
            for (int i = 0; i < ids.size(); i++) ps.setLong(i + 1, ids.get(i));
        };
    }

    private static List<Row> rows(Connection c, Times times, java.util.function.IntFunction<String> text, List<Long> ids) throws SQLException {
        List<Row> rows = new ArrayList<>();
        for (int from = 0; from < ids.size(); from += CHUNK) {
            List<Long> chunk = ids.subList(from, Math.min(ids.size(), from + CHUNK));
            rows.addAll(Jdbc.query(c, text.apply(chunk.size()), bindIds(chunk), rs -> row(times, rs)));
        }
        return rows;
    }

    private static List<long[]> pairs(Connection c, java.util.function.IntFunction<String> text, List<Long> ids) throws SQLException {
        List<long[]> pairs = new ArrayList<>();
        for (int from = 0; from < ids.size(); from += CHUNK) {
            List<Long> chunk = ids.subList(from, Math.min(ids.size(), from + CHUNK));
            pairs.addAll(Jdbc.query(c, text.apply(chunk.size()), bindIds(chunk), rs -> new long[] {rs.getLong(1), rs.getLong(2)}));
        }
        return pairs;
    }

    private static Row row(Times times, ResultSet rs) throws SQLException {
        long parent = rs.getLong(2);
        Long parentId = rs.wasNull() ? null : parent;
        rs.getLong(5);
        boolean leased = !rs.wasNull();
        Instant updatedAt = times.get(rs, 6);
        if (updatedAt == null) throw new SQLException("task " + rs.getLong(1) + " has no updated_at");
        return new Row(rs.getLong(1), parentId, rs.getString(3), rs.getString(4), leased, updatedAt);
    }
}
