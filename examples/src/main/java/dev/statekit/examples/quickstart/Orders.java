package dev.statekit.examples.quickstart;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;

import dev.statekit.core.Machine;
import dev.statekit.core.RetryPolicy;
import dev.statekit.core.TaskRuntime;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.Worker;
import java.time.Duration;

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

    private Orders() {}

    /** Returns a runtime that ships paid orders with {@code shipper}. */
    public static TaskRuntime shipping(TransitionEngine engine, Worker<State> shipper) {
        return TaskRuntime.builder(engine).workers(4).register(ORDER, shipper).build();
    }
}
