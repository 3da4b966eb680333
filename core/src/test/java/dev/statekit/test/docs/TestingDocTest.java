package dev.statekit.test.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.test.MachineChecker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/testing.md shows code that runs: each of its Java blocks stands, line for line and in one
 * piece, in {@code Orders.java} or {@code OrderMachineTest.java} (whose tests run in this build)
 * or in store-spi's {@code InMemoryStoreContractTest.java} (whose tests run in store-spi's build),
 * and the matrix it shows is the one the checker prints for the machine it shows.
 */
class TestingDocTest {
    static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    static final Path SOURCES = ROOT.resolve("core/src/test/java/dev/statekit/test/docs");
    static final Path STORE_CONTRACT = ROOT.resolve("store-spi/src/test/java/dev/statekit/store/memory/InMemoryStoreContractTest.java");

    @Test
    void everyJavaBlockStandsWholeInTheSourcesThatRun() throws IOException {
        List<String> source = new ArrayList<>();
        for (Path file : List.of(SOURCES.resolve("Orders.java"), SOURCES.resolve("OrderMachineTest.java"), STORE_CONTRACT)) {
            source.addAll(stripped(Files.readAllLines(file)));
        }
        List<List<String>> blocks = javaBlocks(Files.readString(ROOT.resolve("docs/testing.md")));

        assertThat(blocks).as("java blocks of docs/testing.md").hasSizeGreaterThanOrEqualTo(2);
        for (List<String> block : blocks) {
            assertThat(Collections.indexOfSubList(source, block)).as("this block of docs/testing.md in the sources:\n%s",
                    String.join("\n", block)).isNotNegative();
        }
    }

    @Test
    void theMatrixShownIsTheOneTheCheckerPrints() throws IOException {
        String doc = Files.readString(ROOT.resolve("docs/testing.md"));

        assertThat(doc).contains(MachineChecker.of(Orders.ORDERS).check().assertPromises().toMarkdown());
    }

    /** The non-blank lines of each ```java block, stripped; a block's "// ..." lines split it in pieces. */
    static List<List<String>> javaBlocks(String markdown) {
        List<List<String>> blocks = new ArrayList<>();
        List<String> block = null;
        for (String line : markdown.lines().toList()) {
            if (line.startsWith("```")) {
                if (block != null && !block.isEmpty()) blocks.add(block);
                block = block == null && line.equals("```java") ? new ArrayList<>() : null;
                continue;
            }
            if (block == null || line.isBlank()) continue;
            if (line.strip().equals("// ...")) {
                if (!block.isEmpty()) blocks.add(block);
                block = new ArrayList<>();
            } else {
                block.add(line.strip());
            }
        }
        return blocks;
    }

    private static List<String> stripped(List<String> lines) {
        List<String> out = new ArrayList<>();
        for (String l : lines) if (!l.isBlank()) out.add(l.strip());
        return out;
    }
}
