package dev.statekit.examples.serve.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.ops.ScheduleView;
import dev.statekit.core.ops.TaskFilter;
import dev.statekit.core.ops.TaskOperations;
import dev.statekit.core.schedule.Recurrence;
import dev.statekit.examples.CompressionTask;
import dev.statekit.examples.CompressionTask.State;
import dev.statekit.examples.hosts.CompressionHost;
import dev.statekit.examples.serve.ApiClient;
import dev.statekit.examples.serve.ServeCommand;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;

/**
 * The dashboard's bulk actions and schedules panels in headless Chromium, on the compression seed's
 * service (in process, on H2 in a temporary folder): the count shown is what the store and the
 * service's own API count; answering No changes nothing; Yes applies, each change in the task's
 * history with the operator as its actor, and refusals are shown counted by code; a deletion asks
 * first. A schedule is paused and resumed (its state and next occurrences change) and deleted only
 * once confirmed.
 */
class SeedPanelsBrowserTest {
    private static final String OPERATOR = "operator-ann";

    private static Browser browser;

    @TempDir
    Path data;

    private ServeCommand.Running running;
    private ApiClient api;
    private TaskOperations operations;

    @BeforeAll
    static void startBrowser() throws IOException {
        browser = Browser.start();
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) browser.close();
    }

    @BeforeEach
    void startService() throws Exception {
        PrintStream quiet = new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
        running = ServeCommand.start(List.of("compression", "--port", "0", "--data", data.toString(), "--in-memory"), quiet);
        api = new ApiClient(running.base()).as("submitter");
        operations = TaskOperations.of(running.service().engine());
    }

    @AfterEach
    void stopService() {
        try {
            browser.assertNoConsoleErrors();
        } finally {
            browser.driver.get("about:blank");      // the page stops reading this test's service before it stops
            if (running != null) running.close();
        }
    }

    // --- bulk actions -----------------------------------------------------------------------------

    @Test
    void theBulkPanelCountsFirstAsksBeforeApplyingAndShowsWhatWasAppliedAndRefused() throws Exception {
        List<Long> completed = new ArrayList<>();
        for (int i = 1; i <= 3; i++) completed.add(add("ok-" + i + ".txt"));
        for (long id : completed) awaitState(id, "COMPLETED");
        // three tasks whose input goes away while the queue is paused: they fail with the same error code
        assertThat(api.post("/api/queue/pause", "").status()).isEqualTo(200);
        List<Long> missing = new ArrayList<>();
        for (int i = 1; i <= 3; i++) missing.add(add("gone-" + i + ".txt"));
        for (int i = 1; i <= 3; i++) Files.delete(input("gone-" + i + ".txt"));
        assertThat(api.post("/api/queue/resume", "").status()).isEqualTo(200);
        for (long id : missing) awaitState(id, "FAILED");
        String code = api.get("/ui/api/tasks/" + missing.get(0)).json().path("lastError").path("code").asText();
        assertThat(code).isNotBlank();
        for (long id : missing) assertThat(api.get("/ui/api/tasks/" + id).json().path("lastError").path("code").asText()).isEqualTo(code);

        browser.open(running.base(), "#/bulk");
        browser.actor(OPERATOR);
        new Select(browser.await(By.cssSelector("#bulk-filter select[name='machine']"))).selectByValue("compression-task");
        new Select(browser.driver.findElement(By.cssSelector("#bulk-filter select[name='state']"))).selectByValue("FAILED");
        browser.driver.findElement(By.cssSelector("#bulk-filter input[name='errorCode']")).sendKeys(code);
        browser.driver.findElement(By.id("bulk-count-button")).click();

        // the count shown is what the store counts, and what the service's own API lists
        long shown = awaitCount();
        TaskFilter<State, CompressionTask.Event> failedWithCode = TaskFilter.of(CompressionTask.MACHINE).states(State.FAILED).errorCode(code);
        assertThat(shown).isEqualTo(3).isEqualTo(operations.count(failedWithCode).tasks());
        assertThat(api.get("/api/tasks?state=failed").json().path("count").asLong()).isEqualTo(shown);
        assertThat(browser.driver.findElement(By.id("bulk-count")).getAttribute("data-up-to")).isEqualTo(String.valueOf(missing.get(2)));
        assertThat(browser.driver.getCurrentUrl()).contains("#/bulk?").contains("state=FAILED").contains("errorCode=" + code);

        // No: nothing changes
        Map<Long, Long> versions = versions(missing);
        browser.driver.findElement(By.cssSelector("button[data-bulk='retry']")).click();
        assertThat(browser.await(By.id("bulk-question")).getText()).startsWith("Retry 3 tasks (machine compression-task, state FAILED, error code " + code);
        assertThat(buttonLabels("#bulk-confirm")).containsExactly("Yes, retry 3 tasks", "No, change nothing");
        browser.driver.findElement(By.cssSelector("#bulk-confirm button.dismiss")).click();
        browser.waiting().until(d -> d.findElements(By.cssSelector("#bulk-confirm button")).isEmpty());
        assertThat(browser.driver.findElement(By.id("bulk-message")).getText()).contains("nothing changed");
        assertThat(versions(missing)).isEqualTo(versions);
        for (long id : missing) assertThat(events(id)).doesNotContain("RETRY");
        assertThat(operations.count(failedWithCode).tasks()).isEqualTo(3);

        // Yes: applied, each retry in its task's history with the operator as its actor
        for (int i = 1; i <= 3; i++) write("gone-" + i + ".txt");
        browser.driver.findElement(By.cssSelector("button[data-bulk='retry']")).click();
        browser.await(By.cssSelector("#bulk-confirm button.confirm[data-action='retry']")).click();
        awaitFigure("applied", "3");
        assertThat(figure("matched")).isEqualTo("3");
        assertThat(figure("refused")).isEqualTo("0");
        assertThat(figure("failed")).isEqualTo("0");
        for (long id : missing) {
            awaitState(id, "COMPLETED");
            assertThat(history(id)).anySatisfy(h -> assertThat(h.path("event").asText() + " by " + h.path("actor").asText())
                    .isEqualTo("RETRY by " + OPERATOR));
        }
        browser.awaitAttribute(By.id("bulk-count"), "data-count", "0");
        browser.open(running.base(), "#/task/" + missing.get(0));
        browser.waiting().until(d -> d.findElement(By.id("history")).getText().contains("RETRY by user " + OPERATOR));

        // refusals are counted by code: a cancel of every task cancels the one waiting, and the table refuses the finished ones
        assertThat(api.post("/api/queue/pause", "").status()).isEqualTo(200);
        long waiting = add("waiting.txt");
        awaitState(waiting, "QUEUED");
        browser.open(running.base(), "#/bulk?machine=compression-task");
        long all = awaitCount();
        assertThat(all).isEqualTo(7).isEqualTo(operations.count(TaskFilter.of(CompressionTask.MACHINE)).tasks());
        assertThat(api.get("/api/tasks").json().path("count").asLong()).isEqualTo(all);
        browser.driver.findElement(By.cssSelector("button[data-bulk='cancel']")).click();
        assertThat(browser.await(By.id("bulk-question")).getText()).startsWith("Cancel 7 tasks (machine compression-task)?");
        browser.driver.findElement(By.cssSelector("#bulk-confirm button.confirm[data-action='cancel']")).click();
        awaitFigure("applied", "1");
        assertThat(figure("matched")).isEqualTo("7");
        assertThat(figure("refused")).isEqualTo("6");
        assertThat(browser.driver.findElement(By.cssSelector("#bulk-result tr[data-refusal='" + CompressionTask.TASK_FINISHED + "'] td.num")).getText())
                .isEqualTo("6");
        assertThat(browser.driver.findElement(By.id("bulk-message")).getText()).isEqualTo("Cancel: 1 applied, 6 refused of 7 matched.");
        browser.awaitAttribute(By.id("bulk-count"), "data-count", "7");
        browser.screenshot("bulk");
        awaitState(waiting, "CANCELED");
        assertThat(history(waiting)).anySatisfy(h -> assertThat(h.path("event").asText() + " by " + h.path("actor").asText())
                .isEqualTo("CANCEL by " + OPERATOR));
        for (long id : completed) assertThat(events(id)).doesNotContain("CANCEL");
        assertThat(api.post("/api/queue/resume", "").status()).isEqualTo(200);

        // a deletion asks first: until Yes, every task stays
        browser.awaitAttribute(By.id("bulk-count"), "data-count", "7");
        browser.driver.findElement(By.cssSelector("button[data-bulk='delete']")).click();
        assertThat(browser.await(By.id("bulk-question")).getText()).isEqualTo("Delete 7 tasks (machine compression-task)?");
        assertThat(operations.count(TaskFilter.of(CompressionTask.MACHINE)).tasks()).isEqualTo(7);
        browser.driver.findElement(By.cssSelector("#bulk-confirm button.dismiss")).click();
        browser.waiting().until(d -> d.findElements(By.cssSelector("#bulk-confirm button")).isEmpty());
        assertThat(operations.count(TaskFilter.of(CompressionTask.MACHINE)).tasks()).isEqualTo(7);
        browser.driver.findElement(By.cssSelector("button[data-bulk='delete']")).click();
        browser.await(By.cssSelector("#bulk-confirm button.confirm[data-action='delete']")).click();
        awaitFigure("applied", "7");
        assertThat(figure("refused")).isEqualTo("0");
        browser.awaitAttribute(By.id("bulk-count"), "data-count", "0");
        assertThat(operations.count(TaskFilter.of(CompressionTask.MACHINE)).tasks()).isZero();
        assertThat(api.get("/ui/api/tasks/" + waiting).status()).isEqualTo(404);
    }

    @Test
    void theBulkPanelIsReachedFromTheTaskListWithItsFilter() {
        browser.open(running.base(), "#/tasks?machine=compression-task&state=FAILED");
        browser.await(By.cssSelector("#bulk a")).click();
        browser.waiting().until(ExpectedConditions.urlContains("#/bulk?machine=compression-task&state=FAILED"));
        browser.awaitAttribute(By.id("bulk-count"), "data-count", "0");
        assertThat(browser.driver.findElement(By.id("bulk-count")).getText()).startsWith("0 tasks match machine compression-task, state FAILED");
        assertThat(browser.driver.findElements(By.cssSelector("#bulk-actions button"))).as("nothing to act on").isEmpty();
    }

    // --- schedules --------------------------------------------------------------------------------

    @Test
    void aScheduleIsPausedAndResumedWithItsNextOccurrencesAndDeletedOnlyOnceConfirmed() throws Exception {
        operations.schedule(CompressionTask.MACHINE, Recurrence.builder("nightly-archive").cron("0 3 * * *").zone(ZoneOffset.UTC).build(),
                TaskSpec.defaults().attribute(CompressionHost.INPUT, "archive.txt"));
        operations.schedule(CompressionTask.MACHINE, Recurrence.builder("weekly-logs").cron("30 4 * * 1").zone(ZoneOffset.UTC).build(),
                TaskSpec.defaults().attribute(CompressionHost.INPUT, "logs.txt"));

        browser.open(running.base(), "#/schedules");
        browser.actor(OPERATOR);
        By nightly = By.cssSelector("tr[data-schedule='nightly-archive']");
        browser.awaitAttribute(nightly, "data-state", "active");
        assertThat(cell("nightly-archive", "schedule-state")).isEqualTo("active");
        assertThat(cell("nightly-archive", "schedule-timing")).isEqualTo("cron '0 3 * * *' in Z");
        assertThat(buttonLabels("tr[data-schedule='nightly-archive'] td.controls")).containsExactly("Pause", "Resume", "Delete…");
        List<String> next = next("nightly-archive");
        assertThat(next).hasSize(TaskOperations.NEXT_OCCURRENCES).isEqualTo(stored("nightly-archive"));
        assertThat(Instant.parse(next.get(0))).isAfter(Instant.now());
        browser.screenshot("schedules");

        // paused: no next occurrence until it is resumed
        browser.driver.findElement(By.cssSelector("tr[data-schedule='nightly-archive'] button[data-action='pause']")).click();
        browser.awaitAttribute(nightly, "data-state", "paused");
        assertThat(cell("nightly-archive", "schedule-state")).isEqualTo("paused");
        assertThat(cell("nightly-archive", "schedule-next")).startsWith("none while paused");
        assertThat(next("nightly-archive")).isEmpty();
        assertThat(operations.schedule("nightly-archive").orElseThrow().paused()).isTrue();
        assertThat(browser.driver.findElement(By.id("schedule-message")).getText()).isEqualTo("nightly-archive: paused");
        assertThat(browser.driver.findElement(By.cssSelector("tr[data-schedule='nightly-archive'] button[data-action='pause']")).isEnabled()).isFalse();
        browser.screenshot("schedules-paused");

        browser.driver.findElement(By.cssSelector("tr[data-schedule='nightly-archive'] button[data-action='resume']")).click();
        browser.awaitAttribute(nightly, "data-state", "active");
        assertThat(cell("nightly-archive", "schedule-state")).isEqualTo("active");
        browser.waiting().until(d -> next("nightly-archive").size() == TaskOperations.NEXT_OCCURRENCES);
        assertThat(next("nightly-archive")).isEqualTo(stored("nightly-archive"));
        assertThat(operations.schedule("nightly-archive").orElseThrow().paused()).isFalse();

        // a deletion asks first; No keeps the schedule
        By weekly = By.cssSelector("tr[data-schedule='weekly-logs']");
        browser.driver.findElement(By.cssSelector("tr[data-schedule='weekly-logs'] button[data-action='delete']")).click();
        assertThat(browser.await(By.id("schedule-question")).getText()).isEqualTo("Delete schedule weekly-logs?");
        assertThat(buttonLabels("#schedule-confirm")).containsExactly("Yes, delete schedule weekly-logs", "No, keep it");
        assertThat(operations.schedule("weekly-logs")).isPresent();
        browser.driver.findElement(By.cssSelector("#schedule-confirm button.dismiss")).click();
        browser.waiting().until(d -> d.findElements(By.cssSelector("#schedule-confirm button")).isEmpty());
        assertThat(operations.schedule("weekly-logs")).isPresent();
        assertThat(browser.driver.findElements(weekly)).hasSize(1);

        browser.driver.findElement(By.cssSelector("tr[data-schedule='weekly-logs'] button[data-action='delete']")).click();
        browser.await(By.cssSelector("#schedule-confirm button.confirm")).click();
        browser.waiting().until(ExpectedConditions.numberOfElementsToBe(weekly, 0));
        assertThat(operations.schedule("weekly-logs")).isEmpty();
        assertThat(operations.schedule("nightly-archive")).isPresent();
        assertThat(browser.driver.findElement(By.id("schedule-message")).getText()).isEqualTo("schedule weekly-logs deleted; the tasks it created stay");
    }

    // --- helpers ----------------------------------------------------------------------------------

    private Path input(String name) {
        return data.resolve("input").resolve(name);
    }

    /** Writes the input file {@code name} and adds a task compressing it; returns its id. */
    private long add(String name) throws IOException {
        write(name);
        ApiClient.Response r = api.post("/api/tasks", "{\"input\": \"" + name + "\"}");
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        return r.json().path("id").asLong();
    }

    /** Writes the input file {@code name}. */
    private void write(String name) throws IOException {
        Files.createDirectories(input(name).getParent());
        Files.writeString(input(name), (name + " some text to compress\n").repeat(200), StandardCharsets.UTF_8);
    }

    private void awaitState(long id, String state) {
        api.awaitGet("/api/tasks/" + id, r -> r.status() == 200 && r.field("state").equals(state), Browser.WAIT);
    }

    private List<JsonNode> history(long id) {
        ApiClient.Response r = api.get("/api/tasks/" + id + "/history");
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        List<JsonNode> entries = new ArrayList<>();
        r.json().path("history").forEach(entries::add);
        return entries;
    }

    private List<String> events(long id) {
        return history(id).stream().map(h -> h.path("event").asText()).toList();
    }

    private Map<Long, Long> versions(List<Long> ids) {
        Map<Long, Long> versions = new TreeMap<>();
        for (long id : ids) versions.put(id, operations.task(id).orElseThrow().version());
        return versions;
    }

    private static long awaitCount() {
        browser.waiting().until(d -> d.findElement(By.id("bulk-count")).getAttribute("data-count") != null);
        return Long.parseLong(browser.driver.findElement(By.id("bulk-count")).getAttribute("data-count"));
    }

    private static void awaitFigure(String name, String value) {
        browser.waiting().until(ExpectedConditions.textToBe(By.cssSelector("#bulk-result tr[data-figure='" + name + "'] td.num"), value));
    }

    private static String figure(String name) {
        return browser.driver.findElement(By.cssSelector("#bulk-result tr[data-figure='" + name + "'] td.num")).getText();
    }

    private static List<String> buttonLabels(String container) {
        return browser.driver.findElements(By.cssSelector(container + " button")).stream().map(WebElement::getText).toList();
    }

    private static String cell(String schedule, String cell) {
        return browser.driver.findElement(By.cssSelector("tr[data-schedule='" + schedule + "'] td." + cell)).getText();
    }

    /** The next occurrences the page shows for {@code schedule}, as the instants of their time elements. */
    private static List<String> next(String schedule) {
        return browser.driver.findElements(By.cssSelector("tr[data-schedule='" + schedule + "'] td.schedule-next ol.occurrences time")).stream()
                .map(t -> t.getAttribute("datetime")).toList();
    }

    private List<String> stored(String schedule) {
        ScheduleView view = operations.schedule(schedule).orElseThrow();
        return view.next().stream().map(Instant::toString).toList();
    }
}
