package dev.statekit.examples.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServeCommandTest {
    private static final String JSON = "application/json";

    record Run(int status, String out, String err) {}

    static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = ServeCommand.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void everyBadArgumentIsReportedByWhatIsWrongWithIt() {
        assertProblem(run(), "serve needs a SYSTEM: one of novel-proofer");
        assertProblem(run("frobnicate"), "unknown system 'frobnicate'; known systems: novel-proofer");
        assertProblem(run("etl", "--port"), "--port needs a value");
        assertProblem(run("etl", "--port", "--in-memory"), "--port needs a value");
        assertProblem(run("etl", "--port", "99999"), "--port must be a number from 0 to 65535, not '99999'");
        assertProblem(run("etl", "--port", "http"), "--port must be a number from 0 to 65535, not 'http'");
        assertProblem(run("etl", "--in-memory", "--jdbc-url", "jdbc:h2:mem:x"), "--in-memory and --jdbc-url are two stores; give one");
        assertProblem(run("etl", "--user", "sa"), "--user and --password go with --jdbc-url");
        assertProblem(run("etl", "--port", "1", "--port", "2"), "--port is given twice");
        assertProblem(run("etl", "--frobnicate", "1"), "unknown option --frobnicate for etl");
        assertProblem(run("etl", "stray"), "unexpected argument 'stray'");
        assertProblem(run("etl", "--in-memory", "--table-prefix", "x_"), "--table-prefix goes with a database, not --in-memory");
        assertProblem(run("etl", "--table-prefix", "X;drop"), "--table-prefix must be a lower-case letter");
        assertProblem(run("novel-proofer", "--admins", "alice"), "unknown option --admins for novel-proofer");
    }

    private static void assertProblem(Run r, String problem) {
        assertThat(r.status()).as(r.err()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).startsWith("examples serve: " + problem).contains("usage: examples serve SYSTEM");
    }

    @Test
    void helpPrintsEverySystemAndItsOptionsOnStandardOutput() {
        Run r = run("--help");
        assertThat(r.status()).isZero();
        assertThat(r.err()).isEmpty();
        for (Service.Factory f : Systems.all()) {
            assertThat(r.out()).contains("  " + f.name() + " ");
            assertThat(f.options().all()).isNotEmpty();
            for (Options.Option<?> option : f.options().all()) {
                assertThat(r.out()).contains("      " + option.usage() + " ").contains(option.help());
            }
        }
    }

    @Test
    void aFloodOfRequestsNeverHoldsTheWorkersBack(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try (ServeCommand.Running running = ServeCommand.start(List.of("etl", "--port", "0", "--data", dir.toString(),
                "--work-millis", "100"), new PrintStream(printed, true, StandardCharsets.UTF_8))) {
            ApiClient client = new ApiClient(running.base()).as("alice");
            ExecutorService flood = Executors.newFixedThreadPool(48);
            List<Future<Integer>> answers = new ArrayList<>();
            try {
                for (int i = 0; i < 480; i++) {
                    String path = i % 2 == 0 ? "/api/v1/etl/tasks" : "/ui/api/overview";
                    answers.add(flood.submit(() -> client.get(path).status()));
                }
                List<Long> ids = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    ApiClient.Response created = client.post("/api/v1/etl/tasks", "{\"file_name\":\"f" + i + ".pdf\",\"content\":\"text " + i + "\"}");
                    assertThat(created.status()).as(created.text()).isIn(201, 503);
                    if (created.status() == 201) ids.add(created.json().path("task_id").asLong());
                }
                assertThat(ids).isNotEmpty();
                for (long id : ids) {
                    client.awaitGet("/api/v1/etl/tasks/" + id, r -> r.field("status").equals("completed"), Duration.ofSeconds(120));
                }
                for (Future<Integer> answer : answers) assertThat(answer.get(120, TimeUnit.SECONDS)).isIn(200, 503);
            } finally {
                flood.shutdownNow();
            }
        }
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("etl: listening on http://127.0.0.1:");
    }

    @Test
    void sigtermStopsTheServiceGracefullyAndItsTasksWaitForTheNextStart(@TempDir Path dir) throws Exception {
        long id;
        try (ServiceProcess first = ServiceProcess.start("etl", dir, "--work-millis", "50")) {
            ApiClient client = first.client().as("alice");
            ApiClient.Response created = client.post("/api/v1/etl/tasks", "{\"file_name\":\"a.pdf\",\"content\":\"hello\"}");
            assertThat(created.status()).as(created.text()).isEqualTo(201);
            id = created.json().path("task_id").asLong();
            client.awaitGet("/api/v1/etl/tasks/" + id, r -> r.field("status").equals("completed"), Duration.ofSeconds(120));
            first.stop();
            assertThat(first.process().isAlive()).isFalse();
        }
        try (ServiceProcess second = ServiceProcess.start("etl", dir, "--work-millis", "50")) {
            ApiClient.Response again = second.client().get("/api/v1/etl/tasks/" + id);
            assertThat(again.status()).isEqualTo(200);
            assertThat(again.field("status")).isEqualTo("completed");
            assertThat(again.field("submitted_by")).isEqualTo("alice");
        }
    }

    @Test
    void aNodeNameIsTheOwnerOfTheProcesssLeasesAndTheActorOfItsStarts(@TempDir Path dir) throws Exception {
        assertProblem(run("etl", "--node", "two words"), "--node must be 1 to 100 letters, digits, '.', '_', ':' or '-', not 'two words'");
        for (String node : List.of("alpha", "alpha")) {         // the same name again after a stop
            try (ServeCommand.Running running = ServeCommand.start(List.of("etl", "--port", "0", "--data", dir.toString(), "--node", node,
                    "--work-millis", "50"), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))) {
                assertThat(running.service().runtime().owner()).isEqualTo("etl@" + node);
                ApiClient client = new ApiClient(running.base()).as("alice");
                ApiClient.Response created = client.post("/api/v1/etl/tasks", "{\"file_name\":\"a.pdf\",\"content\":\"hello\"}");
                assertThat(created.status()).as(created.text()).isEqualTo(201);
                long id = created.json().path("task_id").asLong();
                client.awaitGet("/api/v1/etl/tasks/" + id, r -> r.field("status").equals("completed"), Duration.ofSeconds(120));
                List<String> starts = new ArrayList<>();
                for (com.fasterxml.jackson.databind.JsonNode e : client.get("/api/v1/etl/tasks/" + id + "/history").json().path("history")) {
                    if (e.path("event").asText().startsWith("START_")) starts.add(e.path("actor").asText());
                }
                assertThat(starts).as("the actors of the task's starts").containsExactly("etl@" + node, "etl@" + node);
            }
        }
    }

    @Test
    void theTablePrefixDefaultsToTheSystemsName() {
        assertThat(ServeCommand.prefix("novel-proofer")).isEqualTo("novel_proofer_");
        assertThat(ServeCommand.prefix("etl")).isEqualTo("etl_");
        assertThatThrownBy(() -> ServeCommand.parse(List.of("nope"))).isInstanceOf(IllegalArgumentException.class);
    }
}
