package dev.statekit.core.runtime;

import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The state of one machine on one queue, as {@link TaskRuntime#metrics()} read it: counts of the
 * whole store (every process's tasks), the queue's control record, and the last minute of this
 * runtime's own work.
 *
 * @param machine          the machine's name
 * @param queue            the queue
 * @param states           how many tasks of the machine on the queue are in each state, by state
 *                         name in name order; states without tasks are absent
 * @param running          how many of them hold a lease (in every process; expired leases not yet
 *                         recovered included)
 * @param waiting          how many of them wait to run: in a state this runtime claims from and
 *                         holding no lease, those whose not-before time is still ahead (a retry's
 *                         back-off) included; 0 when this runtime does not serve the machine (then it
 *                         does not know which of its states are runnable)
 * @param paused           whether the queue is paused (or stopping after its current tasks)
 * @param concurrency      the queue's concurrency limit; 0 means none
 * @param oldestReadyAge   how long the longest-waiting runnable task has been ready (since the later
 *                         of its last change and its not-before time), on the clock; tasks a paused or
 *                         full queue or a held group keeps back count as waiting; null when none is
 *                         waiting, or when this runtime does not serve the machine (then it does not
 *                         know which of its states are runnable)
 * @param lastMinute       what this runtime did for the machine on the queue over the last minute
 */
public record QueueMetrics(String machine, String queue, Map<String, Long> states, long running, long waiting, boolean paused, int concurrency,
                           @Nullable Duration oldestReadyAge, LastMinute lastMinute) {
    /**
     * Creates metrics; {@code states} is copied in name order.
     *
     * @throws IllegalArgumentException if a count is negative
     */
    public QueueMetrics {
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(lastMinute, "lastMinute");
        states = Collections.unmodifiableMap(new TreeMap<>(states));
        if (running < 0 || waiting < 0 || concurrency < 0) throw new IllegalArgumentException("running, waiting and concurrency must be >= 0");
    }

    /** Returns how many tasks of the machine on the queue are in {@code state} (0 if none). */
    public long count(String state) {
        return states.getOrDefault(state, 0L);
    }

    /** Returns how many tasks of the machine are on the queue, in any state. */
    public long total() {
        long n = 0;
        for (long c : states.values()) n += c;
        return n;
    }
}
