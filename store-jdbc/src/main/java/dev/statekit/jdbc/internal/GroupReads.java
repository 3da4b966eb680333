package dev.statekit.jdbc.internal;

import dev.statekit.store.GroupRecord;
import dev.statekit.store.MemberState;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Reading groups: a group with its counts, a task's dependencies, the marks waiting. Immutable and thread-safe. */
public final class GroupReads {
    private final Jdbc jdbc;
    private final GroupSql sql;

    /** Creates the group reads of one store. */
    public GroupReads(JdbcContext context) {
        this.jdbc = context.jdbc();
        this.sql = context.sql().groups;
    }

    /** Returns the group of {@code ownerId} with its counts, read in one statement (one snapshot). */
    public Optional<GroupRecord> group(long ownerId) {
        return jdbc.read("reading a group", ownerId, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.groupWithCounts)) {
                ps.setLong(1, ownerId);
                try (ResultSet rs = ps.executeQuery()) {
                    GroupRows.Stored g = null;
                    Map<MemberState, Long> counts = new HashMap<>();
                    while (rs.next()) {
                        if (g == null) g = GroupRows.group(rs);
                        String machine = rs.getString(9);
                        if (machine != null) counts.put(new MemberState(machine, rs.getString(10)), rs.getLong(11));
                    }
                    return g == null ? Optional.<GroupRecord>empty() : Optional.of(g.record(g.total(), counts));
                }
            }
        });
    }

    /** Returns the ids of the tasks {@code taskId} was created depending on, in the order given. */
    public List<Long> dependencies(long taskId) {
        return jdbc.read("reading the dependencies of a task", taskId,
                c -> Jdbc.query(c, sql.dependenciesOf, ps -> ps.setLong(1, taskId), rs -> rs.getLong(1)));
    }

    /** Returns how many marks wait for a pass. */
    public long pendingMarks() {
        return jdbc.read("counting marks", null, c -> Jdbc.queryLong(c, sql.pendingMarks, Jdbc.NO_PARAMETERS));
    }
}
