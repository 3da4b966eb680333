package dev.statekit.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The shop of docs/spring-boot.md, started as an application on a free port and used over HTTP: an
 * order's confirmation runs after the order's commit, an order the stock refuses leaves neither the
 * order nor its task, and Actuator shows statekit's health and meters; the starter's dashboard at
 * {@code /statekit} answers the signed-in operator only, who pauses and resumes a queue with it.
 */
class ShopApplicationTest {
    static final ObjectMapper JSON = new ObjectMapper();
    final HttpClient http = HttpClient.newHttpClient();

    record Reply(int status, JsonNode body) {}

    Reply send(String method, String url) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).method(method, HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        return new Reply(r.statusCode(), r.body().isEmpty() ? JSON.nullNode() : JSON.readTree(r.body()));
    }

    /** Reads {@code url} until its {@code field} is {@code expected}, for at most 30 seconds; returns the last body. */
    JsonNode until(String url, String field, String expected) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        JsonNode body;
        do {
            body = send("GET", url).body();
            if (expected.equals(body.path(field).asText())) return body;
            Thread.onSpinWait();
        } while (System.nanoTime() < deadline);
        return body;
    }

    @Test
    void ordersPlacedOverHttpAreConfirmedByTheWorkerBeanAndARefusedOrderLeavesNothing() throws Exception {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(ShopApplication.class)
                .run("--server.port=0", "--spring.datasource.url=jdbc:h2:mem:shop-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1")) {
            String base = "http://127.0.0.1:" + ((WebServerApplicationContext) app).getWebServer().getPort();

            Reply placed = send("POST", base + "/orders?items=3");
            assertThat(placed.status()).isEqualTo(201);
            long order = placed.body().get("order").asLong();
            long confirmation = placed.body().get("confirmation").asLong();
            assertThat(until(base + "/confirmations/" + confirmation, "state", "SENT").path("state").asText()).isEqualTo("SENT");
            assertThat(send("GET", base + "/orders/" + order).body().get("confirmed").asBoolean()).isTrue();

            Reply refused = send("POST", base + "/orders?items=" + (OrderService.STOCK + 1));
            assertThat(refused.status()).isEqualTo(409);
            assertThat(refused.body().get("error").asText()).startsWith("out of stock");

            Reply next = send("POST", base + "/orders?items=1");
            assertThat(next.status()).isEqualTo(201);
            long nextConfirmation = next.body().get("confirmation").asLong();
            assertThat(until(base + "/confirmations/" + nextConfirmation, "state", "SENT").path("state").asText()).isEqualTo("SENT");
            // The refused order's row and task were rolled back: two orders, two tasks, both sent.
            JdbcClient jdbc = app.getBean(JdbcClient.class);
            assertThat(jdbc.sql("select count(*) from shop_orders").query(Long.class).single()).isEqualTo(2L);
            assertThat(jdbc.sql("select count(*) from statekit_tasks").query(Long.class).single()).isEqualTo(2L);
            assertThat(jdbc.sql("select count(*) from statekit_tasks where state = 'SENT'").query(Long.class).single()).isEqualTo(2L);

            Reply health = send("GET", base + "/actuator/health");
            assertThat(health.status()).isEqualTo(200);
            JsonNode statekit = health.body().path("components").path("statekit");
            assertThat(statekit.path("status").asText()).isEqualTo("UP");
            assertThat(statekit.path("details").path("runtime").asText()).isEqualTo("running");
            assertThat(statekit.path("details").path("queues").path("confirmation").asText()).isEqualTo("active");

            Reply attempts = send("GET", base + "/actuator/metrics/statekit.task.attempts");
            assertThat(attempts.status()).isEqualTo(200);
            assertThat(attempts.body().path("measurements").get(0).path("value").asDouble()).isEqualTo(2.0);
        }
    }

    static final String OPERATOR = "Basic " + Base64.getEncoder().encodeToString("operator:operator".getBytes(StandardCharsets.UTF_8));

    HttpResponse<String> asOperator(String method, String url, String origin) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).header("Authorization", OPERATOR);
        if (method.equals("POST")) {
            b.header("Origin", origin).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{}"));
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theDashboardAnswersTheSignedInOperatorWhoPausesAndResumesTheConfirmationQueueWithIt() throws Exception {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(ShopApplication.class)
                .run("--server.port=0", "--spring.datasource.url=jdbc:h2:mem:shop-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1")) {
            String base = "http://127.0.0.1:" + ((WebServerApplicationContext) app).getWebServer().getPort();
            long confirmation = send("POST", base + "/orders?items=2").body().get("confirmation").asLong();
            assertThat(until(base + "/confirmations/" + confirmation, "state", "SENT").path("state").asText()).isEqualTo("SENT");

            assertThat(send("GET", base + "/statekit/api/overview").status()).as("nobody signed in").isEqualTo(401);
            HttpResponse<String> page = asOperator("GET", base + "/statekit", base);
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
            JsonNode overview = JSON.readTree(asOperator("GET", base + "/statekit/api/overview", base).body());
            assertThat(overview.path("system").asText()).isEqualTo("shop");
            assertThat(overview.path("user").asText()).isEqualTo("operator");
            assertThat(overview.path("readOnly").asBoolean()).isFalse();
            assertThat(overview.path("machines").toString()).contains("confirmation");

            HttpResponse<String> crossSite = asOperator("POST", base + "/statekit/api/queues/confirmation/pause", "https://elsewhere.example");
            assertThat(crossSite.statusCode()).isEqualTo(403);
            assertThat(JSON.readTree(crossSite.body()).path("error_code").asText()).isEqualTo("CROSS_SITE_REQUEST");
            HttpResponse<String> paused = asOperator("POST", base + "/statekit/api/queues/confirmation/pause", base);
            assertThat(paused.statusCode()).as(paused.body()).isEqualTo(200);
            assertThat(JSON.readTree(paused.body()).path("paused").asBoolean()).isTrue();
            assertThat(send("GET", base + "/actuator/health").body().path("components").path("statekit").path("details")
                    .path("queues").path("confirmation").asText()).startsWith("paused");
            HttpResponse<String> resumed = asOperator("POST", base + "/statekit/api/queues/confirmation/resume", base);
            assertThat(resumed.statusCode()).as(resumed.body()).isEqualTo(200);
            assertThat(send("GET", base + "/actuator/health").body().path("components").path("statekit").path("details")
                    .path("queues").path("confirmation").asText()).isEqualTo("active");
        }
    }
}
