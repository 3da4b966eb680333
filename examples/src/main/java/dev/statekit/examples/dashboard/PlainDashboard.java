package dev.statekit.examples.dashboard;

import com.sun.net.httpserver.HttpServer;
import dev.statekit.core.TransitionEngine;
import dev.statekit.dashboard.Authorization;
import dev.statekit.dashboard.Dashboard;
import dev.statekit.examples.quickstart.Orders;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Set;

/**
 * The dashboard of the quick start's orders in a plain Java program, on the JDK's own HTTP server:
 * no web framework. A proxy in front signs users in and names them in {@code X-Forwarded-User};
 * everyone it names may look, operators may retry, cancel or pause, and only admins may delete.
 */
public final class PlainDashboard {
    private PlainDashboard() {}

    /**
     * Serves the dashboard of {@code engine}'s orders at {@code http://HOST:PORT/statekit}.
     *
     * @param engine    the engine of the orders
     * @param port      the port, 0 for any free one
     * @param operators who may change things
     * @param admins    who may also delete
     * @return the started server
     * @throws IOException when the port cannot be bound
     */
    public static HttpServer serve(TransitionEngine engine, int port, Set<String> operators, Set<String> admins) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        Dashboard dashboard = Dashboard.builder(engine)
                .name("orders")
                .machines(Orders.ORDER)
                .basePath("/statekit")
                .identity(request -> request.header("X-Forwarded-User"))
                .authorization(Authorization.allow((user, action, target) -> user != null
                        && (admins.contains(user) || operators.contains(user) && !action.contains("delete"))))
                .build();
        dashboard.mount(server);
        server.start();
        return server;
    }
}
