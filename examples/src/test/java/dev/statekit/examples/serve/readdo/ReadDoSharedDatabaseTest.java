package dev.statekit.examples.serve.readdo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.examples.serve.ApiClient;
import dev.statekit.examples.serve.ApiClient.Response;
import dev.statekit.examples.serve.ServiceProcess;
import dev.statekit.examples.serve.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two {@code examples serve read-do} processes on one database (PostgreSQL, then MariaDB), each
 * with its own data folder: the same {@code capture_id} sent to both at once gives one item, the
 * items captured through either are processed by both, and each item runs its pipeline once.
 */
class ReadDoSharedDatabaseTest {
    static final Duration WAIT = Duration.ofSeconds(60);
    static final Pattern CALL = Pattern.compile("item=(\\d+) run=(\\S+) step=(\\S+) by=(\\S+)");

    @TempDir
    Path dirA;
    @TempDir
    Path dirB;

    static String capture(String url, String captureId) {
        return "{\"url\":\"" + url + "\",\"intent\":\"share\",\"capture_id\":\"" + captureId + "\"}";
    }

    static List<String> calls(Path data) throws IOException {
        Path file = data.resolve("logs").resolve("calls.log");
        List<String> calls = new ArrayList<>();
        if (!Files.exists(file)) return calls;
        for (String line : Files.readAllLines(file)) {
            Matcher m = CALL.matcher(line);
            if (m.find()) calls.add(m.group(1) + "/" + m.group(2) + "/" + m.group(3));
        }
        return calls;
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(TestDatabase.class)
    void twoProcessesShareTheItemsAndEachItemRunsOnce(TestDatabase database) throws Exception {
        database.require();
        String prefix = database.freshPrefix("readdo");
        List<String> options = new ArrayList<>(database.serveOptions(prefix));
        options.addAll(List.of("--work-millis", "200", "--workers", "1", "--lease-seconds", "10"));
        String[] args = options.toArray(String[]::new);
        try (ServiceProcess a = ServiceProcess.start("read-do", dirA, args);
             ServiceProcess b = ServiceProcess.start("read-do", dirB, args)) {
            ApiClient apiA = a.client();
            ApiClient apiB = b.client();

            // the same capture_id to both processes at once: one item
            CountDownLatch go = new CountDownLatch(1);
            CompletableFuture<Response> toA = CompletableFuture.supplyAsync(() -> {
                await(go);
                return apiA.post("/capture", capture("https://example.org/shared/one", "same-capture"));
            });
            CompletableFuture<Response> toB = CompletableFuture.supplyAsync(() -> {
                await(go);
                return apiB.post("/capture", capture("https://example.org/shared/one", "same-capture"));
            });
            go.countDown();
            Response fromA = toA.get();
            Response fromB = toB.get();
            assertThat(List.of(fromA.status(), fromB.status())).as(fromA.text() + " / " + fromB.text()).containsExactlyInAnyOrder(201, 200);
            assertThat(fromA.json().path("item_id").asLong()).isEqualTo(fromB.json().path("item_id").asLong());

            List<Long> items = new ArrayList<>();
            items.add(fromA.json().path("item_id").asLong());
            for (int i = 0; i < 7; i++) {
                ApiClient api = i % 2 == 0 ? apiA : apiB;
                Response r = api.post("/capture", capture("https://example.org/shared/item-" + i, "shared-" + i));
                assertThat(r.status()).as(r.text()).isEqualTo(201);
                items.add(r.json().path("item_id").asLong());
            }

            Set<String> processedBy = new HashSet<>();
            for (long id : items) {
                ApiClient api = id % 2 == 0 ? apiB : apiA;
                Response ready = api.awaitGet("/items/" + id, r -> r.field("state").equals("READY"), WAIT);
                assertThat(ready.json().path("attempts").asInt()).as("item %d ran once", id).isEqualTo(1);
                processedBy.add(ready.field("processed_by"));
            }
            assertThat(processedBy).as("both processes did some of the work").hasSize(2)
                    .anyMatch(o -> o.contains("-" + a.process().pid() + "-"))
                    .anyMatch(o -> o.contains("-" + b.process().pid() + "-"));
            assertThat(apiA.get("/items?limit=200").json().path("items").size()).isEqualTo(items.size());
            assertThat(apiB.get("/items?limit=200").json().path("items").size()).isEqualTo(items.size());

            List<String> calls = new ArrayList<>(calls(dirA));
            calls.addAll(calls(dirB));
            assertThat(calls).as("every step of every item called once, in one process or the other")
                    .hasSize(items.size() * 5).doesNotHaveDuplicates();
            assertThat(calls(dirA)).isNotEmpty();
            assertThat(calls(dirB)).isNotEmpty();
        } finally {
            database.drop(prefix);
        }
    }

    static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
