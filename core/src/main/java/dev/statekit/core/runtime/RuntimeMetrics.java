package dev.statekit.core.runtime;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A snapshot of a runtime and its store, per machine and queue: {@link TaskRuntime#metrics()}.
 * Immutable.
 *
 * @param at     when it was read, on the engine's clock
 * @param queues one entry per machine and queue that has tasks in the store, that this runtime
 *               serves, or that this runtime worked on in the last minute; by machine, then queue
 */
public record RuntimeMetrics(Instant at, List<QueueMetrics> queues) {
    /** Creates a snapshot. */
    public RuntimeMetrics {
        Objects.requireNonNull(at, "at");
        queues = List.copyOf(queues);
    }

    /** Returns the entry of {@code machine} on {@code queue}, if the snapshot has one. */
    public Optional<QueueMetrics> of(String machine, String queue) {
        for (QueueMetrics q : queues) if (q.machine().equals(machine) && q.queue().equals(queue)) return Optional.of(q);
        return Optional.empty();
    }
}
