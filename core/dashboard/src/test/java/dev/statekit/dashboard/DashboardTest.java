package dev.statekit.dashboard;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.statekit.core.Command;
import dev.statekit.core.HistoryStep;
import dev.statekit.core.Machine;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.ops.TaskOperations;
import dev.statekit.store.memory.InMemoryStore;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The dashboard without any web framework: on the JDK's HTTP server under a base path, its page and
 * files from the class path, the identity and authorization hooks, and the refusal of changes a
 * page of another site could send.
 */
class DashboardTest {
    enum State { OPEN, FAILED, DONE, CANCELLED }

    enum Event { FAIL, RETRY, CANCEL, FINISH }

    static final Machine<State, Event> TICKET = Machine.builder("ticket", State.class, Event.class)
            .initial(State.OPEN)
            .terminal(State.DONE, State.CANCELLED)
            .transition(State.OPEN, Event.FAIL, State.FAILED, SYSTEM)
            .transition(State.OPEN, Event.FINISH, State.DONE, SYSTEM)
            .transition(State.FAILED, Event.RETRY, State.OPEN, USER)
            .transition(State.FAILED, Event.CANCEL, State.CANCELLED, USER)
            .transition(State.OPEN, Event.CANCEL, State.CANCELLED, USER)
            .build();

    final TransitionEngine engine = TransitionEngine.builder().store(new InMemoryStore()).build();
    final List<HttpServer> servers = new ArrayList<>();

    @AfterEach
    void stop() {
        for (HttpServer s : servers) s.stop(0);
    }

    long failedTicket() {
        long id = engine.create(TICKET, TaskSpec.defaults().queue("tickets").attribute("title", "<b>broken</b>")).task().id();
        assertThat(engine.fire(TICKET, id, Event.FAIL, Command.system()).isApplied()).isTrue();
        return id;
    }

    /** A request as a browser on this origin sends it. */
    static DashboardRequest request(String method, String path, String body, Map<String, String> headers, @Nullable Principal principal) {
        Map<String, String> all = new HashMap<>();
        all.put("host", "ops.example:8080");
        for (Map.Entry<String, String> h : headers.entrySet()) all.put(h.getKey().toLowerCase(java.util.Locale.ROOT), h.getValue());
        int q = path.indexOf('?');
        return DashboardRequest.of(method, q < 0 ? path : path.substring(0, q), q < 0 ? null : path.substring(q + 1),
                name -> all.get(name.toLowerCase(java.util.Locale.ROOT)), principal, body.getBytes(StandardCharsets.UTF_8));
    }

    static DashboardRequest post(String path, String body, String user) {
        return request("POST", path, body, Map.of("Content-Type", "application/json", "X-User", user, "Origin", "http://ops.example:8080",
                "Sec-Fetch-Site", "same-origin"), null);
    }

    static DashboardRequest get(String path) {
        return request("GET", path, "", Map.of(), null);
    }

    Dashboard.Builder builder() {
        return Dashboard.builder(engine).machines(TICKET).basePath("/ops/statekit").identity(r -> r.header("X-User"));
    }

    @Test
    void servesItsPageFilesAndApiUnderTheBasePathOnTheJdksHttpServer() throws Exception {
        long id = failedTicket();
        Dashboard dashboard = builder().name("tickets").build();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        servers.add(server);
        dashboard.mount(server);
        server.start();
        String base = "http://127.0.0.1:" + server.getAddress().getPort();
        HttpClient client = HttpClient.newHttpClient();

        HttpResponse<String> page = client.send(HttpRequest.newBuilder(URI.create(base + "/ops/statekit")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type")).contains("text/html; charset=utf-8");
        assertThat(page.headers().firstValue("Content-Security-Policy").orElseThrow()).contains("script-src 'self'");
        assertThat(page.body()).contains("<script type=\"module\" src=\"/ops/statekit/assets/app.js\"></script>").doesNotContain("{{base}}");
        for (String file : Dashboard.FILES.keySet()) {
            HttpResponse<String> asset = client.send(HttpRequest.newBuilder(URI.create(base + "/ops/statekit/assets/" + file)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(asset.statusCode()).as(file).isEqualTo(200);
            assertThat(asset.headers().firstValue("Content-Type")).as(file).contains(Dashboard.FILES.get(file));
            assertThat(asset.headers().firstValue("X-Content-Type-Options")).contains("nosniff");
            assertThat(asset.body().replace("http://www.w3.org/2000/svg", "")).as(file).doesNotContain("http://").doesNotContain("https://");
        }
        HttpResponse<String> overview = client.send(HttpRequest.newBuilder(URI.create(base + "/ops/statekit/api/overview")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(overview.statusCode()).isEqualTo(200);
        assertThat(overview.headers().firstValue("Content-Type")).contains("application/json; charset=utf-8");
        assertThat(overview.body()).contains("\"system\":\"tickets\"", "\"readOnly\":true", "\"name\":\"tickets\"");
        HttpResponse<String> task = client.send(HttpRequest.newBuilder(URI.create(base + "/ops/statekit/api/tasks/" + id)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(task.body()).contains("\"state\":\"FAILED\"", "\"title\":\"\\u003cb\\u003ebroken\\u003c/b\\u003e\"");
        HttpResponse<String> outside = client.send(HttpRequest.newBuilder(URI.create(base + "/ops/statekitx")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(outside.statusCode()).isEqualTo(404);
        assertThat(outside.body()).contains("\"error_code\":\"NOT_FOUND\"");
        HttpResponse<String> tooLarge = client.send(HttpRequest.newBuilder(URI.create(base + "/ops/statekit/api/bulk/count"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("x".repeat(Dashboard.MAX_BODY + 1))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(tooLarge.statusCode()).isEqualTo(413);
        assertThat(tooLarge.body()).contains("PAYLOAD_TOO_LARGE");
    }

    @Test
    void theUserTheIdentityFunctionNamesIsTheActorInTheHistory() {
        long id = failedTicket();
        Dashboard dashboard = builder().authorization(Authorization.allowAll()).build();
        DashboardResponse r = dashboard.handle(post("/ops/statekit/api/tasks/" + id + "/events", "{\"event\":\"RETRY\"}", "alice"));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(r.text()).contains("\"state\":\"OPEN\"");
        List<HistoryStep<State, Event>> history = engine.history(TICKET, id);
        HistoryStep<State, Event> last = history.get(history.size() - 1);
        assertThat(last.entry().actor()).isEqualTo("alice");
        assertThat(last.entry().source().name()).isEqualTo("USER");
        // nobody named: the actor is anonymous
        DashboardResponse cancelled = dashboard.handle(request("POST", "/ops/statekit/api/tasks/" + id + "/events", "{\"event\":\"CANCEL\"}",
                Map.of("Content-Type", "application/json"), null));
        assertThat(cancelled.status()).as(cancelled.text()).isEqualTo(200);
        history = engine.history(TICKET, id);
        assertThat(history.get(history.size() - 1).entry().actor()).isEqualTo(Dashboard.ANONYMOUS);
    }

    @Test
    void theDefaultIdentityIsThePrincipalTheServerAuthenticated() {
        long id = failedTicket();
        Dashboard dashboard = Dashboard.builder(engine).machines(TICKET).authorization(Authorization.allow((user, action, target) -> "carol".equals(user)))
                .build();
        assertThat(dashboard.basePath()).isEqualTo("/statekit");
        Principal carol = () -> "carol";
        DashboardResponse r = dashboard.handle(request("POST", "/statekit/api/tasks/" + id + "/events", "{\"event\":\"RETRY\"}",
                Map.of("Content-Type", "application/json", "X-User", "mallory"), carol));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        List<HistoryStep<State, Event>> history = engine.history(TICKET, id);
        assertThat(history.get(history.size() - 1).entry().actor()).isEqualTo("carol");
    }

    @Test
    void theAuthorizationDecidesEachActionOnItsTarget() {
        long id = failedTicket();
        List<String> asked = new ArrayList<>();
        Dashboard dashboard = builder().authorization(Authorization.allow((user, action, target) -> {
            asked.add(user + " " + action + " " + target);
            return "admin".equals(user) || (user != null && !action.equals("cancel") && !action.startsWith("bulk-"));
        })).build();
        DashboardResponse refused = dashboard.handle(post("/ops/statekit/api/tasks/" + id + "/events", "{\"event\":\"CANCEL\"}", "bob"));
        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.text()).contains("\"error_code\":\"FORBIDDEN\"");
        assertThat(engine.find(TICKET, id).orElseThrow().state()).isEqualTo(State.FAILED);
        String bulk = "{\"machine\":\"ticket\",\"state\":\"FAILED\",\"event\":\"RETRY\",\"upTo\":" + id + "}";
        assertThat(dashboard.handle(post("/ops/statekit/api/bulk/retry", bulk, "bob")).status()).isEqualTo(403);
        assertThat(engine.find(TICKET, id).orElseThrow().state()).isEqualTo(State.FAILED);
        DashboardResponse retried = dashboard.handle(post("/ops/statekit/api/bulk/retry", bulk, "admin"));
        assertThat(retried.status()).as(retried.text()).isEqualTo(200);
        assertThat(retried.text()).contains("\"applied\":1");
        assertThat(engine.find(TICKET, id).orElseThrow().state()).isEqualTo(State.OPEN);
        assertThat(dashboard.handle(post("/ops/statekit/api/queues/tickets/pause", "{}", "bob")).status()).isEqualTo(200);
        assertThat(TaskOperations.of(engine).queue("tickets").paused()).isTrue();
        long other = failedTicket();
        assertThat(dashboard.handle(post("/ops/statekit/api/tasks/" + other + "/events", "{\"event\":\"RETRY\"}", "bob")).status()).isEqualTo(200);
        assertThat(asked).containsExactly("bob cancel task ticket#" + id, "bob bulk-retry machine ticket", "admin bulk-retry machine ticket",
                "bob pause queue tickets", "bob retry task ticket#" + other);
        // nobody named may view (the default) and change nothing here
        assertThat(dashboard.handle(get("/ops/statekit/api/overview")).status()).isEqualTo(200);
        assertThat(dashboard.handle(request("POST", "/ops/statekit/api/queues/tickets/resume", "{}", Map.of("Content-Type", "application/json"), null))
                .status()).isEqualTo(403);
    }

    @Test
    void aDashboardIsReadOnlyUnlessTheHostSaysOtherwiseAndMayHideItself() {
        long id = failedTicket();
        Dashboard readOnly = builder().build();
        assertThat(readOnly.handle(get("/ops/statekit/api/overview")).text()).contains("\"readOnly\":true");
        DashboardResponse r = readOnly.handle(post("/ops/statekit/api/tasks/" + id + "/events", "{\"event\":\"RETRY\"}", "alice"));
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.text()).contains("FORBIDDEN");
        assertThat(engine.find(TICKET, id).orElseThrow().state()).isEqualTo(State.FAILED);

        Dashboard signedIn = builder().authorization(new Authorization() {
            @Override
            public boolean allows(@Nullable String user, String action, Target target) {
                return true;
            }

            @Override
            public boolean mayView(@Nullable String user) {
                return user != null;
            }
        }).build();
        assertThat(signedIn.handle(get("/ops/statekit/api/overview")).status()).isEqualTo(403);
        assertThat(signedIn.handle(get("/ops/statekit")).status()).isEqualTo(403);
        DashboardResponse seen = signedIn.handle(request("GET", "/ops/statekit/api/overview", "", Map.of("X-User", "dan"), null));
        assertThat(seen.status()).isEqualTo(200);
        assertThat(seen.text()).contains("\"readOnly\":false", "\"user\":\"dan\"");
    }

    @Test
    void changesAPageOfAnotherSiteCouldSendAreRefused() {
        long id = failedTicket();
        Dashboard dashboard = builder().authorization(Authorization.allowAll()).allowedOrigins("https://proxy.example").build();
        String path = "/ops/statekit/api/tasks/" + id + "/events";
        String body = "{\"event\":\"CANCEL\"}";
        List<Map<String, String>> hostile = List.of(
                Map.of("Content-Type", "application/json", "Sec-Fetch-Site", "cross-site"),
                Map.of("Content-Type", "application/json", "Sec-Fetch-Site", "same-site"),
                Map.of("Content-Type", "application/json", "Origin", "http://evil.example"),
                Map.of("Content-Type", "application/json", "Origin", "http://ops.example:8080.evil.example"),
                Map.of("Content-Type", "application/json", "Origin", "null"),
                Map.of("Content-Type", "text/plain", "Origin", "http://ops.example:8080"),
                Map.of("Content-Type", "application/x-www-form-urlencoded"),
                Map.of("Content-Type", "multipart/form-data; boundary=x"),
                Map.of());
        for (Map<String, String> headers : hostile) {
            DashboardResponse r = dashboard.handle(request("POST", path, body, headers, null));
            assertThat(r.status()).as(headers.toString()).isEqualTo(403);
            assertThat(r.text()).as(headers.toString()).contains("\"error_code\":\"CROSS_SITE_REQUEST\"");
        }
        assertThat(engine.find(TICKET, id).orElseThrow().state()).as("nothing was cancelled").isEqualTo(State.FAILED);
        // reads are not changes
        assertThat(dashboard.handle(request("GET", "/ops/statekit/api/tasks/" + id, "", Map.of("Sec-Fetch-Site", "cross-site"), null)).status())
                .isEqualTo(200);
        // the dashboard's own header makes a simple type acceptable; an allowed origin is accepted
        DashboardResponse custom = dashboard.handle(request("POST", path, "{\"event\":\"RETRY\"}",
                Map.of("Content-Type", "text/plain", Dashboard.CUSTOM_HEADER, "1", "Sec-Fetch-Site", "same-origin"), null));
        assertThat(custom.status()).as(custom.text()).isEqualTo(200);
        assertThat(engine.fire(TICKET, id, Event.FAIL, Command.system()).isApplied()).isTrue();
        DashboardResponse proxied = dashboard.handle(request("POST", path, body,
                Map.of("Content-Type", "application/json", "Origin", "https://proxy.example"), null));
        assertThat(proxied.status()).as(proxied.text()).isEqualTo(200);
        assertThat(engine.find(TICKET, id).orElseThrow().state()).isEqualTo(State.CANCELLED);
    }

    @Test
    void requestsAreCheckedAndAnsweredInOneErrorShape() {
        long id = failedTicket();
        Dashboard dashboard = builder().authorization(Authorization.allowAll()).build();
        assertError(dashboard.handle(get("/ops/statekit/api/tasks/abc")), 400, "INVALID_ID");
        assertError(dashboard.handle(get("/ops/statekit/api/tasks/987654")), 404, "NOT_FOUND");
        assertError(dashboard.handle(get("/ops/statekit/api/tasks?limit=0")), 400, "INVALID_QUERY");
        assertError(dashboard.handle(get("/ops/statekit/api/tasks?machine=ticket&machine=ticket")), 400, "INVALID_QUERY");
        assertError(dashboard.handle(get("/ops/statekit/api/tasks/" + id + "/events")), 405, "METHOD_NOT_ALLOWED");
        assertError(dashboard.handle(request("DELETE", "/ops/statekit/api/tasks/" + id, "", Map.of(), null)), 405, "METHOD_NOT_ALLOWED");
        assertError(dashboard.handle(get("/ops/statekit/assets/secret.txt")), 404, "NOT_FOUND");
        assertError(dashboard.handle(get("/ops/statekit/assets/..%2Fapp.js")), 404, "NOT_FOUND");
        assertError(dashboard.handle(get("/elsewhere")), 404, "NOT_FOUND");
        assertError(dashboard.handle(post("/ops/statekit/api/tasks/" + id + "/events", "{\"event\":", "a")), 400, "MALFORMED_JSON");
        assertError(dashboard.handle(post("/ops/statekit/api/tasks/" + id + "/events", "{\"event\":\"FLY\"}", "a")), 400, "INVALID_FIELD");
        assertError(dashboard.handle(post("/ops/statekit/api/tasks/" + id + "/events", "{\"event\":\"FINISH\"}", "a")), 409, "ILLEGAL_TRANSITION");
        assertError(dashboard.handle(post("/ops/statekit/api/tasks/" + id + "/retry-failed-children", "{}", "a")), 409, "NOT_SUPPORTED");
        assertError(dashboard.handle(post("/ops/statekit/api/queues/nothing/pause", "{}", "a")), 404, "NOT_FOUND");
        // a HEAD is a GET without a body; an identity function that refuses answers with its own error
        assertThat(dashboard.handle(request("HEAD", "/ops/statekit/api/overview", "", Map.of(), null)).status()).isEqualTo(200);
        Dashboard strict = builder().identity(r -> {
            throw new DashboardException(401, "SIGN_IN", "sign in first");
        }).build();
        assertError(strict.handle(get("/ops/statekit/api/overview")), 401, "SIGN_IN");
        // a failure of the host's code is a 500 in the same shape
        Dashboard broken = builder().authorization(Authorization.allowAll()).actions((machine, task, event, command) -> {
            throw new IllegalStateException("boom");
        }).build();
        assertError(broken.handle(post("/ops/statekit/api/tasks/" + id + "/events", "{\"event\":\"RETRY\"}", "a")), 500, "INTERNAL_ERROR");
    }

    @Test
    void aBuilderRefusesWhatCannotBeServed() {
        assertThatThrownBy(() -> Dashboard.builder(engine).build()).isInstanceOf(IllegalStateException.class);
        for (String bad : List.of("", "/", "statekit", "/statekit/", "/a b", "/a//b", "/<x>")) {
            assertThatThrownBy(() -> Dashboard.builder(engine).basePath(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    static void assertError(DashboardResponse r, int status, String code) {
        assertThat(r.status()).as(r.text()).isEqualTo(status);
        assertThat(r.contentType()).isEqualTo("application/json; charset=utf-8");
        Object body = JsonText.read(r.text());
        assertThat(body).isInstanceOfSatisfying(Map.class, m -> {
            assertThat(m.get("error_code")).as(r.text()).isEqualTo(code);
            assertThat((String) m.get("message")).isNotBlank();
        });
    }
}
