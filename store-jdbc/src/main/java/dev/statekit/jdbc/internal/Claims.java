package dev.statekit.jdbc.internal;

import dev.statekit.store.ClaimRequest;
import dev.statekit.store.Claimed;
import dev.statekit.store.QueueRecord;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.support.ClaimPicker;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Claims. An idle queue costs one read and no transaction: a claim first asks whether any task
 * is runnable, without locks, and stops there when none is. Otherwise the claim is one
 * transaction, in one of two ways:
 *
 * <ul>
 *   <li><b>Side by side</b> (PostgreSQL, a queue without a concurrency limit): the claim locks
 *       the queue's control row against changes only (pausing, limits wait for it; other claims
 *       do not), reads the runnable tasks in claim order locking them and passing over those that
 *       other claims hold, and claims them. Claims from several processes run at once on
 *       disjoint tasks. When the anti-starvation count would change, the claim starts again the
 *       exclusive way, since the count is one row that claims update in turn.
 *   <li><b>Exclusive</b> (H2, or a queue with a concurrency limit, whose exactness needs the
 *       claims of the queue in turn): the claim locks the queue's control row (created on first
 *       use), computes the room under the limit, picks candidates in claim order with
 *       anti-starvation and stores the anti-starvation count.
 * </ul>
 *
 * <p>Either way candidates come through {@link ClaimPicker} over {@link ClaimCandidates}
 * (members of held groups are not candidates), and the dialect writes the claims with their
 * history and the marks of the groups the claimed tasks count in. Immutable and thread-safe.
 */
public final class Claims {
    private final JdbcContext context;
    private final QueueTable queues;

    /** Creates the claims of one store. */
    public Claims(JdbcContext context, QueueTable queues) {
        this.context = context;
        this.queues = queues;
    }

    /** Claims as {@link dev.statekit.store.Store#claim} describes; logs the tasks claimed at DEBUG. */
    public List<Claimed> claim(ClaimRequest request) {
        String doing = "claiming from queue " + request.queue();
        if (!context.jdbc().read(doing, null, c -> anyRunnable(c, request))) return List.of();
        List<Claimed> claimed = null;
        if (context.ops().claimsSideBySide()) claimed = context.jdbc().transaction(doing, null, c -> sideBySide(c, request));
        if (claimed == null) claimed = context.jdbc().transaction(doing, null, c -> exclusive(c, request));
        if (!claimed.isEmpty() && Jdbc.LOG.isDebugEnabled()) {
            List<Long> ids = new ArrayList<>();
            for (Claimed t : claimed) ids.add(t.task().id());
            Jdbc.LOG.debug("{} claimed tasks {} from queue {}", request.owner(), ids, request.queue());
        }
        return claimed;
    }

    private boolean anyRunnable(Connection c, ClaimRequest request) throws SQLException {
        List<String> states = ClaimCandidates.states(request);
        return Jdbc.queryOne(c, context.sql().anyRunnable(states.size()), ps -> {
            int i = 1;
            ps.setString(i++, request.machine());
            ps.setString(i++, request.queue());
            i = Jdbc.bindStates(ps, i, states);
            Rows.setInstant(ps, i, request.now());
        }, rs -> Boolean.TRUE) != null;
    }

    /** Claims beside other claims of the queue; returns null when the claim must be made the exclusive way. */
    private @Nullable List<Claimed> sideBySide(Connection c, ClaimRequest request) throws SQLException {
        QueueRecord q = queues.share(c, request.queue());
        if (q == null || q.concurrency() > 0) return null;
        if (q.paused()) return List.of();
        ClaimCandidates candidates = new ClaimCandidates(c, request, context, request.max(), true);
        int skipped = ClaimPicker.pick(candidates, request.max(), q.skippedLower(), request.starvationLimit());
        if (skipped != q.skippedLower()) {
            c.rollback();
            return null;
        }
        return write(c, request, candidates.picks());
    }

    private List<Claimed> exclusive(Connection c, ClaimRequest request) throws SQLException {
        QueueRecord q = queues.lock(c, request.queue());
        if (q.paused()) return List.of();
        int room = request.max();
        if (q.concurrency() > 0) room = Math.min(room, q.concurrency() - queues.leased(c, request.queue()));
        if (room <= 0) return List.of();
        ClaimCandidates candidates = new ClaimCandidates(c, request, context, room, false);
        int skipped = ClaimPicker.pick(candidates, room, q.skippedLower(), request.starvationLimit());
        if (skipped != q.skippedLower()) queues.setSkipped(c, request.queue(), skipped);
        return write(c, request, candidates.picks());
    }

    private List<Claimed> write(Connection c, ClaimRequest request, List<TaskRecord> picks) throws SQLException {
        if (picks.isEmpty()) return List.of();
        Instant now = Objects.requireNonNull(Rows.micros(request.now()));
        Instant expires = Objects.requireNonNull(Rows.micros(request.now().plus(request.leaseDuration())));
        return context.ops().claim(c, request, picks, now, expires);
    }
}
