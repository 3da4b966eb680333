package dev.statekit.examples.serve.compression;

import static dev.statekit.examples.serve.compression.Fixtures.awaitState;
import static dev.statekit.examples.serve.compression.Fixtures.events;
import static dev.statekit.examples.serve.compression.Fixtures.gunzip;
import static dev.statekit.examples.serve.compression.Fixtures.history;
import static dev.statekit.examples.serve.compression.Fixtures.input;
import static dev.statekit.examples.serve.compression.Fixtures.outputs;
import static dev.statekit.examples.serve.compression.Fixtures.temps;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.statekit.examples.serve.ApiClient;
import dev.statekit.examples.serve.Leases;
import dev.statekit.examples.serve.ServiceProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code examples serve compression} as a process on an H2 file, killed (SIGKILL) while a file is
 * being compressed, then started again on the same folder: the compression is recovered as the
 * seed says (re-run once at the front, or failed and retried by hand), and its output exists
 * once, under the name decided before the crash, with no temporary file left. The restart takes the
 * compression back at start, before the killed run's lease would have expired: H2 locks its file to
 * one process, so every lease found there is dead. Stopped (SIGTERM)
 * instead, the service hands the compression back to the queue.
 */
class CompressionKillTest {
    static final Duration WAIT = Duration.ofSeconds(90);
    /** Leases short enough for a quick takeover, long enough for heartbeats on a busy machine. */
    static final String LEASE = "6";
    /** The killed run's leases: long enough that only the restart's recovery at start, not their expiry, frees its tasks while the test looks. */
    static final String KILLED_LEASE = "60";

    @TempDir
    Path data;

    static long add(ApiClient api, String input) {
        ApiClient.Response r = api.post("/api/tasks", "{\"input\": \"" + input + "\"}");
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        return r.json().path("id").asLong();
    }

    /** Waits until task {@code id} is compressing and has read some of its input. */
    static void awaitCompressing(ApiClient api, long id) {
        api.awaitGet("/api/tasks/" + id, r -> r.field("state").equals("RUNNING") && r.json().path("progress_percent").asInt() > 0, WAIT);
    }

    static String startActor(ApiClient api, long id, int nth) {
        return history(api, id).stream().filter(s -> s.event().equals("START")).skip(nth).findFirst().orElseThrow().actor();
    }

    @Test
    void aCompressionKilledMidwayRunsAgainOnceAtTheFrontAndWritesItsOutputOnce() throws Exception {
        byte[] big = input(data, "big.txt", 1_000_000, 1);
        byte[] small = input(data, "small.txt", 20_000, 2);
        long bigId;
        long smallId;
        List<Leases.Held> held;
        try (ServiceProcess first = ServiceProcess.start("compression", data, "--throttle-bytes-per-second", "200000", "--lease-seconds", KILLED_LEASE,
                "--journal", "journal.log")) {
            ApiClient api = first.client();
            bigId = add(api, "big.txt");
            smallId = add(api, "small.txt");
            awaitCompressing(api, bigId);
            assertThat(temps(data)).as("a compression under way").hasSize(1);
            held = Leases.of(api);
            first.kill();
        }
        assertThat(outputs(data)).isEmpty();

        try (ServiceProcess second = ServiceProcess.start("compression", data, "--lease-seconds", LEASE, "--journal", "journal.log")) {
            ApiClient api = second.client();
            Leases.assertTakenBackAtStart(api, held);
            JsonNode done = awaitState(api, bigId, "COMPLETED", WAIT);
            awaitState(api, smallId, "COMPLETED", WAIT);
            assertThat(events(api, bigId)).containsExactly("ENQUEUE", "START", "INTERRUPT", "RECOVER", "START", "SUCCEED");
            assertThat(done.path("interruptions").asInt()).isEqualTo(1);
            assertThat(done.path("attempts").asInt()).isEqualTo(2);
            assertThat(done.path("output").asText()).isEqualTo("big.txt.gz");
            assertThat(startActor(api, bigId, 0)).isNotEqualTo(startActor(api, bigId, 1));
            assertThat(events(api, smallId)).containsExactly("ENQUEUE", "START", "SUCCEED");
            List<Fixtures.Entry> journal = Fixtures.journal(data.resolve("journal.log"));
            assertThat(Fixtures.starts(journal)).as("the recovered task went first").containsExactly(bigId, bigId, smallId);
            assertThat(journal).filteredOn(e -> e.event().equals("end")).extracting(Fixtures.Entry::outcome)
                    .containsExactly("published big.txt.gz", "published small.txt.gz");

            assertThat(outputs(data)).containsExactly("big.txt.gz", "small.txt.gz");
            assertThat(gunzip(data, "big.txt.gz")).isEqualTo(big);
            assertThat(gunzip(data, "small.txt.gz")).isEqualTo(small);
            assertThat(temps(data)).isEmpty();
            Fixtures.await("the work area emptied", () -> Fixtures.temps(data).isEmpty() && workIsEmpty(), WAIT);
            second.stop();
        }
    }

    @Test
    void withoutAutomaticRecoveryAKilledCompressionFailsAndARetryWritesItsOutputOnce() throws Exception {
        byte[] big = input(data, "big.txt", 1_000_000, 3);
        input(data, "small.txt", 20_000, 4);
        long bigId;
        long smallId;
        List<Leases.Held> held;
        try (ServiceProcess first = ServiceProcess.start("compression", data, "--throttle-bytes-per-second", "200000",
                "--lease-seconds", KILLED_LEASE, "--journal", "journal.log", "--auto-recover", "false")) {
            ApiClient api = first.client();
            bigId = add(api, "big.txt");
            smallId = add(api, "small.txt");
            awaitCompressing(api, bigId);
            held = Leases.of(api);
            first.kill();
        }
        assertThat(temps(data)).as("the killed compression's temporary file").hasSize(1);

        try (ServiceProcess second = ServiceProcess.start("compression", data, "--lease-seconds", LEASE, "--journal", "journal.log", "--auto-recover", "false")) {
            ApiClient api = second.client();
            Leases.assertTakenBackAtStart(api, held);
            JsonNode failed = awaitState(api, bigId, "FAILED", WAIT);
            assertThat(events(api, bigId)).containsExactly("ENQUEUE", "START", "INTERRUPT", "FAIL");
            assertThat(failed.path("last_error").path("code").asText()).isEqualTo("INTERRUPTED");
            awaitState(api, smallId, "COMPLETED", WAIT);
            Fixtures.await("the temporary file of the killed compression removed", () -> temps(data).isEmpty(), WAIT);
            assertThat(outputs(data)).containsExactly("small.txt.gz");

            ApiClient.Response retried = api.post("/api/tasks/" + bigId + "/retry", "");
            assertThat(retried.status()).as(retried.text()).isEqualTo(200);
            awaitState(api, bigId, "COMPLETED", WAIT);
            assertThat(events(api, bigId)).containsExactly("ENQUEUE", "START", "INTERRUPT", "FAIL", "RETRY", "START", "SUCCEED");
            assertThat(outputs(data)).containsExactly("big.txt.gz", "small.txt.gz");
            assertThat(gunzip(data, "big.txt.gz")).isEqualTo(big);
            assertThat(temps(data)).isEmpty();
            List<Fixtures.Entry> journal = Fixtures.journal(data.resolve("journal.log"));
            assertThat(Fixtures.starts(journal)).containsExactly(bigId, smallId, bigId);
            assertThat(journal).filteredOn(e -> e.event().equals("end")).extracting(Fixtures.Entry::outcome)
                    .containsExactly("published small.txt.gz", "published big.txt.gz");
        }
    }

    @Test
    void aCrashRightAfterTheOutputWasRenamedIntoPlaceWritesTheSameNameAgainNotACopy() throws Exception {
        byte[] content = input(data, "a.txt", 10_000, 5);
        long id;
        try (ServiceProcess first = ServiceProcess.start("compression", data, "--throttle-bytes-per-second", "20000",
                "--lease-seconds", LEASE, "--journal", "journal.log", "--crash-after-publish", "true")) {
            id = add(first.client(), "a.txt");
            assertThat(first.process().waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the process halted itself").isTrue();
            assertThat(first.process().exitValue()).isEqualTo(FileCompressor.CRASH_STATUS);
        }
        assertThat(outputs(data)).as("renamed into place, not recorded").containsExactly("a.txt.gz");

        try (ServiceProcess second = ServiceProcess.start("compression", data, "--lease-seconds", LEASE, "--journal", "journal.log")) {
            ApiClient api = second.client();
            JsonNode done = awaitState(api, id, "COMPLETED", WAIT);
            assertThat(events(api, id)).containsExactly("ENQUEUE", "START", "INTERRUPT", "RECOVER", "START", "SUCCEED");
            assertThat(done.path("output").asText()).isEqualTo("a.txt.gz");
            assertThat(done.path("conflict").asText()).isEqualTo("none");
            assertThat(outputs(data)).containsExactly("a.txt.gz");
            assertThat(gunzip(data, "a.txt.gz")).isEqualTo(content);
            assertThat(temps(data)).isEmpty();
            List<Fixtures.Entry> journal = Fixtures.journal(data.resolve("journal.log"));
            assertThat(Fixtures.starts(journal)).containsExactly(id, id);
            assertThat(journal).filteredOn(e -> e.event().equals("end")).extracting(Fixtures.Entry::outcome)
                    .as("the first run halted right after its rename").containsExactly("published a.txt.gz");
        }
    }

    @Test
    void aStoppedServiceHandsItsCompressionBackAndItRunsAgainOnce() throws Exception {
        byte[] big = input(data, "big.txt", 1_000_000, 6);
        long id;
        try (ServiceProcess first = ServiceProcess.start("compression", data, "--throttle-bytes-per-second", "200000",
                "--lease-seconds", LEASE, "--journal", "journal.log", "--stop-grace-seconds", "0")) {
            ApiClient api = first.client();
            id = add(api, "big.txt");
            awaitCompressing(api, id);
            first.stop();       // SIGTERM: no grace, the compression stops and hands its task back
        }
        assertThat(temps(data)).isEmpty();
        assertThat(outputs(data)).isEmpty();

        try (ServiceProcess second = ServiceProcess.start("compression", data, "--lease-seconds", LEASE, "--journal", "journal.log")) {
            ApiClient api = second.client();
            JsonNode done = awaitState(api, id, "COMPLETED", WAIT);
            assertThat(events(api, id)).containsExactly("ENQUEUE", "START", "RELEASE", "START", "SUCCEED");
            assertThat(done.path("attempts").asInt()).as("the stopped attempt was given back").isEqualTo(1);
            assertThat(outputs(data)).containsExactly("big.txt.gz");
            assertThat(gunzip(data, "big.txt.gz")).isEqualTo(big);
            List<Fixtures.Entry> journal = Fixtures.journal(data.resolve("journal.log"));
            Fixtures.assertOneAtATime(journal);
            assertThat(journal).filteredOn(e -> e.event().equals("end")).extracting(Fixtures.Entry::outcome)
                    .containsExactly("stopped", "published big.txt.gz");
        }
    }

    private boolean workIsEmpty() {
        try {
            return Fixtures.work(data).isEmpty();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
