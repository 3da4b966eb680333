package dev.statekit.examples.serve.compression;

import static dev.statekit.examples.serve.compression.Fixtures.all;
import static dev.statekit.examples.serve.compression.Fixtures.events;
import static dev.statekit.examples.serve.compression.Fixtures.gunzip;
import static dev.statekit.examples.serve.compression.Fixtures.history;
import static dev.statekit.examples.serve.compression.Fixtures.input;
import static dev.statekit.examples.serve.compression.Fixtures.outputs;
import static dev.statekit.examples.serve.compression.Fixtures.tasks;
import static dev.statekit.examples.serve.compression.Fixtures.temps;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.statekit.examples.serve.ApiClient;
import dev.statekit.examples.serve.ServiceProcess;
import dev.statekit.examples.serve.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two {@code examples serve compression} processes on one database (PostgreSQL, then MariaDB) and
 * one folder:
 * the queue's concurrency limit of 1 is the store's, so across both processes one compression runs
 * at a time; tasks added to one are compressed by both, each once: the process that claims the
 * first file keeps the queue busy (a finished compression claims the next at once) until it is
 * stopped, and the other takes over the rest.
 */
class CompressionSharedDatabaseTest {
    static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path data;

    static long running(ApiClient.Response list) {
        return tasks(list).stream().filter(t -> t.path("state").asText().equals("RUNNING")).count();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(TestDatabase.class)
    void twoProcessesShareTheQueueAndNeverCompressTwoFilesAtOnce(TestDatabase database) throws Exception {
        database.require();
        List<String> options = new ArrayList<>(database.serveOptions(database.freshPrefix("cq")));
        options.addAll(List.of("--throttle-bytes-per-second", "100000", "--lease-seconds", "10", "--journal", "journal.log"));
        Map<String, byte[]> inputs = new LinkedHashMap<>();
        for (int i = 1; i <= 6; i++) inputs.put("f" + i + ".txt", input(data, "f" + i + ".txt", 150_000, i));
        String batch = "{\"tasks\": [" + String.join(", ", inputs.keySet().stream().map(n -> "{\"input\": \"" + n + "\"}").toList()) + "]}";

        try (ServiceProcess one = ServiceProcess.start("compression", data, options.toArray(String[]::new));
             ServiceProcess two = ServiceProcess.start("compression", data, options.toArray(String[]::new))) {
            ApiClient a = one.client();
            ApiClient b = two.client();
            ApiClient.Response added = a.post("/api/tasks/batch", batch);
            assertThat(added.status()).as(added.text()).isEqualTo(201);
            List<Long> ids = new ArrayList<>();
            added.json().path("tasks").forEach(t -> ids.add(t.path("id").asLong()));

            // both processes see the same queue, and never more than one compression in it
            List<String> violations = new ArrayList<>();
            Set<String> workers = new HashSet<>();
            b.awaitGet("/api/tasks", r -> {
                ApiClient.Response other = a.get("/api/tasks");
                for (ApiClient.Response list : List.of(r, other)) {
                    if (running(list) > 1) violations.add(list.text());
                    tasks(list).stream().filter(t -> t.path("state").asText().equals("RUNNING"))
                            .forEach(t -> workers.add(t.path("worker").asText()));
                }
                return tasks(r).stream().anyMatch(t -> t.path("state").asText().equals("COMPLETED"));
            }, WAIT);
            assertThat(tasks(b.get("/api/tasks"))).hasSize(6);

            // the process that compressed the first stops (its running compression may finish); the other takes the rest
            String first = history(b, ids.get(0)).get(1).actor();
            boolean oneWorked = first.contains("-" + one.process().pid() + "-");
            assertThat(oneWorked || first.contains("-" + two.process().pid() + "-")).as("the owner %s is one of the processes", first).isTrue();
            (oneWorked ? one : two).stop();
            ApiClient rest = oneWorked ? b : a;
            rest.awaitGet("/api/tasks", r -> {
                if (running(r) > 1) violations.add(r.text());
                tasks(r).stream().filter(t -> t.path("state").asText().equals("RUNNING")).forEach(t -> workers.add(t.path("worker").asText()));
                return all(r, "COMPLETED");
            }, WAIT);
            assertThat(violations).isEmpty();

            Set<String> starters = new HashSet<>();
            for (long id : ids) {
                assertThat(events(rest, id)).as("task %d ran once", id).containsExactly("ENQUEUE", "START", "SUCCEED");
                starters.add(history(rest, id).get(1).actor());
            }
            assertThat(starters).as("both processes compressed files").hasSize(2);
            assertThat(workers).isSubsetOf(starters);
            // the journal both processes appended to: one compression at a time across them, each file once
            List<Fixtures.Entry> journal = Fixtures.journal(data.resolve("journal.log"));
            Fixtures.assertOneAtATime(journal);
            assertThat(Fixtures.starts(journal)).containsExactlyInAnyOrderElementsOf(ids);
            assertThat(journal.stream().map(Fixtures.Entry::owner).distinct().toList()).containsExactlyInAnyOrderElementsOf(starters);

            JsonNode queue = rest.get("/api/queue").json();
            assertThat(queue.path("concurrency").asInt()).isEqualTo(1);
            assertThat(queue.path("counts").path("COMPLETED").asInt()).isEqualTo(6);
            List<String> expected = inputs.keySet().stream().map(n -> n + ".gz").sorted().toList();
            assertThat(outputs(data)).containsExactlyElementsOf(expected);
            for (Map.Entry<String, byte[]> e : inputs.entrySet()) assertThat(gunzip(data, e.getKey() + ".gz")).isEqualTo(e.getValue());
            assertThat(temps(data)).isEmpty();
        }
    }
}
