package dev.statekit.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The packages by audience, checked on what the compiler wrote: the engine's package names no type
 * of the runtime's or the operations' (a type a class uses is named in its class file's constant
 * pool, whatever the source's comments say), every package has its package-info, the run policy
 * keeps its fields to itself, and no two classes of the project share a simple name.
 */
class LayeringTest {
    static final String RUNTIME = "dev/statekit/core/runtime/";
    static final String OPS = "dev/statekit/core/ops/";

    /** Returns the compiled bytes of class {@code name}, as Latin-1 text in which type names can be searched. */
    static String classFile(String name) {
        String resource = "/" + name.replace('.', '/') + ".class";
        try (InputStream in = Objects.requireNonNull(LayeringTest.class.getResourceAsStream(resource), resource)) {
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Returns the main (not test) classes compiled into {@code pkg}. */
    static List<String> mainClassesOf(String pkg) {
        List<String> main = new ArrayList<>();
        for (String name : ApiHygieneTest.classesOf(pkg)) {
            if (ApiHygieneTest.load(name).getProtectionDomain().getCodeSource().getLocation()
                    .equals(TransitionEngine.class.getProtectionDomain().getCodeSource().getLocation())) {
                main.add(name);
            }
        }
        return main;
    }

    /** Returns the main classes of {@code pkg} whose class files name a type of a package starting with one of {@code prefixes}. */
    static List<String> using(String pkg, String... prefixes) {
        List<String> found = new ArrayList<>();
        for (String name : mainClassesOf(pkg)) {
            String bytes = classFile(name);
            for (String p : prefixes) if (bytes.contains(p)) found.add(name + " uses " + p);
        }
        return found;
    }

    @Test
    void theCheckSeesATypeAClassUses() {
        assertThat(classFile("dev.statekit.core.runtime.TaskRuntime")).contains(RUNTIME + "Dispatcher", "dev/statekit/core/TransitionEngine");
        assertThat(classFile("dev.statekit.core.ops.TaskOperations")).contains("dev/statekit/core/internal/Kernel");
        assertThat(using("dev.statekit.core.runtime", OPS)).as("the runtime's cancellation goes through the operations").isNotEmpty();
    }

    @Test
    void theEnginesPackageUsesNothingOfTheRuntimeOrTheOperations() {
        assertThat(mainClassesOf("dev.statekit.core")).hasSizeGreaterThan(40).doesNotContain("dev.statekit.core.LayeringTest");
        assertThat(using("dev.statekit.core", RUNTIME, OPS)).isEmpty();
        assertThat(using("dev.statekit.core.spi", RUNTIME, OPS)).isEmpty();
        assertThat(using("dev.statekit.core.internal", RUNTIME, OPS)).isEmpty();
    }

    @Test
    void theSchedulesUseNothingOfTheEngineTheRuntimeOrTheOperations() {
        assertThat(mainClassesOf("dev.statekit.core.schedule")).contains("dev.statekit.core.schedule.Cron");
        assertThat(using("dev.statekit.core.schedule", "dev/statekit/core/runtime/", "dev/statekit/core/ops/", "dev/statekit/core/internal/",
                "dev/statekit/core/spi/", "dev/statekit/core/TransitionEngine", "dev/statekit/core/Machine")).isEmpty();
        assertThat(using("dev.statekit.core", "dev/statekit/core/schedule/")).isEmpty();
    }

    @Test
    void theOperationsDoNotDependOnTheRuntime() {
        assertThat(using("dev.statekit.core.ops", RUNTIME)).isEmpty();
    }

    @Test
    void everyPackageOpensWithAPackageInfo() {
        for (String pkg : List.of("dev.statekit.core", "dev.statekit.core.spi", "dev.statekit.core.internal", "dev.statekit.core.runtime",
                "dev.statekit.core.ops", "dev.statekit.core.schedule", "dev.statekit.store", "dev.statekit.store.support", "dev.statekit.store.memory")) {
            assertThat(LayeringTest.class.getResource("/" + pkg.replace('.', '/') + "/package-info.class")).as(pkg).isNotNull();
        }
    }

    @Test
    void theRunPolicyKeepsItsFieldsToItself() {
        List<String> open = new ArrayList<>();
        for (Field f : RunPolicy.class.getDeclaredFields()) {
            if (!f.isSynthetic() && !Modifier.isStatic(f.getModifiers()) && !Modifier.isPrivate(f.getModifiers())) open.add(f.getName());
        }
        assertThat(RunPolicy.class.getDeclaredFields()).isNotEmpty();
        assertThat(open).isEmpty();
    }

    @Test
    void noTwoClassesOfTheProjectShareASimpleName() throws IOException {
        Path root = projectRoot();
        Map<String, List<Path>> byName = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(f -> f.toString().endsWith(".java") && !f.getFileName().toString().equals("package-info.java"))
                    .filter(f -> root.relativize(f).toString().replace('\\', '/').matches("(.+/)?src/main/java/.+"))
                    .filter(f -> !root.relativize(f).toString().replace('\\', '/').matches("(.*/)?(build|target|node_modules)/.*"))
                    .forEach(f -> byName.computeIfAbsent(f.getFileName().toString(), k -> new ArrayList<>()).add(root.relativize(f)));
        }
        assertThat(byName).as("main classes found").hasSizeGreaterThan(150);
        Map<String, List<Path>> shared = new TreeMap<>();
        byName.forEach((name, paths) -> {
            if (paths.size() > 1) shared.put(name, paths);
        });
        assertThat(shared).isEmpty();
    }

    /** The checkout: the folder of {@code settings.gradle}, above the module the tests run in. */
    static Path projectRoot() {
        for (Path p = Paths.get("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.exists(p.resolve("settings.gradle")) && Files.isDirectory(p.resolve("core"))) return p;
        }
        throw new IllegalStateException("no settings.gradle above " + Paths.get("").toAbsolutePath());
    }
}
