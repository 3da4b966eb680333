package com.example.orders;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;

import dev.statekit.core.Attribute;
import dev.statekit.core.Machine;

/** The shipment of an order: packed by a worker once the order is committed, or cancelled by a person. */
public final class Shipments {
    /** The state of a shipment. */
    public enum State { WAITING, PACKING, SHIPPED, FAILED, CANCELLED }

    /** What happens to a shipment. */
    public enum Event { PACK, PACKED, GIVE_UP, CANCEL }

    /** The order a shipment is for. */
    public static final Attribute<Long> ORDER = Attribute.longInteger("order");

    /** The shipment machine. */
    public static final Machine<State, Event> SHIPMENT = Machine.builder("shipment", State.class, Event.class)
            .initial(State.WAITING)
            .terminal(State.SHIPPED, State.FAILED, State.CANCELLED)
            .transition(State.WAITING, Event.PACK, State.PACKING, SYSTEM)
            .transition(State.PACKING, Event.PACKED, State.SHIPPED, SYSTEM)
            .transition(State.PACKING, Event.GIVE_UP, State.FAILED, SYSTEM)
            .transition(State.WAITING, Event.CANCEL, State.CANCELLED, USER)
            .run(r -> r.claim(State.WAITING, Event.PACK).success(Event.PACKED).fatal(Event.GIVE_UP))
            .build();

    private Shipments() {}
}
