package dev.statekit.examples.serve.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.statekit.examples.serve.ApiClient;
import dev.statekit.examples.serve.ServeCommand;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.UnexpectedAlertBehaviour;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.ExpectedCondition;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard in headless Chromium, driven through chromedriver, on a running service of its
 * own: the queue paused and resumed, a failed task retried, a parent's progress bar followed to
 * 100 %, a refusal's code shown, hostile attributes shown as text, the read-only dashboard.
 *
 * <p>Needs Debian's {@code chromium} and {@code chromium-driver} ({@code /usr/bin/chromium},
 * {@code /usr/bin/chromedriver}, or the system properties {@code statekit.chromium} and
 * {@code statekit.chromedriver}): fails on CI ({@code CI=true}) and is skipped elsewhere when
 * they are missing. With {@code -Dstatekit.screenshots=true} it saves its screenshots to
 * {@code docs/dashboard/} for docs/dashboard.md.
 */
class DashboardBrowserTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String HOSTILE_SCRIPT = "<script>alert(1)</script>";
    private static final String HOSTILE_IMG = "\"'><img src=x onerror=alert(2)>";

    @TempDir
    static Path data;
    @TempDir
    static Path readOnlyData;

    private static DashboardTestService.Factory factory;
    private static DashboardTestService service;
    private static ServeCommand.Running running;
    private static ServeCommand.Running readOnly;
    private static ChromeDriverService driverService;
    private static ChromeDriver driver;
    private static ApiClient api;

    @BeforeAll
    static void start() throws Exception {
        Path chromium = Paths.get(System.getProperty("statekit.chromium", "/usr/bin/chromium"));
        Path chromedriver = Paths.get(System.getProperty("statekit.chromedriver", "/usr/bin/chromedriver"));
        if (!Files.isExecutable(chromium) || !Files.isExecutable(chromedriver)) {
            String missing = "the browser test needs " + chromium + " and " + chromedriver + " (apt-get install chromium chromium-driver)";
            if ("true".equals(System.getenv("CI"))) Assertions.fail(missing);
            Assumptions.abort(missing);
        }
        factory = new DashboardTestService.Factory();
        PrintStream quiet = new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
        running = ServeCommand.start(factory, List.of("--port", "0", "--data", data.toString(), "--in-memory"), quiet);
        service = factory.created;
        api = new ApiClient(running.base());
        readOnly = ServeCommand.start(new DashboardTestService.Factory(),
                List.of("--port", "0", "--data", readOnlyData.toString(), "--in-memory", "--read-only-dashboard"), quiet);

        // chromedriver and the browser as installed: nothing is looked up or downloaded
        System.setProperty("webdriver.chrome.driver", chromedriver.toString());
        driverService = new ChromeDriverService.Builder().usingDriverExecutable(chromedriver.toFile()).usingAnyFreePort().build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--no-first-run", "--disable-dev-shm-usage", "--window-size=1360,1000",
                "--force-device-scale-factor=1", "--lang=en-US", "--hide-scrollbars");
        // an alert stays open, so that the test would see one
        options.setUnhandledPromptBehaviour(UnexpectedAlertBehaviour.IGNORE);
        // the console, to see script errors and refused content (the service's content security policy)
        options.setCapability("goog:loggingPrefs", Map.of("browser", "ALL"));
        driver = new ChromeDriver(driverService, options);
    }

    @AfterAll
    static void stop() {
        try {
            if (driver != null) driver.quit();
        } finally {
            if (driverService != null) driverService.stop();
            if (running != null) running.close();
            if (readOnly != null) readOnly.close();
        }
    }

    /**
     * Checks the console after each test: no script error and nothing the content security policy
     * refused. An answer with an error status (a refusal's 409, a read-only 403) is logged by the
     * browser as a failed load, and is what the tests ask for.
     */
    @AfterEach
    void theConsoleHasNoErrors() {
        List<String> errors = new ArrayList<>();
        for (LogEntry e : driver.manage().logs().get(LogType.BROWSER)) {
            if (e.getLevel().intValue() >= Level.SEVERE.intValue() && !e.getMessage().contains("Failed to load resource: the server responded")) {
                errors.add(e.getMessage());
            }
        }
        assertThat(errors).isEmpty();
    }

    private static WebDriverWait waiting() {
        return new WebDriverWait(driver, WAIT);
    }

    /** Loads the page afresh (a new hash alone would not) at {@code hash}, and waits for its first read. */
    private static void open(String base, String hash) {
        driver.get("about:blank");
        driver.get(base + "/ui" + hash);
        waiting().until(d -> !d.findElement(By.id("live")).getText().startsWith("connecting"));
    }

    /**
     * Clicks the element {@code by} finds, found again when the page drew it anew between the
     * finding and the click (its tables are drawn again at every refresh): a stale element is not clicked.
     */
    private static void click(By by) {
        waiting().ignoring(StaleElementReferenceException.class).until(d -> {
            d.findElement(by).click();
            return true;
        });
    }

    private static WebElement await(By by) {
        return waiting().until(ExpectedConditions.visibilityOfElementLocated(by));
    }

    private static void awaitText(By by, String text) {
        waiting().until(ExpectedConditions.textToBe(by, text));
    }

    private static ExpectedCondition<Boolean> attributeIs(By by, String attribute, String value) {
        return ExpectedConditions.attributeToBe(by, attribute, value);
    }

    private static void awaitState(long id, String state) {
        api.awaitGet("/ui/api/tasks/" + id, r -> r.status() == 200 && r.field("state").equals(state), WAIT);
    }

    private static void setActor(String name) {
        WebElement actor = driver.findElement(By.id("actor"));
        actor.clear();
        actor.sendKeys(name);
        waiting().until(d -> name.equals(((JavascriptExecutor) d).executeScript("return localStorage.getItem('statekit.dashboard.actor')")));
    }

    private static void assertNoAlert() {
        assertThatThrownBy(() -> driver.switchTo().alert()).isInstanceOf(NoAlertPresentException.class);
    }

    @Test
    void theQueueIsPausedLimitedAndResumedFromTheOverview() throws IOException {
        open(running.base(), "#/");
        setActor("queue-keeper");
        By row = By.cssSelector("tr[data-queue='dash-items']");
        waiting().until(attributeIs(row, "data-state", "running"));
        click(By.cssSelector("tr[data-queue='dash-items'] button[data-action='pause']"));
        waiting().until(attributeIs(row, "data-state", "paused"));
        assertThat(driver.findElement(By.cssSelector("tr[data-queue='dash-items'] .queue-state")).getText()).isEqualTo("paused");
        assertThat(driver.findElement(By.id("queue-message")).getText()).contains("dash-items: paused");

        long waiting = service.addItem(Map.of("name", "while-paused"));
        // the page counts it among the queue's active tasks; paused, the queue starts nothing
        waiting().until(d -> Integer.parseInt(d.findElement(By.cssSelector("tr[data-queue='dash-items'] .queue-active")).getText()) >= 1);
        assertThat(api.get("/ui/api/tasks/" + waiting).field("state")).isEqualTo("QUEUED");
        screenshot("overview-paused");

        WebElement limit = driver.findElement(By.cssSelector("tr[data-queue='dash-items'] .limit-input"));
        // select what the field holds and type over it, as a person does: a clear() leaves the field
        // neither focused nor edited, and the page's next refresh may write the current limit back first
        limit.sendKeys(Keys.chord(Keys.CONTROL, "a"), "2");
        click(By.cssSelector("tr[data-queue='dash-items'] button[data-action='concurrency']"));
        waiting().until(attributeIs(row, "data-concurrency", "2"));
        awaitText(By.cssSelector("tr[data-queue='dash-items'] .queue-limit"), "2");

        click(By.cssSelector("tr[data-queue='dash-items'] button[data-action='resume']"));
        waiting().until(attributeIs(row, "data-state", "running"));
        awaitState(waiting, "DONE");

        click(By.cssSelector("tr[data-queue='dash-items'] button[data-action='stop-after-current']"));
        awaitText(By.cssSelector("tr[data-queue='dash-items'] .queue-state"), "paused: stop after current");
        click(By.cssSelector("tr[data-queue='dash-items'] button[data-action='resume']"));
        waiting().until(attributeIs(row, "data-state", "running"));
        limit.sendKeys(Keys.chord(Keys.CONTROL, "a"), "0");
        click(By.cssSelector("tr[data-queue='dash-items'] button[data-action='concurrency']"));
        waiting().until(attributeIs(row, "data-concurrency", "0"));
        assertThat(service.engine().store().queue(DashboardTestService.QUEUE).paused()).isFalse();
        screenshot("overview");
    }

    @Test
    void aFailedTaskIsRetriedFromItsPageAndARefusalShowsItsCode() throws IOException {
        factory.control.failing.add("page-retry");
        long id = service.addItem(Map.of("name", "page-retry", "customer", "ACME-17"));
        awaitState(id, "FAILED");
        open(running.base(), "#/task/" + id);
        setActor("tester");
        awaitText(By.id("task-state"), "FAILED");
        assertThat(driver.findElement(By.cssSelector("#last-error .error-code")).getText()).isEqualTo("DASH_FAILED");
        factory.control.failing.remove("page-retry");
        await(By.cssSelector("button[data-event='RETRY']"));
        click(By.cssSelector("button[data-event='RETRY']"));
        awaitText(By.id("task-state"), "DONE");
        waiting().until(d -> d.findElement(By.id("history")).getText().contains("by user tester"));
        assertThat(driver.findElement(By.id("history")).getText()).contains("RETRY");
        screenshot("task");

        // a guard refuses: the page shows the refusal's code
        factory.control.failing.add("page-locked");
        long locked = service.addItem(Map.of("name", "page-locked", "locked", "true"));
        awaitState(locked, "FAILED");
        open(running.base(), "#/task/" + locked);
        await(By.cssSelector("button[data-event='RETRY']"));
        click(By.cssSelector("button[data-event='RETRY']"));
        waiting().until(attributeIs(By.id("action-result"), "data-error-code", "RETRY_LOCKED"));
        assertThat(driver.findElement(By.id("action-result")).getText()).startsWith("RETRY_LOCKED").contains("allowed now: RETRY, CANCEL");
        screenshot("task-refused");

        // a stale page (as a second tab is until its next read): its reads are held, so it keeps offering CANCEL
        // while another tab cancels the task; its click is refused by the table, with the code and what is allowed now
        driver.executeScript("const send = window.fetch;"
                + "window.fetch = (url, init) => init && init.method === 'POST' ? send(url, init) : new Promise(() => {});");
        assertThat(api.as("other-tab").post("/ui/api/tasks/" + locked + "/events", "{\"event\":\"CANCEL\"}").status()).isEqualTo(200);
        assertThat(driver.findElement(By.id("task-state")).getText()).isEqualTo("FAILED");
        click(By.cssSelector("button[data-event='CANCEL']"));
        waiting().until(attributeIs(By.id("action-result"), "data-error-code", "ILLEGAL_TRANSITION"));
        assertThat(driver.findElement(By.id("action-result")).getText()).contains("allowed now: nothing");
        open(running.base(), "#/task/" + locked);
        awaitText(By.id("task-state"), "CANCELLED");
        assertThat(driver.findElement(By.id("history")).getText()).contains("by user other-tab");
    }

    @Test
    void aParentsProgressBarIsFollowedTo100PercentAndItsFailedChildrenRetried() throws IOException {
        factory.control.failing.add("child-c");
        long batch = service.addBatch("progress-1", List.of(
                Map.of("name", "child-a", "gate", "first"),
                Map.of("name", "child-b", "gate", "first"),
                Map.of("name", "child-c"),
                Map.of("name", "child-d", "gate", "second")));
        open(running.base(), "#/task/" + batch);
        By bar = By.id("progress");
        waiting().until(attributeIs(bar, "aria-valuenow", "25"));
        awaitText(By.id("progress-percent"), "25 %");
        waiting().until(d -> d.findElement(By.id("children-by-state")).getText().contains("RUNNING 3"));
        screenshot("parent-running");

        factory.control.open("first");
        waiting().until(attributeIs(bar, "aria-valuenow", "75"));
        factory.control.open("second");
        waiting().until(attributeIs(bar, "aria-valuenow", "100"));
        awaitText(By.id("task-state"), "FAILED");
        assertThat(driver.findElement(By.id("progress-summary")).getText()).contains("3 succeeded, 1 failed");

        factory.control.failing.remove("child-c");
        WebElement retry = driver.findElement(By.id("retry-failed-children"));
        waiting().until(ExpectedConditions.elementToBeClickable(retry)).click();
        awaitText(By.id("children-result"), "retried 1 failed child");
        awaitText(By.id("task-state"), "DONE");
        waiting().until(attributeIs(bar, "aria-valuenow", "100"));
        awaitText(By.id("progress-percent"), "100 %");
        assertThat(driver.findElement(By.id("progress-summary")).getText()).contains("4 of 4 ended: 4 succeeded, 0 failed");
        screenshot("parent");
    }

    /** The activity of dash-items over the last hour, summed, as the API counts it now. */
    private static JsonNode activityTotal() {
        for (JsonNode q : api.get("/ui/api/activity").json().path("queues")) {
            if (q.path("queue").asText().equals("dash-items")) return q.path("total");
        }
        throw new AssertionError("no activity of dash-items");
    }

    @Test
    void theOverviewChartsEachQueuesWorkOfTheLastHourFromTheHistory() throws IOException {
        factory.control.failing.add("chart-fails");
        long ok = service.addItem(Map.of("name", "chart-succeeds"));
        long failed = service.addItem(Map.of("name", "chart-fails"));
        awaitState(ok, "DONE");
        awaitState(failed, "FAILED");
        JsonNode total = activityTotal();
        assertThat(total.path("started").asLong()).isGreaterThanOrEqualTo(2);
        assertThat(total.path("succeeded").asLong()).isGreaterThanOrEqualTo(1);
        assertThat(total.path("failed").asLong()).isGreaterThanOrEqualTo(1);

        open(running.base(), "#/");
        await(By.cssSelector("figure.chart[data-queue='dash-items']"));
        for (String series : List.of("started", "succeeded", "failed", "retried")) {
            By legend = By.cssSelector("figure.chart[data-queue='dash-items'] .chart-legend li[data-series='" + series + "']");
            // the page reads the activity every 10 s: it shows what the API counts now
            waiting().until(d -> d.findElement(legend).getAttribute("data-total").equals(activityTotal().path(series).asText()));
            WebElement item = driver.findElement(legend);
            assertThat(item.getText()).as("the legend says what it counts and how many")
                    .isEqualTo(Character.toUpperCase(series.charAt(0)) + series.substring(1) + " " + item.getAttribute("data-total"));
            assertThat(item.getAttribute("title")).isNotBlank();
            assertThat(driver.findElements(By.cssSelector("figure.chart[data-queue='dash-items'] polyline[data-series='" + series + "']")))
                    .as("a line of the " + series + " series").hasSize(1);
        }
        assertThat(Long.parseLong(driver.findElement(By.cssSelector(
                "figure.chart[data-queue='dash-items'] .chart-legend li[data-series='succeeded']")).getAttribute("data-total")))
                .isGreaterThanOrEqualTo(1);
        assertThat(driver.findElement(By.id("activity-captions")).getText()).contains("Started", "Succeeded", "Failed", "Retried",
                "every process sharing the store");
        screenshot("activity");
    }

    @Test
    void hostileValuesAreShownAsTextAndNeverRun() throws IOException {
        factory.control.failing.add(HOSTILE_IMG);
        long id = service.addItem(Map.of("name", HOSTILE_IMG, "note", HOSTILE_SCRIPT, HOSTILE_IMG, HOSTILE_SCRIPT));
        awaitState(id, "FAILED");
        open(running.base(), "#/task/" + id);
        awaitText(By.id("task-state"), "FAILED");
        List<WebElement> keys = driver.findElements(By.cssSelector("#attributes td.k"));
        List<WebElement> values = driver.findElements(By.cssSelector("#attributes td.v"));
        assertThat(keys.stream().map(WebElement::getText)).containsExactlyInAnyOrder(HOSTILE_IMG, "name", "note");
        assertThat(values.stream().map(WebElement::getText)).contains(HOSTILE_SCRIPT, HOSTILE_IMG);
        assertThat(driver.findElement(By.cssSelector("#last-error .error-message")).getText()).isEqualTo("item " + HOSTILE_IMG + " failed as the test asked");
        assertHarmless();
        screenshot("hostile");

        // the list and its search show them as text too
        open(running.base(), "#/tasks?machine=dash-item&q=" + java.net.URLEncoder.encode("<script>", StandardCharsets.UTF_8));
        waiting().until(d -> d.findElement(By.cssSelector("table.tasks tbody")).getText().contains(HOSTILE_SCRIPT));
        assertThat(driver.findElement(By.cssSelector("input[name='q']")).getAttribute("value")).isEqualTo("<script>");
        assertHarmless();
    }

    private static void assertHarmless() {
        assertNoAlert();
        JavascriptExecutor js = driver;
        assertThat(js.executeScript("return document.querySelectorAll('img').length")).isEqualTo(0L);
        assertThat(js.executeScript("return document.scripts.length")).as("only the page's own module").isEqualTo(1L);
        assertThat(js.executeScript("return document.querySelectorAll('[onerror],[onload],[onclick]').length")).isEqualTo(0L);
    }

    @Test
    void listsKeepTheirFiltersInTheAddressAndTheMachineIsDrawn() throws IOException {
        long first = service.addItem(Map.of("name", "list-first", "region", "north"));
        long second = service.addItem(Map.of("name", "list-second", "region", "south"));
        awaitState(first, "DONE");
        awaitState(second, "DONE");
        open(running.base(), "#/tasks?machine=dash-item&state=DONE");
        By rowOf = By.cssSelector("table.tasks tr[data-id='" + second + "']");
        await(rowOf);
        assertThat(driver.findElement(By.cssSelector("select[name='state']")).getAttribute("value")).isEqualTo("DONE");
        screenshot("tasks");

        click(By.cssSelector("table.tasks tr[data-id='" + second + "'] a"));
        awaitText(By.id("task-state"), "DONE");
        driver.navigate().back();
        await(rowOf);
        assertThat(driver.getCurrentUrl()).endsWith("#/tasks?machine=dash-item&state=DONE");
        assertThat(driver.findElement(By.cssSelector("select[name='machine']")).getAttribute("value")).isEqualTo("dash-item");

        WebElement search = driver.findElement(By.cssSelector("input[name='q']"));
        search.sendKeys("south");
        click(By.cssSelector("form.filters button[type='submit']"));
        waiting().until(ExpectedConditions.urlContains("q=south"));
        waiting().until(d -> d.findElements(By.cssSelector("table.tasks tbody tr[data-id]")).size() == 1);
        await(rowOf);
        driver.navigate().refresh();
        await(rowOf);
        assertThat(driver.findElement(By.cssSelector("input[name='q']")).getAttribute("value")).isEqualTo("south");

        open(running.base(), "#/machine/dash-item");
        await(By.cssSelector("svg.diagram"));
        assertThat(driver.findElements(By.cssSelector("svg.diagram g.node"))).hasSize(6);
        assertThat(driver.findElements(By.cssSelector("svg.diagram .edge-label")).size()).isGreaterThanOrEqualTo(8);
        waiting().until(d -> d.findElement(By.cssSelector("svg.diagram g.node[data-state='DONE'] .node-count")).getText().matches("[1-9][0-9]* tasks?"));
        screenshot("machine");
    }

    @Test
    void figuresSayWhatTheyCountErrorsShowWhileTheyHoldAndButtonsSayWhatTheyDo() throws IOException {
        open(running.base(), "#/");
        await(By.cssSelector("tr[data-queue='dash-items']"));
        assertThat(driver.findElement(By.id("queue-captions")).getText()).contains("Waiting", "never a finished task", "Oldest waiting");
        awaitText(By.id("waiting-from"), "Waiting and oldest waiting: the runtime's metrics (the runnable tasks of the machines it serves).");
        assertThat(driver.findElement(By.cssSelector("table.queues th[title]")).getAttribute("title")).isNotEmpty();

        // a locked failed item: its error on top, Retry shown as refused by its guard before any click
        factory.control.failing.add("words-locked");
        long locked = service.addItem(Map.of("name", "words-locked", "locked", "true", "discard", "true"));
        awaitState(locked, "FAILED");
        open(running.base(), "#/task/" + locked);
        setActor("words");
        await(By.cssSelector("#current-error .error-code"));
        assertThat(driver.findElement(By.cssSelector("#current-error .error-code")).getText()).isEqualTo("DASH_FAILED");
        assertThat(driver.findElement(By.id("last-error-title")).getText()).isEqualTo("Last error (current)");
        WebElement refused = await(By.cssSelector("#refused-now li[data-event='RETRY']"));
        assertThat(refused.getText()).contains("Retry", RETRY_LOCKED_TEXT);
        assertThat(driver.findElement(By.cssSelector("#refused-now button[data-event='RETRY'] .event-title")).getText()).isEqualTo("Retry");

        // a cancel that deletes asks first, naming what it deletes; No changes nothing, Yes sends it
        click(By.cssSelector(".allowed-now button[data-event='CANCEL']"));
        assertThat(await(By.id("action-question")).getText()).isEqualTo("Cancel deletes item #" + locked + " and its result, for good. Go on?");
        click(By.cssSelector("#action-confirm button.dismiss"));
        awaitText(By.id("action-result"), "Cancel not sent: nothing changed.");
        assertThat(api.get("/ui/api/tasks/" + locked).field("state")).isEqualTo("FAILED");
        click(By.cssSelector(".allowed-now button[data-event='CANCEL']"));
        await(By.cssSelector("#action-confirm button.confirm[data-confirm='CANCEL']"));
        click(By.cssSelector("#action-confirm button.confirm[data-confirm='CANCEL']"));
        awaitText(By.id("task-state"), "CANCELLED");
        assertThat(driver.findElement(By.id("action-result")).getText()).isEqualTo("Cancel: now CANCELLED");

        // a parent whose only failed child comes after the first page: failed children first, filtered by state with counts
        factory.control.failing.add("many-last");
        List<Map<String, String>> items = new ArrayList<>();
        for (int i = 0; i < 24; i++) items.add(Map.of("name", "many-" + i));
        items.add(Map.of("name", "many-last"));
        long batch = service.addBatch("many-children", items);
        awaitState(batch, "FAILED");
        open(running.base(), "#/task/" + batch);
        await(By.cssSelector("#children-list tr[data-id]"));
        waiting().until(d -> d.findElements(By.cssSelector("#children-list tr[data-id]")).size() == 1);
        assertThat(driver.findElement(By.cssSelector("#children-list tr[data-id] .state")).getText()).isEqualTo("FAILED");
        assertThat(driver.findElement(By.cssSelector("#children-filter button[data-filter='FAILED']")).getText()).isEqualTo("FAILED (1)");
        assertThat(driver.findElement(By.cssSelector("#current-error .error-code")).getText()).isEqualTo("CHILDREN_FAILED");
        click(By.cssSelector("#children-filter button[data-filter='all']"));
        waiting().until(d -> d.findElements(By.cssSelector("#children-list tr[data-id]")).size() == 20);
        await(By.id("children-next"));
        click(By.id("children-next"));
        waiting().until(d -> d.findElements(By.cssSelector("#children-list tr[data-id]")).size() == 5);
        assertThat(driver.findElement(By.id("children-status")).getText()).startsWith("All: 25 children");

        // once retried and done, the parent's error is history: no longer on top
        factory.control.failing.remove("many-last");
        click(By.id("retry-failed-children"));
        awaitText(By.id("task-state"), "DONE");
        awaitText(By.id("last-error-title"), "Last error (resolved)");
        assertThat(driver.findElements(By.cssSelector("#current-error .error-code"))).isEmpty();
        screenshot("parent-children");
    }

    private static final String RETRY_LOCKED_TEXT = "RETRY_LOCKED";

    @Test
    void aReadOnlyDashboardShowsNoControls() throws IOException {
        open(readOnly.base(), "#/");
        await(By.cssSelector("tr[data-queue='dash-items']"));
        assertThat(driver.findElement(By.id("mode")).isDisplayed()).isTrue();
        assertThat(driver.findElements(By.cssSelector("button[data-action]"))).isEmpty();
        assertThat(driver.findElements(By.cssSelector(".limit-input"))).isEmpty();
        screenshot("read-only");
    }

    /** Saves what the browser shows to docs/dashboard/NAME.png when asked with -Dstatekit.screenshots=true. */
    private static void screenshot(String name) throws IOException {
        if (!Boolean.getBoolean("statekit.screenshots")) return;
        Path docs = docs();
        Path folder = docs.resolve("dashboard");
        Files.createDirectories(folder);
        // the whole page: the window made as tall as the page (at most 2400 pixels) for the shot
        org.openqa.selenium.Dimension size = driver.manage().window().getSize();
        long height = (Long) driver.executeScript("return Math.ceil(document.documentElement.scrollHeight)");
        long viewport = (Long) driver.executeScript("return window.innerHeight");
        driver.manage().window().setSize(new org.openqa.selenium.Dimension(size.getWidth(),
                (int) Math.min(2400, size.getHeight() + Math.max(0, height - viewport))));
        byte[] png;
        try {
            png = driver.getScreenshotAs(OutputType.BYTES);
        } finally {
            driver.manage().window().setSize(size);
        }
        Path tmp = folder.resolve(name + ".png.tmp");
        Files.write(tmp, png);
        Files.move(tmp, folder.resolve(name + ".png"), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    private static Path docs() {
        String property = System.getProperty("statekit.docsDir");
        if (property != null) return Paths.get(property);
        for (Path p = Paths.get(System.getProperty("user.dir")).toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("settings.gradle")) && Files.isDirectory(p.resolve("docs"))) return p.resolve("docs");
        }
        throw new IllegalStateException("no docs folder above " + System.getProperty("user.dir") + "; set -Dstatekit.docsDir");
    }
}
