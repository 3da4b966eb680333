package dev.statekit.examples.serve.novelproofer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.statekit.examples.serve.ApiClient;
import dev.statekit.examples.serve.Json;
import dev.statekit.examples.serve.Leases;
import dev.statekit.examples.serve.ServiceProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code examples serve novel-proofer} killed (SIGKILL) while it proofreads a job's chunks, then
 * started again on the same H2 database: the restart takes the chunks it held back at start, before
 * their leases would have expired; every chunk ends done, none is proofread again after it
 * was done (the simulated LLM's ledger), the job reaches the merge gate, and the merge writes the
 * output file once.
 */
class NovelProoferKillTest {
    static final Duration WITHIN = Duration.ofSeconds(90);
    /** Slow LLM calls, two at a time, and short leases so that the chunks of the killed process are taken over soon. */
    static final String[] OPTIONS = {"--work-millis", "600", "--workers", "2", "--lease-seconds", "3", "--llm-failure-rate", "0",
            "--chunk-chars", "60"};

    /** The killed run's: leases long enough that only the restart's recovery at start, not their expiry, frees its chunks while the test looks. */
    static final String[] KILLED_OPTIONS = {"--work-millis", "600", "--workers", "2", "--lease-seconds", "60", "--llm-failure-rate", "0",
            "--chunk-chars", "60"};

    static final int CHUNKS = 16;

    @TempDir
    Path data;

    @Test
    void aServiceKilledWhileProofreadingFinishesTheJobAfterARestartWithNothingDoneTwice() throws Exception {
        List<String> paragraphs = new ArrayList<>();
        for (int i = 0; i < CHUNKS; i++) paragraphs.add("Paragraph " + i + ": teh ferry left , and the lamps  swung.");
        String text = String.join("\n\n", paragraphs);

        long job;
        Set<Long> doneBeforeKill = new HashSet<>();
        List<Leases.Held> held;
        try (ServiceProcess first = ServiceProcess.start("novel-proofer", data, KILLED_OPTIONS)) {
            ApiClient api = first.client();
            ApiClient.Response created = api.post("/jobs", Json.write(Map.of("title", "Killed mid-work", "text", text, "process", true)));
            assertThat(created.status()).as(created.text()).isEqualTo(201);
            job = created.json().path("id").asLong();
            ApiClient.Response midWork = api.awaitGet("/jobs/" + job + "/chunks",
                    r -> count(r, "done") >= 2 && count(r, "processing") >= 1, WITHIN);
            for (JsonNode c : midWork.json().path("chunks")) if (c.path("state").asText().equals("done")) doneBeforeKill.add(c.path("id").asLong());
            held = Leases.of(api);
            first.kill();
        }
        assertThat(doneBeforeKill).hasSizeLessThan(CHUNKS);
        Path ledger = data.resolve("llm-ledger.log");
        int callsBeforeRestart = Files.readAllLines(ledger, StandardCharsets.UTF_8).size();

        try (ServiceProcess second = ServiceProcess.start("novel-proofer", data, OPTIONS)) {
            ApiClient api = second.client();
            Leases.assertTakenBackAtStart(api, held);
            ApiClient.Response gated = api.awaitGet("/jobs/" + job,
                    r -> r.field("state").equals("paused") && r.field("phase").equals("merge"), WITHIN);
            assertThat(gated.json().path("progress").path("done_chunks").asInt()).isEqualTo(CHUNKS);
            JsonNode chunks = api.get("/jobs/" + job + "/chunks").json().path("chunks");
            assertThat(chunks).hasSize(CHUNKS);
            assertThat(StreamSupport.stream(chunks.spliterator(), false).map(c -> c.path("state").asText())).containsOnly("done");

            // the ledger: every chunk answered, none after its done commit, none done before the kill proofread again
            List<String> lines = Files.readAllLines(ledger, StandardCharsets.UTF_8);
            Map<Long, List<JsonNode>> byChunk = new HashMap<>();
            Set<Long> afterRestart = new HashSet<>();
            for (int i = 0; i < lines.size(); i++) {
                JsonNode call = Json.read(lines.get(i));
                byChunk.computeIfAbsent(call.path("chunk").asLong(), k -> new ArrayList<>()).add(call);
                if (i >= callsBeforeRestart) afterRestart.add(call.path("chunk").asLong());
            }
            Set<String> owners = new HashSet<>();
            for (JsonNode chunk : chunks) {
                long id = chunk.path("id").asLong();
                Instant doneAt = Instant.parse(chunk.path("updated_at").asText());
                List<JsonNode> own = byChunk.getOrDefault(id, List.of());
                assertThat(own).as("chunk %d was answered", id).anyMatch(c -> c.path("outcome").asText().equals("ok"));
                assertThat(own).as("chunk %d: no call after its done commit at %s", id, doneAt)
                        .allMatch(c -> !Instant.parse(c.path("at").asText()).isAfter(doneAt));
                if (doneBeforeKill.contains(id)) assertThat(afterRestart).as("chunk %d was done before the kill", id).doesNotContain(id);
                own.forEach(c -> owners.add(c.path("owner").asText()));
            }
            assertThat(owners).as("both processes proofread").hasSize(2);

            ApiClient.Response merged = api.post("/jobs/" + job + "/merge", "{}");
            assertThat(merged.status()).as(merged.text()).isEqualTo(200);
            ApiClient.Response done = api.awaitGet("/jobs/" + job, r -> r.field("state").equals("done"), WITHIN);
            String file = done.field("output_file");
            assertThat(file).isEqualTo("output/" + job + "-killed-mid-work.txt");
            StringBuilder expected = new StringBuilder();
            for (var slice : dev.statekit.examples.hosts.NovelProoferHost.slices(text, 60)) {
                expected.append(SimulatedLlm.proofread(slice.text())).append(slice.separator());
            }
            assertThat(Files.readString(data.resolve(file), StandardCharsets.UTF_8)).isEqualTo(expected.toString());
            assertThat(api.post("/jobs/" + job + "/merge", "{}").status()).isEqualTo(409);
            try (var files = Files.list(data.resolve(OutputFiles.FOLDER))) {
                assertThat(files.map(f -> f.getFileName().toString())).containsExactly(job + "-killed-mid-work.txt");
            }
            assertThat(Files.readAllLines(data.resolve(OutputFiles.JOURNAL))).as("written once").hasSize(1);
        }
    }

    static long count(ApiClient.Response chunks, String state) {
        return StreamSupport.stream(chunks.json().path("chunks").spliterator(), false).filter(c -> c.path("state").asText().equals(state)).count();
    }
}
