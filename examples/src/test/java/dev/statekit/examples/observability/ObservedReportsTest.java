package dev.statekit.examples.observability;

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

/** The program of docs/observability.md: its trace and meters as printed, and the page showing its code unchanged. */
class ObservedReportsTest {

    @Test
    void threeReportsCreatedInARequestAreWorkedInItsTraceAndCounted() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ObservedReports.run(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo(String.join("\n",
                "POST /reports (server)",
                "  create report (producer)",
                "    work report (consumer)",
                "  create report (producer)",
                "    work report (consumer)",
                "  create report (producer)",
                "    work report (consumer)",
                "statekit.task.attempts{outcome=succeeded} count=3",
                "statekit.task.wait count=3",
                "statekit.tasks{state=DONE} value=3",
                ""));
    }

    @Test
    void thePageShowsTheProgramsWiringAsItIsCompiledAndRun() throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent();
        String source = Files.readString(root.resolve("examples/src/main/java/dev/statekit/examples/observability/ObservedReports.java"));
        String page = Files.readString(root.resolve("docs/observability.md"));
        List<String> code = between(source, "// observability:begin", "// observability:end");
        List<String> shown = between(page, "```java", "```");
        assertThat(shown).as("docs/observability.md's first Java block must be ObservedReports.java's wiring").isEqualTo(code);
    }

    private static List<String> between(String text, String begin, String end) {
        int from = text.indexOf(begin);
        int to = text.indexOf(end, from + begin.length());
        assertThat(from).as("marker " + begin).isNotNegative();
        assertThat(to).as("marker " + end).isPositive();
        return text.substring(from + begin.length(), to).lines().filter(l -> !l.isBlank()).map(String::strip)
                .collect(Collectors.toList());
    }
}
