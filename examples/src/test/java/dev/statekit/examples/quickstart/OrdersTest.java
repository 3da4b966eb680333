package dev.statekit.examples.quickstart;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.Command;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.examples.quickstart.Orders.Event;
import dev.statekit.examples.quickstart.Orders.State;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.TaskRecord;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The order lifecycle of docs/runtime.md: six states, five events, one worker, retries in place. */
class OrdersTest {
    final ManualClock clock = new ManualClock();
    final ManualExecutor executor = new ManualExecutor();
    final InMemoryStore store = new InMemoryStore();
    final TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock).build();
    final Deque<WorkResult> answers = new ArrayDeque<>();

    TaskRuntime runtime(String owner) {
        return TaskRuntime.builder(engine).owner(owner).executor(executor).workers(2).leaseDuration(Duration.ofSeconds(30))
                .register(Orders.ORDER, ctx -> answers.isEmpty() ? WorkResult.success() : answers.poll()).build();
    }

    TaskRecord order(long id) {
        return store.find(id).orElseThrow();
    }

    @Test
    void anOrdersTypedAttributesAndItsTimeline() {
        long id = Orders.place(engine, 3);
        assertThat(store.find(id).orElseThrow().attributes().get("items")).as("the string underneath").isEqualTo("3");
        engine.fire(Orders.ORDER, id, Event.PAY, Command.user("ann")).orElseThrow();
        TaskRuntime rt = TaskRuntime.builder(engine).owner("s").executor(executor).workers(1).leaseDuration(Duration.ofSeconds(30))
                .register(Orders.ORDER, Orders.shipper(items -> "TRK-" + items)).build();
        rt.start();
        executor.runAll();
        var shipped = engine.find(Orders.ORDER, id).orElseThrow();
        assertThat(shipped.state()).isEqualTo(State.SHIPPED);
        assertThat(shipped.get(Orders.TRACKING)).isEqualTo("TRK-3");
        assertThat(shipped.get(Orders.ITEMS)).isEqualTo(3);
        engine.fire(Orders.ORDER, id, Event.DELIVER, Command.user("ann")).orElseThrow();
        assertThat(Orders.timeline(engine, id)).containsExactly(
                "CREATED -PAY-> PAID", "PAID -SHIP-> SHIPPING", "SHIPPING -SHIPPED-> SHIPPED", "SHIPPED -DELIVER-> DELIVERED");
        rt.halt();
    }

    @Test
    void anOrderIsPaidShippedWithARetryThatWaitsInPlaceAndDelivered() {
        assertThat(Orders.ORDER.states()).hasSize(6);
        assertThat(Orders.ORDER.transitions()).hasSize(5);
        TaskRuntime rt = runtime("shipper");
        rt.start();
        long id = engine.create(Orders.ORDER).task().id();
        engine.fire(Orders.ORDER, id, Event.PAY, Command.user("ann")).orElseThrow();
        answers.add(WorkResult.retryable("CARRIER_BUSY", "the carrier answered 503"));
        executor.runAll();
        TaskRecord waiting = order(id);
        assertThat(waiting.state()).isEqualTo(State.PAID.name());
        assertThat(waiting.retries()).isEqualTo(1);
        assertThat(waiting.lastError().code()).isEqualTo("CARRIER_BUSY");
        assertThat(waiting.notBefore()).isAfter(clock.now());
        clock.advance(Duration.ofSeconds(3));
        executor.runAll();
        assertThat(order(id).state()).isEqualTo(State.SHIPPED.name());
        engine.fire(Orders.ORDER, id, Event.DELIVER, Command.user("ann")).orElseThrow();
        assertThat(store.history(id)).extracting(HistoryEntry::event)
                .containsExactly("PAY", "SHIP", "RETRY", "SHIP", "SHIPPED", "DELIVER");
        rt.halt();
    }

    @Test
    void anOrderWhoseShipperDiedGoesBackToPaidWithoutARowOfItsOwn() {
        long id = engine.create(Orders.ORDER).task().id();
        engine.fire(Orders.ORDER, id, Event.PAY, Command.user("ann")).orElseThrow();
        TaskRuntime first = runtime("first");
        first.start();
        while (order(id).lease() == null) assertThat(executor.runNext()).isTrue();
        first.halt();                  // died while shipping
        executor.drop();
        TaskRuntime second = runtime("second");
        second.start();
        clock.advance(Duration.ofSeconds(31));
        executor.runAll();
        assertThat(order(id).state()).isEqualTo(State.SHIPPED.name());
        List<String> events = store.history(id).stream().map(HistoryEntry::event).toList();
        assertThat(events).containsExactly("PAY", "SHIP", "RELEASE", "SHIP", "SHIPPED");
        second.halt();
    }
}
