package dev.statekit.examples.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.statekit.core.Machine;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The dashboard over each of the seed systems' services, as their users open it. */
class SeedDashboardsTest {
    static Stream<String> systems() {
        return Systems.names().stream();
    }

    private static ServeCommand.Running start(Path dir, String... options) throws Exception {
        List<String> args = new ArrayList<>(List.of(options));
        args.addAll(List.of("--port", "0", "--data", dir.toString(), "--in-memory"));
        return ServeCommand.start(args, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("systems")
    void everyServiceShowsItsMachinesQueuesAndDiagramsAndItsQueuesPauseAndResume(String system, @TempDir Path dir) throws Exception {
        try (ServeCommand.Running running = start(dir, system)) {
            ApiClient client = new ApiClient(running.base()).as("operator");
            ApiClient.Response page = client.get("/ui");
            assertThat(page.status()).isEqualTo(200);
            assertThat(page.text()).contains("<script type=\"module\"");

            JsonNode overview = client.get("/ui/api/overview").json();
            assertThat(overview.path("system").asText()).isEqualTo(system);
            List<String> shown = new ArrayList<>();
            overview.path("machines").forEach(m -> shown.add(m.path("name").asText()));
            assertThat(shown).containsExactlyElementsOf(running.service().machines().stream().map(Machine::name).toList());
            for (Machine<?, ?> m : running.service().machines()) {
                ApiClient.Response machine = client.get("/ui/api/machines/" + m.name());
                assertThat(machine.status()).as(machine.text()).isEqualTo(200);
                assertThat(machine.text()).contains("\"" + m.initial().name() + "\"");
                assertThat(client.get("/ui/api/tasks?machine=" + m.name()).status()).isEqualTo(200);
            }

            assertThat(running.service().queues()).isNotEmpty();
            for (String queue : running.service().queues()) {
                assertThat(client.post("/ui/api/queues/" + queue + "/pause", "{}").status()).isEqualTo(200);
                assertThat(queueNode(client, queue).path("paused").asBoolean()).isTrue();
                assertThat(client.post("/ui/api/queues/" + queue + "/resume", "{}").status()).isEqualTo(200);
                assertThat(queueNode(client, queue).path("paused").asBoolean()).isFalse();
            }
        }
    }

    private static JsonNode queueNode(ApiClient client, String queue) {
        for (JsonNode q : client.get("/ui/api/overview").json().path("queues")) {
            if (q.path("name").asText().equals(queue)) return q;
        }
        throw new AssertionError("the overview shows no queue " + queue);
    }

    @Test
    void aNovelProoferJobShowsItsChunksProgressToTheMergeGate(@TempDir Path dir) throws Exception {
        try (ServeCommand.Running running = start(dir, "novel-proofer", "--sample", "true")) {
            ApiClient client = new ApiClient(running.base()).as("operator");
            ApiClient.Response job = client.awaitGet("/ui/api/tasks/1",
                    r -> r.json().path("progress").path("percent").asInt() == 100, Duration.ofSeconds(120));
            assertThat(job.json().path("machine").asText()).isEqualTo("novel-proofer-job");
            assertThat(job.json().path("progress").path("total").asInt()).isPositive();
            List<String> events = new ArrayList<>();
            job.json().path("userEvents").forEach(e -> events.add(e.asText()));
            assertThat(events).contains("MERGE");
            assertThat(job.json().path("history").size()).isPositive();
        }
    }
}
