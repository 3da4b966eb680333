package dev.statekit.core.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.ops.ScheduleView;
import dev.statekit.core.ops.TaskOperations;
import dev.statekit.core.schedule.Misfire;
import dev.statekit.core.schedule.Recurrence;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.test.fixtures.Jobs;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The second example of docs/schedules.md, declaring and changing schedules: the page shows the code between the markers, and what it prints, unchanged. */
class SchedulesRunDocTest {
    static final Path ROOT = root();
    static final Path PAGE = ROOT.resolve("docs/schedules.md");
    static final Path SOURCE = ROOT.resolve("core/src/test/java/dev/statekit/core/runtime/SchedulesRunDocTest.java");

    static void example(TransitionEngine engine, ManualExecutor executor, PrintStream out) {
        // docs/schedules.md: running begin
        Recurrence nightly = Recurrence.builder("nightly-report")
                .cron("30 2 * * *")
                .zone(ZoneId.of("Europe/Berlin"))
                .misfire(Misfire.runOnce())
                .build();
        TaskRuntime runtime = TaskRuntime.builder(engine)
                .executor(executor)
                .register(Jobs.MACHINE, "reports", ctx -> WorkResult.success(), QueueOptions.defaults())
                .schedule(Jobs.MACHINE, nightly, TaskSpec.defaults().queue("reports").attribute("format", "pdf"))
                .build();
        runtime.start();

        // At run time, from any process on the store: a new schedule, a pause, the dashboard's view.
        TaskOperations ops = TaskOperations.of(engine);
        ops.schedule(Jobs.MACHINE, Recurrence.builder("cleanup").every(Duration.ofHours(6))
                .anchor(Instant.parse("2026-01-01T00:00:00Z")).build(), TaskSpec.defaults().queue("reports"));
        ops.pauseSchedule("cleanup");
        for (ScheduleView s : ops.schedules()) {
            out.println(s.name() + (s.paused() ? " (paused)" : "") + " next " + s.next().subList(0, 2));
        }
        // docs/schedules.md: running end
        runtime.halt();
    }

    @Test
    void theExamplePrintsWhatThePageShows() throws IOException {
        ManualClock clock = new ManualClock(Instant.parse("2026-03-27T12:00:00Z"));
        TransitionEngine engine = TransitionEngine.builder().store(new InMemoryStore()).clock(clock).build();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            example(engine, new ManualExecutor(), out);
        }
        String printed = bytes.toString(StandardCharsets.UTF_8);
        assertThat(printed).isEqualTo(String.join("\n",
                "cleanup (paused) next [2026-03-27T18:00:00Z, 2026-03-28T00:00:00Z]",
                "nightly-report next [2026-03-28T01:30:00Z, 2026-03-29T01:00:00Z]") + "\n");
        assertThat(Files.readString(PAGE)).contains("```java\n" + shownCode() + "```\n").contains("```text\n" + printed + "```\n");
    }

    static Path root() {
        for (Path p = Paths.get("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.exists(p.resolve("settings.gradle")) && Files.isDirectory(p.resolve("core"))) return p;
        }
        throw new IllegalStateException("no settings.gradle above " + Paths.get("").toAbsolutePath());
    }

    static String shownCode() throws IOException {
        List<String> lines = Files.readAllLines(SOURCE);
        int begin = lines.indexOf("        // docs/schedules.md: running begin");
        int end = lines.indexOf("        // docs/schedules.md: running end");
        assertThat(begin).isPositive();
        assertThat(end).isGreaterThan(begin);
        return lines.subList(begin + 1, end).stream().map(l -> l.length() > 8 ? l.substring(8) : "").map(l -> l + "\n").collect(Collectors.joining());
    }
}
