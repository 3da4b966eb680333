package dev.statekit.examples.serve.readdo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.statekit.core.Outcome;
import dev.statekit.core.TaskSpec;
import dev.statekit.examples.ReadDoItem;
import dev.statekit.examples.hosts.ReadDoHost;
import dev.statekit.examples.serve.ApiClient;
import dev.statekit.examples.serve.ApiException;
import dev.statekit.examples.serve.ApiClient.Response;
import dev.statekit.examples.serve.ServeCommand;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API of {@code examples serve read-do}, in this process on an H2 database in a temporary
 * folder: every route, its answers and error codes, the three idempotency keys (also across a
 * restart on the same data folder), and the durable auto-enqueue.
 */
class ReadDoApiContractTest {
    static final Duration WAIT = Duration.ofSeconds(30);
    static final Set<String> AI_CODES = Set.of("AI_TIMEOUT", "AI_RATE_LIMITED", "AI_PROVIDER_ERROR", "AI_SCHEMA_INVALID");

    @TempDir
    Path data;

    ServeCommand.Running start(String... options) throws Exception {
        List<String> args = new ArrayList<>(List.of("read-do", "--port", "0", "--data", data.toString(), "--lease-seconds", "5"));
        args.addAll(List.of(options));
        return ServeCommand.start(args, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    }

    static String capture(String url, String captureId) {
        return "{\"url\":\"" + url + "\",\"intent\":\"write a memo\"" + (captureId == null ? "" : ",\"capture_id\":\"" + captureId + "\"") + "}";
    }

    static Response awaitState(ApiClient api, long id, String state) {
        return api.awaitGet("/items/" + id, r -> r.field("state").equals(state), WAIT);
    }

    static Predicate<Response> inState(String state) {
        return r -> r.field("state").equals(state);
    }

    static List<String> texts(JsonNode array) {
        List<String> values = new ArrayList<>();
        array.forEach(n -> values.add(n.asText()));
        return values;
    }

    static void assertRefused(Response r, String code, String... allowed) {
        assertThat(r.status()).as(r.text()).isEqualTo(409);
        assertThat(r.field("error_code")).as(r.text()).isEqualTo(code);
        assertThat(r.field("message")).isNotBlank();
        assertThat(texts(r.json().path("allowed"))).as(r.text()).containsExactly(allowed);
    }

    static void assertBadField(Response r, String code, String field) {
        assertThat(r.status()).as(r.text()).isEqualTo(400);
        assertThat(r.field("error_code")).as(r.text()).isEqualTo(code);
        assertThat(r.field("field")).as(r.text()).isEqualTo(field);
    }

    /** Sends by hand a POST with a body of {@code length} bytes, as a client that sends its whole body before reading does; returns the answer's status. */
    static int statusOfDeclaredBody(String base, String path, int length) throws IOException {
        URI uri = URI.create(base);
        try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
            socket.setSoTimeout(30_000);
            String head = "POST " + path + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + uri.getPort()
                    + "\r\nContent-Type: application/json\r\nContent-Length: " + length + "\r\nConnection: close\r\n\r\n";
            socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().write(("\"" + "x".repeat(length - 2) + "\"").getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            String status = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII)).readLine();
            assertThat(status).startsWith("HTTP/1.1 ");
            return Integer.parseInt(status.split(" ")[1]);
        }
    }

    List<Path> exportFiles() throws IOException {
        Path folder = data.resolve("exports");
        if (!Files.isDirectory(folder)) return List.of();
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".md")).sorted().toList();
        }
    }

    List<String> ledger(String name) throws IOException {
        Path file = data.resolve("logs").resolve(name);
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }

    @Test
    void everyRouteAnswersAsTheContractSays() throws Exception {
        try (ServeCommand.Running service = start("--work-millis", "300", "--workers", "1")) {
            ApiClient api = new ApiClient(service.base()).as("alice");

            // capture: 201, then 200 with the same item for the same capture_id; none without one
            Response created = api.post("/capture", capture("https://example.org/essays/on-reading", "c-1"));
            assertThat(created.status()).as(created.text()).isEqualTo(201);
            long id = created.json().path("item_id").asLong();
            assertThat(created.field("url")).isEqualTo("https://example.org/essays/on-reading");
            assertThat(created.field("intent")).isEqualTo("write a memo");
            assertThat(created.field("capture_id")).isEqualTo("c-1");
            assertThat(created.json().path("replayed").asBoolean()).isFalse();
            Response again = api.post("/capture", capture("https://example.org/essays/on-reading", "c-1"));
            assertThat(again.status()).isEqualTo(200);
            assertThat(again.json().path("item_id").asLong()).isEqualTo(id);
            assertThat(again.json().path("replayed").asBoolean()).isTrue();
            long other = api.post("/capture", capture("https://example.org/essays/on-writing", null)).json().path("item_id").asLong();
            Response third = api.post("/capture", capture("https://example.org/essays/on-writing", null));
            assertThat(third.status()).isEqualTo(201);
            assertThat(third.json().path("item_id").asLong()).isNotIn(id, other);

            // processing: refused for process (PROCESSING_IN_PROGRESS), archive and export
            api.awaitGet("/items/" + id, inState("PROCESSING"), WAIT);
            assertRefused(api.post("/items/" + id + "/process", "{\"process_request_id\":\"busy\"}"), "PROCESSING_IN_PROGRESS");
            assertRefused(api.post("/items/" + id + "/archive", "{}"), "PROCESSING_IN_PROGRESS");
            assertRefused(api.post("/items/" + id + "/export", "{\"export_key\":\"early\"}"), "EXPORT_NOT_ALLOWED");
            Response processing = api.get("/items/" + id);
            assertThat(processing.field("lease_owner")).startsWith("read-do@");
            assertThat(processing.field("lease_expires_at")).isNotBlank();

            // READY: every artifact of run-1
            Response ready = awaitState(api, id, "READY");
            assertThat(ready.field("run_id")).isEqualTo("run-1");
            assertThat(ready.json().path("attempts").asInt()).isEqualTo(1);
            assertThat(ready.json().path("artifacts_complete").asBoolean()).isTrue();
            assertThat(texts(ready.json().path("allowed"))).containsExactly("process", "export", "archive");
            JsonNode artifacts = ready.json().path("artifacts");
            for (String name : ReadDoItem.REQUIRED_ARTIFACTS) assertThat(artifacts.path(name).path("run_id").asText()).as(name).isEqualTo("run-1");
            assertThat(artifacts.path("summary").path("value").asText()).isNotBlank();
            assertThat(artifacts.path("score").path("value").path("reasons").size()).isGreaterThanOrEqualTo(3);
            assertThat(artifacts.path("todos").path("value").size()).isBetween(3, 7);
            assertThat(artifacts.path("todos").path("value").findValuesAsText("kind")).contains("output");
            assertThat(artifacts.path("card").path("value").path("render_spec").path("template").asText()).isEqualTo("card-v1");
            assertThat(ready.field("processed_by")).startsWith("read-do@");
            assertThat(ready.json().has("error_code")).isFalse();
            assertThat(ready.json().has("lease_owner")).isFalse();

            // GET /items: filters and pages
            awaitState(api, other, "READY");
            Response all = api.get("/items");
            assertThat(all.status()).isEqualTo(200);
            assertThat(all.json().path("items").findValuesAsText("item_id")).contains(Long.toString(id), Long.toString(other));
            Response page = api.get("/items?limit=1");
            assertThat(page.json().path("items").size()).isEqualTo(1);
            assertThat(page.json().path("next_after").asLong()).isEqualTo(page.json().path("items").get(0).path("item_id").asLong());
            Response next = api.get("/items?limit=1&after=" + page.json().path("next_after").asLong());
            assertThat(next.json().path("items").get(0).path("item_id").asLong()).isGreaterThan(page.json().path("next_after").asLong());
            Response readyOnly = api.get("/items?state=ready");
            readyOnly.json().path("items").forEach(i -> assertThat(i.path("state").asText()).isEqualTo("READY"));
            assertThat(readyOnly.json().path("items").findValuesAsText("item_id")).contains(Long.toString(id));
            assertBadField(api.get("/items?state=DONE"), "INVALID_QUERY", "state");
            assertBadField(api.get("/items?limit=0"), "INVALID_QUERY", "limit");

            // export: required key, once per key; a new key exports again (SHIPPED → SHIPPED)
            assertBadField(api.post("/items/" + id + "/export", "{}"), "INVALID_FIELD", "export_key");
            Response exported = api.post("/items/" + id + "/export", "{\"export_key\":\"card-run-1-tpl-v1\"}");
            assertThat(exported.status()).as(exported.text()).isEqualTo(200);
            assertThat(exported.field("state")).isEqualTo("SHIPPED");
            assertThat(exported.json().path("exported").asBoolean()).isTrue();
            assertThat(exported.json().path("written").asBoolean()).isTrue();
            assertThat(exported.json().path("replayed").asBoolean()).isFalse();
            String file = exported.field("file");
            assertThat(file).startsWith("exports/item-" + id + "-").endsWith(".md");
            assertThat(Files.readString(data.resolve(file))).contains("## Summary").contains("run run-1").contains("- [ ] ");
            Response replay = api.post("/items/" + id + "/export", "{\"export_key\":\"card-run-1-tpl-v1\"}");
            assertThat(replay.status()).isEqualTo(200);
            assertThat(replay.field("file")).isEqualTo(file);
            assertThat(replay.json().path("written").asBoolean()).isFalse();
            assertThat(replay.json().path("replayed").asBoolean()).isTrue();
            assertThat(exportFiles()).hasSize(1);
            Response reExport = api.post("/items/" + id + "/export", "{\"export_key\":\"card-run-1-tpl-v2\"}");
            assertThat(reExport.field("state")).isEqualTo("SHIPPED");
            assertThat(reExport.json().path("written").asBoolean()).isTrue();
            assertThat(reExport.field("file")).isNotEqualTo(file);
            assertThat(exportFiles()).hasSize(2);
            assertThat(ledger("exports.log")).hasSize(2);
            Response shipped = api.get("/items/" + id);
            assertThat(shipped.json().path("exports").findValuesAsText("export_key")).containsExactly("card-run-1-tpl-v1", "card-run-1-tpl-v2");

            // SHIPPED: no process, no unarchive
            assertRefused(api.post("/items/" + id + "/process", "{}"), "PROCESS_NOT_ALLOWED", "export", "archive");
            assertRefused(api.post("/items/" + id + "/unarchive", "{}"), "NOT_ARCHIVED", "export", "archive");

            // archive, and what ARCHIVED refuses
            Response archived = api.post("/items/" + id + "/archive", "{}");
            assertThat(archived.status()).isEqualTo(200);
            assertThat(archived.field("state")).isEqualTo("ARCHIVED");
            assertThat(archived.field("archive_reason")).isEqualTo("USER_ARCHIVE");
            assertRefused(api.post("/items/" + id + "/archive", "{}"), "ARCHIVE_NOT_ALLOWED", "process", "unarchive");
            assertRefused(api.post("/items/" + id + "/export", "{\"export_key\":\"card-run-1-tpl-v3\"}"), "EXPORT_NOT_ALLOWED",
                    "process", "unarchive");
            assertBadField(api.post("/items/" + id + "/unarchive", "{\"regenerate\":\"yes\"}"), "INVALID_FIELD", "regenerate");

            // unarchive: READY with the artifacts kept
            Response unarchived = api.post("/items/" + id + "/unarchive", "{}");
            assertThat(unarchived.status()).isEqualTo(200);
            assertThat(unarchived.field("state")).isEqualTo("READY");
            assertThat(unarchived.field("run_id")).isEqualTo("run-1");

            // process (regenerate) with a request id: queued once, behind another item that holds the only worker
            awaitState(api, third.json().path("item_id").asLong(), "READY");
            assertThat(api.post("/items/" + other + "/process", "{}").status()).isEqualTo(200);
            api.awaitGet("/items/" + other, inState("PROCESSING"), WAIT);
            Response process = api.post("/items/" + id + "/process", "{\"process_request_id\":\"p-1\"}");
            assertThat(process.status()).as(process.text()).isEqualTo(200);
            assertThat(process.field("state")).isEqualTo("QUEUED");
            assertThat(process.json().path("replayed").asBoolean()).isFalse();
            Response processAgain = api.post("/items/" + id + "/process", "{\"process_request_id\":\"p-1\"}");
            assertThat(processAgain.status()).isEqualTo(200);
            assertThat(processAgain.json().path("replayed").asBoolean()).isTrue();
            assertRefused(api.post("/items/" + id + "/process", "{\"process_request_id\":\"p-2\"}"), "ALREADY_QUEUED", "archive");
            Response regenerated = api.awaitGet("/items/" + id, r -> r.field("state").equals("READY") && r.field("run_id").equals("run-2"), WAIT);
            assertThat(regenerated.json().path("attempts").asInt()).isEqualTo(2);
            assertThat(api.post("/items/" + id + "/process", "{\"process_request_id\":\"p-1\"}").json().path("replayed").asBoolean()).isTrue();
            assertThat(api.get("/items/" + id).field("state")).as("a repeated request id queues nothing").isEqualTo("READY");

            // unarchive with regenerate: queued, processed again
            api.post("/items/" + id + "/archive", "{\"archive_reason\":\"SYSTEM_SKIP\"}");
            assertThat(api.get("/items/" + id).field("archive_reason")).isEqualTo("SYSTEM_SKIP");
            Response regenerate = api.post("/items/" + id + "/unarchive", "{\"regenerate\":true}");
            assertThat(regenerate.field("state")).isEqualTo("QUEUED");
            assertThat(api.awaitGet("/items/" + id, r -> r.field("state").equals("READY") && r.field("run_id").equals("run-3"), WAIT)
                    .json().path("artifacts_complete").asBoolean()).isTrue();

            // unknown items, bad ids, bad bodies
            assertThat(api.get("/items/987654").status()).isEqualTo(404);
            assertThat(api.get("/items/987654").field("error_code")).isEqualTo("NOT_FOUND");
            for (String action : List.of("process", "archive", "unarchive")) {
                assertThat(api.post("/items/987654/" + action, "{}").status()).as(action).isEqualTo(404);
            }
            assertThat(api.post("/items/987654/export", "{\"export_key\":\"k\"}").status()).isEqualTo(404);
            assertBadField(api.get("/items/abc"), "INVALID_ID", "id");
            assertThat(api.post("/capture", "{\"url\":").field("error_code")).isEqualTo("MALFORMED_JSON");
            assertThat(api.post("/capture", "[1]").status()).isEqualTo(400);
            assertBadField(api.post("/capture", "{\"url\":\"https://example.org/a\",\"intent\":\"x\",\"tags\":[]}"), "UNKNOWN_FIELD", "tags");
            assertBadField(api.post("/capture", "{\"url\":\"ftp://example.org/a\",\"intent\":\"x\"}"), "INVALID_FIELD", "url");
            assertBadField(api.post("/capture", "{\"url\":\"not a url\",\"intent\":\"x\"}"), "INVALID_FIELD", "url");
            assertBadField(api.post("/capture", "{\"url\":\"https://example.org/a\"}"), "INVALID_FIELD", "intent");
            assertBadField(api.post("/capture", "{\"url\":\"https://example.org/a\",\"intent\":\"x\",\"capture_id\":7}"), "INVALID_FIELD",
                    "capture_id");
            assertBadField(api.post("/items/" + id + "/process", "{\"request\":\"p\"}"), "UNKNOWN_FIELD", "request");
            assertBadField(api.post("/items/" + id + "/archive", "{\"archive_reason\":\"BORED\"}"), "INVALID_FIELD", "archive_reason");
            assertBadField(api.post("/items/" + id + "/export", "{\"export_key\":\"" + "k".repeat(201) + "\"}"), "INVALID_FIELD", "export_key");

            // the server's checks: 413, 415, 403
            // a body larger than 64 KiB is refused (sent by hand, whole, before the answer is read)
            assertThat(statusOfDeclaredBody(service.base(), "/capture", 70 * 1024)).isEqualTo(413);
            Response plain = api.post("/capture", capture("https://example.org/a", null), "text/plain");
            assertThat(plain.status()).isEqualTo(415);
            Response crossSite = api.send(api.builder("/capture").header("Content-Type", "application/json").header("Sec-Fetch-Site", "cross-site")
                    .POST(HttpRequest.BodyPublishers.ofString(capture("https://example.org/a", null))).build());
            assertThat(crossSite.status()).isEqualTo(403);
            assertThat(crossSite.field("error_code")).isEqualTo("CROSS_SITE_REQUEST");
        }
    }

    @Test
    void failuresAndTheThreeKeysHoldAcrossRestarts() throws Exception {
        long item;
        String firstFile;
        // 1. everything works: an item ready, exported and regenerated with a request id
        try (ServeCommand.Running service = start("--work-millis", "0")) {
            ApiClient api = new ApiClient(service.base());
            Response created = api.post("/capture", capture("https://example.org/notes/restart", "restart-1"));
            assertThat(created.status()).isEqualTo(201);
            item = created.json().path("item_id").asLong();
            awaitState(api, item, "READY");
            assertThat(api.post("/items/" + item + "/process", "{\"process_request_id\":\"p-1\"}").status()).isEqualTo(200);
            api.awaitGet("/items/" + item, r -> r.field("state").equals("READY") && r.field("run_id").equals("run-2"), WAIT);
            Response exported = api.post("/items/" + item + "/export", "{\"export_key\":\"k-1\"}");
            assertThat(exported.field("state")).isEqualTo("SHIPPED");
            firstFile = exported.field("file");
        }
        long unreachable;
        // 2. the AI and exports always fail; the keys of before still answer as before
        try (ServeCommand.Running service = start("--work-millis", "0", "--ai-failure-rate", "1", "--export-failure-rate", "1")) {
            ApiClient api = new ApiClient(service.base());
            Response again = api.post("/capture", capture("https://example.org/notes/restart", "restart-1"));
            assertThat(again.status()).as("the same capture_id after a restart").isEqualTo(200);
            assertThat(again.json().path("item_id").asLong()).isEqualTo(item);
            Response replayedExport = api.post("/items/" + item + "/export", "{\"export_key\":\"k-1\"}");
            assertThat(replayedExport.json().path("replayed").asBoolean()).isTrue();
            assertThat(replayedExport.json().path("written").asBoolean()).isFalse();
            assertThat(replayedExport.field("file")).isEqualTo(firstFile);
            Response replayedProcess = api.post("/items/" + item + "/process", "{\"process_request_id\":\"p-1\"}");
            assertThat(replayedProcess.json().path("replayed").asBoolean()).isTrue();
            assertThat(replayedProcess.field("state")).as("nothing queued again").isEqualTo("SHIPPED");

            assertThat(api.post("/items/" + item + "/archive", "{}").field("state")).isEqualTo("ARCHIVED");
            Response retried = api.post("/items/" + item + "/process", "{\"process_request_id\":\"p-2\"}");
            assertThat(retried.field("state")).isEqualTo("QUEUED");
            Response failedAi = awaitState(api, item, "FAILED_AI");
            assertThat(failedAi.field("failed_step")).isEqualTo("summarize");
            assertThat(failedAi.field("error_code")).isIn(AI_CODES);
            assertThat(failedAi.field("message")).isNotBlank();
            assertThat(failedAi.json().path("retryable").asBoolean()).isTrue();
            assertThat(failedAi.json().path("attempts").asInt()).isEqualTo(3);
            assertThat(failedAi.field("run_id")).isEqualTo("run-3");
            assertThat(failedAi.json().path("artifacts_complete").asBoolean()).as("run-2's artifacts do not count for run-3").isFalse();
            assertThat(texts(failedAi.json().path("allowed"))).containsExactly("process", "archive");
            assertRefused(api.post("/items/" + item + "/export", "{\"export_key\":\"k-2\"}"), "EXPORT_NOT_ALLOWED", "process", "archive");

            unreachable = api.post("/capture", capture("https://feeds.unreachable.invalid/post", "restart-2")).json().path("item_id").asLong();
            Response failedExtraction = awaitState(api, unreachable, "FAILED_EXTRACTION");
            assertThat(failedExtraction.field("failed_step")).isEqualTo("extract");
            assertThat(failedExtraction.field("error_code")).isEqualTo("EXTRACTION_FETCH_FAILED");
            assertThat(failedExtraction.json().path("retryable").asBoolean()).isFalse();
        }
        // 3. the AI works again, exports still fail: FAILED_EXPORT
        try (ServeCommand.Running service = start("--work-millis", "0", "--export-failure-rate", "1")) {
            ApiClient api = new ApiClient(service.base());
            api.post("/items/" + item + "/process", "{}");
            awaitState(api, item, "READY");
            Response failedExport = api.post("/items/" + item + "/export", "{\"export_key\":\"k-2\"}");
            assertThat(failedExport.status()).as(failedExport.text()).isEqualTo(200);
            assertThat(failedExport.field("state")).isEqualTo("FAILED_EXPORT");
            assertThat(failedExport.json().path("exported").asBoolean()).isFalse();
            assertThat(failedExport.field("error_code")).isIn("EXPORT_RENDER_FAILED", "EXPORT_WRITE_FAILED");
            assertThat(failedExport.json().path("retryable").asBoolean()).isTrue();
            Response failed = api.get("/items/" + item);
            assertThat(failed.field("failed_step")).isEqualTo("export");
            assertThat(failed.field("error_code")).isEqualTo(failedExport.field("error_code"));
            assertThat(texts(failed.json().path("allowed"))).containsExactly("process", "export", "archive");
            assertThat(exportFiles()).as("a failed export leaves no file").hasSize(1);
        }
        // 4. exports work: the failed key is retried into SHIPPED; a captured item whose enqueue was lost is enqueued
        try (ServeCommand.Running service = start("--work-millis", "0")) {
            ApiClient api = new ApiClient(service.base());
            Response shipped = api.post("/items/" + item + "/export", "{\"export_key\":\"k-2\"}");
            assertThat(shipped.field("state")).as(shipped.text()).isEqualTo("SHIPPED");
            assertThat(shipped.json().path("written").asBoolean()).isTrue();
            assertThat(api.post("/items/" + item + "/export", "{\"export_key\":\"k-1\"}").field("file")).isEqualTo(firstFile);
            assertThat(exportFiles()).hasSize(2);
            assertThat(ledger("exports.log")).as("one write per key").hasSize(2);

            Response archived = api.post("/items/" + unreachable + "/archive", "{}");
            assertThat(archived.field("archive_reason")).isEqualTo("FAILURE_ARCHIVE");
            Response unarchived = api.post("/items/" + unreachable + "/unarchive", "{}");
            assertThat(unarchived.field("state")).as("no artifacts: processed again").isEqualTo("QUEUED");
            assertThat(awaitState(api, unreachable, "FAILED_EXTRACTION").json().path("attempts").asInt()).isEqualTo(2);

            // a capture whose process died between storing the item and enqueueing it
            long lost = service.service().engine().create(ReadDoItem.MACHINE, TaskSpec.defaults().queue(ReadDoHost.QUEUE)
                    .attribute(ReadDoHost.URL, "https://example.org/notes/lost").attribute(Pipeline.INTENT, "read")
                    .notBefore(Instant.now())).task().id();
            assertThat(api.get("/items/" + lost).field("state")).isIn("CAPTURED", "QUEUED", "PROCESSING", "READY");
            Response enqueued = awaitState(api, lost, "READY");
            assertThat(enqueued.field("run_id")).isEqualTo("run-1");

            // the dashboard's buttons: an export under the key of the item's run's card; no export failure by hand
            Outcome<?> dashboardExport = service.service().fireUser(ReadDoItem.MACHINE, lost, "EXPORT_SUCCEEDED", "dana");
            assertThat(dashboardExport.isApplied()).isTrue();
            Response viaDashboard = api.get("/items/" + lost);
            assertThat(viaDashboard.field("state")).isEqualTo("SHIPPED");
            assertThat(viaDashboard.json().path("exports").findValuesAsText("export_key")).containsExactly("card-run-1");
            assertThat(exportFiles()).hasSize(3);
            assertThatThrownBy(() -> service.service().fireUser(ReadDoItem.MACHINE, lost, "EXPORT_FAILED", "dana"))
                    .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.status()).isEqualTo(409));
        }
    }
}
