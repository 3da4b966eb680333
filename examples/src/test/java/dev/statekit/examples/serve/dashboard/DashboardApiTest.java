package dev.statekit.examples.serve.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.ops.TaskOperations;
import dev.statekit.core.schedule.Recurrence;
import dev.statekit.examples.serve.ApiClient;
import dev.statekit.examples.serve.ServeCommand;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard's JSON API on a service of its own, on H2 in a temporary folder: reads, user
 * events and their refusals, a parent's progress and the retry of its failed children, the queue
 * controls, the request checks of its changes, and the read-only dashboard.
 */
class DashboardApiTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String HOSTILE_SCRIPT = "<script>alert(1)</script>";
    private static final String HOSTILE_IMG = "\"'><img src=x onerror=alert(2)>";

    @TempDir
    static Path data;
    @TempDir
    static Path readOnlyData;

    private static DashboardTestService.Factory factory;
    private static ServeCommand.Running running;
    private static ServeCommand.Running readOnly;
    private static DashboardTestService service;
    private static ApiClient api;
    private static ApiClient readOnlyApi;

    @BeforeAll
    static void start() throws Exception {
        factory = new DashboardTestService.Factory();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        running = ServeCommand.start(factory, List.of("--port", "0", "--data", data.toString()), new PrintStream(out, true, StandardCharsets.UTF_8));
        service = factory.created;
        api = new ApiClient(running.base());
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("dash-test: listening on " + running.base() + " (dashboard: " + running.base() + "/ui)");
        readOnly = ServeCommand.start(new DashboardTestService.Factory(),
                List.of("--port", "0", "--data", readOnlyData.toString(), "--in-memory", "--read-only-dashboard"),
                new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8));
        readOnlyApi = new ApiClient(readOnly.base());
    }

    @AfterAll
    static void stop() {
        if (running != null) running.close();
        if (readOnly != null) readOnly.close();
    }

    private static ApiClient.Response awaitTask(long id, Predicate<JsonNode> done) {
        return api.awaitGet("/ui/api/tasks/" + id, r -> r.status() == 200 && done.test(r.json()), WAIT);
    }

    private static Predicate<JsonNode> inState(String state) {
        return t -> t.path("state").asText().equals(state);
    }

    @Test
    void thePageAndItsFilesComeFromTheServiceAndNeverParseDataAsHtml() throws IOException {
        HttpRequest page = api.builder("/ui").GET().build();
        ApiClient.Response r = api.send(page);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).contains("<script type=\"module\" src=\"/ui/assets/app.js\"></script>")
                .doesNotContain("style=").doesNotContain("http://").doesNotContain("https://");
        for (String file : List.of("app.js", "api.js", "dom.js", "views.js", "panels.js", "diagram.js", "charts.js", "app.css", "icon.svg")) {
            ApiClient.Response asset = api.get("/ui/assets/" + file);
            assertThat(asset.status()).as(file).isEqualTo(200);
            assertThat(asset.text()).as(file).isEqualTo(resource(file))
                    .doesNotContain("innerHTML").doesNotContain("outerHTML").doesNotContain("insertAdjacentHTML")
                    .doesNotContain("document.write").doesNotContain("eval(").doesNotContain("https://");
            // the only address in the files is SVG's namespace: nothing is loaded from another site
            assertThat(asset.text().replace("http://www.w3.org/2000/svg", "")).as(file).doesNotContain("http://");
        }
        assertThat(api.get("/ui/assets/nothing.js").status()).isEqualTo(404);
        assertThat(api.get("/ui/assets/..%2Fapp.js").status()).isIn(400, 404);
    }

    @Test
    void theOverviewCountsTasksByMachineAndStateWithTheQueues() {
        long id = service.addItem(Map.of("name", "overview-1"));
        awaitTask(id, inState("DONE"));
        ApiClient.Response r = api.get("/ui/api/overview");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.field("system")).isEqualTo("dash-test");
        assertThat(r.json().path("readOnly").asBoolean(true)).isFalse();
        List<String> machines = new ArrayList<>();
        r.json().path("machines").forEach(m -> machines.add(m.path("name").asText()));
        assertThat(machines).containsExactly("dash-batch", "dash-item");
        JsonNode item = r.json().path("machines").get(1);
        List<String> states = new ArrayList<>();
        item.path("states").forEach(s -> states.add(s.path("name").asText()));
        assertThat(states).containsExactly("QUEUED", "RUNNING", "DONE", "FAILED", "HELD", "CANCELLED");
        JsonNode done = item.path("states").get(2);
        assertThat(done.path("tasks").asLong()).isPositive();
        assertThat(done.path("terminal").asBoolean()).isTrue();
        assertThat(done.path("ending").asText()).isEqualTo("SUCCEEDED");
        long sum = 0;
        for (JsonNode s : item.path("states")) sum += s.path("tasks").asLong();
        assertThat(item.path("total").asLong()).isEqualTo(sum);
        JsonNode queue = r.json().path("queues").get(0);
        assertThat(queue.path("name").asText()).isEqualTo("dash-items");
        assertThat(queue.path("concurrency").asInt()).isZero();
        assertThat(queue.path("finished").asLong()).isPositive();
    }

    @Test
    void aTaskShowsItsAttributesErrorAttemptsHistoryAndUserEventsAsText() {
        factory.control.failing.add("detail-1");
        long id = service.addItem(Map.of("name", "detail-1", "note", HOSTILE_SCRIPT, HOSTILE_IMG, HOSTILE_IMG));
        JsonNode t = awaitTask(id, inState("FAILED")).json();
        assertThat(t.path("machine").asText()).isEqualTo("dash-item");
        assertThat(t.path("queue").asText()).isEqualTo("dash-items");
        assertThat(t.path("attempts").asInt()).isEqualTo(1);
        assertThat(t.path("lease").isNull()).isTrue();
        assertThat(t.path("lastError").path("code").asText()).isEqualTo("DASH_FAILED");
        assertThat(t.path("lastError").path("message").asText()).contains("detail-1");
        assertThat(t.path("attributes").path("note").isTextual()).isTrue();
        assertThat(t.path("attributes").path("note").asText()).isEqualTo(HOSTILE_SCRIPT);
        assertThat(t.path("attributes").path(HOSTILE_IMG).asText()).isEqualTo(HOSTILE_IMG);
        assertThat(names(t.path("userEvents"))).containsExactlyInAnyOrder("RETRY", "CANCEL");
        List<String> events = new ArrayList<>();
        t.path("history").forEach(h -> events.add(h.path("from").asText() + " " + h.path("event").asText() + " " + h.path("to").asText()));
        assertThat(events).containsExactly("QUEUED START RUNNING", "RUNNING FAIL FAILED");
        assertThat(t.path("history").get(0).path("source").asText()).isEqualTo("SYSTEM");
        assertThat(t.path("progress").isMissingNode()).as("an item has no children").isTrue();
        // a running task shows its lease
        long running = service.addItem(Map.of("name", "detail-running", "gate", "api-running"));
        JsonNode r = awaitTask(running, inState("RUNNING")).json();
        assertThat(r.path("lease").path("owner").asText()).startsWith("dash-test@");
        assertThat(r.path("lease").path("fencingToken").asLong()).isPositive();
    }

    @Test
    void userEventsFireForTheActorAndRefusalsAnswerWithTheirCodes() {
        factory.control.failing.add("fire-1");
        long id = service.addItem(Map.of("name", "fire-1"));
        awaitTask(id, inState("FAILED"));
        factory.control.failing.remove("fire-1");
        ApiClient.Response retried = api.as("alice").post("/ui/api/tasks/" + id + "/events", "{\"event\":\"RETRY\"}");
        assertThat(retried.status()).isEqualTo(200);
        assertThat(retried.field("state")).isEqualTo("QUEUED");
        JsonNode done = awaitTask(id, inState("DONE")).json();
        JsonNode retry = done.path("history").get(2);
        assertThat(retry.path("event").asText()).isEqualTo("RETRY");
        assertThat(retry.path("source").asText()).isEqualTo("USER");
        assertThat(retry.path("actor").asText()).isEqualTo("alice");

        // a page that still shows FAILED (another tab retried it): the table refuses
        ApiClient.Response stale = api.post("/ui/api/tasks/" + id + "/events", "{\"event\":\"RETRY\"}");
        assertThat(stale.status()).isEqualTo(409);
        assertThat(stale.field("error_code")).isEqualTo("ILLEGAL_TRANSITION");
        assertThat(stale.json().path("allowed").isArray()).isTrue();
        assertThat(stale.json().path("allowed").size()).isZero();

        // a guard's refusal
        factory.control.failing.add("fire-locked");
        long locked = service.addItem(Map.of("name", "fire-locked", "locked", "true"));
        awaitTask(locked, inState("FAILED"));
        ApiClient.Response guarded = api.post("/ui/api/tasks/" + locked + "/events", "{\"event\":\"RETRY\"}");
        assertThat(guarded.status()).isEqualTo(409);
        assertThat(guarded.field("error_code")).isEqualTo("RETRY_LOCKED");
        assertThat(names(guarded.json().path("allowed"))).containsExactlyInAnyOrder("RETRY", "CANCEL");

        // a named refusal
        long running = service.addItem(Map.of("name", "fire-running", "gate", "api-running"));
        awaitTask(running, inState("RUNNING"));
        ApiClient.Response held = api.post("/ui/api/tasks/" + running + "/events", "{\"event\":\"HOLD\"}");
        assertThat(held.status()).isEqualTo(409);
        assertThat(held.field("error_code")).isEqualTo("ITEM_RUNNING");
        assertThat(names(held.json().path("allowed"))).containsExactly("CANCEL");

        // what the body may hold
        assertError(api.post("/ui/api/tasks/" + id + "/events", "{\"event\":\"FLY\"}"), 400, "INVALID_FIELD", "event");
        assertError(api.post("/ui/api/tasks/" + id + "/events", "{}"), 400, "INVALID_FIELD", "event");
        assertError(api.post("/ui/api/tasks/" + id + "/events", "{\"event\":\"RETRY\",\"force\":true}"), 400, "UNKNOWN_FIELD", "force");
        assertError(api.post("/ui/api/tasks/" + id + "/events", "{\"event\":"), 400, "MALFORMED_JSON", null);
        assertError(api.as("<b>").post("/ui/api/tasks/" + id + "/events", "{\"event\":\"RETRY\"}"), 400, "INVALID_ACTOR", "X-User");
    }

    @Test
    void badIdsAre400AndUnknownTasksMachinesAndQueues404() {
        assertError(api.get("/ui/api/tasks/abc"), 400, "INVALID_ID", "id");
        assertError(api.get("/ui/api/tasks/0"), 400, "INVALID_ID", "id");
        assertError(api.get("/ui/api/tasks/1234567890123456789"), 400, "INVALID_ID", "id");
        assertError(api.get("/ui/api/tasks/987654321"), 404, "NOT_FOUND", null);
        assertError(api.post("/ui/api/tasks/x1/events", "{\"event\":\"RETRY\"}"), 400, "INVALID_ID", "id");
        assertError(api.post("/ui/api/tasks/987654321/events", "{\"event\":\"RETRY\"}"), 404, "NOT_FOUND", null);
        assertError(api.post("/ui/api/tasks/-1/retry-failed-children", "{}"), 400, "INVALID_ID", "id");
        assertError(api.get("/ui/api/machines/nothing"), 404, "NOT_FOUND", null);
        assertError(api.post("/ui/api/queues/nothing/pause", "{}"), 404, "NOT_FOUND", null);
        assertError(api.get("/ui/api/tasks?machine=nothing"), 400, "INVALID_QUERY", "machine");
        assertError(api.get("/ui/api/tasks?machine=dash-item&state=NOTHING"), 400, "INVALID_QUERY", "state");
        assertError(api.get("/ui/api/tasks?limit=0"), 400, "INVALID_QUERY", "limit");
        assertError(api.get("/ui/api/tasks?limit=201"), 400, "INVALID_QUERY", "limit");
        assertError(api.get("/ui/api/tasks?after=x"), 400, "INVALID_QUERY", "after");
        assertError(api.get("/ui/api/tasks?parent=0"), 400, "INVALID_QUERY", "parent");
        assertError(api.get("/ui/api/tasks?q=" + "a".repeat(201)), 400, "INVALID_QUERY", "q");
        assertThat(api.get("/ui/api/nothing").status()).isEqualTo(404);
        assertThat(api.get("/ui/api/tasks/1/events").status()).isEqualTo(405);
    }

    @Test
    void listsFilterPageAndSearch() {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) ids.add(service.addItem(Map.of("name", "list-" + i, "group", "list")));
        long needle = service.addItem(Map.of("name", "list-needle", "note", "a Needle in the list"));
        for (long id : ids) awaitTask(id, inState("DONE"));
        awaitTask(needle, inState("DONE"));

        ApiClient.Response first = api.get("/ui/api/tasks?machine=dash-item&state=DONE&limit=2&after=" + (ids.get(0) - 1));
        assertThat(first.status()).isEqualTo(200);
        assertThat(ids(first)).containsExactly(ids.get(0), ids.get(1));
        assertThat(first.json().path("nextAfter").asLong()).isEqualTo(ids.get(1));
        ApiClient.Response second = api.get("/ui/api/tasks?machine=dash-item&state=DONE&limit=2&after=" + ids.get(1));
        assertThat(ids(second)).containsExactly(ids.get(2), ids.get(3));
        JsonNode line = first.json().path("items").get(0);
        assertThat(line.path("state").asText()).isEqualTo("DONE");
        assertThat(line.path("attributes").path("name").asText()).isEqualTo("list-0");

        assertThat(ids(api.get("/ui/api/tasks?q=needle"))).containsExactly(needle);
        assertThat(ids(api.get("/ui/api/tasks?q=" + needle))).contains(needle);
        assertThat(ids(api.get("/ui/api/tasks?machine=dash-item&q=list-&limit=3"))).hasSize(3);
        assertThat(ids(api.get("/ui/api/tasks?machine=dash-batch&q=needle"))).isEmpty();
        assertThat(ids(api.get("/ui/api/tasks?queue=dash-items&state=DONE&after=" + (ids.get(4) - 1)))).startsWith(ids.get(4), needle);
    }

    @Test
    void aParentShowsItsProgressAndRetriesItsFailedChildren() {
        factory.control.failing.add("batch-b");
        long batch = service.addBatch("batch-1", List.of(Map.of("name", "batch-a"), Map.of("name", "batch-b"), Map.of("name", "batch-c")));
        JsonNode failed = awaitTask(batch, inState("FAILED")).json();
        JsonNode p = failed.path("progress");
        assertThat(p.path("total").asLong()).isEqualTo(3);
        assertThat(p.path("succeeded").asLong()).isEqualTo(2);
        assertThat(p.path("failed").asLong()).isEqualTo(1);
        assertThat(p.path("percent").asLong()).isEqualTo(100);
        assertThat(p.path("byState").path("DONE").asLong()).isEqualTo(2);
        assertThat(p.path("byState").path("FAILED").asLong()).isEqualTo(1);
        assertThat(p.path("resolution").asText()).isEqualTo("ITEMS_FAILED");
        assertThat(failed.path("children").asText()).isEqualTo("dash-item");
        ApiClient.Response children = api.get("/ui/api/tasks?parent=" + batch);
        assertThat(ids(children)).hasSize(3);

        factory.control.failing.remove("batch-b");
        ApiClient.Response retried = api.as("bob").post("/ui/api/tasks/" + batch + "/retry-failed-children", "{}");
        assertThat(retried.status()).isEqualTo(200);
        assertThat(retried.json().path("retried").asLong()).isEqualTo(1);
        JsonNode done = awaitTask(batch, inState("DONE")).json();
        assertThat(done.path("progress").path("succeeded").asLong()).isEqualTo(3);
        assertThat(done.path("progress").path("percent").asLong()).isEqualTo(100);
        assertThat(done.path("userEvents").size()).isZero();

        long item = ids(children).get(0);
        assertError(api.post("/ui/api/tasks/" + item + "/retry-failed-children", "{}"), 409, "NOT_SUPPORTED", null);
        assertError(api.post("/ui/api/tasks/" + batch + "/retry-failed-children", "{\"all\":true}"), 400, "UNKNOWN_FIELD", "all");
    }

    @Test
    void bulkActionsCountFirstThenActOnTheTasksCountedAndTallyTheRefusals() {
        factory.control.failing.add("bulk-a");
        factory.control.failing.add("bulk-b");
        long batch = service.addBatch("bulk-1", List.of(Map.of("name", "bulk-a"), Map.of("name", "bulk-b", "locked", "true"),
                Map.of("name", "bulk-c")));
        awaitTask(batch, inState("FAILED"));
        String failedChildren = "\"machine\":\"dash-item\",\"state\":\"FAILED\",\"parent\":" + batch;

        ApiClient.Response count = api.post("/ui/api/bulk/count", "{" + failedChildren + "}");
        assertThat(count.status()).isEqualTo(200);
        assertThat(count.json().path("count").asLong()).isEqualTo(2);
        long upTo = count.json().path("upTo").asLong();
        List<Long> failed = ids(api.get("/ui/api/tasks?machine=dash-item&state=FAILED&parent=" + batch));
        assertThat(failed).hasSize(2);
        assertThat(upTo).isEqualTo(failed.get(1));

        factory.control.failing.remove("bulk-a");
        ApiClient.Response retried = api.as("dave").post("/ui/api/bulk/retry",
                "{" + failedChildren + ",\"upTo\":" + upTo + ",\"event\":\"RETRY\"}");
        assertThat(retried.status()).isEqualTo(200);
        assertThat(retried.json().path("matched").asLong()).isEqualTo(2);
        assertThat(retried.json().path("applied").asLong()).isEqualTo(1);
        assertThat(retried.json().path("refused").asLong()).isEqualTo(1);
        assertThat(retried.json().path("refusals").path("RETRY_LOCKED").asLong()).as("the guard's code").isEqualTo(1);
        assertThat(retried.json().path("failed").asLong()).isZero();
        JsonNode done = awaitTask(failed.get(0), inState("DONE")).json();
        JsonNode retry = done.path("history").get(done.path("history").size() - 3);
        assertThat(retry.path("event").asText()).isEqualTo("RETRY");
        assertThat(retry.path("actor").asText()).isEqualTo("dave");

        ApiClient.Response left = api.post("/ui/api/bulk/count", "{" + failedChildren + "}");
        assertThat(left.json().path("count").asLong()).isEqualTo(1);
        ApiClient.Response cancelled = api.as("dave").post("/ui/api/bulk/cancel",
                "{" + failedChildren + ",\"upTo\":" + left.json().path("upTo").asLong() + "}");
        assertThat(cancelled.status()).isEqualTo(200);
        assertThat(cancelled.json().path("applied").asLong()).isEqualTo(1);
        assertThat(awaitTask(failed.get(1), inState("CANCELLED")).json().path("history")).anySatisfy(
                e -> assertThat(e.path("actor").asText() + " " + e.path("event").asText()).isEqualTo("dave CANCEL"));

        String children = "\"machine\":\"dash-item\",\"parent\":" + batch;
        ApiClient.Response all = api.post("/ui/api/bulk/count", "{" + children + "}");
        assertThat(all.json().path("count").asLong()).isEqualTo(3);
        ApiClient.Response deleted = api.as("dave").post("/ui/api/bulk/delete", "{" + children + ",\"upTo\":" + all.json().path("upTo").asLong() + "}");
        assertThat(deleted.status()).isEqualTo(200);
        assertThat(deleted.json().path("applied").asLong()).isZero();
        assertThat(deleted.json().path("refusals").path("HAS_PARENT").asLong()).as("a child goes only with its root").isEqualTo(3);
        assertThat(ids(api.get("/ui/api/tasks?parent=" + batch))).hasSize(3);

        assertError(api.post("/ui/api/bulk/count", "{}"), 400, "INVALID_FIELD", "machine");
        assertError(api.post("/ui/api/bulk/count", "{\"machine\":\"dash-item\",\"state\":\"GONE\"}"), 400, "INVALID_FIELD", "state");
        assertError(api.post("/ui/api/bulk/count", "{\"machine\":\"dash-item\",\"q\":\"x\"}"), 400, "UNKNOWN_FIELD", "q");
        assertError(api.post("/ui/api/bulk/retry", "{" + failedChildren + ",\"event\":\"RETRY\"}"), 400, "INVALID_FIELD", "upTo");
        assertError(api.post("/ui/api/bulk/retry", "{" + failedChildren + ",\"upTo\":1,\"event\":\"FLY\"}"), 400, "INVALID_FIELD", "event");
        assertError(api.post("/ui/api/bulk/fly", "{" + failedChildren + ",\"upTo\":1}"), 404, "NOT_FOUND", null);
    }

    @Test
    void bulkFiltersTakeALastErrorCodeAndCreatedAndChangedTimeRanges() {
        factory.control.failing.add("range-a");
        factory.control.failing.add("range-b");
        long a = service.addItem(Map.of("name", "range-a"));
        long b = service.addItem(Map.of("name", "range-b"));
        long c = service.addItem(Map.of("name", "range-c"));
        awaitTask(a, inState("FAILED"));
        awaitTask(b, inState("FAILED"));
        JsonNode last = awaitTask(c, inState("DONE")).json();
        String from = api.get("/ui/api/tasks/" + a).json().path("createdAt").asText();
        String to = Instant.parse(last.path("createdAt").asText()).plusMillis(1).toString();
        String range = "\"machine\":\"dash-item\",\"createdFrom\":\"" + from + "\",\"createdTo\":\"" + to + "\"";

        ApiClient.Response all = api.post("/ui/api/bulk/count", "{" + range + "}");
        assertThat(all.status()).as(all.text()).isEqualTo(200);
        assertThat(all.json().path("count").asLong()).isEqualTo(3);
        assertThat(all.json().path("upTo").asLong()).isEqualTo(c);
        ApiClient.Response failed = api.post("/ui/api/bulk/count", "{" + range + ",\"errorCode\":\"" + DashboardTestService.FAILED_CODE + "\"}");
        assertThat(failed.json().path("count").asLong()).isEqualTo(2);
        assertThat(failed.json().path("upTo").asLong()).isEqualTo(b);
        String later = Instant.now().plusSeconds(3600).toString();
        assertThat(api.post("/ui/api/bulk/count", "{" + range + ",\"updatedFrom\":\"" + later + "\"}").json().path("count").asLong()).isZero();
        assertThat(api.post("/ui/api/bulk/count", "{" + range + ",\"updatedTo\":\"" + later + "\"}").json().path("count").asLong()).isEqualTo(3);

        // the filter counted is the filter applied: only the failed ones of the range are retried
        factory.control.failing.remove("range-a");
        factory.control.failing.remove("range-b");
        ApiClient.Response retried = api.as("erin").post("/ui/api/bulk/retry", "{" + range + ",\"errorCode\":\"" + DashboardTestService.FAILED_CODE
                + "\",\"upTo\":" + failed.json().path("upTo").asLong() + ",\"event\":\"RETRY\"}");
        assertThat(retried.status()).as(retried.text()).isEqualTo(200);
        assertThat(retried.json().path("matched").asLong()).isEqualTo(2);
        assertThat(retried.json().path("applied").asLong()).isEqualTo(2);
        assertThat(awaitTask(b, inState("DONE")).json().path("history")).anySatisfy(
                e -> assertThat(e.path("actor").asText() + " " + e.path("event").asText()).isEqualTo("erin RETRY"));

        assertError(api.post("/ui/api/bulk/count", "{\"machine\":\"dash-item\",\"createdFrom\":\"yesterday\"}"), 400, "INVALID_FIELD", "createdFrom");
        assertError(api.post("/ui/api/bulk/count", "{\"machine\":\"dash-item\",\"updatedTo\":\"2024-05-01\"}"), 400, "INVALID_FIELD", "updatedTo");
    }

    @Test
    void schedulesAreListedWithTheirNextOccurrencesPausedResumedAndDeleted() {
        TaskOperations operations = TaskOperations.of(service.engine());
        operations.schedule(DashboardTestService.ITEM, Recurrence.builder("api-nightly").cron("0 3 * * *").zone(ZoneOffset.UTC).build(),
                TaskSpec.defaults().attribute("name", "nightly"));
        List<String> next = operations.schedule("api-nightly").orElseThrow().next().stream().map(Instant::toString).toList();
        assertThat(next).hasSize(TaskOperations.NEXT_OCCURRENCES);

        JsonNode shown = schedule("api-nightly");
        assertThat(shown.path("machine").asText()).isEqualTo("dash-item");
        assertThat(shown.path("timing").asText()).isEqualTo("cron '0 3 * * *' in Z");
        assertThat(shown.path("paused").asBoolean()).isFalse();
        assertThat(names(shown.path("next"))).isEqualTo(next);
        assertThat(shown.path("attributes").path("name").asText()).isEqualTo("nightly");

        ApiClient.Response paused = api.as("frank").post("/ui/api/schedules/api-nightly/pause", "{}");
        assertThat(paused.status()).as(paused.text()).isEqualTo(200);
        assertThat(paused.json().path("paused").asBoolean()).isTrue();
        assertThat(operations.schedule("api-nightly").orElseThrow().paused()).isTrue();
        assertThat(schedule("api-nightly").path("paused").asBoolean()).isTrue();
        ApiClient.Response resumed = api.as("frank").post("/ui/api/schedules/api-nightly/resume", "{}");
        assertThat(resumed.json().path("paused").asBoolean()).isFalse();
        assertThat(operations.schedule("api-nightly").orElseThrow().paused()).isFalse();

        assertError(api.post("/ui/api/schedules/api-nightly/fly", "{}"), 404, "NOT_FOUND", null);
        assertError(api.post("/ui/api/schedules/api-nightly/pause", "{\"now\":true}"), 400, "UNKNOWN_FIELD", "now");
        ApiClient.Response deleted = api.as("frank").post("/ui/api/schedules/api-nightly/delete", "{}");
        assertThat(deleted.status()).as(deleted.text()).isEqualTo(200);
        assertThat(deleted.json().path("deleted").asBoolean()).isTrue();
        assertThat(operations.schedule("api-nightly")).isEmpty();
        assertThat(api.get("/ui/api/schedules").json().path("schedules").findValuesAsText("name")).doesNotContain("api-nightly");
        assertError(api.post("/ui/api/schedules/api-nightly/delete", "{}"), 404, "NOT_FOUND", null);
        assertError(api.post("/ui/api/schedules/nothing/pause", "{}"), 404, "NOT_FOUND", null);
    }

    private static JsonNode schedule(String name) {
        ApiClient.Response r = api.get("/ui/api/schedules");
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        for (JsonNode s : r.json().path("schedules")) if (s.path("name").asText().equals(name)) return s;
        throw new AssertionError("no schedule " + name + " in " + r.text());
    }

    @Test
    void aReadOnlyDashboardListsSchedulesAndRefusesTheirChanges() {
        assertThat(readOnlyApi.get("/ui/api/schedules").status()).isEqualTo(200);
        for (String action : List.of("pause", "resume", "delete")) {
            assertError(readOnlyApi.post("/ui/api/schedules/any/" + action, "{}"), 403, "FORBIDDEN", null);
        }
    }

    @Test
    void queueControlsPauseResumeStopAfterCurrentAndLimit() {
        String q = "/ui/api/queues/dash-items/";
        try {
            ApiClient.Response paused = api.as("carol").post(q + "pause", "{}");
            assertThat(paused.status()).isEqualTo(200);
            assertThat(paused.json().path("paused").asBoolean()).isTrue();
            assertThat(paused.field("pauseReason")).isEqualTo("PAUSED");
            long waiting = service.addItem(Map.of("name", "queue-waiting"));
            assertThat(api.get("/ui/api/tasks/" + waiting).field("state")).isEqualTo("QUEUED");
            ApiClient.Response resumed = api.post(q + "resume", "");
            assertThat(resumed.status()).isEqualTo(200);
            assertThat(resumed.json().path("paused").asBoolean()).isFalse();
            awaitTask(waiting, inState("DONE"));

            ApiClient.Response stopping = api.post(q + "stop-after-current", "{}");
            assertThat(stopping.json().path("paused").asBoolean()).isTrue();
            assertThat(stopping.field("pauseReason")).isEqualTo("STOP_AFTER_CURRENT");
            assertThat(api.get("/ui/api/overview").json().path("queues").get(0).path("pauseReason").asText()).isEqualTo("STOP_AFTER_CURRENT");

            ApiClient.Response limited = api.post(q + "concurrency", "{\"limit\": 2}");
            assertThat(limited.status()).isEqualTo(200);
            assertThat(limited.json().path("concurrency").asInt()).isEqualTo(2);
            assertThat(limited.json().path("paused").asBoolean()).as("a limit does not resume").isTrue();
            assertError(api.post(q + "concurrency", "{\"limit\": -1}"), 400, "INVALID_FIELD", "limit");
            assertError(api.post(q + "concurrency", "{\"limit\": \"many\"}"), 400, "INVALID_FIELD", "limit");
            assertError(api.post(q + "concurrency", "{}"), 400, "INVALID_FIELD", "limit");
            assertError(api.post(q + "pause", "{\"now\": true}"), 400, "UNKNOWN_FIELD", "now");
        } finally {
            api.post(q + "concurrency", "{\"limit\": 0}");
            api.post(q + "resume", "{}");
        }
        assertThat(api.get("/ui/api/overview").json().path("queues").get(0).path("paused").asBoolean()).isFalse();
    }

    @Test
    void changesAreJsonFromThisSiteOnly() {
        long id = service.addItem(Map.of("name", "site-1"));
        awaitTask(id, inState("DONE"));
        String path = "/ui/api/queues/dash-items/pause";
        assertError(api.post(path, "limit=1", "application/x-www-form-urlencoded"), 415, "UNSUPPORTED_MEDIA_TYPE", null);
        assertError(api.post(path, "{}", "text/plain"), 415, "UNSUPPORTED_MEDIA_TYPE", null);
        assertError(api.post(path, "{}", null), 415, "UNSUPPORTED_MEDIA_TYPE", null);
        assertError(api.send(api.builder(path).header("Content-Type", "application/json").header("Origin", "http://evil.example")
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build()), 403, "CROSS_SITE_REQUEST", null);
        assertError(api.send(api.builder("/ui/api/tasks/" + id + "/events").header("Content-Type", "application/json")
                .header("Sec-Fetch-Site", "cross-site").POST(HttpRequest.BodyPublishers.ofString("{\"event\":\"CANCEL\"}")).build()),
                403, "CROSS_SITE_REQUEST", null);
        assertThat(api.get("/ui/api/overview").json().path("queues").get(0).path("paused").asBoolean()).as("nothing was paused").isFalse();
    }

    @Test
    void aReadOnlyDashboardShowsEverythingAndChangesNothing() {
        ApiClient.Response overview = readOnlyApi.get("/ui/api/overview");
        assertThat(overview.status()).isEqualTo(200);
        assertThat(overview.json().path("readOnly").asBoolean()).isTrue();
        assertThat(readOnlyApi.get("/ui").status()).isEqualTo(200);
        assertThat(readOnlyApi.get("/ui/api/machines/dash-batch").status()).isEqualTo(200);
        assertThat(readOnlyApi.get("/ui/api/tasks").status()).isEqualTo(200);
        for (String path : List.of("/ui/api/queues/dash-items/pause", "/ui/api/queues/dash-items/resume",
                "/ui/api/queues/dash-items/stop-after-current", "/ui/api/tasks/1/retry-failed-children")) {
            assertError(readOnlyApi.post(path, "{}"), 403, "FORBIDDEN", null);
        }
        assertError(readOnlyApi.post("/ui/api/queues/dash-items/concurrency", "{\"limit\":1}"), 403, "FORBIDDEN", null);
        assertError(readOnlyApi.post("/ui/api/tasks/1/events", "{\"event\":\"CANCEL\"}"), 403, "FORBIDDEN", null);
        JsonNode queue = readOnlyApi.get("/ui/api/overview").json().path("queues").get(0);
        assertThat(queue.path("paused").asBoolean()).isFalse();
        assertThat(queue.path("concurrency").asInt()).isZero();
    }

    @Test
    void aReadOnlyDashboardRefusesBulkActionsAndTheirCounts() {
        for (String path : List.of("/ui/api/bulk/count", "/ui/api/bulk/retry", "/ui/api/bulk/cancel", "/ui/api/bulk/delete")) {
            assertError(readOnlyApi.post(path, "{\"machine\":\"dash-item\",\"upTo\":100,\"event\":\"RETRY\"}"), 403, "FORBIDDEN", null);
        }
    }

    @Test
    void aMachineIsDescribedForItsDiagram() {
        ApiClient.Response r = api.get("/ui/api/machines/dash-item");
        assertThat(r.status()).isEqualTo(200);
        JsonNode m = r.json();
        assertThat(m.path("initial").asText()).isEqualTo("QUEUED");
        assertThat(m.path("version").asInt()).isEqualTo(1);
        JsonNode failed = m.path("states").get(3);
        assertThat(failed.path("name").asText()).isEqualTo("FAILED");
        assertThat(failed.path("ending").asText()).isEqualTo("FAILED");
        assertThat(failed.path("terminal").asBoolean()).isFalse();
        assertThat(names(failed.path("userEvents"))).containsExactlyInAnyOrder("RETRY", "CANCEL");
        assertThat(m.path("states").get(1).path("running").asBoolean()).as("RUNNING holds a lease").isTrue();
        List<String> rows = new ArrayList<>();
        m.path("transitions").forEach(t -> rows.add(t.path("from").asText() + " " + t.path("event").asText() + " " + t.path("to").asText()
                + " " + names(t.path("sources")) + (t.path("guard").isNull() ? "" : " [" + t.path("guard").asText() + "]")));
        assertThat(rows).contains("QUEUED START RUNNING [SYSTEM]", "FAILED RETRY QUEUED [USER] [not-locked]", "HELD CANCEL CANCELLED [SYSTEM, USER]");
        assertThat(api.get("/ui/api/machines/dash-batch").json().path("children").asText()).isEqualTo("dash-item");
    }

    private static void assertError(ApiClient.Response r, int status, String code, String field) {
        assertThat(r.status()).as(r.text()).isEqualTo(status);
        assertThat(r.field("error_code")).as(r.text()).isEqualTo(code);
        assertThat(r.field("message")).isNotBlank();
        if (field != null) assertThat(r.field("field")).as(r.text()).isEqualTo(field);
    }

    private static List<String> names(JsonNode array) {
        List<String> names = new ArrayList<>();
        array.forEach(n -> names.add(n.asText()));
        names.sort(null);
        return names;
    }

    private static List<Long> ids(ApiClient.Response r) {
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        List<Long> ids = new ArrayList<>();
        r.json().path("items").forEach(t -> ids.add(t.path("id").asLong()));
        return ids;
    }

    private static String resource(String file) throws IOException {
        try (InputStream in = DashboardApiTest.class.getClassLoader().getResourceAsStream("dev/statekit/dashboard/ui/" + file)) {
            assertThat(in).as(file).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
