package dev.statekit.jdbc.internal;

import dev.statekit.store.Change;
import dev.statekit.store.GroupKind;
import dev.statekit.store.GroupRecord;
import dev.statekit.store.MemberState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The rows of groups, read and written inside the caller's transaction: group rows, counts, and the
 * marks a change of state writes. Stateless.
 */
public final class GroupRows {

    /** A group row as stored, without its counts. */
    public record Stored(long ownerId, String ownerMachine, GroupKind kind, boolean sealed, long total,
                         @Nullable String resolution, boolean hold, boolean awaiting) {
        /** Returns the record of this group with {@code total} and {@code counts}. */
        public GroupRecord record(long newTotal, Map<MemberState, Long> counts) {
            return new GroupRecord(ownerId, kind, sealed, newTotal, counts, resolution, hold, awaiting);
        }
    }

    /** A task's change of state, as its marks need it; {@code from} is null for a creation. */
    public record StateChange(long id, @Nullable Long parentId, String machine, @Nullable String from, String to) {
        /** Returns the change of state {@code change} makes. */
        public static StateChange of(Change change) {
            return new StateChange(change.next().id(), change.next().parentId(), change.next().machine(),
                    change.entry().from(), change.next().state());
        }
    }

    private GroupRows() {
    }

    /** Reads the group of the current row ({@link GroupSql#GROUP_COLUMNS}). */
    public static Stored group(ResultSet rs) throws SQLException {
        String resolution = rs.getString(6);
        return new Stored(rs.getLong(1), rs.getString(2), GroupKind.valueOf(rs.getString(3)), rs.getBoolean(4), rs.getLong(5),
                resolution, rs.getBoolean(7), rs.getBoolean(8));
    }

    /** Returns the group of {@code ownerId} as stored, or null. */
    public static @Nullable Stored find(Connection c, GroupSql sql, long ownerId) throws SQLException {
        return Jdbc.queryOne(c, sql.group, ps -> ps.setLong(1, ownerId), GroupRows::group);
    }

    /** Returns the counts of {@code owners}, by owner; owners without counts are absent. */
    public static Map<Long, Map<MemberState, Long>> counts(Connection c, GroupSql sql, List<Long> owners) throws SQLException {
        Map<Long, Map<MemberState, Long>> counts = new HashMap<>();
        if (owners.isEmpty()) return counts;
        try (PreparedStatement ps = c.prepareStatement(sql.countsOf(owners.size()))) {
            for (int i = 0; i < owners.size(); i++) ps.setLong(i + 1, owners.get(i));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    counts.computeIfAbsent(rs.getLong(1), k -> new HashMap<>())
                            .put(new MemberState(rs.getString(2), rs.getString(3)), rs.getLong(4));
                }
            }
        }
        return counts;
    }

    /** Replaces the counts of {@code ownerId} by {@code counts} (states with none left out). */
    public static void writeCounts(Connection c, GroupSql sql, long ownerId, Map<MemberState, Long> counts) throws SQLException {
        Jdbc.update(c, sql.deleteCounts, ps -> ps.setLong(1, ownerId));
        if (counts.isEmpty()) return;
        try (PreparedStatement ps = c.prepareStatement(sql.insertCount)) {
            for (Map.Entry<MemberState, Long> e : counts.entrySet()) {
                if (e.getValue() == 0) continue;
                ps.setLong(1, ownerId);
                ps.setString(2, e.getKey().machine());
                ps.setString(3, e.getKey().state());
                ps.setLong(4, e.getValue());
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** Writes a mark: a member's change (a creation when {@code from} is null), or a look when {@code memberMachine} is null. */
    public static void mark(Connection c, GroupSql sql, long ownerId, String ownerMachine, @Nullable String memberMachine,
                            @Nullable String from, @Nullable String to) throws SQLException {
        Jdbc.update(c, sql.insertMark, ps -> bindMark(ps, ownerId, ownerMachine, memberMachine, from, to));
    }

    /** Binds the parameters of {@link GroupSql#insertMark}; for a batch. */
    public static void bindMark(PreparedStatement ps, long ownerId, String ownerMachine, @Nullable String memberMachine,
                                @Nullable String from, @Nullable String to) throws SQLException {
        ps.setLong(1, ownerId);
        ps.setString(2, ownerMachine);
        Rows.setString(ps, 3, memberMachine);
        Rows.setString(ps, 4, from);
        Rows.setString(ps, 5, to);
    }

    /**
     * Writes the marks of written changes of existing tasks, after their rows were updated: a later
     * statement than the update, so that it sees every group and edge committed while the update
     * waited for the row. Changes that keep the state write none; several go as one batch, unless
     * no group exists at all (asked by a statement as late, which sees as much).
     */
    public static void marked(Connection c, GroupSql sql, List<StateChange> changes) throws SQLException {
        List<StateChange> moves = new ArrayList<>(changes.size());
        for (StateChange ch : changes) if (ch.from() != null && !ch.from().equals(ch.to())) moves.add(ch);
        if (moves.isEmpty()) return;
        if (moves.size() > 1 && Jdbc.queryOne(c, sql.anyGroup, ps -> { }, rs -> Boolean.TRUE) == null) return;
        try (PreparedStatement ps = c.prepareStatement(sql.markChange)) {
            for (StateChange ch : moves) {
                ps.setString(1, ch.machine());
                ps.setString(2, ch.from());
                ps.setString(3, ch.to());
                ps.setString(4, GroupKind.CHILDREN.name());
                Rows.setLong(ps, 5, ch.parentId());
                ps.setString(6, ch.machine());
                ps.setString(7, ch.from());
                ps.setString(8, ch.to());
                ps.setLong(9, ch.id());
                ps.setLong(10, ch.id());
                if (moves.size() == 1 || !sql.batchesInsertSelect()) {
                    ps.executeUpdate();
                    continue;
                }
                ps.addBatch();
            }
            if (moves.size() > 1 && sql.batchesInsertSelect()) ps.executeBatch();
        }
    }
}
