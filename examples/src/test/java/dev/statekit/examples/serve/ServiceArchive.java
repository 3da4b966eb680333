package dev.statekit.examples.serve;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Makes the class-data archive of a service's start, which the tests' service JVMs map instead of
 * loading and verifying the same classes again ({@link ServiceJvm}): runs {@code examples serve
 * read-do} on the installed program's class path with {@code -XX:ArchiveClassesAtExit}, captures an
 * item and waits until it is READY, reads the list and the dashboard, and stops the service with
 * SIGTERM, at which the JVM writes the archive.
 *
 * <p>Arguments: the archive to write, the class path.
 */
public final class ServiceArchive {
    private static final Pattern LISTENING = Pattern.compile("listening on (http://\\S+) ");
    private static final Duration BOUND = Duration.ofSeconds(120);

    private ServiceArchive() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2) throw new IllegalArgumentException("usage: ServiceArchive ARCHIVE CLASS_PATH");
        Path archive = Path.of(args[0]).toAbsolutePath();
        Files.createDirectories(archive.getParent());
        Files.deleteIfExists(archive);
        Path data = Files.createTempDirectory("statekit-archive");
        List<String> command = new ArrayList<>(List.of(ServiceJvm.java(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-XX:ArchiveClassesAtExit=" + archive, "-Xlog:cds=off,cds+dynamic=off",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", args[1], "dev.statekit.examples.Main",
                "serve", "read-do", "--port", "0", "--data", data.toString(), "--work-millis", "1"));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        CompletableFuture<String> listening = new CompletableFuture<>();
        StringBuilder output = new StringBuilder();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    synchronized (output) {
                        output.append(line).append('\n');
                    }
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) listening.complete(m.group(1));
                }
            } catch (IOException e) {
                // the process ended
            }
            listening.completeExceptionally(new IllegalStateException("the service exited before it listened"));
        }, "service-output");
        reader.setDaemon(true);
        reader.start();
        try {
            String base = listening.get(BOUND.toSeconds(), TimeUnit.SECONDS);
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).followRedirects(HttpClient.Redirect.NORMAL).build();
            String created = send(http, HttpRequest.newBuilder(URI.create(base + "/capture"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"url\":\"https://example.org/archive\",\"intent\":\"decide\"}")));
            Matcher id = Pattern.compile("\"item_id\"\\s*:\\s*(\\d+)").matcher(created);
            if (!id.find()) throw new IllegalStateException("no item id in " + created);
            long deadline = System.nanoTime() + BOUND.toNanos();
            while (!send(http, HttpRequest.newBuilder(URI.create(base + "/items/" + id.group(1)))).contains("\"READY\"")) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("the item did not become READY within " + BOUND);
                TimeUnit.MILLISECONDS.sleep(50);      // polling a service from outside: nothing to wait on but its answers
            }
            send(http, HttpRequest.newBuilder(URI.create(base + "/items?state=READY")));
            send(http, HttpRequest.newBuilder(URI.create(base + "/ui")));
            process.destroy();
            if (!process.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS)) throw new IllegalStateException("the service did not stop");
        } catch (Exception e) {
            process.destroyForcibly();
            synchronized (output) {
                throw new IllegalStateException("making the archive failed: " + e.getMessage() + "\n" + output, e);
            }
        }
        if (!Files.isRegularFile(archive)) {
            synchronized (output) {
                throw new IllegalStateException("the service stopped without writing " + archive + "\n" + output);
            }
        }
        try (var files = Files.walk(data)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
        System.out.println("service archive: " + archive + " (" + Files.size(archive) / 1024 + " KiB)");
    }

    private static String send(HttpClient http, HttpRequest.Builder request) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() >= 300) {
            throw new IllegalStateException(response.request().method() + " " + response.uri() + " answered " + response.statusCode() + ": "
                    + response.body());
        }
        return response.body();
    }
}
