package dev.statekit.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every line of Java shown in docs/ stands in the sources of the examples, which their tests run. */
class DocSnippetsTest {
    static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    @ParameterizedTest
    @ValueSource(strings = {"docs/concepts.md", "docs/runtime.md", "docs/spring-boot.md", "docs/dashboard.md"})
    void javaShownInDocsIsCodeOfTheExamples(String doc) throws IOException {
        Set<String> sourceLines = new HashSet<>();
        try (Stream<Path> files = Files.walk(ROOT.resolve("examples/src/main/java"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).collect(Collectors.toList())) {
                for (String line : Files.readAllLines(f)) sourceLines.add(line.strip());
            }
        }
        List<String> shown = javaLines(Files.readString(ROOT.resolve(doc)));
        assertThat(shown).as("java lines in " + doc).isNotEmpty();
        List<String> missing = new ArrayList<>();
        for (String line : shown) if (!sourceLines.contains(line)) missing.add(line);
        assertThat(missing).as("lines of " + doc + " that are not in the examples' sources").isEmpty();
    }

    /** The non-blank lines of every ```java block, stripped; elision comments ("// ...") are skipped. */
    static List<String> javaLines(String markdown) {
        List<String> lines = new ArrayList<>();
        boolean inJava = false;
        for (String line : markdown.lines().collect(Collectors.toList())) {
            if (line.startsWith("```")) {
                inJava = !inJava && line.equals("```java");
                continue;
            }
            if (inJava && !line.isBlank() && !line.strip().equals("// ...")) lines.add(line.strip());
        }
        return lines;
    }
}
