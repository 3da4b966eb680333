package dev.statekit.examples.serve.etl;

import static dev.statekit.examples.serve.etl.EtlTestSupport.calls;
import static dev.statekit.examples.serve.etl.EtlTestSupport.ledger;
import static dev.statekit.examples.serve.etl.EtlTestSupport.submit;
import static dev.statekit.examples.serve.etl.EtlTestSupport.task;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.statekit.examples.serve.ApiClient;
import dev.statekit.examples.serve.ServiceProcess;
import dev.statekit.examples.serve.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two ETL service processes on one database (PostgreSQL, then MariaDB) and one data folder (the
 * artifacts' store): tasks submitted to either are served by both, each process runs some of the
 * jobs, and no job runs twice.
 */
class EtlSharedDatabaseTest {
    @TempDir
    Path data;

    @ParameterizedTest(name = "on {0}")
    @EnumSource(TestDatabase.class)
    void twoProcessesShareTheTasksAndTheWorkAndNothingRunsTwice(TestDatabase database) throws Exception {
        database.require();
        List<String> options = new ArrayList<>(database.serveOptions(database.freshPrefix("etl")));
        options.addAll(List.of("--work-millis", "300", "--admins", "root"));
        String[] args = options.toArray(String[]::new);
        try (ServiceProcess one = ServiceProcess.start("etl", data, args);
             ServiceProcess two = ServiceProcess.start("etl", data, args)) {
            ApiClient first = one.client().as("alice");
            ApiClient second = two.client().as("alice");
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                ApiClient to = i % 2 == 0 ? first : second;
                ids.add(submit(to, "doc-" + i + ".txt", "document number " + i, i % 4 == 3 ? null : "direct-json"));
            }
            Set<String> owners = new HashSet<>();
            for (long id : ids) {
                ApiClient other = ids.indexOf(id) % 2 == 0 ? second : first;      // read through the process it was not submitted to
                JsonNode done = EtlTestSupport.await(other, id, "completed").json();
                assertThat(done.path("attempt_ocr").asInt()).isEqualTo(1);
                assertThat(done.path("attempt_postprocess").asInt()).isEqualTo(1);
                for (JsonNode step : other.get(task(id) + "/history").json().path("history")) {
                    if (step.path("event").asText().startsWith("START_")) owners.add(step.path("actor").asText());
                }
            }
            assertThat(owners).as("the processes that claimed jobs").hasSize(2);

            List<EtlTestSupport.Call> mineru = ledger(data, "mineru");
            List<EtlTestSupport.Call> llm = ledger(data, "llm");
            assertThat(mineru.stream().map(EtlTestSupport.Call::owner).distinct()).hasSize(2);
            for (long id : ids) {
                assertThat(calls(mineru, id)).as("MineRU calls of task %d", id).hasSize(1);
                assertThat(calls(llm, id)).as("LLM calls of task %d", id).hasSize(ids.indexOf(id) % 4 == 3 ? 0 : 1);
            }
            try (Stream<Path> results = Files.list(data.resolve("results"))) {
                assertThat(results.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".json"))).hasSize(ids.size());
            }

            // a control of one process is seen by the other: bob may not retry alice's task there either
            ApiClient bob = two.client().as("bob");
            ApiClient.Response forbidden = bob.post(task(ids.get(0)) + "/retry", "{}");
            assertThat(forbidden.status()).isEqualTo(403);
            assertThat(forbidden.field("error_code")).isEqualTo("FORBIDDEN");
        }
    }
}
