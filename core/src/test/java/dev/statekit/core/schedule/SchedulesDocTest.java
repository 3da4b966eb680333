package dev.statekit.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The example of docs/schedules.md: the page shows the code between the markers below, and what it prints, unchanged. */
class SchedulesDocTest {
    /** The checkout: the folder of {@code settings.gradle}, above the module the tests run in. */
    static final Path ROOT = root();
    static final Path PAGE = ROOT.resolve("docs/schedules.md");
    static final Path SOURCE = ROOT.resolve("core/src/test/java/dev/statekit/core/schedule/SchedulesDocTest.java");

    static void example(PrintStream out) {
        // docs/schedules.md: begin
        Recurrence nightly = Recurrence.builder("nightly-report")
                .cron("30 2 * * *")
                .zone(ZoneId.of("Europe/Berlin"))
                .misfire(Misfire.runEach(3))
                .build();

        // The next runs, for a dashboard. 02:30 does not exist on 2026-03-29: that run is at 03:00.
        for (Instant t : nightly.schedule().nextOccurrences(Instant.parse("2026-03-27T12:00:00Z"), 3)) {
            out.println(t.atZone(ZoneId.of("Europe/Berlin")));
        }

        // Nothing ran after the occurrence of the 25th. Which occurrences to create on the 30th?
        Due due = nightly.due(Instant.parse("2026-03-25T01:30:00Z"), Instant.parse("2026-03-30T09:00:00Z"));
        for (Occurrence o : due.occurrences()) {
            out.println(o.key() + (o.missed() ? " (missed)" : ""));
        }
        out.println("next due " + due.nextDue() + ", skipped some: " + due.skipped());
        // docs/schedules.md: end
    }

    @Test
    void theExamplePrintsWhatThePageShows() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            example(out);
        }
        String printed = bytes.toString(StandardCharsets.UTF_8);
        assertThat(printed).isEqualTo(String.join("\n",
                "2026-03-28T02:30+01:00[Europe/Berlin]",
                "2026-03-29T03:00+02:00[Europe/Berlin]",
                "2026-03-30T02:30+02:00[Europe/Berlin]",
                "nightly-report@2026-03-28T01:30:00Z (missed)",
                "nightly-report@2026-03-29T01:00:00Z (missed)",
                "nightly-report@2026-03-30T00:30:00Z (missed)",
                "next due 2026-03-31T00:30:00Z, skipped some: true") + "\n");
        assertThat(Files.readString(PAGE)).contains("```java\n" + shownCode() + "```\n").contains("```text\n" + printed + "```\n");
    }

    static Path root() {
        for (Path p = Paths.get("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.exists(p.resolve("settings.gradle")) && Files.isDirectory(p.resolve("core"))) return p;
        }
        throw new IllegalStateException("no settings.gradle above " + Paths.get("").toAbsolutePath());
    }

    /** The lines between the markers of {@link #example}, with the method's indentation removed. */
    static String shownCode() throws IOException {
        List<String> lines = Files.readAllLines(SOURCE);
        int begin = lines.indexOf("        // docs/schedules.md: begin");
        int end = lines.indexOf("        // docs/schedules.md: end");
        assertThat(begin).isPositive();
        assertThat(end).isGreaterThan(begin);
        return lines.subList(begin + 1, end).stream().map(l -> l.length() > 8 ? l.substring(8) : "").map(l -> l + "\n").collect(Collectors.joining());
    }
}
