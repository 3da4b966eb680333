package dev.statekit.jdbc.internal;

import java.sql.PreparedStatement;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/** Purging old tasks with their history. Immutable and thread-safe. */
public final class Retention {
    /** A task a purge may delete, at the version it was selected at. */
    private record Candidate(long id, long version) {}

    private final Jdbc jdbc;
    private final Sql sql;

    /** Creates the retention of one store. */
    public Retention(JdbcContext context) {
        this.jdbc = context.jdbc();
        this.sql = context.sql();
    }

    /**
     * Deletes at most {@code max} lease-free, childless tasks of {@code machine} in {@code states} last
     * updated before {@code updatedBefore}, with their history, in one transaction; returns how many.
     */
    public int purge(String machine, Collection<String> states, Instant updatedBefore, int max) {
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(updatedBefore, "updatedBefore");
        if (states.isEmpty() || max <= 0) return 0;
        int n = new TreeSet<>(states).size();
        int purged = jdbc.transaction("purging tasks of machine " + machine, null, c -> {
            List<Candidate> candidates = Jdbc.query(c, sql.purgeCandidates(n), ps -> {
                ps.setString(1, machine);
                int i = Jdbc.bindStates(ps, 2, states);
                Rows.setInstant(ps, i++, updatedBefore);
                ps.setInt(i, max);
            }, rs -> new Candidate(rs.getLong(1), rs.getLong(2)));
            int deleted = 0;
            try (PreparedStatement task = c.prepareStatement(sql.deleteTask);
                 PreparedStatement history = c.prepareStatement(sql.deleteHistory)) {
                for (Candidate candidate : candidates) {
                    // Deleted only if unchanged since it was selected, still lease-free and childless.
                    task.setLong(1, candidate.id());
                    task.setLong(2, candidate.version());
                    task.setLong(3, candidate.id());
                    if (task.executeUpdate() == 0) continue;
                    history.setLong(1, candidate.id());
                    history.executeUpdate();
                    deleted++;
                }
            }
            return deleted;
        });
        if (purged > 0) Jdbc.LOG.debug("purged {} task(s) of machine {}", purged, machine);
        return purged;
    }
}
