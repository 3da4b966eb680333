package dev.statekit.store;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A request to claim runnable tasks of one machine on one queue for one owner.
 *
 * <p>A task is runnable when it is in the {@code from} state of one of {@code rules}, holds no
 * lease, and its not-before time (if any) is not after {@code now}. Nothing is claimed from a
 * paused queue, and never more than the queue's concurrency limit minus the tasks of the queue
 * that hold a lease. Tasks are taken in order of priority (larger first), then FIFO sequence; when
 * {@code starvationLimit} is positive, after that many consecutive picks that passed over a
 * lower-priority runnable task, the best lower-priority task is taken next.
 *
 * @param machine         the machine's name
 * @param queue           the queue
 * @param rules           the claimable states and how each is started
 * @param owner           the lease owner
 * @param now             the current time
 * @param leaseDuration   how long the lease lasts unless renewed
 * @param max             the most tasks to claim, at least 1
 * @param starvationLimit K of "one lower pick after K higher ones"; 0 turns it off
 */
public record ClaimRequest(String machine, String queue, List<ClaimRule> rules, String owner, Instant now,
                           Duration leaseDuration, int max, int starvationLimit) {
    /**
     * Creates a request.
     *
     * @throws IllegalArgumentException on an empty rule list, a non-positive lease or max, or a negative starvation limit
     */
    public ClaimRequest {
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(now, "now");
        Objects.requireNonNull(leaseDuration, "leaseDuration");
        rules = List.copyOf(rules);
        if (rules.isEmpty()) throw new IllegalArgumentException("a claim needs at least one rule");
        if (leaseDuration.isNegative() || leaseDuration.isZero()) throw new IllegalArgumentException("lease must be positive");
        if (max < 1) throw new IllegalArgumentException("max must be >= 1, was " + max);
        if (starvationLimit < 0) throw new IllegalArgumentException("starvationLimit must be >= 0, was " + starvationLimit);
    }

    /** Returns this request with the claim's time {@code now} instead (a rate-limited queue's claim time: {@link RateLimit#claimTime}). */
    public ClaimRequest withNow(Instant now) {
        return now.equals(this.now) ? this : new ClaimRequest(machine, queue, rules, owner, now, leaseDuration, max, starvationLimit);
    }

    /** Returns the rule for state {@code from}, or null. */
    public @Nullable ClaimRule ruleFor(String from) {
        for (ClaimRule r : rules) if (r.from().equals(from)) return r;
        return null;
    }
}
