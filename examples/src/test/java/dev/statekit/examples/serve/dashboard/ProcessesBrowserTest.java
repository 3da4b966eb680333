package dev.statekit.examples.serve.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.ops.Attempt;
import dev.statekit.core.ops.TaskOperations;
import dev.statekit.examples.serve.ApiClient;
import dev.statekit.examples.serve.ServeCommand;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;

/**
 * The dashboard's Processes screen and the Attempts table of a task's page in headless Chromium, on
 * the compression seed's service (in process, in memory): the service's runtime is listed alive with
 * its owner, host and last heartbeat; a task whose worker threw shows its attempt with its worker,
 * outcome and error, and its stack trace unfolds.
 */
class ProcessesBrowserTest {
    private static final String NODE = "node-7";
    private static final String OWNER = "compression@" + NODE;

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
        running = ServeCommand.start(List.of("compression", "--port", "0", "--data", data.toString(), "--in-memory", "--node", NODE), quiet);
        api = new ApiClient(running.base()).as("submitter");
        operations = TaskOperations.of(running.service().engine());
    }

    @AfterEach
    void stopService() {
        try {
            browser.assertNoConsoleErrors();
        } finally {
            browser.driver.get("about:blank");
            if (running != null) running.close();
        }
    }

    @Test
    void theProcessesScreenListsTheServicesRuntimeAlive() throws IOException {
        browser.open(running.base(), "#/processes");
        String selector = "table.processes tr[data-owner='" + OWNER + "'][data-state='alive']";
        browser.await(By.cssSelector(selector));
        // The table is drawn anew at every refresh, so an element found before may be gone: the row's cells are read at once, in the page.
        @SuppressWarnings("unchecked")
        Map<String, Object> cells = (Map<String, Object>) browser.driver.executeScript(
                "const row = document.querySelector(arguments[0]); const cell = c => row.querySelector(c).textContent.trim();"
                        + " return {owner: cell('.process-owner'), pid: cell('.process-pid'), serves: cell('.process-serves'),"
                        + " seen: cell('.process-seen'), state: cell('.process-state'), leases: cell('.lease-count')};", selector);
        assertThat(cells.get("owner")).isEqualTo(OWNER);
        assertThat(cells.get("pid")).isEqualTo(String.valueOf(ProcessHandle.current().pid()));
        assertThat((String) cells.get("serves")).contains("compression-task");
        assertThat((String) cells.get("seen")).endsWith(" ago");
        assertThat(cells.get("state")).isEqualTo("alive");
        assertThat(cells.get("leases")).isEqualTo("0");
        browser.waiting().ignoring(StaleElementReferenceException.class)
                .until(d -> d.findElement(By.id("process-counts")).getText().contains("1 alive"));
        assertThat(operations.processes()).extracting(p -> p.process().owner()).contains(OWNER);
        assertThat(browser.driver.findElement(By.cssSelector("[data-nav='processes']")).getAttribute("class")).contains("active");
        browser.screenshot("processes");
    }

    @Test
    void aTasksPageShowsItsAttemptsAndTheStackTraceOfAThrownException() throws IOException {
        // a task whose input goes away while the queue is paused: its worker throws when it runs
        assertThat(api.post("/api/queue/pause", "").status()).isEqualTo(200);
        Path input = data.resolve("input").resolve("gone.txt");
        Files.createDirectories(input.getParent());
        Files.writeString(input, "some text to compress\n", StandardCharsets.UTF_8);
        ApiClient.Response r = api.post("/api/tasks", "{\"input\": \"gone.txt\"}");
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        long id = r.json().path("id").asLong();
        Files.delete(input);
        assertThat(api.post("/api/queue/resume", "").status()).isEqualTo(200);
        api.awaitGet("/api/tasks/" + id, x -> x.status() == 200 && x.field("state").equals("FAILED"), Browser.WAIT);
        List<Attempt> attempts = operations.attempts(id);
        assertThat(attempts).hasSize(1);
        String code = attempts.get(0).error().code();

        browser.open(running.base(), "#/task/" + id);
        WebElement row = browser.await(By.cssSelector("#attempts table.attempts tr[data-attempt='1']"));
        assertThat(row.findElement(By.cssSelector(".attempt-worker")).getText()).isEqualTo(OWNER);
        assertThat(row.findElement(By.cssSelector(".attempt-outcome")).getText()).contains("FAILED");
        assertThat(row.findElement(By.cssSelector(".attempt-duration")).getText()).matches("[0-9.]+ (ms|s)");
        assertThat(row.findElement(By.cssSelector(".attempt-error .error-code")).getText()).isEqualTo(code);
        WebElement trace = row.findElement(By.cssSelector("pre.stack-trace"));
        assertThat(trace.isDisplayed()).as("folded").isFalse();
        row.findElement(By.cssSelector("details.stack summary")).click();
        browser.waiting().until(d -> trace.isDisplayed());
        String detail = attempts.get(0).error().detail();
        assertThat(trace.getText()).startsWith(detail.lines().findFirst().orElseThrow()).contains("at dev.statekit.");
        assertThat(browser.driver.findElements(By.cssSelector("#attempts tr[data-attempt]"))).hasSize(1);
        browser.screenshot("attempts");
    }
}
