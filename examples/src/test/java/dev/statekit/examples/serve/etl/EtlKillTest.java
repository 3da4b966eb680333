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
import dev.statekit.examples.serve.Leases;
import dev.statekit.examples.serve.ServiceProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ETL service killed (SIGKILL) while tasks are in their LLM call and in their MineRU call,
 * then started again on the same H2 file: every task completes; the restart takes every job the
 * killed process held back at its start, before their leases would have expired (H2 locks its
 * file to one process, so every lease found there is dead): a post-processing job is queued again,
 * an OCR job fails with {@code LEASE_EXPIRED} and is retried from mineru by the service; MineRU is not called again for a task whose OCR stage had committed, no
 * call is made twice for one attempt, and each task has one result file.
 *
 * <p>Which call each task was in when the process died is read from the ledgers and the files
 * after the kill (a call begun whose file was not written); the test requires at least one task
 * killed in each kind of call, so the crash it checks did happen.
 */
class EtlKillTest {
    /** The restart's: nothing is timed after the restart, so its work takes a second, not five. */
    static final String[] OPTIONS = {"--work-millis", "1000", "--lease-seconds", "5"};
    /** The killed run's: leases long enough that only the restart's recovery at start, not their expiry, frees its jobs while the test looks. */
    static final String[] KILLED_OPTIONS = {"--work-millis", "5000", "--lease-seconds", "60"};

    @TempDir
    Path data;

    @Test
    void killedMidWorkEveryTaskCompletesAndNothingCommittedRunsAgain() throws Exception {
        List<Long> ids = new ArrayList<>();
        String firstOwner;
        List<Leases.Held> held;
        try (ServiceProcess first = ServiceProcess.start("etl", data, KILLED_OPTIONS)) {
            ApiClient alice = first.client().as("alice");
            ids.add(submit(alice, "a.txt", "alpha document", "direct-json"));
            ids.add(submit(alice, "b.txt", "beta document", "chunked-extract"));
            for (long id : ids) {
                alice.awaitGet(task(id), r -> r.field("status").equals("llm_processing") && r.json().path("attempt_postprocess").asInt() == 1,
                        EtlTestSupport.WITHIN);
            }
            long c = submit(alice, "c.txt", "gamma document", "direct-json");
            long d = submit(alice, "d.txt", "delta document", null);
            ids.addAll(List.of(c, d));
            EtlTestSupport.await(alice, c, "mineru_parsing");
            EtlTestSupport.await(alice, d, "mineru_parsing");
            ApiClient.Response refused = alice.post(task(c) + "/cancel", "");       // its OCR job started: not cancelled
            assertThat(refused.status()).isEqualTo(409);
            assertThat(refused.field("error_code")).isEqualTo(EtlTask.TASK_ALREADY_STARTED);
            held = Leases.of(alice);
            first.kill();
            firstOwner = calls(ledger(data, "mineru"), ids.get(0)).get(0).owner();
        }
        // what each task was doing when the process died: a call begun whose file was never written
        List<Long> inLlm = new ArrayList<>();
        List<Long> inMineru = new ArrayList<>();
        for (long id : ids) {
            if (!calls(ledger(data, "llm"), id).isEmpty() && !Files.exists(data.resolve("results/" + id + ".json"))) inLlm.add(id);
            if (!calls(ledger(data, "mineru"), id).isEmpty() && !Files.exists(data.resolve("artifacts/" + id + "/mineru-1.md"))) inMineru.add(id);
        }
        assertThat(inLlm).as("tasks killed in their LLM call").isNotEmpty();
        assertThat(inMineru).as("tasks killed in their MineRU call").isNotEmpty();

        try (ServiceProcess second = ServiceProcess.start("etl", data, OPTIONS)) {
            ApiClient alice = second.client().as("alice");
            Leases.assertTakenBackAtStart(alice, held);
            for (long id : ids) {
                alice.awaitGet(task(id), r -> EtlTestSupport.ENDED.contains(r.field("status")), Duration.ofSeconds(120));
                assertThat(alice.get(task(id)).field("status")).as("task %d: %s %s", id, alice.get(task(id)).text(),
                        alice.get(task(id) + "/history").text()).isEqualTo("completed");
            }
            List<EtlTestSupport.Call> mineru = ledger(data, "mineru");
            List<EtlTestSupport.Call> llm = ledger(data, "llm");
            assertThat(mineru.stream().map(x -> x.task() + "/" + x.attempt())).doesNotHaveDuplicates();
            assertThat(llm.stream().map(x -> x.task() + "/" + x.attempt())).doesNotHaveDuplicates();

            for (long id : ids) {
                JsonNode t = alice.get(task(id)).json();
                JsonNode history = alice.get(task(id) + "/history").json().path("history");
                JsonNode ocrDone = null;
                for (JsonNode step : history) if (ocrDone == null && step.path("event").asText().equals("OCR_DONE")) ocrDone = step;
                assertThat(ocrDone).isNotNull();
                if (ocrDone.path("actor").asText().equals(firstOwner)) {
                    assertThat(calls(mineru, id)).as("MineRU calls of task %d, whose OCR committed before the kill", id).hasSize(1);
                }
                String markdown = t.path(EtlTask.MARKDOWN_KEY).asText();
                assertThat(alice.get(task(id) + "/result").json().path("result").path(EtlTask.MARKDOWN_KEY).asText()).isEqualTo(markdown);
            }
            // post-processing killed: taken back at the restart, on the markdown of the one OCR run
            for (long id : inLlm) {
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
            // OCR killed: failed by its dead lease at the restart, retried from mineru by the service
            for (long id : inMineru) {
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
                assertThat(alice.get(task(id)).json().path("error_code").isNull()).isTrue();
            }
            assertThat(calls(llm, ids.get(3))).isEmpty();                    // the default rule calls no LLM
            assertThat(results()).containsExactlyInAnyOrderElementsOf(ids.stream().map(id -> id + ".json").toList());
        }
    }

    private List<String> results() throws Exception {
        try (Stream<Path> files = Files.list(data.resolve("results"))) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
