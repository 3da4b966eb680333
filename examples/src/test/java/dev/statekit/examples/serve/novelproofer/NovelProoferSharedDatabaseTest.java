package dev.statekit.examples.serve.novelproofer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.statekit.core.HistoryStep;
import dev.statekit.core.TransitionEngine;
import dev.statekit.examples.NovelProoferChunk;
import dev.statekit.examples.Stores;
import dev.statekit.examples.serve.ApiClient;
import dev.statekit.examples.serve.Json;
import dev.statekit.examples.serve.ServiceProcess;
import dev.statekit.examples.serve.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two {@code examples serve novel-proofer} processes on one database (PostgreSQL, then MariaDB) and
 * one data folder: a job submitted to one is proofread by both, its merge asked of the other, and
 * nothing is done twice.
 */
class NovelProoferSharedDatabaseTest {
    static final Duration WITHIN = Duration.ofSeconds(90);
    static final int CHUNKS = 16;

    @TempDir
    Path data;

    @ParameterizedTest(name = "on {0}")
    @EnumSource(TestDatabase.class)
    void twoProcessesShareTheChunksOfAJobAndItsMergeHappensOnce(TestDatabase database) throws Exception {
        database.require();
        String prefix = database.freshPrefix("np");
        List<String> options = new ArrayList<>(database.serveOptions(prefix));
        options.addAll(List.of("--work-millis", "300", "--workers", "2", "--llm-failure-rate", "0", "--chunk-chars", "60"));
        String[] args = options.toArray(String[]::new);
        List<String> paragraphs = new ArrayList<>();
        for (int i = 0; i < CHUNKS; i++) paragraphs.add("Paragraph " + i + ": teh crates were counted , twice.");

        try (ServiceProcess a = ServiceProcess.start("novel-proofer", data, args);
             ServiceProcess b = ServiceProcess.start("novel-proofer", data, args)) {
            ApiClient apiA = a.client().as("ann");
            ApiClient apiB = b.client().as("ben");
            ApiClient.Response created = apiA.post("/jobs", Json.write(Map.of("title", "Shared", "text", String.join("\n\n", paragraphs),
                    "process", true)));
            assertThat(created.status()).as(created.text()).isEqualTo(201);
            long job = created.json().path("id").asLong();
            assertThat(apiB.get("/jobs/" + job).field("title")).isEqualTo("Shared");

            apiB.awaitGet("/jobs/" + job, r -> r.field("state").equals("paused") && r.field("phase").equals("merge"), WITHIN);
            assertThat(apiB.post("/jobs/" + job + "/merge", "{}").status()).isEqualTo(200);
            ApiClient.Response done = apiA.awaitGet("/jobs/" + job, r -> r.field("state").equals("done"), WITHIN);
            JsonNode chunks = apiA.get("/jobs/" + job + "/chunks").json().path("chunks");
            assertThat(chunks).hasSize(CHUNKS);

            // the ledger of the LLM both processes call: each chunk answered once, by both processes together
            Map<Long, Integer> answers = new HashMap<>();
            Set<String> ledgerOwners = new HashSet<>();
            for (String line : Files.readAllLines(data.resolve("llm-ledger.log"), StandardCharsets.UTF_8)) {
                JsonNode call = Json.read(line);
                assertThat(call.path("outcome").asText()).isEqualTo("ok");
                answers.merge(call.path("chunk").asLong(), 1, Integer::sum);
                ledgerOwners.add(call.path("owner").asText());
            }
            assertThat(answers).hasSize(CHUNKS).allSatisfy((chunk, n) -> assertThat(n).as("chunk %d", chunk).isEqualTo(1));
            assertThat(ledgerOwners).as("both processes proofread").hasSize(2);

            // the history says the same: every chunk done once, by the lease owners of both processes
            Set<String> doneBy = new HashSet<>();
            try (Stores.Opened store = Stores.persistent(database.url(), database.user(), database.password(), prefix, 2)) {
                TransitionEngine engine = TransitionEngine.builder().store(store.store()).build();
                for (JsonNode chunk : chunks) {
                    List<HistoryStep<NovelProoferChunk.State, NovelProoferChunk.Event>> steps =
                            engine.history(NovelProoferChunk.MACHINE, chunk.path("id").asLong());
                    List<HistoryStep<NovelProoferChunk.State, NovelProoferChunk.Event>> succeeded =
                            steps.stream().filter(s -> s.event() == NovelProoferChunk.Event.SUCCEED).toList();
                    assertThat(succeeded).hasSize(1);
                    doneBy.add(succeeded.get(0).entry().actor());
                }
            }
            assertThat(doneBy).isEqualTo(ledgerOwners);

            String file = done.field("output_file");
            assertThat(file).isEqualTo("output/" + job + "-shared.txt");
            try (Stream<Path> files = Files.list(data.resolve(OutputFiles.FOLDER))) {
                assertThat(files.map(f -> f.getFileName().toString())).containsExactly(job + "-shared.txt");
            }
            assertThat(Files.readAllLines(data.resolve(OutputFiles.JOURNAL))).as("written once").hasSize(1);
            assertThat(Files.readString(data.resolve(file), StandardCharsets.UTF_8))
                    .startsWith("Paragraph 0: the crates were counted, twice.\n\nParagraph 1: ");
        } finally {
            database.drop(prefix);
        }
    }
}
