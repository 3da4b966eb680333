package dev.statekit.jdbc.internal;

import dev.statekit.store.ArchivedTask;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.RetentionResult;
import dev.statekit.store.TaskRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The archive tables: moving locked trees out of the tasks table (into the archive, or nowhere),
 * reading an archived task with its history, and deleting old archived trees. Immutable and
 * thread-safe.
 */
public final class ArchiveTable {
    private final Jdbc jdbc;
    private final ArchiveSql sql;

    /** Creates the archive of one store. */
    public ArchiveTable(JdbcContext context) {
        this.jdbc = context.jdbc();
        this.sql = context.sql().archive;
    }

    /**
     * Moves {@code trees}, which the caller's transaction holds, out of the tasks table with their
     * history and groups: into the archive stamped {@code archivedAt}, or nowhere when it is null.
     * Set-based statements of up to {@value FinishedTrees#CHUNK} tasks each.
     *
     * @return how many tasks moved
     */
    static int move(Connection c, ArchiveSql sql, List<FinishedTrees.Tree> trees, @Nullable Instant archivedAt) throws SQLException {
        List<Long> ids = new ArrayList<>();
        List<Long> roots = new ArrayList<>();
        for (FinishedTrees.Tree t : trees) {
            for (long id : t.members()) {
                ids.add(id);
                roots.add(t.root());
            }
        }
        int deleted = 0;
        for (int from = 0; from < ids.size(); from += FinishedTrees.CHUNK) {
            int to = Math.min(ids.size(), from + FinishedTrees.CHUNK);
            List<Long> chunk = ids.subList(from, to);
            List<Long> chunkRoots = roots.subList(from, to);
            Jdbc.Binder byId = FinishedTrees.bindIds(chunk);
            if (archivedAt != null) {
                Jdbc.update(c, sql.copyTasks(chunk.size()), ps -> {
                    sql.times.set(ps, 1, archivedAt);
                    for (int i = 0; i < chunk.size(); i++) {
                        ps.setLong(2 + 2 * i, chunk.get(i));
                        ps.setLong(3 + 2 * i, chunkRoots.get(i));
                    }
                });
                Jdbc.update(c, sql.copyHistory(chunk.size()), byId);
            }
            Jdbc.update(c, sql.deleteHistory(chunk.size()), byId);
            for (String owned : sql.deleteOwned(chunk.size())) Jdbc.update(c, owned, byId);
            deleted += Jdbc.update(c, sql.deleteTasks(chunk.size()), byId);
        }
        if (deleted != ids.size()) throw new IllegalStateException(deleted + " tasks deleted of " + ids.size() + " locked ones");
        return deleted;
    }

    /** Returns the archived task {@code id} with its history, read in one statement (one snapshot). */
    public Optional<ArchivedTask> find(long id) {
        return jdbc.read("reading an archived task", id, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.archivedById)) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) return Optional.empty();
                    TaskRecord task = Rows.task(sql.times, rs);
                    long root = rs.getLong(28);
                    Instant archivedAt = Objects.requireNonNull(sql.times.get(rs, 29), "archived_at");
                    List<HistoryEntry> history = new ArrayList<>();
                    do {
                        rs.getLong(30);
                        if (!rs.wasNull()) history.add(Rows.history(sql.times, rs, 30));
                    } while (rs.next());
                    return Optional.of(new ArchivedTask(task, history, root, archivedAt));
                }
            }
        });
    }

    /** Deletes up to {@code max} archived trees of {@code machine} archived before {@code archivedBefore}, in one transaction. */
    public RetentionResult purge(String machine, Instant archivedBefore, int max) {
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(archivedBefore, "archivedBefore");
        if (max <= 0) throw new IllegalArgumentException("max must be positive, was " + max);
        RetentionResult result = jdbc.transaction("deleting archived tasks of machine " + machine, null, c -> {
            List<Long> candidates = Jdbc.query(c, sql.oldRoots(), ps -> {
                ps.setString(1, machine);
                sql.times.set(ps, 2, archivedBefore);
                ps.setInt(3, max);
            }, rs -> rs.getLong(1));
            if (candidates.isEmpty()) return RetentionResult.NONE;
            // Only trees whose root this transaction holds: a concurrent deletion takes the others.
            List<Long> roots = Jdbc.query(c, sql.lockArchivedRoots(candidates.size()), FinishedTrees.bindIds(candidates), rs -> rs.getLong(1));
            if (roots.isEmpty()) return RetentionResult.NONE;
            Jdbc.update(c, sql.deleteArchivedHistory(roots.size()), FinishedTrees.bindIds(roots));
            int tasks = Jdbc.update(c, sql.deleteArchivedTrees(roots.size()), FinishedTrees.bindIds(roots));
            return new RetentionResult(roots.size(), tasks);
        });
        if (result.trees() > 0) Jdbc.LOG.debug("deleted {} archived tree(s), {} task(s), of machine {}", result.trees(), result.tasks(), machine);
        return result;
    }
}
