package dev.statekit.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.examples.serve.ServiceJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the shell blocks of README.md and of the pages under docs/ as written, in order, one page
 * at a time; the rules are those of docs/build.md, "The shell blocks of the pages":
 *
 * <ul>
 *   <li>A shell block is a fenced block opened by {@code ```sh}, {@code ```bash} or {@code ```shell}
 *       (a script), or {@code ```console} (its lines starting with {@code $ } are commands, with the
 *       lines after one ending in {@code \}; the other lines are what they print).
 *   <li>The blocks of a page run in one bash, in order, with {@code set -e -o pipefail} (every
 *       command must succeed), in a fresh folder of their own with a fresh {@code HOME} (so the
 *       services' default data folders {@code ~/.statekit/SYSTEM} are fresh): variables and files
 *       of one block are there for the next.
 *   <li>{@code examples/build/install/examples/bin/examples} (and {@code examples} on the PATH) is
 *       the program of this test's class path; {@code ./gradlew -q :examples:run} is what it runs,
 *       {@code examples serve novel-proofer --sample true} (examples/build.gradle).
 *   <li>A command that starts a service ({@code examples serve ...}, {@code ./gradlew -q
 *       :examples:run}) runs in the background until the page's last block has run; the block waits
 *       until it listens. Then the service is stopped (SIGTERM).
 *   <li>{@code ./gradlew -q :examples:installDist && } before a command is left out: the test's
 *       class path is the installed program.
 *   <li>On a page whose text says "any free port will do", every {@code 8080} of its blocks is a
 *       free port chosen by the test, and a service started without {@code --port} gets that port.
 *   <li>A block right after a shell block (only blank lines between) that is {@code ```text} or
 *       {@code ```json} is what the shell block prints, and so are a console block's lines that are
 *       not commands. They are compared with whitespace left out; {@code …} stands for any text, an
 *       instant ({@code 2026-11-24T03:06:18.797985Z}) for any instant, and a lease owner
 *       {@code SYSTEM@host-PID-XXXX} for any owner of that system.
 *   <li>A block the line before which (blank lines aside) is {@code <!-- not run: REASON -->} is not
 *       run; the test lists them.
 * </ul>
 */
class ShellBlocksTest {
    private static final List<String> SHELL = List.of("sh", "bash", "shell", "console");
    private static final Pattern NOT_RUN = Pattern.compile("<!-- not run: (.+?) -->");
    private static final Pattern SERVICE = Pattern.compile(
            "^\\s*(?:\\S*/)?examples serve\\s|^\\s*\\./gradlew -q :examples:run\\s*(?:#.*)?$", Pattern.MULTILINE);
    private static final String GRADLE_RUN = "./gradlew -q :examples:run";
    private static final String INSTALL = "./gradlew -q :examples:installDist && ";
    private static final String GRADLE_RUN_ARGS = "['serve', 'novel-proofer', '--sample', 'true']";
    private static final Pattern VARIES = Pattern.compile(
            "…|\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?Z|([a-z-]+)@host-\\d+-[0-9a-z]+");
    private static final String FREE_PORT = "any free port will do";
    /** How long one block may take (a block waiting for a service's work polls within it). */
    private static final Duration BLOCK = Duration.ofSeconds(90);
    private static final String DONE = "__shell_block_done__";

    /** A fenced block of a page: its language, the line of its opening fence, its lines, and what marks it. */
    record Block(String page, int line, String language, List<String> lines, Optional<String> notRun,
            Optional<Block> expected) {
        boolean shell() {
            return SHELL.contains(language);
        }

        String where() {
            return page + ":" + line;
        }
    }

    /** Returns the pages whose shell blocks run: README.md, docs/*.md and docs/services/*.md. */
    static List<String> pages() throws IOException {
        List<String> pages = new ArrayList<>(List.of("README.md"));
        for (String dir : List.of("docs", "docs/services")) {
            try (Stream<Path> files = Files.list(Markdown.ROOT.resolve(dir))) {
                files.map(p -> dir + "/" + p.getFileName()).filter(p -> p.endsWith(".md")).sorted().forEach(pages::add);
            }
        }
        return pages;
    }

    /** Returns the fenced blocks of {@code page}, those opened with an indentation left out. */
    static List<Block> blocks(String page) throws IOException {
        List<String> lines = Markdown.read(page).lines().collect(Collectors.toList());
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).startsWith("```")) continue;
            int open = i;
            int close = i + 1;
            while (close < lines.size() && !lines.get(close).startsWith("```")) close++;
            int before = open - 1;
            while (before >= 0 && lines.get(before).isBlank()) before--;
            Matcher m = before >= 0 ? NOT_RUN.matcher(lines.get(before).strip()) : null;
            Optional<String> notRun = m != null && m.matches() ? Optional.of(m.group(1)) : Optional.empty();
            blocks.add(new Block(page, open + 1, lines.get(open).substring(3).strip(),
                    List.copyOf(lines.subList(open + 1, Math.min(close, lines.size()))), notRun, Optional.empty()));
            i = close;
        }
        List<Block> linked = new ArrayList<>();
        for (int b = 0; b < blocks.size(); b++) {
            Block block = blocks.get(b);
            Optional<Block> expected = Optional.empty();
            if (block.shell() && b + 1 < blocks.size()) {
                Block next = blocks.get(b + 1);
                boolean adjacent = lines.subList(block.line() + block.lines().size(), next.line() - 1).stream()
                        .allMatch(String::isBlank);
                if (adjacent && (next.language().equals("text") || next.language().equals("json"))) expected = Optional.of(next);
            }
            linked.add(new Block(block.page(), block.line(), block.language(), block.lines(), block.notRun(), expected));
        }
        return linked;
    }

    @Test
    void everyCommandBlockOfTheReadmeAndTheServicePagesSaysItIsAShellBlock() throws IOException {
        List<String> untagged = new ArrayList<>();
        for (String page : pages()) {
            if (!page.equals("README.md") && !page.startsWith("docs/services/")) continue;
            for (Block block : blocks(page)) {
                if (!block.language().isEmpty() || block.lines().isEmpty()) continue;
                String first = block.lines().get(0).strip();
                if (first.matches("(\\$ |curl |gradle |\\./gradlew |mvn |examples|bash |cd |mkdir ).*")) untagged.add(block.where());
            }
        }
        assertThat(untagged).as("commands in a block without a language: open it with ```sh (or mark what it is)").isEmpty();
    }

    @Test
    void theGradleRunOfTheExamplesIsTheNovelProoferServiceWithItsSample() throws IOException {
        assertThat(Markdown.read("examples/build.gradle")).as("what %s stands for", GRADLE_RUN).contains(GRADLE_RUN_ARGS);
    }

    @Test
    void aPatternOfAnExpectedOutputLeavesOutWhatVariesAndNothingElse() {
        Pattern p = expectedPattern("{\"id\": 1, \"worker\": \"compression@host-8682-1mb3\", \"at\": \"2026-11-24T03:06:18.797985Z\", …}");
        assertThat(p.matcher(strip("{\"id\":1,\"worker\":\"compression@vm-17-ab1x\",\"at\":\"2027-01-02T00:00:00Z\",\"v\":2}")).matches()).isTrue();
        assertThat(p.matcher(strip("{\"id\":2,\"worker\":\"compression@vm-17-ab1x\",\"at\":\"2027-01-02T00:00:00Z\"}")).matches()).isFalse();
        assertThat(p.matcher(strip("{\"id\":1,\"worker\":\"etl@vm-17-ab1x\",\"at\":\"2027-01-02T00:00:00Z\"}")).matches()).isFalse();
    }

    @TestFactory
    List<DynamicTest> theShellBlocksOfEachPageRunAsWritten(@TempDir Path temp) throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        List<String> notRun = new ArrayList<>();
        int[] run = {0};
        for (String page : pages()) {
            List<Block> shell = blocks(page).stream().filter(Block::shell).collect(Collectors.toList());
            shell.stream().filter(b -> b.notRun().isPresent()).forEach(b -> notRun.add(b.where() + ": " + b.notRun().get()));
            List<Block> runnable = shell.stream().filter(b -> b.notRun().isEmpty()).collect(Collectors.toList());
            if (runnable.isEmpty()) continue;
            tests.add(DynamicTest.dynamicTest(page, () -> {
                run[0] += runnable.size();
                runPage(page, runnable, temp.resolve(page.replace('/', '_')));
            }));
        }
        tests.add(DynamicTest.dynamicTest("the blocks marked not run", () -> {
            System.out.println("shell blocks run: " + run[0] + "; not run: " + notRun.size());
            notRun.forEach(n -> System.out.println("  not run: " + n));
            assertThat(notRun).as("blocks marked not run").allMatch(n -> !n.endsWith(": "));
        }));
        return tests;
    }

    private static void runPage(String page, List<Block> blocks, Path dir) throws Exception {
        Path home = Files.createDirectories(dir.resolve("home"));
        Path work = Files.createDirectories(dir.resolve("work"));
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path scripts = Files.createDirectories(dir.resolve("blocks"));
        String examples = "#!/bin/sh\nexec '" + ServiceJvm.java() + "' " + String.join(" ", ServiceJvm.options()) + " $JAVA_OPTS -cp '"
                + ServiceJvm.classPath() + "' dev.statekit.examples.Main \"$@\"\n";
        for (Path p : List.of(bin.resolve("examples"), work.resolve("examples/build/install/examples/bin/examples"))) {
            Files.createDirectories(p.getParent());
            Files.writeString(p, examples);
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        String port = Markdown.read(page).contains(FREE_PORT) ? String.valueOf(freePort()) : "8080";
        ProcessBuilder builder = new ProcessBuilder("bash", "--noprofile", "--norc").directory(work.toFile()).redirectErrorStream(true);
        builder.environment().put("HOME", home.toString());
        builder.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        // The JVM reads its user.home from the password file, not from HOME.
        builder.environment().put("JAVA_OPTS", "-Duser.home=" + home);
        Process bash = builder.start();
        BlockingQueue<String> said = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(bash.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) said.add(line);
            } catch (IOException e) {
                // bash ended
            }
            said.add(DONE + " end");
        }, "shell-" + page);
        reader.setDaemon(true);
        reader.start();
        Path pids = dir.resolve("services.pids");
        Files.writeString(pids, "");
        try (Writer in = new java.io.OutputStreamWriter(bash.getOutputStream(), StandardCharsets.UTF_8)) {
            in.write("set -e -o pipefail\n");
            for (Block block : blocks) {
                Path script = scripts.resolve(block.line() + ".sh");
                Path output = scripts.resolve(block.line() + ".out");
                Files.writeString(script, script(block, port, dir, pids));
                in.write("source '" + script + "' > '" + output + "' 2>&1 < /dev/null; echo '" + DONE + "' $?\n");
                in.flush();
                String status = awaitDone(said, bash);
                String printed = Files.exists(output) ? Files.readString(output) : "";
                if (!status.equals(DONE + " 0")) {
                    throw new AssertionError(block.where() + ": the ```" + block.language() + " block failed"
                            + (status.startsWith(DONE + " ") ? " (exit status " + status.substring(DONE.length() + 1) + ")" : ": " + status)
                            + ", printing:\n" + printed + services(dir));
                }
                Optional<String> expected = expected(block);
                if (expected.isPresent()) {
                    String shown = expected.get().replace("8080", port);
                    if (!expectedPattern(shown).matcher(strip(printed)).matches()) {
                        throw new AssertionError(block.where() + ": the block printed\n" + printed + "\nnot what the page shows"
                                + block.expected().map(e -> " at line " + e.line()).orElse("") + ":\n" + shown);
                    }
                }
            }
            in.write("exit 0\n");
            in.flush();
        } finally {
            stopServices(pids);
            bash.destroy();
            if (!bash.waitFor(10, TimeUnit.SECONDS)) bash.destroyForcibly();
        }
    }

    /** Returns the block as bash runs it: its commands, services started in the background, the port chosen. */
    private static String script(Block block, String port, Path dir, Path pids) {
        List<String> commands = new ArrayList<>();
        boolean command = false;
        for (String line : block.lines()) {
            if (block.language().equals("console")) {
                if (line.startsWith("$ ")) {
                    commands.add(line.substring(2));
                    command = line.endsWith("\\");
                } else if (command) {
                    commands.add(line);
                    command = line.endsWith("\\");
                }
            } else {
                commands.add(line);
            }
        }
        // Joins the lines of each command (continued with \) so that a service's start is seen whole.
        List<String> logical = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : commands) {
            current.append(line.replace("8080", port));
            if (line.endsWith("\\")) {
                current.append('\n');
                continue;
            }
            logical.add(current.toString());
            current.setLength(0);
        }
        if (current.length() > 0) logical.add(current.toString());
        StringBuilder script = new StringBuilder();
        int services = 0;
        for (String line : logical) {
            if (line.startsWith(INSTALL)) line = line.substring(INSTALL.length());      // the class path is the installed program
            if (!SERVICE.matcher(line).find()) {
                script.append(line).append('\n');
                continue;
            }
            String start = line.strip().startsWith(GRADLE_RUN)
                    ? "examples serve novel-proofer --sample true" + (port.equals("8080") ? "" : " --port " + port)
                    : line.contains("--port") || port.equals("8080") ? line : line.strip() + " --port " + port;
            Path log = dir.resolve("service-" + block.line() + "-" + ++services + ".log");
            script.append("(\nexec ").append(start.strip()).append("\n) > '").append(log).append("' 2>&1 &\n")
                    .append("echo $! >> '").append(pids).append("'\n")
                    .append("_deadline=$((SECONDS + 60))\n")
                    .append("until grep -q 'listening on' '").append(log).append("'; do\n")
                    .append("  if ! kill -0 $! 2>/dev/null || [ $SECONDS -gt $_deadline ]; then cat '").append(log)
                    .append("'; false; fi\n  sleep 0.05\ndone\n");
        }
        return script.toString();
    }

    private static Optional<String> expected(Block block) {
        if (block.language().equals("console")) {
            List<String> printed = new ArrayList<>();
            boolean command = false;
            for (String line : block.lines()) {
                if (line.startsWith("$ ")) {
                    command = line.endsWith("\\");
                } else if (command) {
                    command = line.endsWith("\\");
                } else {
                    printed.add(line);
                }
            }
            return printed.stream().allMatch(String::isBlank) ? Optional.empty() : Optional.of(String.join("\n", printed));
        }
        return block.expected().map(e -> String.join("\n", e.lines()));
    }

    /** Returns a pattern of an expected output, whitespace left out, where {@code …}, instants and lease owners stand for what varies. */
    static Pattern expectedPattern(String expected) {
        String text = strip(expected);
        StringBuilder regex = new StringBuilder();
        Matcher m = VARIES.matcher(text);
        int at = 0;
        while (m.find()) {
            regex.append(Pattern.quote(text.substring(at, m.start())));
            if (m.group().equals("…")) {
                regex.append(".*?");
            } else if (m.group(1) != null) {
                regex.append(Pattern.quote(m.group(1))).append("@[A-Za-z0-9._-]+");
            } else {
                regex.append("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?Z");
            }
            at = m.end();
        }
        regex.append(Pattern.quote(text.substring(at)));
        return Pattern.compile(regex.toString(), Pattern.DOTALL);
    }

    private static String strip(String text) {
        return text.replaceAll("\\s+", "");
    }

    private static String awaitDone(BlockingQueue<String> said, Process bash) throws InterruptedException {
        long deadline = System.nanoTime() + BLOCK.toNanos();
        List<String> other = new ArrayList<>();
        while (true) {
            long left = deadline - System.nanoTime();
            String line = left > 0 ? said.poll(left, TimeUnit.NANOSECONDS) : null;
            if (line == null) return "it did not end within " + BLOCK + (other.isEmpty() ? "" : "; bash said " + other);
            if (line.equals(DONE + " end")) {
                bash.waitFor(10, TimeUnit.SECONDS);
                return "bash ended" + (bash.isAlive() ? "" : " with exit status " + bash.exitValue())
                        + (other.isEmpty() ? "" : "; it said " + other);
            }
            if (line.startsWith(DONE + " ")) return line;
            other.add(line);
        }
    }

    private static String services(Path dir) throws IOException {
        StringBuilder text = new StringBuilder();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path log : files.filter(p -> p.getFileName().toString().startsWith("service-")).sorted().collect(Collectors.toList())) {
                List<String> lines = Files.readAllLines(log);
                text.append("\n--- ").append(log.getFileName()).append(" (last lines)\n")
                        .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size())));
            }
        }
        return text.toString();
    }

    /** Stops the services the page started (SIGTERM), killing those still alive after 30 s. */
    private static void stopServices(Path pids) throws IOException, InterruptedException {
        List<ProcessHandle> services = Files.readAllLines(pids).stream().filter(l -> !l.isBlank())
                .map(l -> ProcessHandle.of(Long.parseLong(l.strip()))).flatMap(Optional::stream).collect(Collectors.toList());
        services.forEach(ProcessHandle::destroy);
        for (ProcessHandle service : services) {
            try {
                service.onExit().get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
                service.destroyForcibly();
            }
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
