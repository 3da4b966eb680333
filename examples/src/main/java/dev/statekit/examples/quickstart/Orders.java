package dev.statekit.examples.quickstart;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;

import dev.statekit.core.Attribute;
import dev.statekit.core.HistoryStep;
import dev.statekit.core.Machine;
import dev.statekit.core.RetryPolicy;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * A simple lifecycle with one worker, as docs/runtime.md shows it: an order is created, paid by
 * its user, shipped by a worker, and delivered. One running state; retries wait in place (back in
 * {@code PAID}, not runnable before their back-off); release and lease recovery put a shipping
 * order back in {@code PAID} without a row of their own.
 */
public final class Orders {
    /** The state of an order. */
    public enum State { CREATED, PAID, SHIPPING, SHIPPED, DELIVERED, FAILED }

    /** What happens to an order. */
    public enum Event { PAY, SHIP, SHIPPED, SHIPPING_FAILED, DELIVER }

    /** The order machine. */
    public static final Machine<State, Event> ORDER = Machine.builder("order", State.class, Event.class)
            .initial(State.CREATED)
            .terminal(State.DELIVERED, State.FAILED)
            .transition(State.CREATED, Event.PAY, State.PAID, USER)
            .transition(State.PAID, Event.SHIP, State.SHIPPING, SYSTEM)
            .transition(State.SHIPPING, Event.SHIPPED, State.SHIPPED, SYSTEM)
            .transition(State.SHIPPING, Event.SHIPPING_FAILED, State.FAILED, SYSTEM)
            .transition(State.SHIPPED, Event.DELIVER, State.DELIVERED, USER)
            .run(r -> r.claim(State.PAID, Event.SHIP)
                    .success(Event.SHIPPED)
                    .fatal(Event.SHIPPING_FAILED)
                    .retry(RetryPolicy.exponential(5, Duration.ofSeconds(2), Duration.ofMinutes(5))))
            .build();

    /** How many items an order holds. */
    public static final Attribute<Integer> ITEMS = Attribute.integer("items");
    /** The carrier's tracking number, recorded by the shipper. */
    public static final Attribute<String> TRACKING = Attribute.string("tracking");

    private Orders() {}

    /** Places an order of {@code items} items; returns its id. */
    public static long place(TransitionEngine engine, int items) {
        return engine.create(ORDER, TaskSpec.defaults().attribute(ITEMS, items)).task().id();
    }

    /** Returns a shipper that records the tracking number {@code carrier} gives for an order's item count. */
    public static Worker<State> shipper(IntFunction<String> carrier) {
        return ctx -> WorkResult.success(TRACKING, carrier.apply(ctx.task().get(ITEMS, 0)));
    }

    /** Returns an order's history as lines "FROM -EVENT-> TO", read in the machine's enums. */
    public static List<String> timeline(TransitionEngine engine, long id) {
        List<String> lines = new ArrayList<>();
        for (HistoryStep<State, Event> step : engine.history(ORDER, id)) {
            lines.add(step.from() + " -" + step.eventName() + "-> " + step.to());
        }
        return lines;
    }

    /** Returns a runtime that ships paid orders with {@code shipper}. */
    public static TaskRuntime shipping(TransitionEngine engine, Worker<State> shipper) {
        return TaskRuntime.builder(engine).workers(4).register(ORDER, shipper).build();
    }
}
