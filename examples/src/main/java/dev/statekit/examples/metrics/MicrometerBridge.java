package dev.statekit.examples.metrics;

import dev.statekit.core.runtime.QueueMetrics;
import dev.statekit.core.runtime.RuntimeMetrics;
import dev.statekit.core.spi.RuntimeEvent;
import dev.statekit.core.spi.RuntimeListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Records a runtime's events and metrics in a Micrometer {@link MeterRegistry}: a counter and a
 * timer per kind of event, machine and queue (the timer only for kinds that measure a duration),
 * and gauges of the last {@link RuntimeMetrics} snapshot handed to {@link #record(RuntimeMetrics)}.
 *
 * <p>Register it with {@code TaskRuntimeBuilder.listener(bridge)}; call {@code record(runtime.metrics())}
 * from a scheduler as often as the registry is scraped. Thread-safe.
 */
public final class MicrometerBridge implements RuntimeListener {
    private final MeterRegistry registry;
    /** The gauges' values, held here: a registry keeps only weak references to them. */
    private final Map<String, AtomicLong> gauges = new ConcurrentHashMap<>();

    /** Creates a bridge into {@code registry}. */
    public MicrometerBridge(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void onEvent(RuntimeEvent event) {
        Tags tags = Tags.of("machine", event.machine(), "queue", event.queue(), "kind", event.kind().tag());
        registry.counter("statekit.events", tags).increment();
        Duration took = event.duration();
        if (took != null) registry.timer("statekit.event.duration", tags).record(took);
    }

    /**
     * Sets the gauges from {@code metrics}: tasks by state, running tasks and the oldest ready task's
     * age, per machine and queue; a gauge the snapshot has no value for (a state no task is in any
     * more) reads 0.
     */
    public void record(RuntimeMetrics metrics) {
        Map<String, Long> values = new HashMap<>();
        for (QueueMetrics q : metrics.queues()) {
            Tags tags = Tags.of("machine", q.machine(), "queue", q.queue());
            q.states().forEach((state, n) -> values.put(gauge("statekit.tasks", tags.and("state", state)), n));
            values.put(gauge("statekit.tasks.running", tags), q.running());
            Duration age = q.oldestReadyAge();
            values.put(gauge("statekit.tasks.oldest.ready.seconds", tags), age == null ? 0 : age.toSeconds());
        }
        gauges.forEach((key, value) -> value.set(values.getOrDefault(key, 0L)));
    }

    /** Returns the key of the gauge {@code name} with {@code tags}, registering it the first time. */
    private String gauge(String name, Tags tags) {
        String key = name + tags;
        gauges.computeIfAbsent(key, k -> registry.gauge(name, tags, new AtomicLong()));
        return key;
    }
}
