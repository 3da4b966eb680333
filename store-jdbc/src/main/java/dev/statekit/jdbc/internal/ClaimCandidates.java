package dev.statekit.jdbc.internal;

import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.StatekitException;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.support.ClaimPicker;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The runnable tasks of one claim, read lazily in claim order, as the {@link ClaimPicker} asks for
 * them; taking one sets it aside for the claim's write. Whether the rows read are locked is the
 * dialect's affair ({@link DialectOps#lockCandidates}). Belongs to one claim, on its connection.
 *
 * <p>{@code main} is a prefix of the claim order. Since a claim picks at most {@code room} tasks,
 * the first untaken task of a prefix of {@code room} rows is the first untaken runnable task
 * overall; the best task of a lower priority is looked up beyond the prefix only when the prefix
 * holds none.
 */
public final class ClaimCandidates implements ClaimPicker.Candidates<TaskRecord, SQLException> {
    /** The key of the last row read into {@code main}, where the next read starts. */
    private record Position(int priority, long sequence, long id) {}

    private final Connection c;
    private final ClaimRequest request;
    private final Sql sql;
    private final DialectOps ops;
    private final List<String> states = new ArrayList<>();
    private final int batch;
    private final boolean lock;
    private final List<TaskRecord> main = new ArrayList<>();
    private final Set<Long> taken = new HashSet<>();
    private final Set<Long> bad = new HashSet<>();
    private final List<TaskRecord> picks = new ArrayList<>();
    private int topCursor;
    private int lowerCursor;
    private @Nullable Position last;
    private boolean exhausted;
    private int noLowerBelow = Integer.MIN_VALUE;   // beyond main, no runnable task has a priority below this
    private @Nullable TaskRecord beyondLower;

    /**
     * Creates the candidates of {@code request} on {@code c}, read {@code batch} rows at a time.
     *
     * @param batch the room the claim has, at least 1
     * @param lock  whether the reads lock the rows they return, passing over rows that other
     *              claims hold ({@link Sql#runnable}); without, the caller keeps other claims out
     */
    public ClaimCandidates(Connection c, ClaimRequest request, JdbcContext context, int batch, boolean lock) {
        this(c, request, context, batch, lock, null);
    }

    /**
     * Creates the candidates of {@code request} on {@code c} as above, reading from {@code start}
     * on (that task included) instead of from the queue's first entry: no task before it is runnable
     * ({@link ClaimHints}), so what is read is still a prefix of the claim order.
     */
    public ClaimCandidates(Connection c, ClaimRequest request, JdbcContext context, int batch, boolean lock,
                           ClaimHints.@Nullable Key start) {
        this.c = c;
        this.request = request;
        this.sql = context.sql();
        this.ops = context.ops();
        this.batch = batch;
        this.lock = lock;
        states.addAll(states(request));
        if (start != null) last = new Position(start.priority(), start.sequence(), start.id() - 1);
    }

    /**
     * Returns where the queue's next claim may start reading: the first task read and not taken
     * into the claim (held back by a rate limit, or of a higher priority than a task anti-starvation
     * took), else the last task read, which was taken; null when nothing was read.
     */
    public ClaimHints.@Nullable Key resume() {
        Set<Long> picked = new HashSet<>();
        for (TaskRecord t : picks) picked.add(t.id());
        for (TaskRecord t : main) if (!picked.contains(t.id())) return ClaimHints.Key.of(t);
        Position p = last;
        return p == null ? null : new ClaimHints.Key(p.priority(), p.sequence(), p.id());
    }

    /** Returns the from-states of {@code request}'s rules, each once, in the order the SQL binds them. */
    public static List<String> states(ClaimRequest request) {
        List<String> states = new ArrayList<>();
        for (ClaimRule r : request.rules()) if (!states.contains(r.from())) states.add(r.from());
        return states;
    }

    /** Returns the tasks taken, in the order taken. */
    public List<TaskRecord> picks() {
        return picks;
    }

    @Override
    public @Nullable TaskRecord top() throws SQLException {
        while (true) {
            // Tasks are only ever taken: the first untaken one of main moves forward only.
            while (topCursor < main.size() && taken.contains(main.get(topCursor).id())) topCursor++;
            if (topCursor < main.size()) return main.get(topCursor);
            if (exhausted) return null;
            fetch();
        }
    }

    @Override
    public @Nullable TaskRecord lower(int priority) throws SQLException {
        // main is in claim order and the priorities asked for never rise within a claim: the
        // first untaken task of a lower priority moves forward only.
        while (lowerCursor < main.size()
                && (main.get(lowerCursor).priority() >= priority || taken.contains(main.get(lowerCursor).id()))) {
            lowerCursor++;
        }
        if (lowerCursor < main.size()) return main.get(lowerCursor);
        if (exhausted || priority <= noLowerBelow) return null;
        TaskRecord cached = beyondLower;
        if (cached != null && cached.priority() < priority && !taken.contains(cached.id())) return cached;
        if (priority == Integer.MIN_VALUE) return null;
        while (true) {
            int limit = taken.size() + bad.size() + 1;
            List<TaskRecord> read = new ArrayList<>();
            int rows;
            try (PreparedStatement ps = c.prepareStatement(sql.runnable(states.size(), true, true, limit, lock))) {
                int i = bind(ps);
                ps.setInt(i, sql.flavor.priorityBelow(priority));
                rows = read(ps, read, false);
            }
            for (TaskRecord t : ops.lockCandidates(c, request, states, read, this::readCandidate)) {
                if (!taken.contains(t.id())) {
                    beyondLower = t;
                    return t;
                }
            }
            if (rows < limit) break;
        }
        noLowerBelow = Math.max(noLowerBelow, priority);
        beyondLower = null;
        return null;
    }

    @Override
    public int priority(TaskRecord candidate) {
        return candidate.priority();
    }

    @Override
    public boolean take(TaskRecord candidate) {
        taken.add(candidate.id());
        picks.add(candidate);
        return true;
    }

    @Override
    public void pass(TaskRecord candidate) {
        taken.add(candidate.id());   // out of the claim's way, as a taken task, but not picked
    }

    private void fetch() throws SQLException {
        List<TaskRecord> read = new ArrayList<>();
        int rows;
        try (PreparedStatement ps = c.prepareStatement(sql.runnable(states.size(), last != null, false, batch, lock))) {
            bind(ps);
            rows = read(ps, read, true);
        }
        for (TaskRecord t : ops.lockCandidates(c, request, states, read, this::readCandidate)) {
            if (!taken.contains(t.id())) main.add(t);
        }
        if (rows < batch) exhausted = true;
    }

    /** Reads the rows of a runnable-tasks query into {@code into}; returns how many rows it returned. */
    private int read(PreparedStatement ps, List<TaskRecord> into, boolean keepLast) throws SQLException {
        int rows = 0;
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                rows++;
                if (keepLast) last = new Position(rs.getInt(6), rs.getLong(7), rs.getLong(1));
                TaskRecord t = readCandidate(rs);
                if (t != null) into.add(t);
            }
        }
        return rows;
    }

    /** Binds machine, queue, states, now and the key after which rows are read; returns the next index. */
    private int bind(PreparedStatement ps) throws SQLException {
        int i = 1;
        ps.setString(i++, request.machine());
        ps.setString(i++, request.queue());
        for (String s : states) ps.setString(i++, s);
        sql.times.set(ps, i++, request.now());
        Position after = last;
        if (after != null) {
            ps.setInt(i++, after.priority());
            ps.setInt(i++, after.priority());
            ps.setLong(i++, after.sequence());
            ps.setLong(i++, after.sequence());
            ps.setLong(i++, after.id());
        }
        return i;
    }

    private @Nullable TaskRecord readCandidate(ResultSet rs) throws SQLException {
        long id = rs.getLong(1);
        if (bad.contains(id)) return null;
        try {
            return Rows.task(sql.times, rs);
        } catch (StatekitException e) {
            bad.add(id);
            Jdbc.LOG.warn("task {} on queue {} cannot be read and is not claimed: {}", id, request.queue(), e.getMessage());
            return null;
        }
    }
}
