package dev.statekit.examples.gettingstarted;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.statekit.examples.docs.Markdown;
import dev.statekit.jdbc.JdbcStore;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.TaskRecord;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** docs/getting-started.md: its program is the files of this package, which this test runs; its pom names what the build uses. */
class GettingStartedTest {
    static final String PAGE = "docs/getting-started.md";
    static final Path SOURCES = Markdown.ROOT.resolve("examples/src/test/java/dev/statekit/examples/gettingstarted");

    @Test
    void everyJavaBlockOfThePageIsInTheProgramAndEveryFileOfTheProgramIsShownWhole() throws IOException {
        Map<String, List<String>> files = programFiles();
        List<List<String>> blocks = Markdown.blocks(Markdown.read(PAGE), "java");
        assertThat(blocks).as("java blocks of " + PAGE).isNotEmpty();
        for (List<String> block : blocks) {
            assertThat(files.values().stream().anyMatch(lines -> Collections.indexOfSubList(lines, block) >= 0))
                    .as("this block of " + PAGE + " stands, line for line, in a file of " + SOURCES + ":\n" + String.join("\n", block))
                    .isTrue();
        }
        files.forEach((name, lines) -> assertThat(blocks).as(PAGE + " shows " + name + " whole").contains(lines));
    }

    @Test
    void theProgramShipsTheOrderAfterOneRetryRefusesBothCancellationsAndPrintsTheHistoryThePageShows(@TempDir Path dir)
            throws Exception {
        String printed = run(dir);
        assertThat(printed.lines()).containsExactly(
                "order 1 is SHIPPED, tracking TRK-1 to 1 Main St",
                "bob may not cancel: FORBIDDEN NOT_YOUR_ORDER (HTTP 403): only the customer may cancel an order"
                        + " (task 1, event CANCEL, actor bob)",
                "ana may not cancel: ILLEGAL_TRANSITION ALREADY_SHIPPED (HTTP 409): the order has left the warehouse"
                        + " (task 1 is SHIPPED; allowed events: [DELIVER])",
                "1 CREATED -PAY-> PAID by USER ana",
                "2 PAID -SHIP-> SHIPPING by SYSTEM shipping-1: claimed",
                "3 SHIPPING -RETRY-> PAID by SYSTEM shipping-1: CARRIER_BUSY: the carrier answered 503",
                "4 PAID -SHIP-> SHIPPING by SYSTEM shipping-1: claimed",
                "5 SHIPPING -SHIPPED-> SHIPPED by SYSTEM shipping-1",
                "6 SHIPPED -DELIVER-> DELIVERED by USER ana: signed for");
        List<String> shown = Markdown.blocks(Markdown.read(PAGE), "text").stream()
                .map(lines -> String.join("\n", lines) + "\n").collect(Collectors.toList());
        assertThat(shown).as(PAGE + " shows what the program prints").contains(printed);

        try (HikariDataSource pool = Database.pool(dir)) {          // what the database keeps after the program ended
            JdbcStore store = Database.store(pool);
            TaskRecord order = store.find(1).orElseThrow();
            assertThat(order.state()).isEqualTo("DELIVERED");
            assertThat(order.attempts()).as("two claims: the retry was a second attempt").isEqualTo(2);
            assertThat(order.retries()).isEqualTo(1);
            assertThat(order.lastError().code()).isEqualTo("CARRIER_BUSY");
            assertThat(order.attributes().asMap()).containsEntry("customer", "ana").containsEntry("address", "1 Main St")
                    .containsEntry("tracking", "TRK-1 to 1 Main St");
            assertThat(store.history(1)).extracting(HistoryEntry::event)
                    .containsExactly("PAY", "SHIP", "RETRY", "SHIP", "SHIPPED", "DELIVER");
        }
        assertThat(run(dir).lines().findFirst()).as("a second run finds the first order kept in the file")
                .contains("order 2 is SHIPPED, tracking TRK-2 to 1 Main St");
    }

    @Test
    void thePomOfThePageNamesThePublishedArtifactsAndTheVersionsTheProgramRanWith() throws Exception {
        List<List<String>> poms = Markdown.blocks(Markdown.read(PAGE), "xml");
        assertThat(poms).as("one pom.xml in " + PAGE).hasSize(1);
        Element project = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new java.io.ByteArrayInputStream(String.join("\n", poms.get(0)).getBytes(StandardCharsets.UTF_8)))
                .getDocumentElement();
        Map<String, String> dependencies = new LinkedHashMap<>();
        NodeList list = project.getElementsByTagName("dependency");
        for (int i = 0; i < list.getLength(); i++) {
            Element d = (Element) list.item(i);
            dependencies.put(text(d, "groupId") + ":" + text(d, "artifactId"), text(d, "version"));
        }
        String versions = Markdown.read("gradle/versions.gradle");
        String statekit = match(versions, "statekitVersion\\s*=\\s*'([^']+)'");
        Map<String, String> expected = new LinkedHashMap<>();
        for (String module : List.of("core", "store-jdbc")) {
            expected.put("dev.statekit:" + match(Markdown.read(module + "/build.gradle"), "ext\\.artifactId\\s*=\\s*'([^']+)'"), statekit);
        }
        expected.put("com.h2database:h2", match(versions, "h2\\s*:\\s*'([^']+)'"));
        expected.put("com.zaxxer:HikariCP", match(versions, "hikari\\s*:\\s*'([^']+)'"));
        expected.put("org.slf4j:slf4j-simple", match(versions, "slf4j\\s*:\\s*'([^']+)'"));
        assertThat(dependencies).isEqualTo(expected);
        assertThat(match(Markdown.read("build.gradle"), "group\\s*=\\s*'([^']+)'")).isEqualTo("dev.statekit");
    }

    private static String run(Path dir) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        GettingStarted.run(dir, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /** The program's files by name, as lines; its tests left out. */
    private static Map<String, List<String>> programFiles() throws IOException {
        Map<String, List<String>> files = new LinkedHashMap<>();
        try (Stream<Path> paths = Files.list(SOURCES)) {
            for (Path p : paths.sorted().collect(Collectors.toList())) {
                String name = p.getFileName().toString();
                if (name.endsWith(".java") && !name.endsWith("Test.java")) files.put(name, new ArrayList<>(Files.readAllLines(p)));
            }
        }
        assertThat(files).isNotEmpty();
        return files;
    }

    private static String text(Element parent, String tag) {
        return parent.getElementsByTagName(tag).item(0).getTextContent().strip();
    }

    private static String match(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        assertThat(m.find()).as(regex).isTrue();
        return m.group(1);
    }
}
