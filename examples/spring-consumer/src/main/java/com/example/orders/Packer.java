package com.example.orders;

import dev.statekit.core.spi.WorkContext;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/** The worker of shipments: marks the order shipped. */
@Component
public class Packer implements Worker<Shipments.State> {
    private final JdbcClient jdbc;

    /**
     * Creates the worker.
     *
     * @param jdbc the application's database
     */
    public Packer(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    @Override
    public WorkResult work(WorkContext<Shipments.State> context) {
        long order = context.task().get(Shipments.ORDER, 0L);
        jdbc.sql("update orders set shipped = true where id = ?").param(order).update();
        return WorkResult.success();
    }
}
