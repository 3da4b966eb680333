package dev.statekit.examples.serve.compression;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.statekit.examples.serve.ApiClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/** What the compression service's tests share: input files, outputs, task lists and histories. */
final class Fixtures {
    private Fixtures() {}

    /** Writes {@code size} bytes of text (lines with a counter and random words) as input {@code name} of {@code data}. */
    static byte[] input(Path data, String name, int size, long seed) throws IOException {
        Random random = new Random(seed);
        StringBuilder b = new StringBuilder(size + 64);
        String[] words = {"queue", "gzip", "lease", "file", "task", "state", "disk", "output", "retry", "pause"};
        for (int line = 0; b.length() < size; line++) {
            b.append(name).append(' ').append(line);
            for (int w = 0; w < 8; w++) b.append(' ').append(words[random.nextInt(words.length)]).append(random.nextInt(1000));
            b.append('\n');
        }
        byte[] bytes = b.substring(0, size).getBytes(StandardCharsets.UTF_8);
        Path inputs = Files.createDirectories(data.resolve("input"));
        Files.write(inputs.resolve(name), bytes);
        return bytes;
    }

    /** Returns the decompressed content of the output {@code name} of {@code data}. */
    static byte[] gunzip(Path data, String name) throws IOException {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(data.resolve("output").resolve(name)))) {
            return in.readAllBytes();
        }
    }

    /** Returns the names of the files in the output folder of {@code data} (the work area left out), sorted. */
    static List<String> outputs(Path data) throws IOException {
        try (Stream<Path> files = Files.list(data.resolve("output"))) {
            return files.map(p -> p.getFileName().toString()).filter(n -> !n.equals(".work")).sorted().toList();
        }
    }

    /** Returns the names of the files in the work area of {@code data}, sorted. */
    static List<String> work(Path data) throws IOException {
        Path work = data.resolve("output").resolve(".work");
        if (!Files.isDirectory(work)) return List.of();
        try (Stream<Path> files = Files.list(work)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** Returns the temporary output files in the work area of {@code data}. */
    static List<String> temps(Path data) {
        try {
            return work(data).stream().filter(n -> n.endsWith(".gz.tmp")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits until {@code condition} holds, at most {@code within}, checking every 50 ms. */
    static void await(String what, BooleanSupplier condition, Duration within) {
        Instant deadline = Instant.now().plus(within);
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) throw new AssertionError(what + " did not happen within " + within);
            LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
        }
    }

    /** Returns the tasks of a task list answer. */
    static List<JsonNode> tasks(ApiClient.Response list) {
        List<JsonNode> tasks = new ArrayList<>();
        list.json().path("tasks").forEach(tasks::add);
        return tasks;
    }

    /** Returns the task {@code id} of a task list answer. */
    static JsonNode task(ApiClient.Response list, long id) {
        return tasks(list).stream().filter(t -> t.path("id").asLong() == id).findFirst()
                .orElseThrow(() -> new AssertionError("task " + id + " is not in " + list.text()));
    }

    /** Returns whether every task of a task list answer is in {@code state}. */
    static boolean all(ApiClient.Response list, String state) {
        List<JsonNode> tasks = tasks(list);
        return !tasks.isEmpty() && tasks.stream().allMatch(t -> t.path("state").asText().equals(state));
    }

    /** Awaits task {@code id} in {@code state} and returns it. */
    static JsonNode awaitState(ApiClient api, long id, String state, Duration within) {
        return api.awaitGet("/api/tasks/" + id, r -> r.field("state").equals(state), within).json();
    }

    /** The history of a task: its entries, each {@code event from→to actor at}. */
    record Step(String event, String from, String to, String actor, Instant at) {}

    /** Returns the history of task {@code id}. */
    static List<Step> history(ApiClient api, long id) {
        ApiClient.Response r = api.get("/api/tasks/" + id + "/history");
        assertThat(r.status()).isEqualTo(200);
        List<Step> steps = new ArrayList<>();
        for (JsonNode h : r.json().path("history")) {
            steps.add(new Step(h.path("event").asText(), h.path("from").asText(), h.path("to").asText(), h.path("actor").asText(),
                    Instant.parse(h.path("at").asText())));
        }
        return steps;
    }

    /** Returns the events of task {@code id}'s history, in order. */
    static List<String> events(ApiClient api, long id) {
        return history(api, id).stream().map(Step::event).toList();
    }

    /** A line of the compressions' journal: {@code start} or {@code end} of a compression of a task under a lease. */
    record Entry(String event, long task, long token, String owner, Instant at, String outcome) {}

    /** Returns the journal {@code file} the service wrote with {@code --journal}, empty when there is none yet. */
    static List<Entry> journal(Path file) throws IOException {
        if (!Files.exists(file)) return List.of();
        List<Entry> entries = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String[] p = line.split(" ", 6);
            entries.add(new Entry(p[0], Long.parseLong(p[1]), Long.parseLong(p[2]), p[3], Instant.parse(p[4]), p.length > 5 ? p[5] : ""));
        }
        return entries;
    }

    /** Returns the tasks of the journal's starts, in the order they started. */
    static List<Long> starts(List<Entry> journal) {
        return journal.stream().filter(e -> e.event().equals("start")).sorted(Comparator.comparing(Entry::at)).map(Entry::task).toList();
    }

    /**
     * Asserts that the journal's compressions never ran at once: in time order (an end before a
     * start of the same instant), every compression ends before the next starts.
     */
    static void assertOneAtATime(List<Entry> journal) {
        List<Entry> byTime = new ArrayList<>(journal);
        byTime.sort(Comparator.comparing(Entry::at).thenComparing(e -> e.event().equals("start")));
        Entry running = null;
        for (Entry e : byTime) {
            if (e.event().equals("start")) {
                assertThat(running).as("%s started while %s ran", e, running).isNull();
                running = e;
            } else {
                assertThat(running).as("%s ended without its start", e).isNotNull();
                assertThat(e.task()).isEqualTo(running.task());
                assertThat(e.token()).isEqualTo(running.token());
                running = null;
            }
        }
        assertThat(running).as("a compression still runs").isNull();
    }
}
