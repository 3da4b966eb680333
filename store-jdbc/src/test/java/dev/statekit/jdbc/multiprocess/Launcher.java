package dev.statekit.jdbc.multiprocess;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * Starts, kills and stops the node processes of one failure test: JVMs running {@code main} on the
 * tables of one prefix, each with its log under the build directory. A node is given the server's
 * URL and credentials, the prefix, its lease owner name and an application name of its own (the
 * owner and the incarnation's number), by which the database's sessions of a killed node are found,
 * followed by the test's own settings.
 */
final class Launcher {
    /** One running node process: its lease owner name, its connections' application name, its log. */
    record NodeProcess(String owner, String app, Process process, Path log) {}

    private final Class<?> main;
    private final Server server;
    private final String prefix;
    private final DataSource pool;
    private final List<Path> logs = new ArrayList<>();
    private int incarnations;

    Launcher(Class<?> main, String prefix, DataSource pool) {
        this(main, Server.POSTGRESQL, prefix, pool);
    }

    /** Launches nodes of {@code main} on {@code server}, which gets the server's name as its argument {@code server}. */
    Launcher(Class<?> main, Server server, String prefix, DataSource pool) {
        this.main = main;
        this.server = server;
        this.prefix = prefix;
        this.pool = pool;
    }

    /** Starts a node under lease owner name {@code owner}, passing {@code settings} ({@code key=value}) after the common ones. */
    NodeProcess launch(String owner, List<String> settings) throws IOException {
        String app = owner + "-" + (++incarnations);
        Path dir = buildDir().resolve("multiprocess").resolve(prefix);
        Files.createDirectories(dir);
        Path log = dir.resolve(app + ".log");
        logs.add(log);
        List<String> command = new ArrayList<>(List.of(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dorg.slf4j.simpleLogger.showDateTime=true", "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
                "-cp", System.getProperty("java.class.path"), main.getName(),
                "server=" + server.name(), "url=" + server.url(), "user=" + server.user(), "password=" + server.password(),
                "prefix=" + prefix, "owner=" + owner, "app=" + app));
        command.addAll(settings);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new NodeProcess(owner, app, p, log);
    }

    /**
     * Kills {@code n} with SIGKILL, waits until it is gone and the database has ended its sessions
     * (so that its last writes are settled), and returns the database's clock then: no work of the
     * dead process went on after that instant.
     */
    Instant kill(NodeProcess n) throws InterruptedException, SQLException {
        n.process().destroyForcibly();      // SIGKILL on Linux
        if (!n.process().waitFor(10, TimeUnit.SECONDS)) fail("node " + n.owner() + " did not die");
        awaitDisconnected(n.app());
        try (Connection c = pool.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select " + server.clockNow())) {
            rs.next();
            return server.clock(rs, 1);
        }
    }

    /** Waits until the database has ended every session of application {@code app}. */
    private void awaitDisconnected(String app) throws SQLException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try (Connection c = pool.getConnection();
                 PreparedStatement ps = c.prepareStatement(server.sessionsOf())) {
                ps.setString(1, app);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) == 0) return;
                }
            }
            if (System.nanoTime() > deadline) fail("the database kept sessions of the killed process " + app);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    /** Writes {@code line} to the standard input of {@code n}: a command of the test's protocol with that node. */
    static void send(NodeProcess n, String line) throws IOException {
        n.process().getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
        n.process().getOutputStream().flush();
    }

    /**
     * Waits until the log of {@code n} holds a line starting with {@code start}, failing after
     * {@code timeout} or when the process ends first.
     */
    void awaitLine(NodeProcess n, String start, java.time.Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (Files.exists(n.log())) {
                for (String line : new String(Files.readAllBytes(n.log()), StandardCharsets.UTF_8).split("\n")) {
                    if (line.startsWith(start)) return;
                }
            }
            if (!n.process().isAlive()) fail("node " + n.app() + " ended before writing '" + start + "'" + tails());
            if (System.nanoTime() > deadline) fail("node " + n.app() + " did not write '" + start + "' within " + timeout + tails());
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    /** Stops {@code n} gracefully: the end of its input tells it to stop; killed if it has not ended within 30 s. */
    static void stop(NodeProcess n) throws InterruptedException {
        try {
            n.process().getOutputStream().close();
        } catch (IOException e) {
            // already gone
        }
        if (!n.process().waitFor(30, TimeUnit.SECONDS)) {
            n.process().destroyForcibly();
            n.process().waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** Kills the nodes still alive (after a failure), and waits for them to end. */
    static void destroy(NodeProcess[] nodes) throws InterruptedException {
        for (NodeProcess n : nodes) {
            if (n != null && n.process().isAlive()) {
                n.process().destroyForcibly();
                n.process().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** Returns the last lines of every node's log, for a failure's message. */
    String tails() {
        StringBuilder b = new StringBuilder();
        for (Path log : logs) {
            try {
                List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
                b.append("\n--- ").append(log.getFileName()).append(" (last lines)\n");
                for (String line : lines.subList(Math.max(0, lines.size() - 15), lines.size())) b.append(line).append('\n');
            } catch (IOException e) {
                b.append("\n--- ").append(log).append(": ").append(e);
            }
        }
        return b.toString();
    }

    private static Path buildDir() {
        String dir = System.getProperty("statekit.buildDir");
        return (dir != null ? Paths.get(dir) : Paths.get("build")).toAbsolutePath();
    }
}
