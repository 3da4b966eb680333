package dev.statekit.examples.spring;

import static dev.statekit.store.TriggerSource.SYSTEM;

import dev.statekit.core.Attribute;
import dev.statekit.core.Machine;
import dev.statekit.core.RetryPolicy;
import java.time.Duration;

/** The confirmation of an order: sent once the order is committed, retried when sending fails. */
public final class Confirmations {
    /** The state of a confirmation. */
    public enum State { QUEUED, SENDING, SENT, FAILED }

    /** What happens to a confirmation. */
    public enum Event { SEND, DELIVERED, GIVE_UP }

    /** The order a confirmation is for. */
    public static final Attribute<Long> ORDER = Attribute.longInteger("order");

    /** The confirmation machine. */
    public static final Machine<State, Event> CONFIRMATION = Machine.builder("confirmation", State.class, Event.class)
            .initial(State.QUEUED)
            .terminal(State.SENT, State.FAILED)
            .transition(State.QUEUED, Event.SEND, State.SENDING, SYSTEM)
            .transition(State.SENDING, Event.DELIVERED, State.SENT, SYSTEM)
            .transition(State.SENDING, Event.GIVE_UP, State.FAILED, SYSTEM)
            .run(r -> r.claim(State.QUEUED, Event.SEND)
                    .success(Event.DELIVERED)
                    .fatal(Event.GIVE_UP)
                    .retry(RetryPolicy.exponential(5, Duration.ofSeconds(1), Duration.ofMinutes(1))))
            .build();

    private Confirmations() {}
}
