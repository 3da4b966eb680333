package dev.statekit.examples.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.Command;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.examples.quickstart.Orders;
import dev.statekit.store.memory.InMemoryStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The Micrometer bridge of docs/runtime.md: counters and timers from a runtime's events, gauges from its metrics. */
class MicrometerBridgeTest {
    final ManualClock clock = new ManualClock();
    final ManualExecutor executor = new ManualExecutor();
    final TransitionEngine engine = TransitionEngine.builder().store(new InMemoryStore()).clock(clock).build();
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    double events(String kind) {
        return registry.get("statekit.events").tags("machine", "order", "queue", "order", "kind", kind).counter().count();
    }

    long timed(String kind) {
        return registry.get("statekit.event.duration").tags("kind", kind).timer().count();
    }

    double gauge(String name, String... tags) {
        return registry.get(name).tags("machine", "order", "queue", "order").tags(tags).gauge().value();
    }

    @Test
    void eventsBecomeCountersAndTimersAndASnapshotBecomesGauges() {
        MicrometerBridge bridge = new MicrometerBridge(registry);
        TaskRuntime runtime = TaskRuntime.builder(engine).owner("shipping").executor(executor).workers(1)
                .listener(bridge)
                .register(Orders.ORDER, ctx -> {
                    clock.advance(Duration.ofSeconds(1));
                    int items = ctx.task().get(Orders.ITEMS, 0);
                    if (items == 0) return WorkResult.fatal("EMPTY_ORDER", "nothing to ship");
                    if (items == 2 && ctx.task().record().retries() == 0) return WorkResult.retryable("CARRIER_DOWN", "503");
                    return WorkResult.success(Orders.TRACKING, "TRK-" + items);
                })
                .build();
        for (int items : new int[] {1, 0, 2}) {
            engine.fire(Orders.ORDER, Orders.place(engine, items), Orders.Event.PAY, Command.user("ann")).orElseThrow();
        }
        runtime.start();
        executor.runAll();
        clock.advance(Duration.ofSeconds(10));      // past the retry's back-off
        executor.runAll();

        assertThat(events("claimed")).isEqualTo(4);
        assertThat(events("succeeded")).isEqualTo(2);
        assertThat(events("failed")).isEqualTo(1);
        assertThat(events("retried")).isEqualTo(1);
        assertThat(timed("succeeded")).isEqualTo(2);
        assertThat(registry.get("statekit.event.duration").tags("kind", "succeeded").timer().totalTime(java.util.concurrent.TimeUnit.SECONDS))
                .as("each shipment took a second on the clock").isEqualTo(2.0);

        bridge.record(runtime.metrics());
        assertThat(gauge("statekit.tasks", "state", "SHIPPED")).isEqualTo(2);
        assertThat(gauge("statekit.tasks", "state", "FAILED")).isEqualTo(1);
        assertThat(gauge("statekit.tasks.running")).isZero();
        assertThat(gauge("statekit.tasks.oldest.ready.seconds")).isZero();
        runtime.halt();
    }
}
