package dev.statekit.examples.serve.etl;

import static dev.statekit.examples.serve.etl.EtlTestSupport.calls;
import static dev.statekit.examples.serve.etl.EtlTestSupport.events;
import static dev.statekit.examples.serve.etl.EtlTestSupport.ledger;
import static dev.statekit.examples.serve.etl.EtlTestSupport.submit;
import static dev.statekit.examples.serve.etl.EtlTestSupport.task;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.statekit.examples.EtlTask;
import dev.statekit.examples.serve.ApiClient;
import dev.statekit.examples.serve.ServiceProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ETL service killed (SIGKILL) while two tasks are in their LLM call and two in their MineRU
 * call, then started again on the same H2 file: every task completes; the post-processing jobs
 * are taken over when their leases expire, the OCR jobs fail with {@code LEASE_EXPIRED} and are
 * retried from mineru by the service; MineRU is not called again for a task whose OCR stage had
 * committed, no call is made twice for one attempt, and each task has one result file.
 */
class EtlKillTest {
    static final String[] OPTIONS = {"--work-millis", "4000", "--lease-seconds", "5"};

    @TempDir
    Path data;

    @Test
    void killedMidWorkEveryTaskCompletesAndNothingCommittedRunsAgain() throws Exception {
        long a;
        long b;
        long c;
        long d;
        String firstOwner;
        try (ServiceProcess first = ServiceProcess.start("etl", data, OPTIONS)) {
            ApiClient alice = first.client().as("alice");
            a = submit(alice, "a.txt", "alpha document", "direct-json");
            b = submit(alice, "b.txt", "beta document", "chunked-extract");
            for (long id : List.of(a, b)) {
                alice.awaitGet(task(id), r -> r.field("status").equals("llm_processing") && r.json().path("attempt_postprocess").asInt() == 1,
                        EtlTestSupport.WITHIN);
            }
            c = submit(alice, "c.txt", "gamma document", "direct-json");
            d = submit(alice, "d.txt", "delta document", null);
            for (long id : List.of(c, d)) EtlTestSupport.await(alice, id, "mineru_parsing");
            ApiClient.Response refused = alice.post(task(c) + "/cancel", "");
            assertThat(refused.status()).isEqualTo(409);
            assertThat(refused.field("error_code")).isEqualTo(EtlTask.TASK_ALREADY_STARTED);
            firstOwner = calls(ledger(data, "mineru"), a).get(0).owner();
            first.kill();
        }
        // the first process died in both calls: each was begun, none answered
        assertThat(calls(ledger(data, "llm"), a)).hasSize(1);
        assertThat(calls(ledger(data, "llm"), b)).hasSize(1);
        assertThat(calls(ledger(data, "mineru"), c)).hasSize(1);
        assertThat(calls(ledger(data, "mineru"), d)).hasSize(1);
        assertThat(results()).isEmpty();

        try (ServiceProcess second = ServiceProcess.start("etl", data, OPTIONS)) {
            ApiClient alice = second.client().as("alice");
            for (long id : List.of(a, b, c, d)) {
                alice.awaitGet(task(id), r -> EtlTestSupport.ENDED.contains(r.field("status")), Duration.ofSeconds(120));
                assertThat(alice.get(task(id)).field("status")).as("task %d: %s %s", id, alice.get(task(id)).text(),
                        alice.get(task(id) + "/history").text()).isEqualTo("completed");
            }
            List<EtlTestSupport.Call> mineru = ledger(data, "mineru");
            List<EtlTestSupport.Call> llm = ledger(data, "llm");
            assertThat(mineru).doesNotHaveDuplicates();
            assertThat(llm).doesNotHaveDuplicates();
            assertThat(mineru.stream().map(x -> x.task() + "/" + x.attempt())).doesNotHaveDuplicates();
            assertThat(llm.stream().map(x -> x.task() + "/" + x.attempt())).doesNotHaveDuplicates();

            // post-processing killed: taken over after its lease, on the markdown of the one OCR run
            for (long id : List.of(a, b)) {
                JsonNode t = alice.get(task(id)).json();
                assertThat(calls(mineru, id)).as("MineRU calls of task %d", id).hasSize(1);
                assertThat(calls(llm, id)).extracting(EtlTestSupport.Call::attempt).containsExactly(1, 2);
                assertThat(calls(llm, id).get(0).owner()).isEqualTo(firstOwner);
                assertThat(calls(llm, id).get(1).owner()).isNotEqualTo(firstOwner);
                assertThat(t.path("attempt_ocr").asInt()).isEqualTo(1);
                assertThat(t.path("attempt_postprocess").asInt()).isEqualTo(2);
                assertThat(t.path(EtlTask.MARKDOWN_KEY).asText()).isEqualTo("artifacts/" + id + "/mineru-1.md");
                assertThat(events(alice, id)).containsExactly("START_OCR", "OCR_DONE", "START_POSTPROCESS", "POSTPROCESS_RELEASE",
                        "START_POSTPROCESS", "POSTPROCESS_DONE");
            }
            // OCR killed: failed by its expired lease, retried from mineru by the service
            for (long id : List.of(c, d)) {
                JsonNode t = alice.get(task(id)).json();
                assertThat(calls(mineru, id)).extracting(EtlTestSupport.Call::attempt).containsExactly(1, 2);
                assertThat(t.path("attempt_ocr").asInt()).isEqualTo(2);
                assertThat(t.path("ocr_recoveries").asInt()).isEqualTo(1);
                assertThat(t.path(EtlTask.MARKDOWN_KEY).asText()).isEqualTo("artifacts/" + id + "/mineru-2.md");
                assertThat(data.resolve("artifacts/" + id + "/mineru-1.md")).doesNotExist();
                assertThat(events(alice, id)).containsExactly("START_OCR", "OCR_FAILED", "RETRY", "START_OCR", "OCR_DONE",
                        "START_POSTPROCESS", "POSTPROCESS_DONE");
                JsonNode retry = alice.get(task(id) + "/history").json().path("history").get(2);
                assertThat(retry.path("actor").asText()).isEqualTo("etl/recovery");
            }
            assertThat(calls(llm, c)).hasSize(1);
            assertThat(calls(llm, d)).isEmpty();                    // the default rule calls no LLM
            assertThat(results()).containsExactlyInAnyOrder(a + ".json", b + ".json", c + ".json", d + ".json");
            for (long id : List.of(a, b, c, d)) {
                assertThat(alice.get(task(id) + "/result").json().path("result").path(EtlTask.MARKDOWN_KEY).asText())
                        .isEqualTo(alice.get(task(id)).field(EtlTask.MARKDOWN_KEY));
            }
        }
    }

    private List<String> results() throws Exception {
        Path dir = data.resolve("results");
        if (!Files.isDirectory(dir)) return List.of();
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
