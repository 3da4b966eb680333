package dev.statekit.examples.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.statekit.core.TransitionEngine;
import dev.statekit.dashboard.Dashboard;
import dev.statekit.examples.quickstart.Orders;
import dev.statekit.store.memory.InMemoryStore;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletRegistration;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The programs of docs/dashboard.md: the dashboard on the JDK's HTTP server, and registered as a servlet. */
class PlainDashboardTest {
    final TransitionEngine engine = TransitionEngine.builder().store(new InMemoryStore()).build();

    @Test
    void theJdkServerServesThePageAndTheApiAndTheAuthorizationDecidesEachChange() throws Exception {
        long id = Orders.place(engine, 2);
        HttpServer server = PlainDashboard.serve(engine, 0, Set.of("olga"), Set.of("ada"));
        try {
            String base = "http://127.0.0.1:" + server.getAddress().getPort() + "/statekit";
            HttpClient client = HttpClient.newHttpClient();
            HttpResponse<String> page = client.send(HttpRequest.newBuilder(URI.create(base)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.body()).contains("/statekit/assets/app.js");
            HttpResponse<String> overview = client.send(HttpRequest.newBuilder(URI.create(base + "/api/overview")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(overview.body()).contains("\"system\":\"orders\"", "\"name\":\"order\"");

            // a user who is no operator, then an operator from another site, then the operator from the page
            assertThat(pay(client, base, id, "guest", base).statusCode()).isEqualTo(403);
            HttpResponse<String> crossSite = pay(client, base, id, "olga", "http://evil.example");
            assertThat(crossSite.statusCode()).isEqualTo(403);
            assertThat(crossSite.body()).contains("CROSS_SITE_REQUEST");
            assertThat(engine.find(Orders.ORDER, id).orElseThrow().state()).isEqualTo(Orders.State.CREATED);
            HttpResponse<String> paid = pay(client, base, id, "olga", base);
            assertThat(paid.statusCode()).as(paid.body()).isEqualTo(200);
            assertThat(engine.find(Orders.ORDER, id).orElseThrow().state()).isEqualTo(Orders.State.PAID);
            assertThat(engine.history(Orders.ORDER, id).get(engine.history(Orders.ORDER, id).size() - 1).entry().actor()).isEqualTo("olga");

            String delete = "{\"machine\":\"order\",\"upTo\":" + id + "}";
            assertThat(post(client, base + "/api/bulk/delete", delete, "olga", base).statusCode()).isEqualTo(403);
            assertThat(post(client, base + "/api/bulk/delete", delete, "ada", base).statusCode()).isEqualTo(200);
        } finally {
            server.stop(0);
        }
    }

    private static HttpResponse<String> pay(HttpClient client, String base, long id, String user, String origin) throws Exception {
        return post(client, base + "/api/tasks/" + id + "/events", "{\"event\":\"PAY\"}", user, origin);
    }

    private static HttpResponse<String> post(HttpClient client, String url, String body, String user, String origin) throws Exception {
        URI o = URI.create(origin);
        return client.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json").header("X-Forwarded-User", user)
                .header("Origin", o.getScheme() + "://" + o.getAuthority()).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theServletIsRegisteredAtTheBasePathAndBelow() {
        List<String> calls = new ArrayList<>();
        ServletRegistration.Dynamic registration = (ServletRegistration.Dynamic) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ServletRegistration.Dynamic.class}, (proxy, m, args) -> {
                    calls.add(m.getName() + " " + java.util.Arrays.deepToString(args));
                    return m.getName().equals("addMapping") ? Set.of() : null;
                });
        ServletContext context = (ServletContext) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {ServletContext.class},
                (proxy, m, args) -> {
                    calls.add(m.getName() + " " + args[0] + " " + args[1].getClass().getSimpleName());
                    return registration;
                });
        Dashboard dashboard = Dashboard.builder(engine).machines(Orders.ORDER).basePath("/ops/statekit").build();
        assertThat(ServletDashboard.register(context, dashboard)).isSameAs(registration);
        assertThat(calls).containsExactly("addServlet statekit-dashboard DashboardServlet", "addMapping [[/ops/statekit/*]]");
    }
}
