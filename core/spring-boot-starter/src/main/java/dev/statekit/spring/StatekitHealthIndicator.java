package dev.statekit.spring;

import dev.statekit.store.QueueRecord;
import dev.statekit.store.Store;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;

/**
 * The health of statekit in this application, as Actuator's {@code statekit} component: DOWN when
 * the store cannot be read, OUT_OF_SERVICE when the application has a runtime that is not running
 * (not yet started, or stopping), else UP. Its details: {@code store} (its tables and dialect),
 * {@code runtime} ({@code running}, {@code stopped} or {@code none}) with its owner, {@code queues}
 * (each queue the runtime serves, {@code paused} with the reason, or {@code active}). A paused queue
 * is an operator's decision and leaves the status UP. Each call reads one queue record per queue
 * served (or one task by id when there is no runtime). Thread-safe.
 */
public final class StatekitHealthIndicator implements HealthIndicator {
    private final Store store;
    private final @Nullable StatekitRuntimeLifecycle lifecycle;
    private final List<String> queues;

    /**
     * Creates the indicator.
     *
     * @param store         the store
     * @param lifecycle     the runtime's lifecycle, or null when the application runs no runtime
     * @param registrations the workers the runtime serves, whose queues are reported
     */
    public StatekitHealthIndicator(Store store, @Nullable StatekitRuntimeLifecycle lifecycle,
                                   List<WorkerRegistration<?, ?>> registrations) {
        this.store = Objects.requireNonNull(store, "store");
        this.lifecycle = lifecycle;
        Set<String> names = new LinkedHashSet<>();
        for (WorkerRegistration<?, ?> r : registrations) names.add(r.queueName());
        this.queues = new ArrayList<>(names);
    }

    @Override
    public Health health() {
        Health.Builder health = new Health.Builder();
        health.withDetail("store", store.toString());
        Map<String, String> queueStates = new TreeMap<>();
        try {
            if (lifecycle == null || queues.isEmpty()) store.find(0);
            else {
                for (String queue : queues) {
                    QueueRecord q = store.queue(queue);
                    queueStates.put(queue, q.paused() ? "paused" + (q.pauseReason() != null ? ": " + q.pauseReason() : "") : "active");
                }
            }
        } catch (RuntimeException e) {
            return health.down(e).withDetail("runtime", runtimeState()).build();
        }
        health.withDetail("runtime", runtimeState());
        if (lifecycle != null) {
            health.withDetail("owner", lifecycle.runtime().owner());
            health.withDetail("queues", queueStates);
        }
        health.status(lifecycle == null || lifecycle.isRunning() ? Status.UP : Status.OUT_OF_SERVICE);
        return health.build();
    }

    private String runtimeState() {
        if (lifecycle == null) return "none";
        return lifecycle.isRunning() ? "running" : "stopped";
    }
}
