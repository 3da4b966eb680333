package dev.statekit.test.docs;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;

import dev.statekit.core.Machine;
import dev.statekit.core.RetryPolicy;
import dev.statekit.core.spi.WorkContext;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import java.time.Duration;

/** The machine and worker docs/testing.md tests. */
final class Orders {
    enum State { PAID, SHIPPING, WAITING, SHIPPED, FAILED, CANCELED }

    enum Event { SHIP, DELIVERED, BUSY, AGAIN, LOST, REQUEUE, CANCEL, RETRY }

    static final Machine<State, Event> ORDERS = Machine.builder("order", State.class, Event.class)
            .initial(State.PAID)
            .terminal(State.SHIPPED, State.CANCELED)
            .transition(State.PAID, Event.SHIP, State.SHIPPING, SYSTEM)
            .transition(State.SHIPPING, Event.DELIVERED, State.SHIPPED, SYSTEM)
            .transition(State.SHIPPING, Event.BUSY, State.WAITING, SYSTEM)
            .transition(State.WAITING, Event.AGAIN, State.PAID, SYSTEM)
            .transition(State.SHIPPING, Event.LOST, State.FAILED, SYSTEM)
            .transition(State.SHIPPING, Event.REQUEUE, State.PAID, SYSTEM)
            .transition(State.PAID, Event.CANCEL, State.CANCELED, USER)
            .transition(State.WAITING, Event.CANCEL, State.CANCELED, USER)
            .transition(State.SHIPPING, Event.CANCEL, State.CANCELED, USER, SYSTEM)
            .transition(State.FAILED, Event.RETRY, State.PAID, USER)
            .run(r -> r.claim(State.PAID, Event.SHIP).success(Event.DELIVERED).retryable(Event.BUSY).fatal(Event.LOST)
                    .afterWait(State.WAITING, Event.AGAIN).release(Event.REQUEUE).cancel(Event.CANCEL)
                    .retry(RetryPolicy.exponential(3, Duration.ofSeconds(1), Duration.ofSeconds(10))).recoverByRequeue())
            .build();

    /** Ships an order: every seventh has no address, every third finds the carrier busy on its first attempt. */
    static final class ShippingWorker implements Worker<State> {
        @Override
        public WorkResult work(WorkContext<State> ctx) {
            long id = ctx.task().id();
            if (id % 7 == 0) return WorkResult.fatal("NO_ADDRESS", "order " + id + " has no address");
            if (id % 3 == 0 && ctx.task().record().attempts() == 1) return WorkResult.retryable("CARRIER_BUSY", "try later");
            return WorkResult.success();
        }
    }

    private Orders() {
    }
}
