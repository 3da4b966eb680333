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

/**
 * Claims, each one transaction: lock the queue's control row (every claimer of the queue, in every
 * process, waits here, which makes the concurrency limit exact), compute the room under the limit,
 * pick candidates in claim order with anti-starvation ({@link ClaimPicker} over
 * {@link ClaimCandidates}; members of held groups are not candidates), store the anti-starvation
 * count, write the claims through the dialect, and mark the groups the claimed tasks count in.
 * Immutable and thread-safe.
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
        List<Claimed> claimed = context.jdbc().transaction("claiming from queue " + request.queue(), null, c -> claimIn(c, request));
        if (!claimed.isEmpty() && Jdbc.LOG.isDebugEnabled()) {
            List<Long> ids = new ArrayList<>();
            for (Claimed t : claimed) ids.add(t.task().id());
            Jdbc.LOG.debug("{} claimed tasks {} from queue {}", request.owner(), ids, request.queue());
        }
        return claimed;
    }

    private List<Claimed> claimIn(Connection c, ClaimRequest request) throws SQLException {
        QueueRecord q = queues.lock(c, request.queue());
        if (q.paused()) return List.of();
        int room = request.max();
        if (q.concurrency() > 0) room = Math.min(room, q.concurrency() - queues.leased(c, request.queue()));
        if (room <= 0) return List.of();
        ClaimCandidates candidates = new ClaimCandidates(c, request, context, room);
        int skipped = ClaimPicker.pick(candidates, room, q.skippedLower(), request.starvationLimit());
        if (skipped != q.skippedLower()) queues.setSkipped(c, request.queue(), skipped);
        List<TaskRecord> picks = candidates.picks();
        if (picks.isEmpty()) return List.of();
        Instant now = Objects.requireNonNull(Rows.micros(request.now()));
        Instant expires = Objects.requireNonNull(Rows.micros(request.now().plus(request.leaseDuration())));
        return context.ops().claim(c, request, picks, now, expires);
    }
}
