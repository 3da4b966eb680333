package dev.statekit.examples.quickstart;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class QuickStartTest {

    @Test
    void quickStartPrintsTheRefusalWithItsCode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        QuickStart.run(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo(
                "ILLEGAL_TRANSITION (HTTP 409): task 1 (report-job) in state RUNNING does not allow event RETRY;"
                        + " allowed events: [FINISH, FAIL]\n"
                        + "[FINISH, FAIL] 1 change(s)\n");
    }

    @Test
    void readmeShowsTheQuickStartAsItIsCompiledAndRun() throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent();
        String source = Files.readString(root.resolve("examples/src/main/java/dev/statekit/examples/quickstart/QuickStart.java"));
        String readme = Files.readString(root.resolve("README.md"));
        List<String> code = between(source, "// quick-start:begin", "// quick-start:end");
        List<String> shown = between(readme, "```java", "```");
        assertThat(shown).as("README.md's quick start must be QuickStart.java's").isEqualTo(code);
    }

    /** The non-blank lines between two markers, with common indentation removed. */
    private static List<String> between(String text, String begin, String end) {
        int from = text.indexOf(begin);
        int to = text.indexOf(end, from + begin.length());
        assertThat(from).as("marker " + begin).isNotNegative();
        assertThat(to).as("marker " + end).isPositive();
        return text.substring(from + begin.length(), to).lines()
                .filter(l -> !l.isBlank())
                .map(String::strip)
                .collect(Collectors.toList());
    }
}
