package dev.statekit.examples.gettingstarted;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;

import dev.statekit.core.Attribute;
import dev.statekit.core.Machine;
import dev.statekit.core.RetryPolicy;
import java.time.Duration;

/** An order: paid by its customer, shipped by a worker, delivered. */
public final class Order {
    public enum State { CREATED, PAID, SHIPPING, SHIPPED, DELIVERED, CANCELLED, FAILED }

    public enum Event { PAY, CANCEL, SHIP, SHIPPED, SHIPPING_FAILED, DELIVER }

    public static final Attribute<String> CUSTOMER = Attribute.string("customer");
    public static final Attribute<String> ADDRESS = Attribute.string("address");
    public static final Attribute<String> TRACKING = Attribute.string("tracking");

    public static final Machine<State, Event> MACHINE = Machine.builder("order", State.class, Event.class)
            .initial(State.CREATED)
            .terminal(State.DELIVERED, State.CANCELLED, State.FAILED)
            .transition(State.CREATED, Event.PAY, State.PAID, USER)
            .transition(State.CREATED, Event.CANCEL, State.CANCELLED, USER)
            .transition(State.PAID, Event.CANCEL, State.CANCELLED, USER)
            .transition(State.PAID, Event.SHIP, State.SHIPPING, SYSTEM)
            .transition(State.SHIPPING, Event.SHIPPED, State.SHIPPED, SYSTEM)
            .transition(State.SHIPPING, Event.SHIPPING_FAILED, State.FAILED, SYSTEM)
            .transition(State.SHIPPED, Event.DELIVER, State.DELIVERED, USER)
            .refuse(State.SHIPPED, Event.CANCEL, "ALREADY_SHIPPED", "the order has left the warehouse")
            .run(r -> r.claim(State.PAID, Event.SHIP)
                    .success(Event.SHIPPED)
                    .fatal(Event.SHIPPING_FAILED)
                    .retry(RetryPolicy.exponential(3, Duration.ofMillis(200), Duration.ofSeconds(5))))
            .build();

    private Order() {}
}
