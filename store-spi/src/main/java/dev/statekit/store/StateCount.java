package dev.statekit.store;

import java.time.Instant;
import java.util.Comparator;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How many tasks of one machine on one queue are in one state, as {@link Store#stateCounts} counts
 * them.
 *
 * @param machine     the machine's name
 * @param queue       the queue
 * @param state       the state's name
 * @param tasks       how many tasks of the machine on the queue are in the state; at least 1
 * @param leased      how many of them hold a lease (expired or not)
 * @param oldestReady the earliest time a task among them that holds no lease and whose not-before
 *                    time has come became ready ({@link ClaimRule#readySince}: the later of its last
 *                    change and its not-before time); null when no such task is in the state
 */
public record StateCount(String machine, String queue, String state, long tasks, long leased, @Nullable Instant oldestReady) {
    /** The order of {@link Store#stateCounts}: by machine, then queue, then state, as strings compare. */
    public static final Comparator<StateCount> ORDER = Comparator.comparing(StateCount::machine)
            .thenComparing(StateCount::queue).thenComparing(StateCount::state);

    /**
     * Creates a count.
     *
     * @throws IllegalArgumentException if {@code tasks} is not positive, or {@code leased} is negative or larger than {@code tasks}
     */
    public StateCount {
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(state, "state");
        if (tasks < 1) throw new IllegalArgumentException("tasks must be >= 1, was " + tasks);
        if (leased < 0 || leased > tasks) throw new IllegalArgumentException("leased must be within 0.." + tasks + ", was " + leased);
    }
}
