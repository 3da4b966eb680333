package dev.statekit.jdbc.internal;

import dev.statekit.store.RetentionRequest;
import dev.statekit.store.RetentionResult;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Taking finished tasks out of the tasks table: purging old tasks with their history and group, and
 * moving finished trees to the archive ({@link ArchiveTable}) or deleting them, a batch per
 * transaction ({@link FinishedTrees} says which trees and locks them). Immutable and thread-safe.
 */
public final class Purges {
    /** A task a purge may delete, at the version it was selected at. */
    private record Candidate(long id, long version) {}

    private final Jdbc jdbc;
    private final Sql sql;

    /** Creates the purges of one store. */
    public Purges(JdbcContext context) {
        this.jdbc = context.jdbc();
        this.sql = context.sql();
    }

    /**
     * Deletes at most {@code max} lease-free tasks of {@code machine} in {@code states} last updated
     * before {@code updatedBefore} that have no children, no marks waiting for them as owners and no
     * dependents, with their history and group, in one transaction; returns how many.
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
                sql.times.set(ps, i++, updatedBefore);
                ps.setInt(i, max);
            }, rs -> new Candidate(rs.getLong(1), rs.getLong(2)));
            List<Long> deleted = new ArrayList<>();
            try (PreparedStatement lock = c.prepareStatement(sql.lockPurged);
                 PreparedStatement task = c.prepareStatement(sql.deleteTask)) {
                for (Candidate candidate : candidates) {
                    // Locked if unchanged since it was selected and still lease-free; then deleted by a later
                    // statement, which sees every child, mark and dependent committed while the lock waited.
                    lock.setLong(1, candidate.id());
                    lock.setLong(2, candidate.version());
                    try (ResultSet rs = lock.executeQuery()) {
                        if (!rs.next()) continue;
                    }
                    task.setLong(1, candidate.id());
                    if (task.executeUpdate() > 0) deleted.add(candidate.id());
                }
            }
            if (deleted.isEmpty()) return 0;
            List<String> owned = new ArrayList<>(List.of(sql.groups.deleteOwned));
            owned.add(0, sql.deleteHistory);
            for (String delete : owned) {
                try (PreparedStatement ps = c.prepareStatement(delete)) {
                    for (long id : deleted) {
                        ps.setLong(1, id);
                        ps.addBatch();
                    }
                    ps.executeBatch();
                }
            }
            return deleted.size();
        });
        if (purged > 0) Jdbc.LOG.debug("purged {} task(s) of machine {}", purged, machine);
        return purged;
    }

    /**
     * Moves up to {@code request.max()} finished trees with their history to the archive, stamped
     * {@code archivedAt}, or deletes them when it is null, in one transaction; see
     * {@link dev.statekit.store.Store#archive}.
     */
    public RetentionResult move(RetentionRequest request, @org.jspecify.annotations.Nullable Instant archivedAt) {
        Objects.requireNonNull(request, "request");
        String doing = (archivedAt != null ? "archiving" : "deleting") + " finished tasks of machine " + request.machine();
        RetentionResult result = jdbc.transaction(doing, null, c -> {
            List<FinishedTrees.Tree> trees = FinishedTrees.lock(c, sql.archive, request);
            if (trees.isEmpty()) return RetentionResult.NONE;
            return new RetentionResult(trees.size(), ArchiveTable.move(c, sql.archive, trees, archivedAt));
        });
        if (result.trees() > 0) {
            Jdbc.LOG.debug("{} {} finished tree(s), {} task(s), of machine {}", archivedAt != null ? "archived" : "deleted",
                    result.trees(), result.tasks(), request.machine());
        }
        return result;
    }
}
