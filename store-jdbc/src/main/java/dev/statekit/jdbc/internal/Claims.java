package dev.statekit.jdbc.internal;

import dev.statekit.store.RateLimit;

import dev.statekit.store.ClaimRequest;
import dev.statekit.store.Claimed;
import dev.statekit.store.QueueRecord;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.support.ClaimPicker;
import dev.statekit.store.support.RateGate;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.StatekitException;
import dev.statekit.store.TriggerSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Claims, each one transaction, in one of three ways:
 *
 * <ul>
 *   <li><b>At once</b> (PostgreSQL, a queue without a concurrency limit, claim rules without
 *       effects): one statement, {@link Sql#claimAtOnce}, and the commit. It claims when the
 *       plain order of the runnable tasks is the claim order (one priority, nothing lower
 *       waiting); otherwise it claims nothing and the claim is made side by side, and the next
 *       {@value #SIDE_BY_SIDE_AFTER_MIXED} claims of the queue in this store go there directly.
 *       It reads the runnable tasks once, from where the queue's last claim stopped
 *       ({@link ClaimHints}: while a transaction holds the xmin horizon, a read from the start of
 *       the queue passes the index entries of every task claimed since) or from the start, and
 *       locks the queue's control row only once it found some. An idle queue's claim writes
 *       nothing: its commit waits for no disk.
 *   <li><b>Side by side</b> (PostgreSQL, a queue without a concurrency limit): the claim locks
 *       the queue's control row against changes only (pausing, limits wait for it; other claims
 *       do not), reads the runnable tasks in claim order locking them and passing over those that
 *       other claims hold, and claims them. Claims from several processes run at once on
 *       disjoint tasks. When the anti-starvation count would change, the claim starts again the
 *       exclusive way, since the count is one row that claims update in turn.
 *   <li><b>Exclusive</b> (H2, or a queue with a concurrency limit, a rate limit or a key hold,
 *       whose exactness needs the claims of the queue in turn): the claim locks the queue's
 *       control row (created on first use), computes the room under the limit, picks candidates
 *       in claim order with anti-starvation and stores the anti-starvation count. A rate-limited
 *       queue's candidates pass through a {@link RateGate} over the starts in the window and the
 *       keys held ({@link RateTable}); the claim is made at {@link RateLimit#claimTime} of the
 *       queue's latest start, and writes its starts in the same transaction.
 * </ul>
 *
 * <p>The last two first ask whether any task is runnable, without locks, and stop there when none
 * is: an idle queue costs one read.
 *
 * <p>Either way candidates come through {@link ClaimPicker} over {@link ClaimCandidates}
 * (members of held groups are not candidates), and the dialect writes the claims with their
 * history and the marks of the groups the claimed tasks count in. Thread-safe.
 */
public final class Claims {
    /** The threads that look behind the claims' starts; idle ones end after a minute. */
    private static final ExecutorService PROBES = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
            new SynchronousQueue<>(), r -> {
                Thread t = new Thread(r, "statekit-claim-look");
                t.setDaemon(true);
                return t;
            });

    /** How many claims of a queue skip the at-once statement after it found priorities it cannot order. */
    static final int SIDE_BY_SIDE_AFTER_MIXED = 64;

    private final JdbcContext context;
    private final QueueTable queues;
    private final ClaimHints hints;
    private final LeaseFloors floors;
    /** Per queue, how many more claims go side by side without trying the at-once statement. */
    private final Map<String, Integer> mixed = new ConcurrentHashMap<>();

    /** Creates the claims of one store, which tells {@code hints} what its writes place. */
    public Claims(JdbcContext context, QueueTable queues, ClaimHints hints, LeaseFloors floors) {
        this.context = context;
        this.queues = queues;
        this.hints = hints;
        this.floors = floors;
    }

    /** Claims as {@link dev.statekit.store.Store#claim} describes; logs the tasks claimed at DEBUG. */
    public List<Claimed> claim(ClaimRequest request) {
        try {
            return claimOnce(request);
        } finally {
            // Also when the answer was lost: the claim may have leased tasks.
            floors.claimed(request.now(), Objects.requireNonNull(Rows.micros(request.now().plus(request.leaseDuration()))));
        }
    }

    private List<Claimed> claimOnce(ClaimRequest request) {
        String doing = "claiming from queue " + request.queue();
        List<Claimed> claimed = null;
        boolean atOnce = context.ops().claimsSideBySide() && withoutEffects(request)
                && mixed.computeIfPresent(request.queue(), (q, n) -> n > 1 ? n - 1 : null) == null;
        if (atOnce) {
            claimed = atOnce(doing, request);
            if (claimed == null) mixed.put(request.queue(), SIDE_BY_SIDE_AFTER_MIXED);
        }
        if (claimed == null) claimed = locked(doing, request, atOnce);
        if (!claimed.isEmpty() && Jdbc.LOG.isDebugEnabled()) {
            List<Long> ids = new ArrayList<>();
            for (Claimed t : claimed) ids.add(t.task().id());
            Jdbc.LOG.debug("{} claimed tasks {} from queue {}", request.owner(), ids, request.queue());
        }
        return claimed;
    }

    private static boolean withoutEffects(ClaimRequest request) {
        for (ClaimRule rule : request.rules()) if (rule.effect() != null) return false;
        return true;
    }

    /**
     * Claims at once, from the queue's {@link ClaimHints start} when it has one, else from its first
     * entry (and then reads when the queue's next delayed task is due); returns null when the claim
     * must be made another way.
     */
    private @Nullable List<Claimed> atOnce(String doing, ClaimRequest request) {
        List<String> states = ClaimCandidates.states(request);
        long began = System.nanoTime();
        ClaimHints.Pass pass = hints.begin(request.machine(), request.queue(), states, request.now(), began);
        if (pass.probe()) probe(request, states, pass);
        boolean ended = false;
        try {
            ClaimHints.Key start = pass.start();
            Instant[] due = new Instant[1];
            List<Claimed> claimed = context.jdbc().transaction(doing, null, c -> {
                List<Claimed> got = atOnce(c, request, start);
                if (start == null && got != null) due[0] = TaskReads.nextDue(c, context.sql(), request.machine(), states, request.now());
                return got;
            });
            if (claimed != null) {
                ClaimHints.Key last = null;
                for (Claimed t : claimed) {
                    ClaimHints.Key key = ClaimHints.Key.of(t.task());
                    if (last == null || key.compareTo(last) > 0) last = key;
                }
                hints.end(pass, last, start == null ? System.nanoTime() - began : -1, due[0], began);
            } else {
                hints.end(pass, null, -1, null, began);        // rolled back: the start stays where it was
            }
            ended = true;
            return claimed;
        } finally {
            if (!ended) hints.abandon(pass);
        }
    }

    /**
     * Claims side by side or the exclusive way, reading from the queue's {@link ClaimHints start}
     * when it has one, as {@link #atOnce} does: the start then moves to the first task the claim
     * read and did not take (one a rate limit holds back, one of a higher priority than a task
     * anti-starvation took), or past the last one it read when it took them all.
     *
     * @param read whether an at-once claim just read the queue (then whether a task is runnable is known)
     */
    private List<Claimed> locked(String doing, ClaimRequest request, boolean read) {
        List<String> states = ClaimCandidates.states(request);
        long began = System.nanoTime();
        ClaimHints.Pass pass = hints.begin(request.machine(), request.queue(), states, request.now(), began);
        if (pass.probe()) probe(request, states, pass);
        boolean ended = false;
        try {
            ClaimHints.Key start = pass.start();
            if (!read && !context.jdbc().read(doing, null, c -> anyRunnable(c, request, start))) {
                hints.end(pass, null, -1, null, began);
                ended = true;
                return List.of();
            }
            Instant[] due = new Instant[1];
            ClaimHints.Key[] resume = new ClaimHints.Key[1];
            List<Claimed> claimed = null;
            if (context.ops().claimsSideBySide()) {
                claimed = context.jdbc().transaction(doing, null, c -> sideBySide(c, request, start, resume));
            }
            if (claimed == null) claimed = context.jdbc().transaction(doing, null, c -> {
                List<Claimed> got = exclusive(c, request, start, resume);
                if (start == null) due[0] = TaskReads.nextDue(c, context.sql(), request.machine(), states, request.now());
                return got;
            });
            hints.end(pass, resume[0], start == null ? System.nanoTime() - began : -1, due[0], began);
            ended = true;
            return claimed;
        } finally {
            if (!ended) hints.abandon(pass);
        }
    }

    /** What a look behind a start found: the first runnable task there, and the next not-before time. */
    private record Look(ClaimHints.@Nullable Key found, @Nullable Instant due) {}

    /**
     * Looks, on another thread and connection, for a runnable task before the pass's start and
     * reports it to the hints; a claim of the queue that waited for this read would stall for as
     * long as it takes while vacuum is held back.
     */
    private void probe(ClaimRequest request, List<String> states, ClaimHints.Pass pass) {
        ClaimHints.Key start = Objects.requireNonNull(pass.start());
        try {
            PROBES.execute(() -> {
                long began = System.nanoTime();
                try {
                    Look look = context.jdbc().read("looking behind the claims of queue " + request.queue(), null, c -> new Look(
                            Jdbc.queryOne(c, context.sql().runnableBefore(states.size()), ps -> {
                                int i = bindRunnable(ps, 1, request, states);
                                ps.setInt(i++, start.priority());
                                ps.setInt(i++, start.priority());
                                ps.setLong(i++, start.sequence());
                                ps.setLong(i, start.id());
                            }, rs -> new ClaimHints.Key(rs.getInt(1), rs.getLong(2), rs.getLong(3))),
                            TaskReads.nextDue(c, context.sql(), request.machine(), states, request.now())));
                    if (look.found() != null && states.size() > 1) {
                        hints.probeFailed(pass);        // any runnable task, not the first: read from the first entry
                        return;
                    }
                    hints.probed(pass, look.found(), look.due(), System.nanoTime() - began, began);
                } catch (RuntimeException e) {
                    hints.probeFailed(pass);
                    Jdbc.LOG.debug("looking behind the claims of queue {} failed: {}", request.queue(), e.toString());
                }
            });
        } catch (RejectedExecutionException e) {
            hints.probeFailed(pass);
        }
    }

    /**
     * Claims with {@link Sql#claimAtOnce}, or {@link Sql#claimAtOnceFrom} when {@code start} is
     * given; returns null when the claim must be made another way: the queue has no row or has a
     * limit, the plain order is not the claim order, another transaction holds the queue's row for
     * update (the statement locks it after the tasks, the other ways before them: waiting could be
     * a deadlock), or a claimed row cannot be read (then the statement is rolled back).
     */
    private @Nullable List<Claimed> atOnce(Connection c, ClaimRequest request, ClaimHints.@Nullable Key start) throws SQLException {
        List<String> states = ClaimCandidates.states(request);
        List<ClaimRule> rules = new ArrayList<>(states.size());
        for (String state : states) rules.add(Objects.requireNonNull(request.ruleFor(state)));
        Instant now = Objects.requireNonNull(Rows.micros(request.now()));
        Instant expires = Objects.requireNonNull(Rows.micros(request.now().plus(request.leaseDuration())));
        List<Claimed> claimed = new ArrayList<>();
        boolean fallBack = false;
        String text = start == null ? context.sql().claimAtOnce(states.size(), request.max())
                : context.sql().claimAtOnceFrom(states.size(), request.max());
        try (PreparedStatement ps = c.prepareStatement(text)) {
            int i = 1;
            ps.setString(i++, request.queue());
            String[][] arrays = {new String[rules.size()], new String[rules.size()], new String[rules.size()]};
            for (int r = 0; r < rules.size(); r++) {
                arrays[0][r] = rules.get(r).from();
                arrays[1][r] = rules.get(r).event();
                arrays[2][r] = rules.get(r).to();
            }
            for (String[] array : arrays) ps.setArray(i++, c.createArrayOf("text", array));
            i = bindRunnable(ps, i, request, states);      // the claim
            if (start != null) {                            // from the start, then the lower priorities
                ps.setInt(i++, start.priority());
                ps.setLong(i++, start.sequence());
                ps.setLong(i++, start.id());
                i = bindRunnable(ps, i, request, states);
                ps.setInt(i++, start.priority());
            }
            ps.setString(i++, request.queue());
            i = bindRunnable(ps, i, request, states);      // whether any is runnable, when the queue is not open
            i = bindRunnable(ps, i, request, states);      // whether any of a lower priority is
            ps.setString(i++, request.owner());
            context.sql().times.set(ps, i++, expires);
            context.sql().times.set(ps, i++, now);
            ps.setString(i++, TriggerSource.SYSTEM.name());
            ps.setString(i++, request.owner());
            ps.setString(i, ClaimRule.CLAIM_REASON);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (rs.getObject(1) == null) {
                        boolean found = rs.getBoolean(30);
                        boolean paused = rs.getBoolean(31);
                        boolean queueRow = !rs.wasNull();
                        int limit = rs.getInt(32);
                        boolean ordered = rs.getBoolean(33);
                        boolean locked = rs.getBoolean(35);
                        boolean open = queueRow && !paused && limit == 0;
                        fallBack = found && (!queueRow || (!paused && (limit > 0 || !ordered)) || (open && !locked));
                        continue;
                    }
                    TaskRecord task = Rows.task(context.sql().times, rs);
                    HistoryEntry entry = new HistoryEntry(task.id(), task.version(), rs.getString(28), task.state(), rs.getString(29),
                            TriggerSource.SYSTEM, request.owner(), ClaimRule.CLAIM_REASON, task.updatedAt(), null);
                    claimed.add(new Claimed(task, entry, Objects.requireNonNull(context.sql().times.get(rs, 34))));
                }
            }
        } catch (StatekitException e) {
            c.rollback();       // the claim is undone, and made again without the row that cannot be read
            Jdbc.LOG.debug("a task claimed from queue {} cannot be read; claiming again row by row: {}", request.queue(), e.getMessage());
            return null;
        }
        return fallBack ? null : claimed;
    }

    private int bindRunnable(PreparedStatement ps, int first, ClaimRequest request, List<String> states) throws SQLException {
        int i = first;
        ps.setString(i++, request.machine());
        ps.setString(i++, request.queue());
        for (String s : states) ps.setString(i++, s);
        context.sql().times.set(ps, i++, request.now());
        return i;
    }

    private boolean anyRunnable(Connection c, ClaimRequest request, ClaimHints.@Nullable Key start) throws SQLException {
        List<String> states = ClaimCandidates.states(request);
        if (start == null) {
            return Jdbc.queryOne(c, context.sql().anyRunnable(states.size()), ps -> bindRunnable(ps, 1, request, states),
                    rs -> Boolean.TRUE) != null;
        }
        return Jdbc.queryOne(c, context.sql().anyRunnableFrom(states.size()), ps -> {
            int i = bindRunnable(ps, 1, request, states);
            ps.setInt(i++, start.priority());
            ps.setInt(i++, start.priority());
            ps.setLong(i++, start.sequence());
            ps.setLong(i++, start.sequence());
            ps.setLong(i, start.id());
        }, rs -> Boolean.TRUE) != null;
    }

    /** Claims beside other claims of the queue; returns null when the claim must be made the exclusive way. */
    private @Nullable List<Claimed> sideBySide(Connection c, ClaimRequest request, ClaimHints.@Nullable Key start,
                                               ClaimHints.@Nullable Key[] resume) throws SQLException {
        resume[0] = null;
        QueueRecord q = queues.share(c, request.queue());
        if (q == null || q.concurrency() > 0 || q.rateLimited()) return null;
        if (q.paused()) return List.of();
        ClaimCandidates candidates = new ClaimCandidates(c, request, context, request.max(), true, start);
        int skipped = ClaimPicker.pick(candidates, request.max(), q.skippedLower(), request.starvationLimit());
        if (skipped != q.skippedLower()) {
            c.rollback();
            return null;
        }
        List<Claimed> claimed = write(c, request, candidates.picks());
        resume[0] = candidates.resume();
        return claimed;
    }

    private List<Claimed> exclusive(Connection c, ClaimRequest asked, ClaimHints.@Nullable Key start,
                                    ClaimHints.@Nullable Key[] resume) throws SQLException {
        resume[0] = null;
        QueueRecord q = queues.lock(c, asked.queue());
        if (q.paused()) return List.of();
        int room = asked.max();
        if (q.concurrency() > 0) room = Math.min(room, q.concurrency() - queues.leased(c, asked.queue()));
        if (room <= 0) return List.of();
        if (!q.rateLimited()) {
            ClaimCandidates candidates = new ClaimCandidates(c, asked, context, room, false, start);
            int skipped = ClaimPicker.pick(candidates, room, q.skippedLower(), asked.starvationLimit());
            if (skipped != q.skippedLower()) queues.setSkipped(c, asked.queue(), skipped);
            List<Claimed> claimed = write(c, asked, candidates.picks());
            resume[0] = candidates.resume();
            return claimed;
        }
        RateLimit limit = q.rateLimit();
        Instant latest = limit == null ? null : queues.rates().latestStart(c, asked.queue());
        ClaimRequest request = limit == null ? asked : asked.withNow(limit.claimTime(asked.now(), latest));
        ClaimCandidates candidates = new ClaimCandidates(c, request, context, room, false, start);
        RateGate<TaskRecord, SQLException> gate = queues.rates().gate(c, q, request.now(), latest, candidates);
        int skipped = ClaimPicker.pick(gate, room, q.skippedLower(), request.starvationLimit());
        if (skipped != q.skippedLower()) queues.setSkipped(c, request.queue(), skipped);
        List<Claimed> claimed = write(c, request, candidates.picks());
        if (limit != null) queues.rates().started(c, request.queue(), limit, claimed);
        resume[0] = candidates.resume();
        return claimed;
    }

    private List<Claimed> write(Connection c, ClaimRequest request, List<TaskRecord> picks) throws SQLException {
        if (picks.isEmpty()) return List.of();
        Instant now = Objects.requireNonNull(Rows.micros(request.now()));
        Instant expires = Objects.requireNonNull(Rows.micros(request.now().plus(request.leaseDuration())));
        return context.ops().claim(c, request, picks, now, expires);
    }
}
