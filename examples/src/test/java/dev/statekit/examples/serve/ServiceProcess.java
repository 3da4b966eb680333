package dev.statekit.examples.serve;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A service run as its own process, {@code examples serve SYSTEM --port 0 ...}, as {@link ServiceJvm}
 * starts it: started, asked where it listens, and stopped gracefully (SIGTERM) or killed
 * (SIGKILL).
 */
public final class ServiceProcess implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("listening on (http://\\S+) ");
    /** How long a service may take to start. */
    public static final Duration START = Duration.ofSeconds(60);

    private final Process process;
    private final List<String> output = new CopyOnWriteArrayList<>();
    private final String base;

    private ServiceProcess(Process process, String base) {
        this.process = process;
        this.base = base;
    }

    /**
     * Starts {@code examples serve system --port 0 --data dataDir} with {@code options} and waits
     * until it listens.
     *
     * @throws IllegalStateException when it exits or does not listen within {@link #START}
     */
    public static ServiceProcess start(String system, Path dataDir, String... options) throws IOException {
        List<String> command = ServiceJvm.command();
        command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        command.add("dev.statekit.examples.Main");
        command.add("serve");
        command.add(system);
        command.add("--port");
        command.add("0");
        command.add("--data");
        command.add(dataDir.toString());
        command.addAll(List.of(options));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        CompletableFuture<String> listening = new CompletableFuture<>();
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(line);
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) listening.complete(m.group(1));
                }
            } catch (IOException e) {
                // the process ended
            }
            listening.completeExceptionally(new IllegalStateException("the service exited before it listened:\n" + String.join("\n", lines)));
        }, "service-output-" + system);
        reader.setDaemon(true);
        reader.start();
        String base;
        try {
            base = listening.get(START.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            process.destroyForcibly();
            throw new IllegalStateException("the service did not listen within " + START + ":\n" + String.join("\n", lines), e);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (java.util.concurrent.ExecutionException e) {
            process.destroyForcibly();
            throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
        }
        ServiceProcess started = new ServiceProcess(process, base);
        started.output.addAll(lines);
        return started;
    }

    /**
     * How a service process that was not meant to start ended.
     *
     * @param status the exit status
     * @param out    what it wrote on standard output
     * @param err    what it wrote on standard error
     * @param wall   the time from starting the process (the JVM included) to its exit
     */
    public record Exit(int status, String out, String err, Duration wall) {
        /** Returns the lines of standard error that are not blank. */
        public List<String> errLines() {
            return err.lines().filter(l -> !l.isBlank()).toList();
        }
    }

    /**
     * Runs {@code examples serve system --data dataDir} with {@code options} (which give the port)
     * until it exits by itself, with standard output and standard error kept apart.
     *
     * @throws IllegalStateException when it still runs after {@code bound} (it is killed)
     */
    public static Exit runToExit(String system, Path dataDir, Duration bound, String... options) throws IOException, InterruptedException {
        List<String> command = ServiceJvm.command();
        command.add("dev.statekit.examples.Main");
        command.add("serve");
        command.add(system);
        command.add("--data");
        command.add(dataDir.toString());
        command.addAll(List.of(options));
        long began = System.nanoTime();
        Process process = new ProcessBuilder(command).start();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> readAll(process.getInputStream()));
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> readAll(process.getErrorStream()));
        if (!process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
            throw new IllegalStateException("the service still ran after " + bound + ":\n" + out.join() + err.join());
        }
        Duration wall = Duration.ofNanos(System.nanoTime() - began);
        return new Exit(process.exitValue(), out.join(), err.join(), wall);
    }

    private static String readAll(java.io.InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** Returns the base address, e.g. {@code http://127.0.0.1:41234}. */
    public String base() {
        return base;
    }

    /** Returns a client of this service. */
    public ApiClient client() {
        return new ApiClient(base);
    }

    /** Returns the process. */
    public Process process() {
        return process;
    }

    /** Kills the process at once (SIGKILL), as a crash would, and waits until it is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) throw new IllegalStateException("the killed service did not end");
    }

    /**
     * Asks the process to stop (SIGTERM) and waits until it has.
     *
     * @return its exit value
     */
    public int stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("the service did not stop within 60 s of SIGTERM");
        }
        return process.exitValue();
    }

    /** Kills the process if it still runs. */
    @Override
    public void close() {
        if (!process.isAlive()) return;
        try {
            kill();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
