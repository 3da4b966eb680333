package dev.statekit.core.ops;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What one queue did over a window, bucket by bucket, as {@link TaskOperations#activity} counts it
 * from the store's history: every process's work, not one runtime's.
 *
 * @param queue  the queue
 * @param points one point per bucket of the window, oldest first, buckets without work included
 */
public record QueueActivity(String queue, List<Point> points) {
    /**
     * Creates a queue's activity.
     *
     * @throws NullPointerException if an argument is null
     */
    public QueueActivity {
        Objects.requireNonNull(queue, "queue");
        points = List.copyOf(points);
    }

    /** Returns the sum of the points' counts: started, succeeded, failed and retried over the whole window. */
    public Point total() {
        long s = 0, ok = 0, f = 0, r = 0;
        for (Point p : points) {
            s += p.started;
            ok += p.succeeded;
            f += p.failed;
            r += p.retried;
        }
        return new Point(points.isEmpty() ? Instant.EPOCH : points.get(0).at, s, ok, f, r);
    }

    /**
     * The counts of one bucket.
     *
     * @param at        the start of the bucket
     * @param started   attempts started: claims (the start event of a claimable state of the run policy)
     * @param succeeded attempts that succeeded (the run policy's success event)
     * @param failed    failures that ended the task's run (the fatal event, or the give-up event after an interruption)
     * @param retried   failures that will be tried again (the retryable event, a retry in place ({@code RETRY}),
     *                  or the requeue after an interruption)
     */
    public record Point(Instant at, long started, long succeeded, long failed, long retried) {
        /**
         * Creates a point.
         *
         * @throws IllegalArgumentException if a count is negative
         */
        public Point {
            Objects.requireNonNull(at, "at");
            if (started < 0 || succeeded < 0 || failed < 0 || retried < 0) {
                throw new IllegalArgumentException("negative count at " + at);
            }
        }
    }
}
