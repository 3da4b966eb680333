package dev.statekit.examples.serve.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.UnexpectedAlertBehaviour;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Headless Chromium driven through chromedriver, as installed (Debian's {@code chromium} and
 * {@code chromium-driver}, or the system properties {@code statekit.chromium} and
 * {@code statekit.chromedriver}): missing, a test fails on CI ({@code CI=true}) and is skipped
 * elsewhere. Every wait is on a condition, with a deadline.
 */
final class Browser implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(30);

    private final ChromeDriverService service;
    final ChromeDriver driver;

    private Browser(ChromeDriverService service, ChromeDriver driver) {
        this.service = service;
        this.driver = driver;
    }

    /** Starts the browser, or fails (on CI) or aborts the test when it is not installed. */
    static Browser start() throws IOException {
        Path chromium = Paths.get(System.getProperty("statekit.chromium", "/usr/bin/chromium"));
        Path chromedriver = Paths.get(System.getProperty("statekit.chromedriver", "/usr/bin/chromedriver"));
        if (!Files.isExecutable(chromium) || !Files.isExecutable(chromedriver)) {
            String missing = "the browser test needs " + chromium + " and " + chromedriver + " (apt-get install chromium chromium-driver)";
            if ("true".equals(System.getenv("CI"))) Assertions.fail(missing);
            Assumptions.abort(missing);
        }
        System.setProperty("webdriver.chrome.driver", chromedriver.toString());
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(chromedriver.toFile()).usingAnyFreePort().build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--no-first-run", "--disable-dev-shm-usage", "--window-size=1360,1000",
                "--force-device-scale-factor=1", "--lang=en-US", "--hide-scrollbars");
        options.setUnhandledPromptBehaviour(UnexpectedAlertBehaviour.IGNORE);
        options.setCapability("goog:loggingPrefs", Map.of("browser", "ALL"));
        try {
            return new Browser(service, new ChromeDriver(service, options));
        } catch (RuntimeException e) {
            service.stop();
            throw e;
        }
    }

    WebDriverWait waiting() {
        return new WebDriverWait(driver, WAIT);
    }

    /** Loads the dashboard of {@code base} afresh at {@code hash} and waits for its first read. */
    void open(String base, String hash) {
        driver.get("about:blank");
        driver.get(base + "/ui" + hash);
        waiting().until(d -> !d.findElement(By.id("live")).getText().startsWith("connecting"));
    }

    /** Sets the header's "Your name" and waits until the page keeps it. */
    void actor(String name) {
        WebElement actor = driver.findElement(By.id("actor"));
        actor.clear();
        actor.sendKeys(name);
        waiting().until(d -> name.equals(driver.executeScript("return localStorage.getItem('statekit.dashboard.actor')")));
    }

    WebElement await(By by) {
        return waiting().until(ExpectedConditions.visibilityOfElementLocated(by));
    }

    void awaitAttribute(By by, String attribute, String value) {
        waiting().until(ExpectedConditions.attributeToBe(by, attribute, value));
    }

    /** Returns the errors of the browser's console since the last call, apart from error statuses the tests ask for. */
    List<String> consoleErrors() {
        List<String> errors = new ArrayList<>();
        for (LogEntry e : driver.manage().logs().get(LogType.BROWSER)) {
            if (e.getLevel().intValue() >= Level.SEVERE.intValue() && !e.getMessage().contains("Failed to load resource: the server responded")) {
                errors.add(e.getMessage());
            }
        }
        return errors;
    }

    void assertNoConsoleErrors() {
        assertThat(consoleErrors()).isEmpty();
    }

    /** Saves what the browser shows to docs/dashboard/NAME.png when asked with -Dstatekit.screenshots=true. */
    void screenshot(String name) throws IOException {
        if (!Boolean.getBoolean("statekit.screenshots")) return;
        Path folder = docs().resolve("dashboard");
        Files.createDirectories(folder);
        Dimension size = driver.manage().window().getSize();
        long height = (Long) driver.executeScript("return Math.ceil(document.documentElement.scrollHeight)");
        long viewport = (Long) driver.executeScript("return window.innerHeight");
        driver.manage().window().setSize(new Dimension(size.getWidth(), (int) Math.min(2400, size.getHeight() + Math.max(0, height - viewport))));
        byte[] png;
        try {
            png = driver.getScreenshotAs(OutputType.BYTES);
        } finally {
            driver.manage().window().setSize(size);
        }
        Path tmp = folder.resolve(name + ".png.tmp");
        Files.write(tmp, png);
        Files.move(tmp, folder.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static Path docs() {
        String property = System.getProperty("statekit.docsDir");
        if (property != null) return Paths.get(property);
        for (Path p = Paths.get(System.getProperty("user.dir")).toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("settings.gradle")) && Files.isDirectory(p.resolve("docs"))) return p.resolve("docs");
        }
        throw new IllegalStateException("no docs folder above " + System.getProperty("user.dir") + "; set -Dstatekit.docsDir");
    }

    @Override
    public void close() {
        try {
            driver.quit();
        } finally {
            service.stop();
        }
    }
}
