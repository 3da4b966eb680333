package dev.statekit.examples.spring;

import dev.statekit.core.spi.WorkContext;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/** Sends an order's confirmation (here: marks the order confirmed), in a transaction of its own. */
@Component
public class ConfirmationSender implements Worker<Confirmations.State> {
    private final JdbcClient jdbc;

    /**
     * Creates the sender.
     *
     * @param jdbc the application's database
     */
    public ConfirmationSender(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    @Override
    public WorkResult work(WorkContext<Confirmations.State> context) {
        long order = context.task().get(Confirmations.ORDER, 0L);
        jdbc.sql("update shop_orders set confirmed = true where id = ?").param(order).update();
        return WorkResult.success();
    }
}
