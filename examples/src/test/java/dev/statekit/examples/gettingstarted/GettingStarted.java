package dev.statekit.examples.gettingstarted;

import com.zaxxer.hikari.HikariDataSource;
import dev.statekit.core.Command;
import dev.statekit.core.HistoryStep;
import dev.statekit.core.Outcome;
import dev.statekit.core.Task;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.Verdict;
import dev.statekit.store.HistoryEntry;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/** Places an order, lets the runtime ship it, tries two cancellations, delivers it, and prints its history. */
public final class GettingStarted {
    private GettingStarted() {}

    public static void main(String[] args) throws Exception {
        run(Path.of(args.length > 0 ? args[0] : "data"), System.out);
    }

    public static void run(Path directory, PrintStream out) throws Exception {
        try (HikariDataSource pool = Database.pool(directory)) {
            TransitionEngine engine = TransitionEngine.builder()
                    .store(Database.store(pool))
                    .authorizer(request -> Verdict.when(
                            !request.event().equals("CANCEL")
                                    || Objects.equals(request.actor(), request.task().attributes().get(Order.CUSTOMER.name())),
                            "NOT_YOUR_ORDER", "only the customer may cancel an order"))
                    .build();
            TaskRuntime runtime = TaskRuntime.builder(engine)
                    .owner("shipping-1")
                    .workers(2)
                    .register(Order.MACHINE, new Shipper())
                    .build();
            runtime.start();

            long id = engine.create(Order.MACHINE, TaskSpec.defaults().attribute(Order.CUSTOMER, "ana")).task().id();
            engine.fire(Order.MACHINE, id, Order.Event.PAY, Command.user("ana").set(Order.ADDRESS, "1 Main St")).orElseThrow();

            Task<Order.State> shipped = engine.await(Order.MACHINE, id, Set.of(Order.State.SHIPPED), Duration.ofSeconds(30)).get();
            out.println("order " + id + " is " + shipped.state() + ", tracking " + shipped.get(Order.TRACKING));

            for (String customer : new String[] {"bob", "ana"}) {
                Outcome<Order.State> cancel = engine.fire(Order.MACHINE, id, Order.Event.CANCEL, Command.user(customer));
                if (cancel instanceof Outcome.Refused<Order.State> refused) {
                    out.println(customer + " may not cancel: " + refused.code() + " " + refused.reasonCode()
                            + " (HTTP " + refused.code().httpStatus() + "): " + refused.message());
                }
            }
            engine.fire(Order.MACHINE, id, Order.Event.DELIVER, Command.user("ana").reason("signed for")).orElseThrow();

            for (HistoryStep<Order.State, Order.Event> step : engine.history(Order.MACHINE, id)) {
                HistoryEntry entry = step.entry();
                out.println(entry.version() + " " + step.from() + " -" + step.eventName() + "-> " + step.to()
                        + " by " + entry.source() + " " + entry.actor() + (entry.reason() == null ? "" : ": " + entry.reason()));
            }
            runtime.stop(Duration.ofSeconds(10)).get();
        }
    }
}
