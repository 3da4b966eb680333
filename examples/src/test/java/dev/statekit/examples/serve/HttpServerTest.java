package dev.statekit.examples.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class HttpServerTest {
    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch entered = new CountDownLatch(1);
    private HttpServer server;
    private ApiClient client;

    @BeforeEach
    void start() throws Exception {
        Router router = new Router()
                .get("/items/{id}", x -> Reply.ok(Map.of("id", x.id("id"), "q", x.query("q").orElse(""),
                        "n", x.queryLong("n", 7, 1, 100), "actor", x.actor())))
                .post("/items/{id}/note", x -> {
                    JsonBody body = x.body().requireOnly(List.of("text", "count"));
                    String text = body.requireString("text", 20);
                    long count = body.integer("count", 0, 10).orElse(1L);
                    return Reply.created(Map.of("id", x.id("id"), "text", text, "count", count));
                })
                .post("/slow", x -> {
                    entered.countDown();
                    release.await(30, TimeUnit.SECONDS);
                    return Reply.ok(Map.of());
                })
                .get("/page", x -> Reply.text("text/html; charset=utf-8", "<p>page</p>"))
                .get("/boom", x -> {
                    throw new IllegalStateException("boom");
                });
        // One request at a time. A request waits up to 2 s for its turn: the turn of the request before
        // is given back just after its answer was sent, so a client's next request may come first.
        server = HttpServer.start("127.0.0.1", 0, router, new HttpServer.Limits(1, Duration.ofSeconds(2), 100, 8));
        client = new ApiClient("http://127.0.0.1:" + server.port());
    }

    @AfterEach
    void stop() {
        release.countDown();
        server.close();
    }

    @Test
    void aRouteGetsItsParametersAndAnswersJson() {
        ApiClient.Response r = client.as("alice").get("/items/42?q=hello&n=9");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().path("id").asLong()).isEqualTo(42);
        assertThat(r.field("q")).isEqualTo("hello");
        assertThat(r.json().path("n").asLong()).isEqualTo(9);
        assertThat(r.field("actor")).isEqualTo("alice");
        assertThat(client.get("/items/42").field("actor")).isEqualTo(Exchange.ANONYMOUS);
    }

    @Test
    void idsAndQueryValuesThatAreNotValidAre400NamingTheParameter() {
        for (String id : List.of("abc", "-1", "0", "1234567890123456789", "1e3", "%20")) {
            ApiClient.Response r = client.get("/items/" + id);
            assertThat(r.status()).as(id).isEqualTo(400);
            assertThat(r.field("error_code")).isEqualTo("INVALID_ID");
            assertThat(r.field("field")).isEqualTo("id");
        }
        ApiClient.Response longQuery = client.get("/items/1?q=" + "x".repeat(Exchange.MAX_QUERY_VALUE + 1));
        assertThat(longQuery.status()).isEqualTo(400);
        assertThat(longQuery.field("field")).isEqualTo("q");
        ApiClient.Response notNumber = client.get("/items/1?n=ten");
        assertThat(notNumber.status()).isEqualTo(400);
        assertThat(notNumber.field("field")).isEqualTo("n");
        assertThat(client.get("/items/1?n=101").status()).isEqualTo(400);
        assertThat(client.get("/items/1?q=a&q=b").field("error_code")).isEqualTo("INVALID_QUERY");
        assertThat(client.as("bad actor!").get("/items/1").field("error_code")).isEqualTo("INVALID_ACTOR");
    }

    @Test
    void bodiesAreReadFieldByFieldWith400NamingTheField() {
        ApiClient.Response ok = client.post("/items/3/note", "{\"text\":\"hi\",\"count\":2}");
        assertThat(ok.status()).isEqualTo(201);
        assertThat(ok.field("text")).isEqualTo("hi");

        ApiClient.Response malformed = client.post("/items/3/note", "{\"text\":");
        assertThat(malformed.status()).isEqualTo(400);
        assertThat(malformed.field("error_code")).isEqualTo("MALFORMED_JSON");
        assertThat(client.post("/items/3/note", "[1]").field("error_code")).isEqualTo("INVALID_BODY");
        assertThat(client.post("/items/3/note", "{\"text\":\"a\"} trailing").field("error_code")).isEqualTo("MALFORMED_JSON");

        ApiClient.Response missing = client.post("/items/3/note", "{}");
        assertThat(missing.status()).isEqualTo(400);
        assertThat(missing.field("field")).isEqualTo("text");
        assertThat(client.post("/items/3/note", "{\"text\":5}").field("field")).isEqualTo("text");
        assertThat(client.post("/items/3/note", "{\"text\":\"" + "x".repeat(21) + "\"}").field("field")).isEqualTo("text");
        assertThat(client.post("/items/3/note", "{\"text\":\"a\",\"count\":11}").field("field")).isEqualTo("count");
        assertThat(client.post("/items/3/note", "{\"text\":\"a\",\"count\":1.5}").field("field")).isEqualTo("count");
        ApiClient.Response unknown = client.post("/items/3/note", "{\"text\":\"a\",\"extra\":1}");
        assertThat(unknown.field("error_code")).isEqualTo("UNKNOWN_FIELD");
        assertThat(unknown.field("field")).isEqualTo("extra");
    }

    @Test
    void aBodyOverTheLimitIs413() {
        ApiClient.Response r = client.post("/items/3/note", "{\"text\":\"" + "x".repeat(200) + "\"}");
        assertThat(r.status()).isEqualTo(413);
        assertThat(r.field("error_code")).isEqualTo("PAYLOAD_TOO_LARGE");
    }

    @Test
    void changesAreAcceptedOnlyAsJsonAndNeverFromAnotherSite() {
        ApiClient.Response form = client.post("/items/3/note", "text=hi", "application/x-www-form-urlencoded");
        assertThat(form.status()).isEqualTo(415);
        assertThat(form.field("error_code")).isEqualTo("UNSUPPORTED_MEDIA_TYPE");
        assertThat(client.post("/items/3/note", "{\"text\":\"hi\"}", "text/plain").status()).isEqualTo(415);
        assertThat(client.post("/items/3/note", "{\"text\":\"hi\"}", null).status()).isEqualTo(415);

        HttpRequest evil = client.builder("/items/3/note").header("Content-Type", "application/json")
                .header("Origin", "http://evil.example").POST(HttpRequest.BodyPublishers.ofString("{\"text\":\"hi\"}")).build();
        assertThat(client.send(evil).status()).isEqualTo(403);
        assertThat(client.send(evil).field("error_code")).isEqualTo("CROSS_SITE_REQUEST");
        HttpRequest crossSite = client.builder("/items/3/note").header("Content-Type", "application/json")
                .header("Sec-Fetch-Site", "cross-site").POST(HttpRequest.BodyPublishers.ofString("{\"text\":\"hi\"}")).build();
        assertThat(client.send(crossSite).status()).isEqualTo(403);
        URI base = URI.create("http://127.0.0.1:" + server.port());
        HttpRequest sameOrigin = client.builder("/items/3/note").header("Content-Type", "application/json; charset=utf-8")
                .header("Origin", base.toString()).header("Sec-Fetch-Site", "same-origin")
                .POST(HttpRequest.BodyPublishers.ofString("{\"text\":\"hi\"}")).build();
        assertThat(client.send(sameOrigin).status()).isEqualTo(201);
    }

    @Test
    void unknownPathsAre404AndOtherMethods405() {
        ApiClient.Response r = client.get("/nothing/here");
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.field("error_code")).isEqualTo("NOT_FOUND");
        ApiClient.Response wrong = client.post("/items/1", "{}");
        assertThat(wrong.status()).isEqualTo(405);
        assertThat(wrong.json().path("allowed").get(0).asText()).isEqualTo("GET");
    }

    @Test
    void aPathParameterAfterASemicolonIsPartOfTheIdNotDropped() {
        ApiClient.Response r = client.get("/items/1;DROP%20TABLE");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.field("error_code")).isEqualTo("INVALID_ID");
        assertThat(r.field("field")).isEqualTo("id");
    }

    @Test
    void jettysOwnErrorsAreAnsweredInTheJsonErrorShape() throws Exception {
        for (String target : List.of("/items/%zz", "/items/%2e%2e/x", "/a%00b")) {
            String answer = raw("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
            assertThat(answer).as(target).startsWith("HTTP/1.1 400 ");
            assertThat(answer).as(target).containsIgnoringCase("Content-Type: application/json")
                    .contains("\"error_code\":\"BAD_REQUEST\"").contains("\"message\":");
        }
        String declared = raw("POST /items/3/note HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: 5000\r\nConnection: close\r\n\r\n" + "x".repeat(5000));
        assertThat(declared).startsWith("HTTP/1.1 413 ").contains("\"error_code\":\"PAYLOAD_TOO_LARGE\"");
    }

    @Test
    void aBodyDeclaredTooLargeIsReadToItsEndBeforeThe413AndTheConnectionServesTheNextRequest() throws Exception {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.port())) {
            java.io.OutputStream out = socket.getOutputStream();
            out.write(("POST /items/3/note HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 5000\r\n\r\n" + "x".repeat(1000)).getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            out.flush();
            // the answer waits for the rest of the body: none comes while the client is still sending
            socket.setSoTimeout(500);
            assertThatThrownBy(() -> socket.getInputStream().read()).isInstanceOf(java.net.SocketTimeoutException.class);
            out.write(("x".repeat(4000) + "GET /items/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            out.flush();
            socket.setSoTimeout(30_000);
            String answers = new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
            assertThat(answers).startsWith("HTTP/1.1 413 ").contains("\"error_code\":\"PAYLOAD_TOO_LARGE\"");
            assertThat(answers.indexOf("HTTP/1.1 200 ")).as("the next request on the same connection:\n" + answers)
                    .isGreaterThan(answers.indexOf("HTTP/1.1 413 "));
        }
    }

    /** Sends {@code request} as written on a socket of its own and returns the whole answer. */
    private String raw(String request) throws Exception {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(request.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            return new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
        }
    }

    @Test
    void aFailingRouteIs500AsJson() {
        ApiClient.Response r = client.get("/boom");
        assertThat(r.status()).isEqualTo(500);
        assertThat(r.field("error_code")).isEqualTo("INTERNAL_ERROR");
    }

    @Test
    void pagesCarryAPolicyThatRunsOnlyTheServicesOwnScripts() {
        var r = client.send(client.builder("/page").GET().build());
        assertThat(r.status()).isEqualTo(200);
        var headers = client.send(client.builder("/page").GET().build());
        assertThat(headers.text()).isEqualTo("<p>page</p>");
        java.net.http.HttpResponse<String> raw;
        try {
            raw = java.net.http.HttpClient.newHttpClient().send(client.builder("/page").GET().build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        assertThat(raw.headers().firstValue("Content-Security-Policy").orElseThrow()).contains("script-src 'self'")
                .doesNotContain("unsafe-inline");
        assertThat(raw.headers().firstValue("X-Content-Type-Options")).contains("nosniff");
    }

    @Test
    void requestsBeyondTheActiveLimitAreTurnedAwayInsteadOfPilingUp() throws Exception {
        CompletableFuture<ApiClient.Response> slow = CompletableFuture.supplyAsync(() -> client.post("/slow", "{}"));
        assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
        ApiClient.Response busy = client.get("/items/1");
        assertThat(busy.status()).isEqualTo(503);
        assertThat(busy.field("error_code")).isEqualTo("BUSY");
        release.countDown();
        assertThat(slow.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
        assertThat(client.get("/items/1").status()).isEqualTo(200);
    }
}
