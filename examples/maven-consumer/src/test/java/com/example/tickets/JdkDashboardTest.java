package com.example.tickets;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.dashboard.Authorization;
import dev.statekit.dashboard.Dashboard;
import dev.statekit.store.memory.InMemoryStore;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * statekit-dashboard served by a plain Java program on the JDK's own HTTP server, with nothing but
 * the published artifacts: its page, its API, and a change made as the user a header names.
 */
class JdkDashboardTest {
    final TransitionEngine engine = TransitionEngine.builder().store(new InMemoryStore()).build();
    final HttpClient http = HttpClient.newHttpClient();
    HttpServer server;

    @AfterEach
    void stop() {
        if (server != null) server.stop(0);
    }

    HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void thePageAndTheApiAnswerUnderTheBasePathAndAChangeIsWrittenAsItsUser() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        Dashboard dashboard = Dashboard.builder(engine)
                .name("tickets")
                .machines(Tickets.TICKETS)
                .basePath("/ops")
                .identity(request -> request.header("X-User"))
                .authorization(Authorization.allow((user, action, target) -> "ada".equals(user) && action.equals("close")))
                .build();
        dashboard.mount(server);
        server.start();
        String base = "http://127.0.0.1:" + server.getAddress().getPort();
        long id = engine.create(Tickets.TICKETS, TaskSpec.defaults()).task().id();

        HttpResponse<String> page = send(HttpRequest.newBuilder(URI.create(base + "/ops")));
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
        assertThat(page.body()).contains("/ops/assets/");
        assertThat(send(HttpRequest.newBuilder(URI.create(base + "/ops/assets/app.js"))).statusCode()).isEqualTo(200);

        HttpResponse<String> overview = send(HttpRequest.newBuilder(URI.create(base + "/ops/api/overview")).header("X-User", "ada"));
        assertThat(overview.statusCode()).isEqualTo(200);
        assertThat(overview.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
        assertThat(overview.body()).contains("\"system\":\"tickets\"", "\"user\":\"ada\"", "\"ticket\"");

        String close = base + "/ops/api/tasks/" + id + "/events";
        HttpResponse<String> refused = send(HttpRequest.newBuilder(URI.create(close)).header("X-User", "bob").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"event\":\"CLOSE\"}")));
        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(refused.body()).contains("FORBIDDEN");
        HttpResponse<String> closed = send(HttpRequest.newBuilder(URI.create(close)).header("X-User", "ada").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"event\":\"CLOSE\"}")));
        assertThat(closed.statusCode()).as(closed.body()).isEqualTo(200);
        assertThat(engine.find(Tickets.TICKETS, id).orElseThrow().state()).isEqualTo(Tickets.State.CLOSED);
        HttpResponse<String> task = send(HttpRequest.newBuilder(URI.create(base + "/ops/api/tasks/" + id)).header("X-User", "bob"));
        assertThat(task.body()).contains("\"actor\":\"ada\"");
    }
}
