package dev.statekit.examples.serve.etl;

import dev.statekit.core.Command;
import dev.statekit.core.ops.TaskOperations;
import static dev.statekit.examples.serve.etl.EtlTestSupport.TASKS;
import static dev.statekit.examples.serve.etl.EtlTestSupport.await;
import static dev.statekit.examples.serve.etl.EtlTestSupport.calls;
import static dev.statekit.examples.serve.etl.EtlTestSupport.events;
import static dev.statekit.examples.serve.etl.EtlTestSupport.ledger;
import static dev.statekit.examples.serve.etl.EtlTestSupport.postWithKey;
import static dev.statekit.examples.serve.etl.EtlTestSupport.submit;
import static dev.statekit.examples.serve.etl.EtlTestSupport.task;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.statekit.examples.EtlTask;
import dev.statekit.examples.serve.ApiClient;
import dev.statekit.examples.serve.ServeCommand;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ETL service's HTTP API, in this process on an H2 file: every endpoint with its answers and
 * error codes, the idempotency keys, who may cancel and retry (403 changes nothing), cancel only
 * while pending (409 {@code TASK_ALREADY_STARTED}), retry by stage ({@code from_stage=postprocess}
 * reuses the OCR markdown without running MineRU again).
 */
class EtlApiContractTest {
    @TempDir
    Path data;

    ServeCommand.Running start(String... options) throws Exception {
        List<String> args = new ArrayList<>(List.of("etl", "--port", "0", "--data", data.toString(), "--work-millis", "0", "--admins", "root"));
        args.addAll(List.of(options));
        return ServeCommand.start(args, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    }

    @Test
    void submitStatusListHistoryAndResult() throws Exception {
        try (ServeCommand.Running service = start()) {
            ApiClient alice = new ApiClient(service.base()).as("alice");

            // the global default rule: the skip wrapper, no LLM call
            ApiClient.Response created = alice.post(TASKS, "{\"file_name\":\"scan.txt\",\"content\":\"Invoice 7\\nTotal 12\"}");
            assertThat(created.status()).as(created.text()).isEqualTo(201);
            long plain = created.json().path("task_id").asLong();
            assertThat(created.field("rule_id")).isEqualTo("default");
            assertThat(created.field("postprocess_mode")).isEqualTo("skip");
            assertThat(created.field("submitted_by")).isEqualTo("alice");
            assertThat(created.field("source")).isEqualTo("content");
            assertThat(created.json().path("replayed").asBoolean()).isFalse();
            JsonNode done = EtlTestSupport.await(alice, plain, "completed").json();
            assertThat(done.path("phase").asText()).isEqualTo("finalize");
            assertThat(done.path("progress").asInt()).isEqualTo(100);
            assertThat(done.path("attempt_ocr").asInt()).isEqualTo(1);
            assertThat(done.path("attempt_postprocess").asInt()).isEqualTo(1);
            String markdownKey = "artifacts/" + plain + "/mineru-1.md";
            assertThat(done.path(EtlTask.MARKDOWN_KEY).asText()).isEqualTo(markdownKey);
            assertThat(done.path("result_key").asText()).isEqualTo("results/" + plain + ".json");
            assertThat(done.path("error_code").isNull()).isTrue();
            assertThat(done.path("updated_at").asText()).isNotEmpty();
            assertThat(Files.readString(data.resolve(markdownKey))).isEqualTo("# scan.txt\n\nInvoice 7\nTotal 12\n");

            ApiClient.Response result = alice.get(task(plain) + "/result");
            assertThat(result.status()).isEqualTo(200);
            JsonNode wrapper = result.json().path("result");
            List<String> keys = new ArrayList<>();
            wrapper.fieldNames().forEachRemaining(keys::add);
            assertThat(keys).containsExactly("task_id", "file_name", "rule_id", "postprocess_mode", EtlTask.MARKDOWN_KEY, "markdown");
            assertThat(wrapper.path(EtlTask.MARKDOWN_KEY).asText()).isEqualTo(markdownKey);
            assertThat(wrapper.path("markdown").path("lines").asInt()).isEqualTo(4);

            // a rule with an LLM mode, and a document given by path
            long llm = submit(alice, "report.txt", "Quarterly report\\nrevenue up", "direct-json");
            Files.writeString(data.resolve("inputs").resolve("notes.txt"), "Meeting notes\nall agreed\n");
            ApiClient.Response byPath = alice.post(TASKS, "{\"file_name\":\"notes.txt\",\"path\":\"notes.txt\",\"rule_id\":\"chunked-summarize\"}");
            assertThat(byPath.status()).as(byPath.text()).isEqualTo(201);
            long fromPath = byPath.json().path("task_id").asLong();
            assertThat(byPath.field("source_path")).isEqualTo("notes.txt");
            EtlTestSupport.await(alice, llm, "completed");
            EtlTestSupport.await(alice, fromPath, "completed");
            JsonNode answer = alice.get(task(llm) + "/result").json().path("result");
            assertThat(answer.path("strategy").asText()).isEqualTo("direct-json");
            assertThat(answer.path("output").path("title").asText()).isEqualTo("report.txt");
            JsonNode summary = alice.get(task(fromPath) + "/result").json().path("result");
            assertThat(summary.path("output").path("summaries").get(0).asText()).contains("Meeting notes all agreed");
            assertThat(calls(ledger(data, "llm"), plain)).isEmpty();
            assertThat(calls(ledger(data, "llm"), llm)).hasSize(1);
            assertThat(calls(ledger(data, "mineru"), plain)).hasSize(1);

            // the submission's idempotency key, per user
            ApiClient.Response first = postWithKey(alice, TASKS, "{\"file_name\":\"a.txt\",\"content\":\"x\"}", "upload-1");
            ApiClient.Response again = postWithKey(alice, TASKS, "{\"file_name\":\"a.txt\",\"content\":\"x\"}", "upload-1");
            assertThat(first.status()).isEqualTo(201);
            assertThat(again.status()).isEqualTo(200);
            assertThat(again.json().path("replayed").asBoolean()).isTrue();
            assertThat(again.field("task_id")).isEqualTo(first.field("task_id"));
            ApiClient.Response reused = postWithKey(alice, TASKS, "{\"file_name\":\"b.txt\",\"content\":\"x\"}", "upload-1");
            assertThat(reused.status()).isEqualTo(409);
            assertThat(reused.field("error_code")).isEqualTo("IDEMPOTENCY_KEY_REUSED");
            assertThat(reused.json().path("allowed").isArray()).isTrue();
            ApiClient.Response bobs = postWithKey(alice.as("bob"), TASKS, "{\"file_name\":\"a.txt\",\"content\":\"x\"}", "upload-1");
            assertThat(bobs.status()).isEqualTo(201);
            assertThat(bobs.field("task_id")).isNotEqualTo(first.field("task_id"));
            EtlTestSupport.awaitEnded(alice, first.json().path("task_id").asLong());
            EtlTestSupport.awaitEnded(alice, bobs.json().path("task_id").asLong());

            // the list: by status, in pages
            ApiClient.Response page = alice.get(TASKS + "?status=completed&limit=2");
            assertThat(page.status()).isEqualTo(200);
            assertThat(page.json().path("tasks")).hasSize(2);
            long next = page.json().path("next_after").asLong();
            ApiClient.Response rest = alice.get(TASKS + "?status=completed&after=" + next + "&limit=500");
            assertThat(rest.json().path("tasks")).hasSize(3);
            assertThat(rest.json().path("next_after").isNull()).isTrue();
            assertThat(alice.get(TASKS + "?status=failed").json().path("tasks")).isEmpty();

            // the history: the chain of the two jobs, each by this process
            assertThat(events(alice, plain)).containsExactly("START_OCR", "OCR_DONE", "START_POSTPROCESS", "POSTPROCESS_DONE");
            JsonNode history = alice.get(task(plain) + "/history").json().path("history");
            assertThat(history.get(0).path("actor").asText()).startsWith("etl@");
            assertThat(history.get(0).path("from").asText()).isEqualTo("PENDING");
        }
    }

    @Test
    void malformedRequestsAreAnsweredWithTheirStatusAndField() throws Exception {
        try (ServeCommand.Running service = start()) {
            ApiClient alice = new ApiClient(service.base()).as("alice");
            assertError(alice.post(TASKS, "{\"file_name\":"), 400, "MALFORMED_JSON", null);
            assertError(alice.post(TASKS, "[1]"), 400, "INVALID_BODY", null);
            assertError(alice.post(TASKS, "{\"file_name\":\"a\",\"content\":\"x\",\"owner\":\"x\"}"), 400, "UNKNOWN_FIELD", "owner");
            assertError(alice.post(TASKS, "{\"content\":\"x\"}"), 400, "INVALID_FIELD", "file_name");
            assertError(alice.post(TASKS, "{\"file_name\":\"a\"}"), 400, "INVALID_FIELD", "content");
            assertError(alice.post(TASKS, "{\"file_name\":\"a\",\"content\":\"x\",\"path\":\"a.txt\"}"), 400, "INVALID_FIELD", "path");
            assertError(alice.post(TASKS, "{\"file_name\":\"a\",\"content\":7}"), 400, "INVALID_FIELD", "content");
            assertError(alice.post(TASKS, "{\"file_name\":\"a\",\"content\":\"x\",\"rule_id\":\"nope\"}"), 400, "INVALID_FIELD", "rule_id");
            assertError(alice.post(TASKS, "{\"file_name\":\"a\",\"path\":\"../statekit.mv.db\"}"), 400, "INVALID_FIELD", "path");
            assertError(alice.post(TASKS, "{\"file_name\":\"a\",\"path\":\"missing.txt\"}"), 400, "INVALID_FIELD", "path");
            assertError(alice.post(TASKS, "{\"file_name\":\"a\",\"path\":\"/etc/hostname\"}"), 400, "INVALID_FIELD", "path");
            assertError(alice.as("not a name").post(TASKS, "{\"file_name\":\"a\",\"content\":\"x\"}"), 400, "INVALID_ACTOR", "X-User");
            assertError(postWithKey(alice, TASKS, "{\"file_name\":\"a\",\"content\":\"x\"}", "bad key!"), 400, "INVALID_IDEMPOTENCY_KEY",
                    "Idempotency-Key");
            assertError(alice.get(TASKS + "/abc"), 400, "INVALID_ID", "task_id");
            assertError(alice.get(TASKS + "?status=done"), 400, "INVALID_QUERY", "status");
            assertError(alice.get(TASKS + "?limit=0"), 400, "INVALID_QUERY", "limit");
            long id = submit(alice, "a.txt", "x", null);
            assertError(alice.post(task(id) + "/retry", "{\"from_stage\":\"ocr\"}"), 400, "INVALID_FIELD", "from_stage");
            assertError(alice.post(task(id) + "/retry", "{\"force\":\"yes\"}"), 400, "INVALID_FIELD", "force");
            assertError(alice.post(task(id) + "/retry", "{\"stage\":\"mineru\"}"), 400, "UNKNOWN_FIELD", "stage");
            assertError(alice.post(task(id) + "/cancel", "{\"reason\":\"x\"}"), 400, "UNKNOWN_FIELD", "reason");

            assertError(alice.get(task(999_999)), 404, "NOT_FOUND", null);
            assertError(alice.get(task(999_999) + "/history"), 404, "NOT_FOUND", null);
            assertError(alice.get(task(999_999) + "/result"), 404, "NOT_FOUND", null);
            assertError(alice.post(task(999_999) + "/cancel", ""), 404, "NOT_FOUND", null);
            assertError(alice.post(task(999_999) + "/retry", "{}"), 404, "NOT_FOUND", null);

            assertError(alice.post(TASKS, "{\"file_name\":\"a\",\"content\":\"" + "x".repeat(70_000) + "\"}"), 413, "PAYLOAD_TOO_LARGE", null);
            assertError(alice.post(TASKS, "{\"file_name\":\"a\",\"content\":\"x\"}", "text/plain"), 415, "UNSUPPORTED_MEDIA_TYPE", null);
            assertError(alice.post(TASKS, "{\"file_name\":\"a\",\"content\":\"x\"}", null), 415, "UNSUPPORTED_MEDIA_TYPE", null);
            EtlTestSupport.awaitEnded(alice, id);
            assertThat(alice.get(TASKS).json().path("tasks")).hasSize(1);      // nothing refused was created
        }
    }

    @Test
    void onlyTheSubmitterOrAnAdminCancelsAndOnlyWhilePending() throws Exception {
        try (ServeCommand.Running service = start()) {
            ApiClient alice = new ApiClient(service.base()).as("alice");
            ApiClient bob = alice.as("bob");
            ApiClient root = alice.as("root");
            ApiClient anonymous = new ApiClient(service.base());
            TaskOperations.of(service.service().engine()).pause(EtlTask.OCR_QUEUE, Command.system());          // submissions stay pending (queued)

            long mine = submit(alice, "a.txt", "x", null);
            long other = submit(alice, "b.txt", "y", null);
            long nobodys = submit(anonymous, "c.txt", "z", null);
            JsonNode before = alice.get(task(mine)).json();
            assertThat(before.path("status").asText()).isEqualTo("pending");
            int steps = events(alice, mine).size();

            ApiClient.Response forbidden = bob.post(task(mine) + "/cancel", "");
            assertError(forbidden, 403, "FORBIDDEN", null);
            assertThat(forbidden.field("message")).contains("only the submitter").contains("bob");
            assertThat(forbidden.json().path("allowed")).extracting(JsonNode::asText).containsExactly("CANCEL");
            JsonNode after = alice.get(task(mine)).json();
            assertThat(after.path("version").asLong()).isEqualTo(before.path("version").asLong());
            assertThat(after.path("status").asText()).isEqualTo("pending");
            assertThat(events(alice, mine)).hasSize(steps);

            ApiClient.Response cancelled = postWithKey(alice, task(mine) + "/cancel", "", "cancel-1");
            assertThat(cancelled.status()).as(cancelled.text()).isEqualTo(200);
            assertThat(cancelled.field("status")).isEqualTo("cancelled");
            assertThat(cancelled.json().path("replayed").asBoolean()).isFalse();
            ApiClient.Response replay = postWithKey(alice, task(mine) + "/cancel", "", "cancel-1");
            assertThat(replay.status()).isEqualTo(200);
            assertThat(replay.json().path("replayed").asBoolean()).isTrue();
            assertThat(replay.json().path("version").asLong()).isEqualTo(cancelled.json().path("version").asLong());
            assertError(postWithKey(bob, task(mine) + "/cancel", "", "cancel-1"), 403, "FORBIDDEN", null);
            ApiClient.Response twice = alice.post(task(mine) + "/cancel", "");
            assertError(twice, 409, "ILLEGAL_TRANSITION", null);
            assertThat(twice.json().path("allowed")).isEmpty();
            assertThat(events(alice, mine)).containsExactly("CANCEL");

            assertThat(root.post(task(other) + "/cancel", "").status()).isEqualTo(200);      // an admin
            assertError(anonymous.post(task(nobodys) + "/cancel", ""), 403, "FORBIDDEN", null); // the anonymous owns nothing
            assertThat(root.post(task(nobodys) + "/cancel", "").status()).isEqualTo(200);

            // a started task is not cancelled: its markdown is written, its post-processing chained
            TaskOperations.of(service.service().engine()).pause(EtlTask.POSTPROCESS_QUEUE, Command.system());
            TaskOperations.of(service.service().engine()).resume(EtlTask.OCR_QUEUE, Command.system());
            long started = submit(alice, "d.txt", "w", null);
            JsonNode queued = alice.awaitGet(task(started), r -> r.json().path(EtlTask.MARKDOWN_KEY).isTextual(), EtlTestSupport.WITHIN).json();
            assertThat(queued.path("status").asText()).isEqualTo("llm_processing");
            assertThat(queued.path("progress").asInt()).isEqualTo(50);
            ApiClient.Response refused = alice.post(task(started) + "/cancel", "");
            assertError(refused, 409, EtlTask.TASK_ALREADY_STARTED, null);
            assertThat(refused.json().path("allowed")).isEmpty();
            assertError(bob.post(task(started) + "/cancel", ""), 403, "FORBIDDEN", null);   // who asks is checked first
            assertError(alice.get(task(started) + "/result"), 409, "RESULT_NOT_READY", null);
            TaskOperations.of(service.service().engine()).resume(EtlTask.POSTPROCESS_QUEUE, Command.system());
            EtlTestSupport.await(alice, started, "completed");
            assertError(alice.post(task(started) + "/cancel", ""), 409, "ILLEGAL_TRANSITION", null);
            assertThat(alice.get(TASKS + "?status=cancelled").json().path("tasks")).hasSize(3);
        }
    }

    @Test
    void retryByStageReusesTheMarkdownOrParsesAgain() throws Exception {
        long llmFailed;
        long skipped;
        try (ServeCommand.Running service = start("--llm-failure-rate", "1")) {
            ApiClient alice = new ApiClient(service.base()).as("alice");
            llmFailed = submit(alice, "report.txt", "Annual report", "direct-json");
            skipped = submit(alice, "plain.txt", "no llm here", null);
            JsonNode failed = EtlTestSupport.await(alice, llmFailed, "failed").json();
            assertThat(failed.path("phase").asText()).isEqualTo("postprocess");
            assertThat(failed.path("error_code").asText()).isEqualTo("LLM_FAILED");
            assertThat(failed.path("error_message").asText()).contains("simulated failure");
            assertThat(failed.path("progress").asInt()).isEqualTo(50);
            assertThat(failed.path(EtlTask.MARKDOWN_KEY).asText()).isEqualTo("artifacts/" + llmFailed + "/mineru-1.md");
            EtlTestSupport.await(alice, skipped, "completed");     // the default rule calls no LLM
        }
        // the same data, now with a MineRU that always fails and an LLM that answers
        try (ServeCommand.Running service = start("--ocr-failure-rate", "1")) {
            ApiClient alice = new ApiClient(service.base()).as("alice");
            ApiClient bob = alice.as("bob");
            ApiClient root = alice.as("root");
            JsonNode before = alice.get(task(llmFailed)).json();
            assertError(bob.post(task(llmFailed) + "/retry", "{\"from_stage\":\"postprocess\"}"), 403, "FORBIDDEN", null);
            assertThat(alice.get(task(llmFailed)).json().path("version").asLong()).isEqualTo(before.path("version").asLong());
            assertThat(events(alice, llmFailed)).hasSize((int) before.path("version").asLong());

            ApiClient.Response retried = postWithKey(alice, task(llmFailed) + "/retry", "{\"from_stage\":\"postprocess\"}", "retry-1");
            assertThat(retried.status()).as(retried.text()).isEqualTo(200);
            assertThat(retried.field("retried_from")).isEqualTo("postprocess");
            assertThat(retried.field("status")).isEqualTo("llm_processing");
            assertThat(retried.json().path("error_code").isNull()).isTrue();       // reset_error defaults to true
            JsonNode done = EtlTestSupport.await(alice, llmFailed, "completed").json();
            assertThat(done.path("attempt_ocr").asInt()).isEqualTo(1);
            assertThat(done.path("attempt_postprocess").asInt()).isEqualTo(2);
            assertThat(done.path(EtlTask.MARKDOWN_KEY).asText()).isEqualTo(before.path(EtlTask.MARKDOWN_KEY).asText());
            assertThat(calls(ledger(data, "mineru"), llmFailed)).hasSize(1);      // MineRU was not called again
            assertThat(calls(ledger(data, "llm"), llmFailed)).extracting(EtlTestSupport.Call::attempt).containsExactly(1, 2);
            assertThat(alice.get(task(llmFailed) + "/result").json().path("result").path(EtlTask.MARKDOWN_KEY).asText())
                    .isEqualTo(before.path(EtlTask.MARKDOWN_KEY).asText());
            assertThat(events(alice, llmFailed)).containsExactly("START_OCR", "OCR_DONE", "START_POSTPROCESS", "POSTPROCESS_FAILED",
                    "RETRY", "START_POSTPROCESS", "POSTPROCESS_DONE");
            ApiClient.Response replay = postWithKey(alice, task(llmFailed) + "/retry", "{\"from_stage\":\"postprocess\"}", "retry-1");
            assertThat(replay.status()).isEqualTo(200);
            assertThat(replay.json().path("replayed").asBoolean()).isTrue();
            ApiClient.Response notFailed = alice.post(task(skipped) + "/retry", "{}");
            assertError(notFailed, 409, "ILLEGAL_TRANSITION", null);
            assertThat(notFailed.json().path("allowed")).isEmpty();

            long ocrFailed = submit(alice, "scan.txt", "blurred", "direct-json");
            JsonNode failed = EtlTestSupport.await(alice, ocrFailed, "failed").json();
            assertThat(failed.path("phase").asText()).isEqualTo("ocr");
            assertThat(failed.path("error_code").asText()).isEqualTo("MINERU_FAILED");
            assertThat(failed.path(EtlTask.MARKDOWN_KEY).isNull()).isTrue();
            ApiClient.Response noMarkdown = alice.post(task(ocrFailed) + "/retry", "{\"from_stage\":\"postprocess\"}");
            assertError(noMarkdown, 409, EtlTask.MARKDOWN_POINTER_MISSING, null);
            assertThat(noMarkdown.json().path("allowed")).extracting(JsonNode::asText).containsExactly("RETRY");
            ApiClient.Response forced = root.post(task(ocrFailed) + "/retry", "{\"from_stage\":\"postprocess\",\"force\":true}");
            assertThat(forced.status()).as(forced.text()).isEqualTo(200);
            assertThat(forced.field("retried_from")).isEqualTo("mineru");
            JsonNode again = alice.awaitGet(task(ocrFailed), r -> r.json().path("attempt_ocr").asInt() == 2
                    && r.field("status").equals("failed"), EtlTestSupport.WITHIN).json();
            assertThat(again.path("error_code").asText()).isEqualTo("MINERU_FAILED");

            // reset_error=false keeps the last error shown while the retried task waits
            TaskOperations.of(service.service().engine()).pause(EtlTask.OCR_QUEUE, Command.system());
            ApiClient.Response kept = alice.post(task(ocrFailed) + "/retry", "{\"from_stage\":\"mineru\",\"reset_error\":false}");
            assertThat(kept.status()).as(kept.text()).isEqualTo(200);
            assertThat(kept.field("status")).isEqualTo("pending");
            assertThat(kept.field("error_code")).isEqualTo("MINERU_FAILED");
            assertThat(calls(ledger(data, "mineru"), ocrFailed)).extracting(EtlTestSupport.Call::attempt).containsExactly(1, 2);
        }
    }

    @Test
    void anInputThatIsGoneOrUnreadableIsNamedAsSubmittedNeverByTheServersAbsolutePath() throws Exception {
        try (ServeCommand.Running service = start()) {
            ApiClient alice = new ApiClient(service.base()).as("alice");
            Path inputs = Files.createDirectories(data.resolve("inputs").resolve("scans"));
            Files.writeString(inputs.resolve("gone.txt"), "page 1\n");
            Files.writeString(inputs.resolve("folder.txt"), "page 2\n");
            // the OCR waits while the files change under the submitted tasks
            TaskOperations operations = TaskOperations.of(service.service().engine());
            operations.pause(EtlTask.OCR_QUEUE, Command.system());
            long gone = alice.post(TASKS, "{\"file_name\":\"gone.txt\",\"path\":\"scans/gone.txt\"}").json().path("task_id").asLong();
            long folder = alice.post(TASKS, "{\"file_name\":\"folder.txt\",\"path\":\"scans/folder.txt\"}").json().path("task_id").asLong();
            Files.delete(inputs.resolve("gone.txt"));
            Files.delete(inputs.resolve("folder.txt"));
            Files.createDirectory(inputs.resolve("folder.txt"));
            operations.resume(EtlTask.OCR_QUEUE, Command.system());

            JsonNode missing = EtlTestSupport.await(alice, gone, "failed").json();
            assertThat(missing.path("error_code").asText()).isEqualTo("INPUT_MISSING");
            assertThat(missing.path("error_message").asText()).contains("the input scans/gone.txt").contains("No such file or directory")
                    .doesNotContain(data.toAbsolutePath().toString()).doesNotContain(data.toRealPath().toString());
            JsonNode unreadable = EtlTestSupport.await(alice, folder, "failed").json();
            assertThat(unreadable.path("error_code").asText()).isEqualTo("INPUT_UNREADABLE");
            assertThat(unreadable.path("error_message").asText()).contains("the input scans/folder.txt cannot be read")
                    .doesNotContain(data.toAbsolutePath().toString()).doesNotContain(data.toRealPath().toString());
        }
    }

    static void assertError(ApiClient.Response response, int status, String code, String field) {
        assertThat(response.status()).as(response.text()).isEqualTo(status);
        assertThat(response.field("error_code")).as(response.text()).isEqualTo(code);
        assertThat(response.field("message")).isNotEmpty();
        if (field != null) assertThat(response.field("field")).isEqualTo(field);
    }
}
