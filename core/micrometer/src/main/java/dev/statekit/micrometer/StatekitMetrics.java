package dev.statekit.micrometer;

import dev.statekit.core.runtime.QueueMetrics;
import dev.statekit.core.runtime.RuntimeMetrics;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.spi.RuntimeEvent;
import dev.statekit.core.spi.RuntimeListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The metrics of one {@link TaskRuntime} in Micrometer. Register it as the runtime's listener, give
 * it the runtime, and bind it to a registry (Spring Boot binds a {@code MeterBinder} bean itself):
 *
 * <pre>{@code
 * StatekitMetrics metrics = new StatekitMetrics();
 * TaskRuntime runtime = TaskRuntime.builder(engine).listener(metrics).register(machine, worker).build();
 * metrics.observe(runtime);
 * metrics.bindTo(registry);
 * }</pre>
 *
 * <p>What this runtime does, as it does it (tags {@code machine} and {@code queue}):
 * <table>
 * <caption>Meters of this runtime's work</caption>
 * <tr><th>meter</th><th>type</th><th>counts</th></tr>
 * <tr><td>{@code statekit.task.wait}</td><td>timer</td><td>each claim by this runtime, timing how long
 *   the task had waited to run (from the later of its last change and its not-before time)</td></tr>
 * <tr><td>{@code statekit.task.attempts}</td><td>timer, tag {@code outcome}</td><td>each attempt's
 *   written result, timing how long its worker ran; {@code outcome} is {@code succeeded}, {@code failed}
 *   (the task ended in failure) or {@code retried} (it runs again after its back-off)</td></tr>
 * <tr><td>{@code statekit.task.timeouts}</td><td>counter</td><td>attempts that ran past their timeout
 *   (each also counted as failed or retried)</td></tr>
 * <tr><td>{@code statekit.task.recoveries}</td><td>counter</td><td>tasks whose holder was gone,
 *   recovered by this runtime by the machine's recovery policy</td></tr>
 * <tr><td>{@code statekit.group.resolutions}</td><td>counter</td><td>groups (children, dependencies)
 *   this runtime resolved, tagged with the owner's machine and queue</td></tr>
 * </table>
 *
 * <p>What the store holds, read through {@link TaskRuntime#metrics()} at most once per refresh
 * interval (default 5 seconds) when a gauge is read; every process's tasks count:
 * <table>
 * <caption>Gauges of the whole store</caption>
 * <tr><th>gauge</th><th>value</th></tr>
 * <tr><td>{@code statekit.tasks}, tag {@code state}</td><td>tasks of the machine on the queue in the state</td></tr>
 * <tr><td>{@code statekit.tasks.waiting}</td><td>tasks waiting to run ({@link QueueMetrics#waiting()})</td></tr>
 * <tr><td>{@code statekit.tasks.running}</td><td>tasks holding a lease ({@link QueueMetrics#running()})</td></tr>
 * <tr><td>{@code statekit.tasks.oldest.waiting}</td><td>how long the longest-waiting runnable task has
 *   waited, in seconds; 0 when none waits ({@link QueueMetrics#oldestReadyAge()})</td></tr>
 * <tr><td>{@code statekit.queue.paused}</td><td>1 while the queue is paused, else 0</td></tr>
 * </table>
 * Gauges appear for each machine, queue and state the runtime's metrics name; a gauge whose pair
 * or state is no longer named reads 0. Thread-safe.
 */
public final class StatekitMetrics implements RuntimeListener, MeterBinder {
    private final Duration refresh;
    private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();
    private final Set<String> gauged = ConcurrentHashMap.newKeySet();
    private volatile @Nullable Supplier<RuntimeMetrics> source;
    private volatile @Nullable Snapshot snapshot;

    /** The last read of the runtime's metrics, by gauge key, and when it was read (the registry's monotonic time). */
    private record Snapshot(Map<String, Double> values, long readAtNanos) {}

    /** Creates metrics whose gauges read the runtime's metrics at most every 5 seconds. */
    public StatekitMetrics() {
        this(Duration.ofSeconds(5));
    }

    /**
     * Creates metrics whose gauges read the runtime's metrics at most once per {@code refresh}.
     *
     * @throws IllegalArgumentException if {@code refresh} is negative
     */
    public StatekitMetrics(Duration refresh) {
        if (refresh.isNegative()) throw new IllegalArgumentException("refresh must not be negative, was " + refresh);
        this.refresh = refresh;
    }

    /** Sets the runtime whose {@link TaskRuntime#metrics()} the gauges read; returns this. */
    public StatekitMetrics observe(TaskRuntime runtime) {
        Objects.requireNonNull(runtime, "runtime");
        return observe(runtime::metrics);
    }

    /** Sets where the gauges read the metrics from (a runtime's {@code metrics()}); returns this. */
    public StatekitMetrics observe(Supplier<RuntimeMetrics> metrics) {
        this.source = Objects.requireNonNull(metrics, "metrics");
        this.snapshot = null;
        for (MeterRegistry r : registries) read(r);
        return this;
    }

    /**
     * Reads the runtime's metrics now, for the gauges of every bound registry, registering the
     * gauges of machines, queues and states met for the first time (otherwise they appear at the
     * first read of a gauge after the refresh interval).
     */
    public void refresh() {
        for (MeterRegistry r : registries) read(r);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        if (registries.contains(registry)) return;
        registries.add(registry);
        for (String key : gauged) register(registry, key);
        read(registry);
    }

    @Override
    public void onEvent(RuntimeEvent event) {
        for (MeterRegistry registry : registries) record(registry, event);
    }

    private static void record(MeterRegistry registry, RuntimeEvent e) {
        Tags tags = Tags.of("machine", e.machine(), "queue", e.queue());
        Duration took = e.duration();
        switch (e.kind()) {
            case CLAIMED -> timer(registry, "statekit.task.wait", "how long a task claimed by this runtime had waited to run", tags, took);
            case SUCCEEDED, FAILED, RETRIED -> timer(registry, "statekit.task.attempts",
                    "attempts whose result this runtime wrote, by outcome, timing their workers", tags.and("outcome", e.kind().tag()), took);
            case TIMED_OUT -> counter(registry, "statekit.task.timeouts", "attempts that ran past their timeout", tags);
            case RECOVERED -> counter(registry, "statekit.task.recoveries", "tasks recovered from a holder that was gone", tags);
            case GROUP_RESOLVED -> counter(registry, "statekit.group.resolutions", "groups resolved by this runtime", tags);
            case STAGE_CHANGED -> { }
        }
    }

    private static void timer(MeterRegistry registry, String name, String description, Tags tags, @Nullable Duration took) {
        Timer t = Timer.builder(name).description(description).tags(tags).register(registry);
        t.record(took == null ? Duration.ZERO : took);
    }

    private static void counter(MeterRegistry registry, String name, String description, Tags tags) {
        Counter.builder(name).description(description).tags(tags).register(registry).increment();
    }

    /** Reads the metrics now, for {@code registry}'s gauges, and registers the gauges of pairs and states met first. */
    private void read(MeterRegistry registry) {
        Supplier<RuntimeMetrics> from = source;
        if (from == null) return;
        Map<String, Double> values = new ConcurrentHashMap<>();
        for (QueueMetrics q : from.get().queues()) {
            String pair = q.machine() + '\u0000' + q.queue();
            q.states().forEach((state, n) -> values.put("tasks\u0000" + pair + '\u0000' + state, (double) n));
            values.put("waiting\u0000" + pair, (double) q.waiting());
            values.put("running\u0000" + pair, (double) q.running());
            Duration age = q.oldestReadyAge();
            values.put("oldest\u0000" + pair, age == null ? 0.0 : age.toNanos() / 1e9);
            values.put("paused\u0000" + pair, q.paused() ? 1.0 : 0.0);
        }
        snapshot = new Snapshot(values, registry.config().clock().monotonicTime());
        for (String key : values.keySet()) {
            if (gauged.add(key)) for (MeterRegistry r : registries) register(r, key);
        }
    }

    /** Returns the value of gauge {@code key}, reading the metrics again when the last read is older than the refresh interval. */
    private double value(MeterRegistry registry, String key) {
        Snapshot s = snapshot;
        if (s == null || registry.config().clock().monotonicTime() - s.readAtNanos >= refresh.toNanos()) {
            synchronized (this) {
                s = snapshot;
                if (s == null || registry.config().clock().monotonicTime() - s.readAtNanos >= refresh.toNanos()) read(registry);
                s = snapshot;
            }
        }
        return s == null ? 0.0 : s.values.getOrDefault(key, 0.0);
    }

    private void register(MeterRegistry registry, String key) {
        String[] p = key.split("\u0000", -1);
        Tags tags = Tags.of("machine", p[1], "queue", p[2]);
        switch (p[0]) {
            case "tasks" -> Gauge.builder("statekit.tasks", this, m -> m.value(registry, key)).tags(tags.and("state", p[3]))
                    .description("tasks of the machine on the queue in the state, in the whole store").register(registry);
            case "waiting" -> Gauge.builder("statekit.tasks.waiting", this, m -> m.value(registry, key)).tags(tags)
                    .description("tasks waiting to run, in the whole store").register(registry);
            case "running" -> Gauge.builder("statekit.tasks.running", this, m -> m.value(registry, key)).tags(tags)
                    .description("tasks holding a lease, in the whole store").register(registry);
            case "oldest" -> TimeGauge.builder("statekit.tasks.oldest.waiting", this, TimeUnit.SECONDS, m -> m.value(registry, key))
                    .tags(tags).description("how long the longest-waiting runnable task has waited").register(registry);
            case "paused" -> Gauge.builder("statekit.queue.paused", this, m -> m.value(registry, key)).tags(tags)
                    .description("1 while the queue is paused, else 0").register(registry);
            default -> throw new IllegalStateException("unknown gauge " + key);
        }
    }
}
