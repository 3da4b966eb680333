package dev.statekit.examples.serve.etl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.examples.serve.ApiClient;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** What the ETL service's tests share: requests, waits and the ledgers of the simulated services. */
final class EtlTestSupport {
    static final String TASKS = "/api/v1/etl/tasks";
    static final Duration WITHIN = Duration.ofSeconds(60);
    static final Set<String> ENDED = Set.of("completed", "failed", "cancelled");

    private EtlTestSupport() {}

    /** One line of a ledger: a call of the simulated service for a task's attempt, by a process. */
    record Call(long task, int attempt, String owner) {}

    static String task(long id) {
        return TASKS + "/" + id;
    }

    /** Submits {@code content} as {@code fileName} under {@code rule} (null: none) and returns the task id; asserts 201. */
    static long submit(ApiClient client, String fileName, String content, String rule) {
        String body = "{\"file_name\":\"" + fileName + "\",\"content\":\"" + content + "\"" + (rule == null ? "" : ",\"rule_id\":\"" + rule + "\"") + "}";
        ApiClient.Response r = client.post(TASKS, body);
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        return r.json().path("task_id").asLong();
    }

    /** POSTs {@code json} with an {@code Idempotency-Key}. */
    static ApiClient.Response postWithKey(ApiClient client, String path, String json, String key) {
        return client.send(client.builder(path).header("Content-Type", "application/json").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    /** Waits until task {@code id} shows {@code status}. */
    static ApiClient.Response await(ApiClient client, long id, String status) {
        return client.awaitGet(task(id), r -> r.field("status").equals(status), WITHIN);
    }

    /** Waits until task {@code id} has ended and returns it. */
    static ApiClient.Response awaitEnded(ApiClient client, long id) {
        return client.awaitGet(task(id), r -> ENDED.contains(r.field("status")), WITHIN);
    }

    /** Returns the calls of the ledger {@code name} ({@code mineru} or {@code llm}) under {@code data}. */
    static List<Call> ledger(Path data, String name) throws IOException {
        Path file = data.resolve("ledger").resolve(name + ".log");
        List<Call> calls = new ArrayList<>();
        if (!Files.exists(file)) return calls;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String[] parts = line.split(" ");
            calls.add(new Call(Long.parseLong(parts[0]), Integer.parseInt(parts[1]), parts[2]));
        }
        return calls;
    }

    /** Returns the calls of {@code ledger} for task {@code id}. */
    static List<Call> calls(List<Call> ledger, long id) {
        return ledger.stream().filter(c -> c.task() == id).toList();
    }

    /** Returns the events of the task's history, in order. */
    static List<String> events(ApiClient client, long id) {
        ApiClient.Response r = client.get(task(id) + "/history");
        assertThat(r.status()).isEqualTo(200);
        List<String> events = new ArrayList<>();
        r.json().path("history").forEach(e -> events.add(e.path("event").asText()));
        return events;
    }
}
