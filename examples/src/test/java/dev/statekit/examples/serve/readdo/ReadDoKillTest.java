package dev.statekit.examples.serve.readdo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.statekit.examples.serve.ApiClient;
import dev.statekit.examples.serve.ApiClient.Response;
import dev.statekit.examples.serve.Leases;
import dev.statekit.examples.serve.ServiceProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code examples serve read-do} killed (SIGKILL) while it runs pipelines, then started again on
 * the same H2 data folder: the items it held come back to the queue at the restart's start, before
 * their leases would have expired, and end READY (or FAILED_EXTRACTION for a page that cannot be fetched) under a new run; no step of
 * any run is called twice, and an export repeated with its key after the restart writes no second
 * file.
 */
class ReadDoKillTest {
    static final Duration WAIT = Duration.ofSeconds(60);
    static final String[] OPTIONS = {"--work-millis", "300", "--lease-seconds", "2", "--workers", "2"};
    /** The killed run's: leases long enough that only the restart's recovery at start, not their expiry, frees its items while the test looks. */
    static final String[] KILLED_OPTIONS = {"--work-millis", "300", "--lease-seconds", "60", "--workers", "2"};
    static final Pattern CALL = Pattern.compile("item=(\\d+) run=(\\S+) step=(\\S+) by=(\\S+)");

    @TempDir
    Path data;

    record Call(long item, String run, String step, String by) {}

    List<Call> calls() throws IOException {
        List<Call> calls = new ArrayList<>();
        for (String line : Files.readAllLines(data.resolve("logs").resolve("calls.log"))) {
            Matcher m = CALL.matcher(line);
            if (m.find()) calls.add(new Call(Long.parseLong(m.group(1)), m.group(2), m.group(3), m.group(4)));
        }
        return calls;
    }

    long cardFiles() throws IOException {
        try (Stream<Path> files = Files.list(data.resolve("exports"))) {
            return files.filter(f -> f.getFileName().toString().endsWith(".md")).count();
        }
    }

    static long capture(ApiClient api, String url, String captureId) {
        Response r = api.post("/capture", "{\"url\":\"" + url + "\",\"intent\":\"decide\",\"capture_id\":\"" + captureId + "\"}");
        assertThat(r.status()).as(r.text()).isIn(200, 201);
        return r.json().path("item_id").asLong();
    }

    @Test
    void itemsHeldByAKilledServiceEndAsTheSeedSaysAndNothingIsDoneTwice() throws Exception {
        long exported;
        String file;
        List<Long> items = new ArrayList<>();
        Set<Long> heldAtKill = new HashSet<>();
        String firstOwner;
        List<Leases.Held> held;
        try (ServiceProcess first = ServiceProcess.start("read-do", data, KILLED_OPTIONS)) {
            ApiClient api = first.client();
            exported = capture(api, "https://example.org/kill/exported", "kill-0");
            Response ready = api.awaitGet("/items/" + exported, r -> r.field("state").equals("READY"), WAIT);
            firstOwner = ready.field("processed_by");
            Response export = api.post("/items/" + exported + "/export", "{\"export_key\":\"card-v1\"}");
            assertThat(export.json().path("written").asBoolean())
                    .as("%s; the item as the dashboard shows it: %s", export.text(), api.get("/ui/api/tasks/" + exported).text()).isTrue();
            file = export.field("file");

            for (int i = 1; i <= 4; i++) items.add(capture(api, "https://example.org/kill/item-" + i, "kill-" + i));
            items.add(capture(api, "https://gone.invalid/kill", "kill-5"));
            Response processing = api.awaitGet("/items?state=PROCESSING", r -> r.json().path("items").size() > 0, WAIT);
            processing.json().path("items").forEach(i -> heldAtKill.add(i.path("item_id").asLong()));
            held = Leases.of(api);
            first.kill();
        }
        assertThat(heldAtKill).isNotEmpty();
        List<Call> before = calls();

        try (ServiceProcess second = ServiceProcess.start("read-do", data, OPTIONS)) {
            ApiClient api = second.client();
            Leases.assertTakenBackAtStart(api, held);
            Map<Long, JsonNode> ended = new HashMap<>();
            for (long id : items) {
                Response r = api.awaitGet("/items/" + id, x -> x.field("state").equals("READY") || x.field("state").startsWith("FAILED_"), WAIT);
                ended.put(id, r.json());
            }
            long unreachable = items.get(items.size() - 1);
            assertThat(ended.get(unreachable).path("state").asText()).isEqualTo("FAILED_EXTRACTION");
            assertThat(ended.get(unreachable).path("error_code").asText()).isEqualTo("EXTRACTION_FETCH_FAILED");
            String secondOwner = null;
            int rerun = 0;
            for (long id : items) {
                JsonNode item = ended.get(id);
                if (id != unreachable) {
                    assertThat(item.path("state").asText()).as("item %d", id).isEqualTo("READY");
                    assertThat(item.path("artifacts_complete").asBoolean()).isTrue();
                }
                int attempts = item.path("attempts").asInt();
                assertThat(item.path("run_id").asText()).isEqualTo("run-" + attempts);
                if (attempts == 2) {
                    rerun++;
                    assertThat(heldAtKill).as("only an item held at the kill runs twice").contains(id);
                    secondOwner = item.path("processed_by").asText(null);
                } else {
                    assertThat(attempts).as("item %d", id).isEqualTo(1);
                }
            }
            assertThat(rerun).as("the items the killed process held ran again").isGreaterThan(0);

            // every step of every run was called once; a run the kill cut short was not finished by anyone
            List<Call> calls = calls();
            Set<Call> unique = new HashSet<>(calls);
            assertThat(unique).as("no call twice").hasSize(calls.size());
            Map<String, List<Call>> byRun = new HashMap<>();
            for (Call c : calls) byRun.computeIfAbsent(c.item() + "/" + c.run(), k -> new ArrayList<>()).add(c);
            byRun.forEach((run, steps) -> assertThat(steps.stream().map(Call::by).distinct()).as("run %s in one process", run).hasSize(1));
            for (long id : items) {
                String finalRun = ended.get(id).path("run_id").asText();
                List<Call> last = byRun.get(id + "/" + finalRun);
                assertThat(last).as("item %d's final run", id).isNotNull();
                if (!ended.get(id).path("state").asText().startsWith("FAILED_")) {
                    assertThat(last).extracting(Call::step).containsExactly("extract", "summarize", "score", "todos", "card");
                }
                if (ended.get(id).path("attempts").asInt() == 2) {
                    assertThat(last.get(0).by()).as("item %d's second run ran after the restart", id).isNotEqualTo(firstOwner);
                    List<Call> cut = byRun.getOrDefault(id + "/run-1", List.of());
                    assertThat(cut).as("item %d's first run, cut short", id).allMatch(c -> c.by().equals(firstOwner)).hasSizeLessThan(5);
                }
            }
            for (Call c : before) assertThat(c.by()).isEqualTo(firstOwner);
            if (secondOwner != null) assertThat(secondOwner).isNotEqualTo(firstOwner);

            // the same capture_id and the same export key after the restart: the same item, the same file, nothing written
            assertThat(capture(api, "https://example.org/kill/exported", "kill-0")).isEqualTo(exported);
            Response again = api.post("/items/" + exported + "/export", "{\"export_key\":\"card-v1\"}");
            assertThat(again.status()).isEqualTo(200);
            assertThat(again.json().path("replayed").asBoolean()).isTrue();
            assertThat(again.json().path("written").asBoolean()).isFalse();
            assertThat(again.field("file")).isEqualTo(file);
            assertThat(cardFiles()).isEqualTo(1);
            assertThat(Files.readAllLines(data.resolve("logs").resolve("exports.log"))).hasSize(1);
            // 143 = 128 + SIGTERM: the JVM ended on the signal after its shutdown hook stopped the service (a forced kill is 137)
            assertThat(second.stop()).as("SIGTERM stops it").isEqualTo(143);
        }
    }
}
