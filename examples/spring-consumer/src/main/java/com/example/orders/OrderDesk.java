package com.example.orders;

import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import java.util.Objects;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Places orders: the order's row and its shipment task in one transaction. */
@Service
public class OrderDesk {
    /** The most items an order may have. */
    public static final int STOCK = 10;

    private final JdbcClient jdbc;
    private final TransitionEngine engine;

    /**
     * Creates the service.
     *
     * @param jdbc   the application's database
     * @param engine the starter's engine
     */
    public OrderDesk(JdbcClient jdbc, TransitionEngine engine) {
        this.jdbc = jdbc;
        this.engine = engine;
    }

    /** An order refused after its row and its task were written: the transaction rolls both back. */
    public static final class OutOfStock extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /** The shipment task the refused order had created. */
        public final long shipment;

        OutOfStock(int items, long shipment) {
            super("out of stock: " + items + " items asked, " + STOCK + " in stock");
            this.shipment = shipment;
        }
    }

    /**
     * Places an order of {@code items} and creates its shipment in the same transaction.
     *
     * @param items how many items
     * @return the shipment task's id
     * @throws OutOfStock when there are more items than {@link #STOCK}, after both writes
     */
    @Transactional
    public long place(int items) {
        KeyHolder key = new GeneratedKeyHolder();
        jdbc.sql("insert into orders (items) values (?)").param(items).update(key, "id");
        long order = Objects.requireNonNull(key.getKey()).longValue();
        long shipment = engine.create(Shipments.SHIPMENT, TaskSpec.defaults().attribute(Shipments.ORDER, order)).task().id();
        if (items > STOCK) throw new OutOfStock(items, shipment);
        return shipment;
    }
}
