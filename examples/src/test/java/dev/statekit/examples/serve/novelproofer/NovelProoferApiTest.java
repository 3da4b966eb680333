package dev.statekit.examples.serve.novelproofer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.statekit.core.Outcome;
import dev.statekit.examples.NovelProoferChunk;
import dev.statekit.examples.NovelProoferJob;
import dev.statekit.examples.hosts.NovelProoferHost;
import dev.statekit.examples.serve.ApiClient;
import dev.statekit.examples.serve.Reply;
import dev.statekit.examples.serve.ServeCommand;
import dev.statekit.store.HistoryEntry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP API of {@code examples serve novel-proofer}, in this process on an H2 database in a
 * temporary folder: every endpoint, its statuses, its refusals with their codes and allowed events,
 * and its idempotency keys.
 */
class NovelProoferApiTest {
    static final Duration WITHIN = Duration.ofSeconds(30);
    static final List<String> PARAGRAPHS = List.of(
            "It was late when teh ferry left the harbour , and the lamps swung  in the wind.",
            "Mara counted the crates twice , then a third time.",
            "渡船在深夜离开了港口,码头上的灯在风中摇晃.");

    @TempDir
    Path data;

    final List<ServeCommand.Running> running = new ArrayList<>();

    @AfterEach
    void stop() {
        for (ServeCommand.Running r : running) r.close();
    }

    /** Starts the service on {@link #data} with {@code options} over the test's defaults (no LLM latency, no failures, chunks of 60). */
    ServeCommand.Running start(String... options) throws Exception {
        java.util.Map<String, String> given = new java.util.LinkedHashMap<>(java.util.Map.of("--work-millis", "0", "--llm-failure-rate", "0",
                "--chunk-chars", "60"));
        for (int i = 0; i < options.length; i += 2) given.put(options[i], options[i + 1]);
        List<String> args = new ArrayList<>(List.of("novel-proofer", "--port", "0", "--data", data.toString()));
        given.forEach((k, v) -> args.addAll(List.of(k, v)));
        ServeCommand.Running r = ServeCommand.start(args, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        running.add(r);
        return r;
    }

    static String text() {
        return String.join("\n\n", PARAGRAPHS);
    }

    /** The chunks of {@link #text()} at 60 characters: the first paragraph is cut in two. */
    static final int CHUNKS = 4;

    static String json(Object value) {
        return dev.statekit.examples.serve.Json.write(value);
    }

    static ApiClient.Response post(ApiClient client, String path, String body, String key) {
        return client.send(client.builder(path).header("Content-Type", "application/json").header(JobsApi.IDEMPOTENCY_KEY, key)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    static boolean is(ApiClient.Response r, String state, String phase) {
        return r.status() == 200 && r.field("state").equals(state) && r.field("phase").equals(phase);
    }

    static List<String> texts(JsonNode array) {
        return StreamSupport.stream(array.spliterator(), false).map(JsonNode::asText).collect(Collectors.toList());
    }

    static List<String> chunkStates(ApiClient.Response chunks) {
        return StreamSupport.stream(chunks.json().path("chunks").spliterator(), false).map(c -> c.path("state").asText()).toList();
    }

    static void refused(ApiClient.Response r, String code, String... allowed) {
        assertThat(r.status()).as(r.text()).isEqualTo(409);
        assertThat(r.field("error_code")).isEqualTo(code);
        assertThat(r.field("message")).isNotBlank();
        assertThat(texts(r.json().path("allowed"))).containsExactlyInAnyOrder(allowed);
    }

    @Test
    void aJobGoesThroughValidationProcessingAndTheMergeGateIntoItsOutputFile() throws Exception {
        ApiClient api = new ApiClient(start().base()).as("alice");
        String body = json(java.util.Map.of("title", "The Ferry", "text", text()));

        ApiClient.Response created = post(api, "/jobs", body, "k-1");
        assertThat(created.status()).as(created.text()).isEqualTo(201);
        long id = created.json().path("id").asLong();
        assertThat(created.field("title")).isEqualTo("The Ferry");
        assertThat(created.field("validate")).isEqualTo("auto");
        assertThat(created.field("created_by")).isEqualTo("alice");
        assertThat(created.json().path("chunk_chars").asInt()).isEqualTo(60);
        ApiClient.Response again = post(api, "/jobs", body, "k-1");
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.json().path("id").asLong()).isEqualTo(id);
        assertThat(again.json().path("replayed").asBoolean()).isTrue();
        ApiClient.Response reused = post(api, "/jobs", json(java.util.Map.of("title", "Another", "text", text())), "k-1");
        assertThat(reused.status()).isEqualTo(409);
        assertThat(reused.field("error_code")).isEqualTo("IDEMPOTENCY_KEY_REUSED");

        ApiClient.Response validated = api.awaitGet("/jobs/" + id, r -> is(r, "paused", "process"), WITHIN);
        assertThat(validated.json().path("progress").path("total_chunks").asInt()).isEqualTo(CHUNKS);
        assertThat(validated.json().path("progress").path("done_chunks").asInt()).isZero();
        assertThat(texts(validated.json().path("allowed"))).containsExactlyInAnyOrder("START_PROCESS", "MERGE", "RESET");
        assertThat(api.get("/jobs").json().path("jobs").get(0).path("id").asLong()).isEqualTo(id);
        assertThat(api.get("/jobs?state=paused").json().path("jobs")).hasSize(1);
        assertThat(api.get("/jobs?state=done").json().path("jobs")).isEmpty();
        assertThat(api.get("/jobs/" + id + "/chunks").json().path("chunks")).as("chunks are made when processing starts").isEmpty();

        refused(api.post("/jobs/" + id + "/merge", ""), NovelProoferJob.PHASE_MISMATCH, "START_PROCESS", "MERGE", "RESET");
        refused(api.post("/jobs/" + id + "/pause", "{}"), "ILLEGAL_TRANSITION", "START_PROCESS", "MERGE", "RESET");
        refused(api.post("/jobs/" + id + "/retry-failed", "{}"), "ILLEGAL_TRANSITION", "START_PROCESS", "MERGE", "RESET");
        refused(api.post("/jobs/" + id + "/validate", ""), "ILLEGAL_TRANSITION", "START_PROCESS", "MERGE", "RESET");
        refused(api.get("/jobs/" + id + "/output"), "NOT_MERGED", "START_PROCESS", "MERGE", "RESET");

        ApiClient.Response processing = post(api, "/jobs/" + id + "/process", "", "p-1");
        assertThat(processing.status()).as(processing.text()).isEqualTo(200);
        assertThat(processing.field("phase")).isIn("process", "merge");
        assertThat(post(api, "/jobs/" + id + "/process", "", "p-1").json().path("replayed").asBoolean()).isTrue();

        ApiClient.Response gated = api.awaitGet("/jobs/" + id, r -> is(r, "paused", "merge"), WITHIN);
        assertThat(gated.json().path("progress").path("done_chunks").asInt()).isEqualTo(CHUNKS);
        assertThat(gated.json().path("progress").path("percent").asInt()).isEqualTo(100);
        assertThat(gated.json().path("last_retry_count").asInt()).isZero();
        assertThat(gated.field("llm_model")).isEqualTo("proofer-llm-1");
        assertThat(gated.json().path("last_error").isNull()).isTrue();
        JsonNode chunks = api.get("/jobs/" + id + "/chunks").json().path("chunks");
        assertThat(chunks).hasSize(CHUNKS);
        for (int i = 0; i < CHUNKS; i++) {
            assertThat(chunks.get(i).path("index").asInt()).isEqualTo(i);
            assertThat(chunks.get(i).path("state").asText()).isEqualTo("done");
            assertThat(chunks.get(i).path("retries").asInt()).isZero();
            assertThat(chunks.get(i).path("llm_model").asText()).isEqualTo("proofer-llm-1");
            assertThat(chunks.get(i).path("last_error_code").isNull()).isTrue();
        }
        assertThat(api.get("/jobs/" + id + "/chunks?state=done").json().path("chunks")).hasSize(CHUNKS);
        assertThat(api.get("/jobs/" + id + "/chunks?state=error").json().path("chunks")).isEmpty();
        refused(api.post("/jobs/" + id + "/process", ""), NovelProoferJob.PHASE_MISMATCH, "START_PROCESS", "MERGE", "RESET");

        ApiClient.Response merged = post(api, "/jobs/" + id + "/merge", "{}", "m-1");
        assertThat(merged.status()).as(merged.text()).isEqualTo(200);
        ApiClient.Response done = api.awaitGet("/jobs/" + id, r -> is(r, "done", "done"), WITHIN);
        String file = "output/" + id + "-the-ferry.txt";
        assertThat(done.field("output_file")).isEqualTo(file);
        assertThat(texts(done.json().path("allowed"))).isEmpty();
        assertThat(post(api, "/jobs/" + id + "/merge", "{}", "m-1").json().path("replayed").asBoolean()).isTrue();
        refused(api.post("/jobs/" + id + "/merge", "{}"), "ILLEGAL_TRANSITION");
        refused(api.post("/jobs/" + id + "/reset", "{}"), "ILLEGAL_TRANSITION");

        StringBuilder proofread = new StringBuilder();
        for (NovelProoferHost.Slice slice : NovelProoferHost.slices(text(), 60)) {
            proofread.append(SimulatedLlm.proofread(slice.text())).append(slice.separator());
        }
        String expected = proofread.toString();
        assertThat(expected).isEqualTo(PARAGRAPHS.stream().map(SimulatedLlm::proofread).collect(Collectors.joining("\n\n")));
        assertThat(expected).contains("the ferry left the harbour, and the lamps swung in the wind.", "港口，码头上的灯在风中摇晃。");
        ApiClient.Response output = api.get("/jobs/" + id + "/output");
        assertThat(output.status()).isEqualTo(200);
        assertThat(output.field("text")).isEqualTo(expected);
        assertThat(Files.readString(data.resolve(file), StandardCharsets.UTF_8)).isEqualTo(expected);
        assertThat(Files.readAllLines(data.resolve(OutputFiles.JOURNAL))).hasSize(1).allSatisfy(l -> assertThat(l).contains(file));
    }

    @Test
    void requestsThatCannotBeAnsweredGetTheirStatusAndCode() throws Exception {
        ApiClient api = new ApiClient(start().base());
        record Case(String body, int status, String code, String field) {}
        List<Case> cases = List.of(
                new Case("{\"title\": \"t\"", 400, "MALFORMED_JSON", null),
                new Case("[1]", 400, "INVALID_BODY", null),
                new Case("{\"text\": \"x\"}", 400, "INVALID_FIELD", "title"),
                new Case("{\"title\": \"t\", \"text\": \"   \"}", 400, "INVALID_FIELD", "text"),
                new Case("{\"title\": \"t\", \"text\": 7}", 400, "INVALID_FIELD", "text"),
                new Case("{\"title\": \"t\", \"text\": \"x\", \"colour\": \"red\"}", 400, "UNKNOWN_FIELD", "colour"),
                new Case("{\"title\": \"t\", \"text\": \"x\", \"chunk_chars\": 10}", 400, "INVALID_FIELD", "chunk_chars"),
                new Case("{\"title\": \"t\", \"text\": \"x\", \"llm_model\": \"a b\"}", 400, "INVALID_FIELD", "llm_model"),
                new Case("{\"title\": \"t\", \"text\": \"x\", \"validate\": false, \"process\": true}", 400, "INVALID_FIELD", "process"),
                new Case("{\"title\": \"t\", \"text\": \"x\", \"validate\": \"yes\"}", 400, "INVALID_FIELD", "validate"));
        for (Case c : cases) {
            ApiClient.Response r = api.post("/jobs", c.body());
            assertThat(r.status()).as(c.body() + " → " + r.text()).isEqualTo(c.status());
            assertThat(r.field("error_code")).as(c.body()).isEqualTo(c.code());
            if (c.field() != null) assertThat(r.field("field")).as(c.body()).isEqualTo(c.field());
        }
        ApiClient.Response badKey = post(api, "/jobs", "{\"title\": \"t\", \"text\": \"x\"}", "no spaces allowed");
        assertThat(badKey.status()).isEqualTo(400);
        assertThat(badKey.field("field")).isEqualTo(JobsApi.IDEMPOTENCY_KEY);
        assertThat(api.post("/jobs/1/pause", "{\"now\": true}").field("error_code")).isEqualTo("UNKNOWN_FIELD");
        assertThat(api.get("/jobs/abc").field("error_code")).isEqualTo("INVALID_ID");
        assertThat(api.get("/jobs?state=lost").field("field")).isEqualTo("state");
        assertThat(api.get("/jobs?limit=0").field("field")).isEqualTo("limit");
        for (String path : List.of("/jobs/99", "/jobs/99/chunks", "/jobs/99/output")) {
            assertThat(api.get(path).status()).as(path).isEqualTo(404);
            assertThat(api.get(path).field("error_code")).isEqualTo("NOT_FOUND");
        }
        for (String button : List.of("validate", "process", "pause", "retry-failed", "merge", "reset")) {
            assertThat(api.post("/jobs/99/" + button, "{}").status()).as(button).isEqualTo(404);
        }
        assertThat(api.get("/nothing-here").status()).isEqualTo(404);
        assertThat(api.get("/jobs/1/merge").status()).isEqualTo(405);
        assertThat(api.post("/jobs", "{}", "text/plain").status()).isEqualTo(415);
        assertThat(api.post("/jobs", "{}", null).status()).isEqualTo(415);
        // a body over the service's 400 KiB is 413; a text over 60,000 characters in a body under it, 400 naming the field
        String big = "{\"title\": \"t\", \"text\": \"" + "x".repeat(JobsApi.MAX_BODY) + "\"}";
        assertThat(api.post("/jobs", big).status()).isEqualTo(413);
        String tooLong = "{\"title\": \"t\", \"text\": \"" + "x".repeat(70_000) + "\"}";
        assertThat(api.post("/jobs", tooLong).status()).isEqualTo(400);
        assertThat(api.post("/jobs", tooLong).field("field")).isEqualTo("text");
        ApiClient.Response crossSite = api.send(api.builder("/jobs").header("Content-Type", "application/json")
                .header("Origin", "https://elsewhere.example").POST(HttpRequest.BodyPublishers.ofString("{}")).build());
        assertThat(crossSite.status()).isEqualTo(403);
        assertThat(crossSite.field("error_code")).isEqualTo("CROSS_SITE_REQUEST");
        assertThat(api.as("not a name").post("/jobs", "{}").field("error_code")).isEqualTo("INVALID_ACTOR");
        assertThat(api.get("/jobs").json().path("jobs")).as("nothing was created").isEmpty();
    }

    @Test
    void pauseSendsInFlightChunksBackToPendingAndProcessingResumes() throws Exception {
        ServeCommand.Running service = start("--work-millis", "700", "--workers", "1");
        ApiClient api = new ApiClient(service.base()).as("bob");
        ApiClient.Response created = api.post("/jobs", json(java.util.Map.of("title", "Slow", "text", text(), "validate", false)));
        assertThat(created.status()).isEqualTo(201);
        assertThat(created.field("state")).isEqualTo("queued");
        assertThat(created.field("phase")).isEqualTo("validate");
        long id = created.json().path("id").asLong();
        assertThat(api.post("/jobs/" + id + "/validate", "").status()).isEqualTo(200);
        api.awaitGet("/jobs/" + id, r -> is(r, "paused", "process"), WITHIN);

        assertThat(api.post("/jobs/" + id + "/process", "").status()).isEqualTo(200);
        api.awaitGet("/jobs/" + id + "/chunks", r -> chunkStates(r).contains("processing"), WITHIN);
        ApiClient.Response paused = api.post("/jobs/" + id + "/pause", "");
        assertThat(paused.status()).as(paused.text()).isEqualTo(200);
        assertThat(paused.field("state")).isEqualTo("paused");
        assertThat(paused.field("phase")).isEqualTo("process");
        ApiClient.Response settled = api.awaitGet("/jobs/" + id + "/chunks",
                r -> chunkStates(r).stream().allMatch(s -> s.equals("pending") || s.equals("done")), WITHIN);
        assertThat(chunkStates(settled)).contains("pending");
        refused(api.post("/jobs/" + id + "/pause", ""), "ILLEGAL_TRANSITION", "START_PROCESS", "MERGE", "RESET");

        // the dashboard's button resumes it, as the API's would
        Outcome<?> resumed = service.service().fireUser(NovelProoferJob.MACHINE, id, "START_PROCESS", "bob");
        assertThat(resumed.isApplied()).isTrue();
        api.awaitGet("/jobs/" + id, r -> is(r, "paused", "merge"), WITHIN);
        assertThat(chunkStates(api.get("/jobs/" + id + "/chunks"))).containsOnly("done");
    }

    @Test
    void retryableFailuresRetryInsideTheProcessingAndResetDeletesTheJob() throws Exception {
        ApiClient api = new ApiClient(start("--llm-failure-rate", "1").base());
        ApiClient.Response created = api.post("/jobs", json(java.util.Map.of("title", "Flaky", "text", text(), "process", true)));
        assertThat(created.status()).isEqualTo(201);
        long id = created.json().path("id").asLong();
        ApiClient.Response retrying = api.awaitGet("/jobs/" + id + "/chunks", r -> chunkStates(r).contains("retrying"), WITHIN);
        JsonNode chunk = StreamSupport.stream(retrying.json().path("chunks").spliterator(), false)
                .filter(c -> c.path("state").asText().equals("retrying")).findFirst().orElseThrow();
        assertThat(chunk.path("retries").asInt()).isPositive();
        assertThat(chunk.path("last_error_code").asText()).isIn("HTTP_429", "HTTP_503");
        assertThat(chunk.path("last_error_message").asText()).contains("simulated");
        ApiClient.Response job = api.get("/jobs/" + id);
        assertThat(job.field("state")).isEqualTo("running");
        assertThat(job.json().path("last_retry_count").asInt()).isPositive();

        assertThat(api.post("/jobs/" + id + "/pause", "").status()).isEqualTo(200);
        ApiClient.Response pending = api.awaitGet("/jobs/" + id + "/chunks", r -> chunkStates(r).stream().allMatch("pending"::equals), WITHIN);
        assertThat(pending.json().path("chunks").get(0).path("last_error_code").asText()).as("kept as history").startsWith("HTTP_");

        ApiClient.Response reset = post(api, "/jobs/" + id + "/reset", "", "r-1");
        assertThat(reset.status()).as(reset.text()).isEqualTo(200);
        assertThat(reset.field("state")).isEqualTo("cancelled");
        api.awaitGet("/jobs/" + id, r -> r.status() == 404, WITHIN);
        assertThat(api.get("/jobs/" + id + "/chunks").status()).isEqualTo(404);
        assertThat(post(api, "/jobs/" + id + "/reset", "", "r-1").status()).isEqualTo(404);
        assertThat(api.get("/jobs").json().path("jobs")).isEmpty();
        try (var files = Files.list(data.resolve(OutputFiles.FOLDER))) {
            assertThat(files.filter(f -> !f.getFileName().toString().startsWith("."))).isEmpty();
        }
    }

    @Test
    void aChineseTextOfUpTo60000CharactersIsAcceptedWhetherSentInUtf8OrEscaped() throws Exception {
        ApiClient api = new ApiClient(start().base());
        String chinese = "渡船在深夜离开了港口，码头上的灯在风中摇晃。".repeat(3000).substring(0, JobsApi.MAX_TEXT);
        assertThat(chinese.length()).isEqualTo(60_000);
        String utf8 = json(java.util.Map.of("title", "Ferry", "text", chinese, "validate", false));
        assertThat(utf8.getBytes(StandardCharsets.UTF_8).length).as("over the other services' 64 KiB").isGreaterThan(64 * 1024);
        ApiClient.Response sent = api.post("/jobs", utf8);
        assertThat(sent.status()).as(sent.text()).isEqualTo(201);
        assertThat(sent.json().path("text_chars").asInt()).isEqualTo(60_000);
        // as Python's json.dumps writes it by default: every character escaped as backslash-u and 4 hex digits, 6 bytes
        StringBuilder escaped = new StringBuilder("{\"title\":\"Ferry\",\"validate\":false,\"text\":\"");
        for (char ch : chinese.toCharArray()) escaped.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) ch));
        escaped.append("\"}");
        assertThat(escaped.length()).isGreaterThan(360_000);
        ApiClient.Response ascii = api.post("/jobs", escaped.toString());
        assertThat(ascii.status()).as(ascii.text()).isEqualTo(201);
        assertThat(ascii.json().path("text_chars").asInt()).isEqualTo(60_000);

        // one character more: 400 naming the limit in characters
        ApiClient.Response longer = api.post("/jobs", json(java.util.Map.of("title", "Ferry", "text", chinese + "。", "validate", false)));
        assertThat(longer.status()).as(longer.text()).isEqualTo(400);
        assertThat(longer.field("error_code")).isEqualTo("INVALID_FIELD");
        assertThat(longer.field("field")).isEqualTo("text");
        assertThat(longer.field("message")).contains("at most 60000 characters");
        // a body over 400 KiB: 413 naming the limit in bytes
        ApiClient.Response huge = api.post("/jobs", json(java.util.Map.of("title", "Ferry", "text", "x".repeat(JobsApi.MAX_BODY))));
        assertThat(huge.status()).isEqualTo(413);
        assertThat(huge.field("message")).contains(JobsApi.MAX_BODY + " bytes").contains("400 KiB");
    }

    /** The seed's {@code last_retry_count}: "全任务范围的自动重试总次数", the job-wide total of automatic retries. */
    @Test
    void lastRetryCountIsTheJobWideTotalOfAutomaticRetriesAndAPauseDoesNotLowerIt() throws Exception {
        ServeCommand.Running service = start("--llm-failure-rate", "1");
        ApiClient api = new ApiClient(service.base());
        long id = api.post("/jobs", json(java.util.Map.of("title", "Flaky", "text", text(), "process", true))).json().path("id").asLong();
        ApiClient.Response retried = api.awaitGet("/jobs/" + id, r -> r.json().path("last_retry_count").asInt() >= 2, WITHIN);
        int before = retried.json().path("last_retry_count").asInt();

        assertThat(api.post("/jobs/" + id + "/pause", "").status()).isEqualTo(200);
        ApiClient.Response pending = api.awaitGet("/jobs/" + id + "/chunks", r -> chunkStates(r).stream().allMatch("pending"::equals), WITHIN);
        for (JsonNode c : pending.json().path("chunks")) assertThat(c.path("retries").asInt()).as("a chunk's current processing").isZero();
        ApiClient.Response paused = api.get("/jobs/" + id);
        int after = paused.json().path("last_retry_count").asInt();
        assertThat(after).as("a pause keeps the job-wide total").isGreaterThanOrEqualTo(before);
        // the total is every retryable error in the chunks' histories
        long inHistories = 0;
        for (JsonNode c : pending.json().path("chunks")) {
            inHistories += service.service().engine().history(c.path("id").asLong()).stream()
                    .filter(e -> e.event().equals(dev.statekit.examples.NovelProoferChunk.Event.RETRYABLE_ERROR.name())).count();
        }
        assertThat(after).isEqualTo(inHistories);
        assertThat(api.get("/jobs/" + id).json().path("last_retry_count").asInt()).as("and stays").isEqualTo(after);
    }

    @Test
    void failedChunksAreRetriedWithAnotherModelOnceTheLlmAnswersAgain() throws Exception {
        ServeCommand.Running failing = start("--llm-fatal-rate", "1");
        ApiClient api = new ApiClient(failing.base()).as("carol");
        long id = api.post("/jobs", json(java.util.Map.of("title", "Refused", "text", text(), "process", true))).json().path("id").asLong();
        ApiClient.Response failed = api.awaitGet("/jobs/" + id, r -> r.field("state").equals("error"), WITHIN);
        assertThat(failed.field("phase")).isEqualTo("process");
        assertThat(failed.json().path("last_error").path("code").asText()).isEqualTo("CHILDREN_FAILED");
        assertThat(failed.json().path("progress").path("error_chunks").asInt()).isEqualTo(CHUNKS);
        JsonNode chunks = api.get("/jobs/" + id + "/chunks").json().path("chunks");
        for (JsonNode c : chunks) {
            assertThat(c.path("state").asText()).isEqualTo("error");
            assertThat(c.path("retries").asInt()).as("a 400 is not retried").isZero();
            assertThat(c.path("last_error_code").asText()).isEqualTo("HTTP_400");
        }
        refused(api.post("/jobs/" + id + "/merge", ""), "ILLEGAL_TRANSITION", "RETRY_FAILED", "RESET");
        // the dashboard's "retry failed children": the LLM refuses again
        Reply retried = failing.service().retryFailedChildren(NovelProoferJob.MACHINE, id, "carol");
        assertThat(retried.status()).isEqualTo(200);
        ApiClient.Response failedAgain = api.awaitGet("/jobs/" + id,
                r -> r.field("state").equals("error") && r.json().path("version").asLong() > failed.json().path("version").asLong(), WITHIN);
        // the dashboard's retry of one failed chunk: the job is queued again with that chunk alone, which fails again
        JsonNode before = api.get("/jobs/" + id + "/chunks").json().path("chunks");
        long first = before.get(0).path("id").asLong();
        assertThat(failing.service().fireUser(NovelProoferChunk.MACHINE, first, "RETRY_FAILED", "carol").isApplied()).isTrue();
        api.awaitGet("/jobs/" + id, r -> r.field("state").equals("error")
                && r.json().path("version").asLong() > failedAgain.json().path("version").asLong(), WITHIN);
        JsonNode after = api.get("/jobs/" + id + "/chunks").json().path("chunks");
        assertThat(after.get(0).path("state").asText()).isEqualTo("error");
        assertThat(after.get(0).path("updated_at").asText()).as("chunk %d ran again", first).isNotEqualTo(before.get(0).path("updated_at").asText());
        for (int i = 1; i < CHUNKS; i++) {
            assertThat(after.get(i).path("updated_at").asText()).as("chunk %d was left alone", i).isEqualTo(before.get(i).path("updated_at").asText());
        }
        failing.close();
        running.remove(failing);

        ApiClient again = new ApiClient(start().base()).as("carol");
        ApiClient.Response retry = post(again, "/jobs/" + id + "/retry-failed", "{\"llm_model\": \"proofer-llm-2\"}", "rf-1");
        assertThat(retry.status()).as(retry.text()).isEqualTo(200);
        assertThat(retry.field("llm_model")).isEqualTo("proofer-llm-2");
        assertThat(post(again, "/jobs/" + id + "/retry-failed", "{\"llm_model\": \"proofer-llm-2\"}", "rf-1").json().path("replayed").asBoolean())
                .isTrue();
        again.awaitGet("/jobs/" + id, r -> is(r, "paused", "merge"), WITHIN);
        JsonNode done = again.get("/jobs/" + id + "/chunks").json().path("chunks");
        for (JsonNode c : done) {
            assertThat(c.path("state").asText()).isEqualTo("done");
            assertThat(c.path("llm_model").asText()).isEqualTo("proofer-llm-2");
            assertThat(c.path("last_error_code").asText()).as("kept as history").isEqualTo("HTTP_400");
        }
        refused(again.post("/jobs/" + id + "/retry-failed", ""), "ILLEGAL_TRANSITION", "START_PROCESS", "MERGE", "RESET");
        assertThat(again.post("/jobs/" + id + "/retry-failed", "{\"llm_model\": 5}").field("field")).isEqualTo("llm_model");
    }

    @Test
    void theSampleJobIsThereOnTheFirstRunAndMoreCanBeAdded() throws Exception {
        ServeCommand.Running service = start("--sample", "true");
        ApiClient api = new ApiClient(service.base());
        JsonNode jobs = api.get("/jobs").json().path("jobs");
        assertThat(jobs).hasSize(1);
        assertThat(jobs.get(0).path("title").asText()).isEqualTo(NovelProoferService.SAMPLE_TITLE);
        long first = jobs.get(0).path("id").asLong();
        ApiClient.Response gated = api.awaitGet("/jobs/" + first, r -> is(r, "paused", "merge"), WITHIN);
        assertThat(gated.json().path("progress").path("total_chunks").asInt()).isGreaterThan(3);
        assertThat(api.post("/jobs/" + first + "/merge", "").status()).isEqualTo(200);
        ApiClient.Response output = api.awaitGet("/jobs/" + first + "/output", r -> r.status() == 200, WITHIN);
        assertThat(output.field("text")).contains("the ferry left the harbour, and", "渡船在深夜离开了港口，");

        ApiClient.Response second = api.post("/jobs/sample", "{\"title\": \"渡船\", \"process\": false}");
        assertThat(second.status()).as(second.text()).isEqualTo(201);
        long id = second.json().path("id").asLong();
        api.awaitGet("/jobs/" + id, r -> is(r, "paused", "process"), WITHIN);
        assertThat(api.post("/jobs/sample", "{\"text\": \"mine\"}").field("error_code")).isEqualTo("UNKNOWN_FIELD");
        assertThat(service.service().fireUser(NovelProoferJob.MACHINE, id, "MERGE", "dave"))
                .isInstanceOfSatisfying(Outcome.Refused.class, r -> assertThat(r.reasonCode()).isEqualTo(NovelProoferJob.PHASE_MISMATCH));
        assertThat(service.service().fireUser(NovelProoferJob.MACHINE, id, "RESET", "dave").isApplied()).isTrue();
        api.awaitGet("/jobs/" + id, r -> r.status() == 404, WITHIN);
        assertThat(api.get("/jobs").json().path("jobs")).hasSize(1);
    }

    @Test
    void aRateLimitedLlmHoldsItsModelBackWithinTheLimitAndTheJobStillCompletes() throws Exception {
        Duration retryAfter = Duration.ofMillis(300);
        Duration period = Duration.ofMillis(500);
        int perPeriod = 5;
        ServeCommand.Running service = start("--llm-429-rate", "0.5", "--llm-retry-after-millis", Long.toString(retryAfter.toMillis()),
                "--llm-rate", perPeriod + "/" + period.toMillis() + "ms", "--workers", "3");
        ApiClient api = new ApiClient(service.base()).as("erin");
        List<String> paragraphs = new ArrayList<>();
        for (int i = 0; i < 12; i++) paragraphs.add("Paragraph " + i + ": teh lamps swung  in the wind , again.");
        long id = api.post("/jobs", json(java.util.Map.of("title", "Busy", "text", String.join("\n\n", paragraphs), "process", true)))
                .json().path("id").asLong();
        ApiClient.Response gated = api.awaitGet("/jobs/" + id, r -> is(r, "paused", "merge"), WITHIN);
        assertThat(gated.json().path("progress").path("done_chunks").asInt()).isEqualTo(12);

        NovelProoferService proofer = (NovelProoferService) service.service();
        record Step(long chunk, HistoryEntry entry) {}
        List<Step> steps = new ArrayList<>();
        java.util.Map<Long, java.time.Instant> created = new java.util.HashMap<>();
        for (var chunk : proofer.host().chunks(id)) {
            created.put(chunk.id(), chunk.record().createdAt());
            assertThat(chunk.state()).isEqualTo(NovelProoferChunk.State.DONE);
            assertThat(chunk.record().retries()).as("a 429 with a retry-after is a wait, not a retry").isZero();
            for (HistoryEntry e : proofer.engine().history(chunk.id())) steps.add(new Step(chunk.id(), e));
        }
        steps.sort(java.util.Comparator.comparing((Step s) -> s.entry().at()));
        List<Step> claims = steps.stream().filter(s -> s.entry().to().equals(NovelProoferChunk.State.PROCESSING.name())).toList();
        List<Step> snoozes = steps.stream().filter(s -> s.entry().event().equals(NovelProoferChunk.Event.RELEASE.name())
                && String.valueOf(s.entry().reason()).startsWith("rate limited; retry after")).toList();
        long answered429 = Files.readAllLines(data.resolve("llm-ledger.log")).stream().filter(l -> l.contains("\"429-retry-after\"")).count();
        assertThat(snoozes).as("every 429 with a retry-after snoozed its chunk").hasSize((int) answered429).isNotEmpty();
        assertThat(claims).hasSize(12 + snoozes.size());

        // the hold: from the snooze until retry-after past the snoozed chunk's claim, no other chunk of the model started
        int heldBack = 0;
        for (Step snooze : snoozes) {
            Step claimed = claims.stream().filter(c -> c.chunk() == snooze.chunk() && !c.entry().at().isAfter(snooze.entry().at()))
                    .reduce((a, b) -> b).orElseThrow();
            java.time.Instant holdEnd = claimed.entry().at().plus(retryAfter);
            for (Step c : claims) {
                boolean inHold = !c.entry().at().isBefore(snooze.entry().at()) && c.entry().at().isBefore(holdEnd);
                assertThat(inHold).as("chunk %d started at %s, inside the hold of chunk %d (%s to %s)", c.chunk(), c.entry().at(),
                        snooze.chunk(), snooze.entry().at(), holdEnd).isFalse();
            }
            for (long other : created.keySet()) {
                // Pending at the snooze: created before it and not claimed yet (a creation writes no history), or put back.
                Step last = steps.stream().filter(s -> s.chunk() == other && s.entry().at().isBefore(snooze.entry().at()))
                        .reduce((a, b) -> b).orElse(null);
                boolean pending = last == null ? created.get(other).isBefore(snooze.entry().at())
                        : last.entry().to().equals(NovelProoferChunk.State.PENDING.name());
                if (other != snooze.chunk() && pending) heldBack++;
            }
        }
        assertThat(heldBack).as("some chunk of the model was pending during a hold").isPositive();

        // the rate limit: no window of the period holds more than its starts
        for (int i = 0; i + perPeriod < claims.size(); i++) {
            assertThat(claims.get(i + perPeriod).entry().at()).as("start %d", i + perPeriod)
                    .isAfterOrEqualTo(claims.get(i).entry().at().plus(period));
        }
    }
}
