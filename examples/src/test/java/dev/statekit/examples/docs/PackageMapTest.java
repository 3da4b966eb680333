package dev.statekit.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The package map of docs/getting-started.md names every public type of the API packages, each in its package. */
class PackageMapTest {
    /** The API packages and the source directories of their modules. */
    static final Map<String, String> PACKAGES = Map.ofEntries(
            Map.entry("dev.statekit.core", "core/src/main/java"),
            Map.entry("dev.statekit.core.runtime", "core/src/main/java"),
            Map.entry("dev.statekit.core.ops", "core/src/main/java"),
            Map.entry("dev.statekit.core.schedule", "core/src/main/java"),
            Map.entry("dev.statekit.core.spi", "core/src/main/java"),
            Map.entry("dev.statekit.store", "store-spi/src/main/java"),
            Map.entry("dev.statekit.store.memory", "store-spi/src/main/java"),
            Map.entry("dev.statekit.store.support", "store-spi/src/main/java"),
            Map.entry("dev.statekit.jdbc", "store-jdbc/src/main/java"),
            Map.entry("dev.statekit.micrometer", "core/micrometer/src/main/java"),
            Map.entry("dev.statekit.opentelemetry", "core/opentelemetry/src/main/java"),
            Map.entry("dev.statekit.dashboard", "core/dashboard/src/main/java"),
            Map.entry("dev.statekit.spring", "core/spring-boot-starter/src/main/java"),
            Map.entry("dev.statekit.spring.autoconfigure", "core/spring-boot-starter/src/main/java"));

    /** Every row of the map's second table: the types named, by package. */
    static Map<String, Set<String>> map() throws IOException {
        String section = Markdown.section(Markdown.read("docs/getting-started.md"), "Package map");
        Map<String, Set<String>> named = new TreeMap<>();
        for (List<String> row : Markdown.tableRows(section)) {
            List<String> packages = Markdown.code(row.get(1));
            if (packages.size() != 1 || !packages.get(0).startsWith("dev.statekit") || Markdown.code(row.get(0)).isEmpty()
                    || Markdown.code(row.get(0)).get(0).startsWith("dev.")) {
                continue;           // the first table: packages and artifacts
            }
            named.computeIfAbsent(packages.get(0), k -> new TreeSet<>()).addAll(Markdown.code(row.get(0)));
        }
        return named;
    }

    @Test
    void everyTypeTheMapNamesIsAPublicTypeOfItsPackage() throws IOException {
        Map<String, Set<String>> named = map();
        assertThat(named.keySet()).as("packages of the map").isEqualTo(new TreeSet<>(PACKAGES.keySet()));
        List<String> wrong = new ArrayList<>();
        named.forEach((pkg, types) -> {
            for (String type : types) {
                try {
                    Class<?> c = Class.forName(pkg + "." + type, false, getClass().getClassLoader());
                    if (!Modifier.isPublic(c.getModifiers())) wrong.add(pkg + "." + type + " is not public");
                } catch (ClassNotFoundException e) {
                    wrong.add(pkg + "." + type + " does not exist");
                }
            }
        });
        assertThat(wrong).isEmpty();
    }

    @Test
    void everyPublicTypeOfTheApiPackagesIsInTheMap() throws IOException {
        Map<String, Set<String>> named = map();
        Map<String, Set<String>> missing = new TreeMap<>();
        for (Map.Entry<String, String> p : PACKAGES.entrySet()) {
            Set<String> types = publicTypes(p.getKey(), Markdown.ROOT.resolve(p.getValue()));
            assertThat(types).as("public types of " + p.getKey()).isNotEmpty();
            types.removeAll(named.getOrDefault(p.getKey(), Set.of()));
            if (!types.isEmpty()) missing.put(p.getKey(), types);
        }
        assertThat(missing).as("public types the package map of docs/getting-started.md does not name").isEmpty();
    }

    /** The public top-level types declared in the package's source files (not its subpackages). */
    static Set<String> publicTypes(String pkg, Path sourceRoot) throws IOException {
        Path dir = sourceRoot.resolve(pkg.replace('.', '/'));
        Set<String> types = new TreeSet<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(f -> f.toString().endsWith(".java")).collect(Collectors.toList())) {
                String name = f.getFileName().toString().replace(".java", "");
                if (name.equals("package-info")) continue;
                Pattern declaration = Pattern.compile("(?m)^public (\\w+ )*(class|interface|enum|record|@interface) " + name + "\\b");
                if (declaration.matcher(Files.readString(f)).find()) types.add(name);
            }
        }
        return types;
    }
}
