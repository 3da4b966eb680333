package dev.statekit.examples.spring;

import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import java.util.Objects;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Places orders: the order's row and its confirmation task in one transaction. */
@Service
public class OrderService {
    /** The most items an order may hold. */
    public static final int STOCK = 100;

    private final JdbcClient jdbc;
    private final TransitionEngine engine;

    /**
     * Creates the service.
     *
     * @param jdbc   the application's database
     * @param engine the starter's engine
     */
    public OrderService(JdbcClient jdbc, TransitionEngine engine) {
        this.jdbc = jdbc;
        this.engine = engine;
    }

    /** An order placed, and its confirmation task. */
    public record Placed(long order, long confirmation) {}

    /**
     * Places an order of {@code items} items with its confirmation task. Both are written in this
     * method's transaction: when it throws, neither exists, and the confirmation never runs.
     *
     * @param items how many items
     * @return the order and its confirmation task
     * @throws IllegalArgumentException if {@code items} exceeds the stock (after both writes: the rollback undoes them)
     */
    @Transactional
    public Placed place(int items) {
        KeyHolder key = new GeneratedKeyHolder();
        jdbc.sql("insert into shop_orders (items) values (?)").param(items).update(key, "id");
        long order = Objects.requireNonNull(key.getKey()).longValue();
        long confirmation = engine.create(Confirmations.CONFIRMATION, TaskSpec.defaults().attribute(Confirmations.ORDER, order)).task().id();
        if (items > STOCK) throw new IllegalArgumentException("out of stock: " + items + " items asked, " + STOCK + " in stock");
        return new Placed(order, confirmation);
    }
}
