package dev.statekit.core.ops;

import dev.statekit.core.Machine;
import dev.statekit.core.RunPolicy;
import dev.statekit.core.internal.Kernel;
import dev.statekit.store.ActivityCount;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * What each history event of the given machines means to {@link TaskOperations#activity}: a start,
 * a success, a failure that ends the run, or a retry, read from each machine's run policy and
 * stages. Events of other machines, and other events, count as nothing. Immutable.
 */
final class ActivityKinds {
    private static final int STARTED = 0, SUCCEEDED = 1, FAILED = 2, RETRIED = 3;

    /** Per machine name: per event name, its kind. */
    private final Map<String, Map<String, Integer>> kinds = new HashMap<>();

    ActivityKinds(Collection<? extends Machine<?, ?>> machines) {
        for (Machine<?, ?> m : machines) {
            Map<String, Integer> events = new HashMap<>();
            List<RunPolicy<?, ?>> policies = new ArrayList<>(m.stages().values());
            if (m.runPolicy() != null) policies.add(0, m.runPolicy());
            for (RunPolicy<?, ?> p : policies) {
                for (Enum<?> e : p.claims().values()) events.putIfAbsent(e.name(), STARTED);
                put(events, p.success(), SUCCEEDED);
                put(events, p.fatal(), FAILED);
                put(events, p.interruptFail(), FAILED);
                put(events, p.retryable(), RETRIED);
                put(events, p.interruptRequeue(), RETRIED);
            }
            if (!policies.isEmpty()) events.putIfAbsent(Kernel.RETRY, RETRIED);
            kinds.put(m.name(), events);
        }
    }

    private static void put(Map<String, Integer> events, @Nullable Enum<?> event, int kind) {
        if (event != null) events.putIfAbsent(event.name(), kind);
    }

    /**
     * Returns per queue (by name) one point per bucket from {@code first} to {@code last}, both
     * included, each with the counts of {@code counts} it classifies; queues with nothing counted are absent.
     */
    List<QueueActivity> series(List<ActivityCount> counts, Instant first, Instant last, Duration bucket) {
        Map<String, Map<Instant, long[]>> byQueue = new TreeMap<>();
        for (ActivityCount c : counts) {
            Map<String, Integer> events = kinds.get(c.machine());
            Integer kind = events == null ? null : events.get(c.event());
            if (kind == null) continue;
            byQueue.computeIfAbsent(c.queue(), q -> new HashMap<>())
                    .computeIfAbsent(c.bucket(), b -> new long[4])[kind] += c.entries();
        }
        List<QueueActivity> result = new ArrayList<>(byQueue.size());
        byQueue.forEach((queue, buckets) -> {
            List<QueueActivity.Point> points = new ArrayList<>();
            for (Instant at = first; !at.isAfter(last); at = at.plus(bucket)) {
                long[] n = buckets.getOrDefault(at, new long[4]);
                points.add(new QueueActivity.Point(at, n[STARTED], n[SUCCEEDED], n[FAILED], n[RETRIED]));
            }
            result.add(new QueueActivity(queue, points));
        });
        return result;
    }
}
