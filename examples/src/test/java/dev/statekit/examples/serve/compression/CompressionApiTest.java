package dev.statekit.examples.serve.compression;

import static dev.statekit.examples.serve.compression.Fixtures.all;
import static dev.statekit.examples.serve.compression.Fixtures.awaitState;
import static dev.statekit.examples.serve.compression.Fixtures.events;
import static dev.statekit.examples.serve.compression.Fixtures.gunzip;
import static dev.statekit.examples.serve.compression.Fixtures.history;
import static dev.statekit.examples.serve.compression.Fixtures.input;
import static dev.statekit.examples.serve.compression.Fixtures.outputs;
import static dev.statekit.examples.serve.compression.Fixtures.task;
import static dev.statekit.examples.serve.compression.Fixtures.tasks;
import static dev.statekit.examples.serve.compression.Fixtures.temps;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.statekit.examples.serve.ApiClient;
import dev.statekit.examples.serve.ServeCommand;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API of {@code examples serve compression}, in process on H2 in a temporary folder: every
 * endpoint, status and refusal code, one compression at a time seen through the task list, the
 * output names of the conflict policies, the disk-space precondition, failures and retries.
 */
class CompressionApiTest {
    static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path data;

    private final List<ServeCommand.Running> started = new ArrayList<>();

    @AfterEach
    void stop() {
        for (ServeCommand.Running r : started) r.close();
    }

    ApiClient start(String... options) throws Exception {
        List<String> args = new ArrayList<>(List.of("compression", "--port", "0", "--data", data.toString()));
        args.addAll(List.of(options));
        ServeCommand.Running running = ServeCommand.start(args, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        started.add(running);
        return new ApiClient(running.base()).as("alice");
    }

    static long add(ApiClient api, String json) {
        ApiClient.Response r = api.post("/api/tasks", json);
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        return r.json().path("id").asLong();
    }

    static void assertRefused(ApiClient.Response r, int status, String code, String... allowed) {
        assertThat(r.status()).as(r.text()).isEqualTo(status);
        assertThat(r.field("error_code")).isEqualTo(code);
        assertThat(r.field("message")).isNotBlank();
        List<String> actual = new ArrayList<>();
        r.json().path("allowed").forEach(n -> actual.add(n.asText()));
        assertThat(r.json().has("allowed")).as("allowed in %s", r.text()).isTrue();
        assertThat(actual).containsExactlyInAnyOrder(allowed);
    }

    @Test
    void aBatchRunsOneCompressionAtATimeInPriorityOrderWithItsProgress() throws Exception {
        ApiClient api = start("--throttle-bytes-per-second", "300000", "--journal", "journal.log");
        Map<String, byte[]> inputs = new HashMap<>();
        for (String name : List.of("n1.txt", "l1.txt", "h1.txt", "n2.txt")) inputs.put(name, input(data, name, 150_000, name.hashCode()));

        ApiClient.Response paused = api.post("/api/queue/pause", "");
        assertThat(paused.status()).isEqualTo(200);
        assertThat(paused.field("state")).isEqualTo("paused");
        ApiClient.Response batch = api.post("/api/tasks/batch", """
                {"tasks": [{"input": "n1.txt"}, {"input": "l1.txt", "priority": "low"},
                           {"input": "h1.txt", "priority": "high"}, {"input": "n2.txt", "priority": "normal"}]}""");
        assertThat(batch.status()).as(batch.text()).isEqualTo(201);
        assertThat(batch.field("message")).isEqualTo("已入队 4 项");
        assertThat(batch.json().path("count").asInt()).isEqualTo(4);
        Map<String, Long> ids = new HashMap<>();
        batch.json().path("tasks").forEach(t -> ids.put(t.path("input").asText(), t.path("id").asLong()));

        ApiClient.Response waiting = api.get("/api/tasks");
        assertThat(tasks(waiting)).extracting(t -> t.path("input").asText()).containsExactly("h1.txt", "n1.txt", "n2.txt", "l1.txt");
        assertThat(tasks(waiting)).extracting(t -> t.path("position").asInt()).containsExactly(1, 2, 3, 4);
        assertThat(tasks(waiting)).allMatch(t -> t.path("state").asText().equals("QUEUED") && t.path("progress_percent").isNull());
        assertThat(api.get("/api/queue").json().path("running")).isEmpty();

        assertThat(api.post("/api/queue/resume", "").field("state")).isEqualTo("running");
        int[] polls = {0};
        List<String> violations = new ArrayList<>();
        Map<Long, List<Integer>> progress = new HashMap<>();
        api.awaitGet("/api/tasks", r -> {
            polls[0]++;
            List<JsonNode> running = tasks(r).stream().filter(t -> t.path("state").asText().equals("RUNNING")).toList();
            if (running.size() > 1) violations.add(r.text());
            for (JsonNode t : running) {
                progress.computeIfAbsent(t.path("id").asLong(), k -> new ArrayList<>()).add(t.path("progress_percent").asInt(-1));
                if (t.path("position").isNull() && !t.path("worker").isNull()) continue;
                violations.add("a running task without its worker or with a place: " + t);
            }
            return all(r, "COMPLETED");
        }, WAIT);

        assertThat(violations).isEmpty();
        assertThat(polls[0]).isGreaterThan(8);
        // A poll sees a task running only when it comes while the task runs (about half a second each,
        // and polls are slower under load): the journal below shows that every task ran.
        assertThat(progress).as("a task was seen running").isNotEmpty();
        assertThat(ids.values()).containsAll(progress.keySet());
        for (List<Integer> seen : progress.values()) {
            assertThat(seen).allMatch(p -> p >= 0 && p <= 100);
            assertThat(seen).isSortedAccordingTo(Comparator.naturalOrder());
        }
        assertThat(progress.values().stream().flatMap(List::stream)).anyMatch(p -> p > 0 && p < 100);

        // the compressions' own journal: one at a time, started by priority then in the order added
        List<Fixtures.Entry> journal = Fixtures.journal(data.resolve("journal.log"));
        Fixtures.assertOneAtATime(journal);
        assertThat(Fixtures.starts(journal)).containsExactly(ids.get("h1.txt"), ids.get("n1.txt"), ids.get("n2.txt"), ids.get("l1.txt"));

        for (String name : inputs.keySet()) assertThat(gunzip(data, name + ".gz")).isEqualTo(inputs.get(name));
        assertThat(outputs(data)).containsExactly("h1.txt.gz", "l1.txt.gz", "n1.txt.gz", "n2.txt.gz");
        assertThat(temps(data)).isEmpty();
        JsonNode done = api.get("/api/tasks/" + ids.get("h1.txt")).json();
        assertThat(done.path("state").asText()).isEqualTo("COMPLETED");
        assertThat(done.path("output").asText()).isEqualTo("h1.txt.gz");
        assertThat(done.path("conflict").asText()).isEqualTo("none");
        assertThat(done.path("progress_percent").asInt()).isEqualTo(100);
        assertThat(done.path("output_bytes").asLong()).isEqualTo(Files.size(data.resolve("output/h1.txt.gz")));
        assertThat(done.path("size_bytes").asLong()).isEqualTo(150_000);
        assertThat(events(api, ids.get("h1.txt"))).containsExactly("ENQUEUE", "START", "SUCCEED");
    }

    @Test
    void theConflictPoliciesRenameOverwriteOrSkip() throws Exception {
        ApiClient api = start();
        byte[] r = input(data, "r.txt", 5_000, 1);
        byte[] o = input(data, "o.txt", 5_000, 2);
        input(data, "s.txt", 5_000, 3);
        byte[] n = input(data, "n", 5_000, 4);
        Path out = Files.createDirectories(data.resolve("output"));
        Files.writeString(out.resolve("r.txt.gz"), "an older r");
        Files.writeString(out.resolve("o.txt.gz"), "an older o");
        Files.writeString(out.resolve("s.txt.gz"), "an older s");
        Files.writeString(out.resolve("n.gz"), "an older n");
        Files.writeString(out.resolve("n-1.gz"), "an older n-1");

        api.post("/api/queue/pause", "");
        long r1 = add(api, "{\"input\": \"r.txt\", \"on_conflict\": \"rename\"}");
        long r2 = add(api, "{\"input\": \"r.txt\", \"on_duplicate\": \"add\"}");     // not merged into r1
        long o1 = add(api, "{\"input\": \"o.txt\", \"on_conflict\": \"overwrite\"}");
        long s1 = add(api, "{\"input\": \"s.txt\", \"on_conflict\": \"skip\"}");
        long n1 = add(api, "{\"input\": \"n\", \"on_conflict\": \"RENAME\"}");
        assertThat(api.get("/api/tasks/" + r2).field("on_conflict")).isEqualTo("rename");
        api.post("/api/queue/resume", "");
        api.awaitGet("/api/tasks", x -> all(x, "COMPLETED"), WAIT);

        assertThat(outputs(data)).containsExactly("n-1.gz", "n-2.gz", "n.gz", "o.txt.gz", "r-1.txt.gz", "r-2.txt.gz", "r.txt.gz", "s.txt.gz");
        JsonNode renamed = api.get("/api/tasks/" + r1).json();
        assertThat(renamed.path("output").asText()).isEqualTo("r-1.txt.gz");
        assertThat(renamed.path("conflict").asText()).isEqualTo("renamed");
        assertThat(api.get("/api/tasks/" + r2).field("output")).isEqualTo("r-2.txt.gz");
        assertThat(gunzip(data, "r-1.txt.gz")).isEqualTo(r);
        assertThat(gunzip(data, "r-2.txt.gz")).isEqualTo(r);
        assertThat(Files.readString(out.resolve("r.txt.gz"))).isEqualTo("an older r");
        assertThat(api.get("/api/tasks/" + o1).field("conflict")).isEqualTo("overwritten");
        assertThat(gunzip(data, "o.txt.gz")).isEqualTo(o);
        JsonNode skipped = api.get("/api/tasks/" + s1).json();
        assertThat(skipped.path("conflict").asText()).isEqualTo("skipped");
        assertThat(skipped.path("output").isNull()).isTrue();
        assertThat(Files.readString(out.resolve("s.txt.gz"))).isEqualTo("an older s");
        assertThat(api.get("/api/tasks/" + n1).field("output")).isEqualTo("n-2.gz");
        assertThat(gunzip(data, "n-2.gz")).isEqualTo(n);
        assertThat(temps(data)).isEmpty();
    }

    @Test
    void theQueueIsReorderedPausedStoppedAfterTheCurrentTaskAndItsTasksSkippedCanceledAndRefused() throws Exception {
        ApiClient api = start("--throttle-bytes-per-second", "100000", "--journal", "journal.log");
        for (String name : List.of("a", "b", "c", "d", "h")) input(data, name, 2_000, name.hashCode());
        input(data, "slow", 400_000, 7);
        api.post("/api/queue/pause", "");
        long a = add(api, "{\"input\": \"a\"}");
        long b = add(api, "{\"input\": \"b\"}");
        long c = add(api, "{\"input\": \"c\"}");
        long d = add(api, "{\"input\": \"d\"}");
        long h = add(api, "{\"input\": \"h\", \"priority\": \"high\"}");

        ApiClient.Response front = api.post("/api/tasks/" + c + "/move-to-front", "");
        assertThat(front.status()).isEqualTo(200);
        assertThat(front.json().path("position").asInt()).isEqualTo(2);       // behind the high one
        ApiClient.Response prio = api.post("/api/tasks/" + d + "/priority", "{\"priority\": \"high\"}");
        assertThat(prio.status()).isEqualTo(200);
        assertThat(prio.field("priority")).isEqualTo("high");
        ApiClient.Response reorder = api.post("/api/tasks/" + d + "/reorder", "{\"before_id\": " + h + "}");
        assertThat(reorder.status()).as(reorder.text()).isEqualTo(200);
        assertThat(reorder.json().path("position").asInt()).isEqualTo(1);
        assertRefused(api.post("/api/tasks/" + a + "/reorder", "{\"before_id\": " + h + "}"), 409, "DIFFERENT_PRIORITY", "CANCEL", "SKIP", "PAUSE");
        assertThat(api.post("/api/tasks/" + a + "/reorder", "{\"before_id\": 999999}").status()).isEqualTo(404);
        assertThat(api.post("/api/tasks/" + a + "/reorder", "{\"before_id\": " + a + "}").status()).isEqualTo(400);
        assertThat(tasks(api.get("/api/tasks"))).extracting(t -> t.path("id").asLong()).containsExactly(d, h, c, a, b);

        // a held task keeps its place but is passed over until released
        ApiClient.Response held = api.post("/api/tasks/" + c + "/pause", "");
        assertThat(held.status()).isEqualTo(200);
        assertThat(held.field("state")).isEqualTo("PAUSED");
        assertThat(held.json().path("position").isNull()).isTrue();
        assertThat(api.get("/api/tasks/" + a).json().path("position").asInt()).isEqualTo(3);
        assertRefused(api.post("/api/tasks/" + c + "/pause", ""), 409, "ILLEGAL_TRANSITION", "RESUME", "CANCEL");
        ApiClient.Response released = api.post("/api/tasks/" + c + "/resume", "");
        assertThat(released.field("state")).isEqualTo("QUEUED");
        assertThat(released.json().path("position").asInt()).isEqualTo(3);

        ApiClient.Response skipped = api.post("/api/tasks/" + b + "/skip", "");
        assertThat(skipped.status()).isEqualTo(200);
        assertThat(skipped.field("state")).isEqualTo("CANCELED");
        assertThat(skipped.field("cancel_reason")).isEqualTo("skipped");
        assertRefused(api.post("/api/tasks/" + b + "/skip", ""), 409, "NOT_QUEUED");
        ApiClient.Response canceled = api.post("/api/tasks/" + a + "/cancel", "");
        assertThat(canceled.status()).isEqualTo(200);
        assertThat(canceled.field("state")).isEqualTo("CANCELED");
        assertThat(canceled.field("cancel_reason")).isEqualTo("canceled");
        assertRefused(api.post("/api/tasks/" + a + "/cancel", ""), 409, "TASK_FINISHED");
        assertRefused(api.post("/api/tasks/" + c + "/retry", ""), 409, "NOT_FAILED", "CANCEL", "SKIP", "PAUSE");
        assertRefused(api.post("/api/tasks/" + a + "/move-to-front", ""), 409, "NOT_QUEUED");
        assertRefused(api.post("/api/tasks/" + a + "/priority", "{\"priority\": \"low\"}"), 409, "NOT_QUEUED");

        // paused: nothing starts; resumed: the queue drains in its order
        JsonNode queue = api.get("/api/queue").json();
        assertThat(queue.path("state").asText()).isEqualTo("paused");
        assertThat(queue.path("concurrency").asInt()).isEqualTo(1);
        assertThat(queue.path("counts").path("QUEUED").asInt()).isEqualTo(3);
        assertThat(api.post("/api/queue/resume", "").status()).isEqualTo(200);
        api.awaitGet("/api/tasks?state=queued", x -> x.json().path("count").asInt() == 0, WAIT);
        for (long id : List.of(d, h, c)) awaitState(api, id, "COMPLETED", WAIT);
        assertThat(Fixtures.starts(Fixtures.journal(data.resolve("journal.log")))).containsExactly(d, h, c);

        // stop after current: the running compression finishes, the next one waits
        long slow = add(api, "{\"input\": \"slow\"}");
        long next = add(api, "{\"input\": \"c\", \"on_conflict\": \"overwrite\"}");
        awaitState(api, slow, "RUNNING", WAIT);
        ApiClient.Response stop = api.post("/api/queue/stop-after-current", "");
        assertThat(stop.field("state")).isEqualTo("stop-after-current");
        assertThat(stop.json().path("running").get(0).asLong()).isEqualTo(slow);
        assertRefused(api.post("/api/tasks/" + slow + "/skip", ""), 409, "TASK_ALREADY_STARTED", "CANCEL");
        assertRefused(api.post("/api/tasks/" + slow + "/move-to-front", ""), 409, "TASK_ALREADY_STARTED", "CANCEL");
        assertRefused(api.post("/api/tasks/" + slow + "/pause", ""), 409, "RUNNING_NOT_PAUSABLE", "CANCEL");
        awaitState(api, slow, "COMPLETED", WAIT);
        JsonNode waitingNext = api.get("/api/tasks/" + next).json();
        assertThat(waitingNext.path("state").asText()).isEqualTo("QUEUED");
        assertThat(waitingNext.path("position").asInt()).isEqualTo(1);
        assertThat(api.get("/api/queue").field("state")).isEqualTo("stop-after-current");

        // cancelling a running compression stops it and removes its temporary file
        long big = add(api, "{\"input\": \"slow\", \"priority\": \"high\"}");
        api.post("/api/queue/resume", "");
        api.awaitGet("/api/tasks/" + big, t -> t.field("state").equals("RUNNING") && t.json().path("progress_percent").asInt() > 0, WAIT);
        assertThat(temps(data)).hasSize(1);
        ApiClient.Response cancel = api.post("/api/tasks/" + big + "/cancel", "");
        assertThat(cancel.status()).isEqualTo(202);
        assertThat(cancel.field("cancel")).isEqualTo("requested");
        JsonNode stopped = awaitState(api, big, "CANCELED", WAIT);
        assertThat(stopped.path("output").isNull()).isTrue();
        assertThat(temps(data)).as("the stopped compression's temporary file").noneMatch(n -> n.startsWith("task-" + big + "-"));
        assertThat(outputs(data)).doesNotContain("slow-1.gz");
        awaitState(api, next, "COMPLETED", WAIT);
        assertThat(temps(data)).isEmpty();
        assertThat(outputs(data)).containsExactly("c.gz", "d.gz", "h.gz", "slow.gz");
        assertThat(events(api, big)).containsExactly("ENQUEUE", "START", "CANCEL");
        assertThat(history(api, big).get(2).actor()).isEqualTo("alice");
        List<Fixtures.Entry> journal = Fixtures.journal(data.resolve("journal.log"));
        Fixtures.assertOneAtATime(journal);
        assertThat(journal).filteredOn(e -> e.task() == big && e.event().equals("end")).extracting(Fixtures.Entry::outcome).containsExactly("stopped");
    }

    @Test
    void aMissingInputFailsWithoutRetriesAndARetryRunsItFirst() throws Exception {
        ApiClient api = start("--journal", "journal.log");
        byte[] content = input(data, "gone.txt", 10_000, 9);
        input(data, "other.txt", 10_000, 10);
        api.post("/api/queue/pause", "");
        long gone = add(api, "{\"input\": \"gone.txt\"}");
        Files.delete(data.resolve("input/gone.txt"));
        api.post("/api/queue/resume", "");
        JsonNode failed = awaitState(api, gone, "FAILED", WAIT);
        assertThat(failed.path("last_error").path("code").asText()).isEqualTo("INPUT_MISSING");
        assertThat(failed.path("last_error").path("retryable").asBoolean()).isFalse();
        assertThat(failed.path("attempts").asInt()).isEqualTo(1);
        assertThat(failed.path("retries").asInt()).isZero();
        assertThat(events(api, gone)).containsExactly("ENQUEUE", "START", "FAIL");
        assertRefused(api.post("/api/tasks/" + gone + "/skip", ""), 409, "NOT_QUEUED", "RETRY", "CANCEL");

        api.post("/api/queue/pause", "");
        long other = add(api, "{\"input\": \"other.txt\"}");
        Files.write(data.resolve("input/gone.txt"), content);
        ApiClient.Response retried = api.post("/api/tasks/" + gone + "/retry", "");
        assertThat(retried.status()).as(retried.text()).isEqualTo(200);
        assertThat(retried.field("state")).isEqualTo("QUEUED");
        assertThat(retried.json().path("position").asInt()).isEqualTo(1);
        assertThat(api.get("/api/tasks/" + other).json().path("position").asInt()).isEqualTo(2);
        api.post("/api/queue/resume", "");
        awaitState(api, gone, "COMPLETED", WAIT);
        awaitState(api, other, "COMPLETED", WAIT);
        List<Fixtures.Entry> journal = Fixtures.journal(data.resolve("journal.log"));
        assertThat(Fixtures.starts(journal)).as("the retried task ran first").containsExactly(gone, gone, other);
        assertThat(journal).filteredOn(e -> e.event().equals("end")).extracting(Fixtures.Entry::outcome)
                .containsExactly("failed", "published gone.txt.gz", "published other.txt.gz");
        assertThat(gunzip(data, "gone.txt.gz")).isEqualTo(content);
        assertThat(api.get("/api/tasks/" + gone).json().path("last_error").path("code").asText()).isEqualTo("INPUT_MISSING");
    }

    @Test
    void aTemporaryErrorIsRetriedAfterItsBackOff() throws Exception {
        ApiClient api = start();
        byte[] content = input(data, "t.txt", 10_000, 14);
        Path work = data.resolve("output/.work");
        Files.delete(work);
        Files.writeString(work, "a file where the work area belongs");
        long id = add(api, "{\"input\": \"t.txt\"}");
        JsonNode retrying = awaitState(api, id, "RETRYING", WAIT);
        assertThat(retrying.path("last_error").path("code").asText()).isEqualTo("IO_ERROR");
        assertThat(retrying.path("last_error").path("retryable").asBoolean()).isTrue();
        assertThat(retrying.path("retries").asInt()).isEqualTo(1);
        Files.delete(work);
        Files.createDirectory(work);
        JsonNode done = awaitState(api, id, "COMPLETED", WAIT);
        assertThat(done.path("attempts").asInt()).isEqualTo(2);
        assertThat(events(api, id)).containsExactly("ENQUEUE", "START", "RETRYABLE_ERROR", "BACKOFF_ELAPSED", "START", "SUCCEED");
        assertThat(gunzip(data, "t.txt.gz")).isEqualTo(content);
    }

    @Test
    void aTaskWaitsBlockedWhileTheDiskLacksSpaceAndStartsOnceItHasEnough() throws Exception {
        ApiClient api = start("--min-free-bytes", String.valueOf(Long.MAX_VALUE / 2));
        byte[] content = input(data, "big.txt", 20_000, 11);
        long id = add(api, "{\"input\": \"big.txt\"}");
        JsonNode blocked = awaitState(api, id, "BLOCKED", WAIT);
        assertThat(blocked.path("blocked_reason").asText()).isEqualTo("disk full");
        assertThat(blocked.path("position").asInt()).isEqualTo(1);
        assertThat(api.get("/api/queue").json().path("counts").path("BLOCKED").asInt()).isEqualTo(1);
        assertThat(api.get("/api/admin/disk").json().path("min_free_bytes").asLong()).isEqualTo(Long.MAX_VALUE / 2);
        assertThat(api.post("/api/admin/disk", "{\"min_free_bytes\": -1}").field("field")).isEqualTo("min_free_bytes");

        ApiClient.Response lowered = api.post("/api/admin/disk", "{\"min_free_bytes\": 0}");
        assertThat(lowered.status()).isEqualTo(200);
        assertThat(lowered.json().path("usable_bytes").asLong()).isPositive();
        JsonNode done = awaitState(api, id, "COMPLETED", WAIT);
        assertThat(done.path("blocked_reason").isNull()).isTrue();
        assertThat(events(api, id)).containsSubsequence("BLOCK", "UNBLOCK", "START", "SUCCEED");
        assertThat(gunzip(data, "big.txt.gz")).isEqualTo(content);
        started.get(0).service().close();
        started.get(0).service().close();       // closing again does nothing (the server closes it a third time)
        assertThat(started.get(0).service().runtime().runningTasks()).isEmpty();
    }

    @Test
    void requestsAreCheckedAndKeysMakeAddsIdempotent() throws Exception {
        ApiClient api = start();
        input(data, "k.txt", 1_000, 12);
        input(data, "k2.txt", 1_000, 13);
        Path outside = Files.writeString(data.resolve("secret.txt"), "not an input");
        Files.createSymbolicLink(data.resolve("input/link.txt"), outside);
        api.post("/api/queue/pause", "");

        // idempotency keys: the same add twice is one task
        ApiClient.Response first = api.post("/api/tasks", "{\"input\": \"k.txt\", \"idempotency_key\": \"add-1\"}");
        ApiClient.Response again = api.post("/api/tasks", "{\"input\": \"k.txt\", \"idempotency_key\": \"add-1\"}");
        assertThat(first.status()).isEqualTo(201);
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.field("id")).isEqualTo(first.field("id"));
        ApiClient.Response reused = api.post("/api/tasks", "{\"input\": \"k2.txt\", \"idempotency_key\": \"add-1\"}");
        assertThat(reused.status()).isEqualTo(409);
        assertThat(reused.field("error_code")).isEqualTo("IDEMPOTENCY_KEY_REUSED");
        String batch = "{\"tasks\": [{\"input\": \"k.txt\", \"on_duplicate\": \"add\"}, {\"input\": \"k2.txt\"}],"
                + " \"idempotency_key\": \"batch-1\"}";
        ApiClient.Response b1 = api.post("/api/tasks/batch", batch);
        ApiClient.Response b2 = api.post("/api/tasks/batch", batch);
        assertThat(b1.status()).isEqualTo(201);
        assertThat(b2.status()).isEqualTo(200);
        assertThat(b2.field("message")).isEqualTo("已入队 2 项");
        assertThat(b2.json().path("tasks").findValuesAsText("id")).isEqualTo(b1.json().path("tasks").findValuesAsText("id"));
        assertThat(api.get("/api/tasks").json().path("count").asInt()).isEqualTo(3);

        // 400 naming the field
        for (String bad : List.of("../secret.txt", "/etc/passwd", "sub/k.txt", ".hidden", "a\\b", "link.txt")) {
            ApiClient.Response r = api.post("/api/tasks", "{\"input\": " + dev.statekit.examples.serve.Json.write(bad) + "}");
            assertThat(r.status()).as(bad).isEqualTo(400);
            assertThat(r.field("field")).as(bad).isEqualTo("input");
        }
        ApiClient.Response missing = api.post("/api/tasks", "{\"input\": \"nothing.txt\"}");
        assertThat(missing.status()).isEqualTo(400);
        assertThat(missing.field("error_code")).isEqualTo("INPUT_NOT_FOUND");
        assertThat(api.post("/api/tasks", "{}").field("field")).isEqualTo("input");
        assertThat(api.post("/api/tasks", "{\"input\": \"k.txt\", \"priority\": \"urgent\"}").field("field")).isEqualTo("priority");
        assertThat(api.post("/api/tasks", "{\"input\": \"k.txt\", \"on_conflict\": \"merge\"}").field("field")).isEqualTo("on_conflict");
        assertThat(api.post("/api/tasks", "{\"input\": \"k.txt\", \"color\": \"red\"}").field("error_code")).isEqualTo("UNKNOWN_FIELD");
        assertThat(api.post("/api/tasks", "{\"input\": ").field("error_code")).isEqualTo("MALFORMED_JSON");
        assertThat(api.post("/api/tasks/batch", "{\"tasks\": []}").field("field")).isEqualTo("tasks");
        ApiClient.Response badItem = api.post("/api/tasks/batch", "{\"tasks\": [{\"input\": \"k.txt\"}, {\"input\": \"../x\"}]}");
        assertThat(badItem.status()).isEqualTo(400);
        assertThat(badItem.field("field")).isEqualTo("tasks[1].input");
        assertThat(api.post("/api/tasks/batch", "{\"tasks\": [{\"input\": \"k.txt\", \"size\": 1}]}").field("field")).isEqualTo("tasks[0].size");
        assertThat(api.get("/api/tasks").json().path("count").asInt()).as("a refused batch adds nothing").isEqualTo(3);
        assertThat(api.post("/api/tasks/" + first.field("id") + "/priority", "{}").field("field")).isEqualTo("priority");
        assertThat(api.get("/api/tasks?state=LOST").status()).isEqualTo(400);
        assertThat(api.get("/api/tasks/abc").field("error_code")).isEqualTo("INVALID_ID");

        // 404, 405, 413, 415, 403
        assertThat(api.get("/api/tasks/424242").status()).isEqualTo(404);
        assertThat(api.get("/api/tasks/424242/history").status()).isEqualTo(404);
        for (String action : List.of("cancel", "retry", "skip", "move-to-front")) {
            assertThat(api.post("/api/tasks/424242/" + action, "").status()).as(action).isEqualTo(404);
        }
        assertThat(api.get("/api/queue/pause").status()).isEqualTo(405);
        // each on a connection of its own: the server answers these without reading the body, and may close the connection
        assertThat(api.as("alice").post("/api/tasks", "{\"input\": \"" + "x".repeat(70_000) + "\"}").status()).isEqualTo(413);
        assertThat(api.as("alice").post("/api/tasks", "{\"input\": \"k.txt\"}", "text/plain").status()).isEqualTo(415);
        assertThat(api.as("alice").post("/api/queue/resume", "", null).status()).isEqualTo(415);
        ApiClient other = api.as("alice");
        ApiClient.Response crossSite = other.send(other.builder("/api/queue/resume").header("Content-Type", "application/json")
                .header("Sec-Fetch-Site", "cross-site").POST(java.net.http.HttpRequest.BodyPublishers.ofString("")).build());
        assertThat(crossSite.status()).isEqualTo(403);
        assertThat(api.as("alice").get("/api/queue").field("state")).isEqualTo("paused");
        assertThat(outputs(data)).isEmpty();
        assertThat(Fixtures.work(data)).isEmpty();
    }

    @Test
    void theSameInputAndOutputTargetAreOneTaskUntilItEnds() throws Exception {
        ApiClient api = start();
        byte[] content = input(data, "d.txt", 2_000, 21);
        api.post("/api/queue/pause", "");
        long first = add(api, "{\"input\": \"d.txt\"}");

        ApiClient.Response merged = api.post("/api/tasks", "{\"input\": \"d.txt\", \"on_conflict\": \"rename\", \"priority\": \"high\"}");
        assertThat(merged.status()).as("merged into the waiting task").isEqualTo(200);
        assertThat(merged.json().path("id").asLong()).isEqualTo(first);
        assertThat(merged.field("priority")).as("the existing task, unchanged").isEqualTo("normal");
        ApiClient.Response batch = api.post("/api/tasks/batch", "{\"tasks\": [{\"input\": \"d.txt\"}, {\"input\": \"d.txt\"}]}");
        assertThat(batch.status()).as("nothing new").isEqualTo(200);
        assertThat(batch.json().path("tasks").findValuesAsText("id")).containsExactly(Long.toString(first), Long.toString(first));
        long other = add(api, "{\"input\": \"d.txt\", \"on_conflict\": \"overwrite\"}");
        assertThat(other).as("another output target").isNotEqualTo(first);
        api.post("/api/tasks/" + other + "/cancel", "");
        assertThat(add(api, "{\"input\": \"d.txt\", \"on_conflict\": \"overwrite\"}")).as("the cancelled task ended").isNotIn(first, other);
        ApiClient.Response bad = api.post("/api/tasks", "{\"input\": \"d.txt\", \"on_duplicate\": \"ask\"}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.field("field")).isEqualTo("on_duplicate");

        api.post("/api/queue/resume", "");
        api.awaitGet("/api/tasks/" + first, x -> "COMPLETED".equals(x.field("state")), WAIT);
        long again = add(api, "{\"input\": \"d.txt\"}");
        assertThat(again).as("a new task once the first has completed").isNotEqualTo(first);
        assertThat(gunzip(data, "d.txt.gz")).isEqualTo(content);
    }
}
