package dev.statekit.examples.gettingstarted;

import dev.statekit.core.spi.WorkContext;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.core.spi.Worker;
import java.util.concurrent.atomic.AtomicInteger;

/** Books a parcel with the carrier for a paid order; the carrier is busy the first time. */
public final class Shipper implements Worker<Order.State> {
    private final AtomicInteger calls = new AtomicInteger();

    @Override
    public WorkResult work(WorkContext<Order.State> context) {
        String address = context.task().get(Order.ADDRESS);
        if (calls.incrementAndGet() == 1) {
            return WorkResult.retryable("CARRIER_BUSY", "the carrier answered 503");
        }
        return WorkResult.success(Order.TRACKING, "TRK-" + context.task().id() + " to " + address);
    }
}
