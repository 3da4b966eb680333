package com.example.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.statekit.core.TransitionEngine;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The application on a random port, on the published artifacts: a task created in a committed
 * {@code @Transactional} method runs, one whose transaction rolls back never exists, the dashboard
 * answers under {@code /statekit} and Actuator's health has the {@code statekit} component.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class OrdersApplicationTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @LocalServerPort
    int port;

    @Autowired
    OrderDesk orders;

    @Autowired
    TransitionEngine engine;

    @Autowired
    JdbcClient jdbc;

    final HttpClient http = HttpClient.newHttpClient();

    HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Reads the shipment until it is {@code state}, for at most 30 seconds; returns the last state read. */
    Shipments.State until(long shipment, Shipments.State state) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        Shipments.State now;
        do {
            now = engine.find(Shipments.SHIPMENT, shipment).orElseThrow().state();
            if (now == state) return now;
            Thread.onSpinWait();
        } while (System.nanoTime() < deadline);
        return now;
    }

    @Test
    void aShipmentCreatedInACommittedTransactionRuns() {
        long shipment = orders.place(3);
        assertThat(until(shipment, Shipments.State.SHIPPED)).isEqualTo(Shipments.State.SHIPPED);
        long order = engine.find(Shipments.SHIPMENT, shipment).orElseThrow().get(Shipments.ORDER, 0L);
        assertThat(jdbc.sql("select shipped from orders where id = ?").param(order).query(Boolean.class).single()).isTrue();
    }

    @Test
    void aShipmentCreatedInATransactionThatRollsBackNeverExists() {
        long before = jdbc.sql("select count(*) from orders").query(Long.class).single();
        assertThatThrownBy(() -> orders.place(OrderDesk.STOCK + 1)).isInstanceOfSatisfying(OrderDesk.OutOfStock.class, refused -> {
            assertThat(engine.find(Shipments.SHIPMENT, refused.shipment)).isEmpty();
        });
        assertThat(jdbc.sql("select count(*) from orders").query(Long.class).single()).isEqualTo(before);
        // the transaction is gone, not the engine: the next order's shipment runs
        long next = orders.place(1);
        assertThat(until(next, Shipments.State.SHIPPED)).isEqualTo(Shipments.State.SHIPPED);
    }

    @Test
    void theDashboardAnswersUnderItsPath() throws Exception {
        HttpResponse<String> page = get("/statekit");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
        HttpResponse<String> overview = get("/statekit/api/overview");
        assertThat(overview.statusCode()).isEqualTo(200);
        JsonNode body = JSON.readTree(overview.body());
        assertThat(body.path("system").asText()).isEqualTo("orders");
        assertThat(body.path("readOnly").asBoolean()).isTrue();
        assertThat(body.path("machines").toString()).contains("\"shipment\"");
        long shipment = orders.place(2);
        HttpResponse<String> task = get("/statekit/api/tasks/" + shipment);
        assertThat(task.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(task.body()).toString()).contains("\"shipment\"");
        HttpResponse<String> cancel = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/statekit/api/tasks/" + shipment + "/events"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"event\":\"CANCEL\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(cancel.statusCode()).as("read-only by default").isEqualTo(403);
        assertThat(JSON.readTree(cancel.body()).path("error_code").asText()).isEqualTo("FORBIDDEN");
    }

    @Test
    void actuatorsHealthShowsStatekit() throws Exception {
        assertThat(until(orders.place(1), Shipments.State.SHIPPED)).isEqualTo(Shipments.State.SHIPPED);
        HttpResponse<String> health = get("/actuator/health");
        assertThat(health.statusCode()).isEqualTo(200);
        JsonNode statekit = JSON.readTree(health.body()).path("components").path("statekit");
        assertThat(statekit.path("status").asText()).isEqualTo("UP");
        assertThat(statekit.path("details").path("runtime").asText()).isEqualTo("running");
        assertThat(statekit.path("details").path("queues").path("shipment").asText()).isEqualTo("active");
        assertThat(get("/actuator/metrics/statekit.task.attempts").statusCode()).isEqualTo(200);
    }
}
