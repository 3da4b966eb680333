package dev.statekit.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Configuration;

/**
 * Every property of {@link StatekitProperties} is in the jar's configuration metadata, with the
 * default it binds to, and in the table of docs/spring-boot.md, with the same default; and the
 * auto-configurations are registered.
 */
class PropertiesMetadataTest {
    static final Path PAGE = Path.of("").toAbsolutePath().getParent().getParent().resolve("docs/spring-boot.md");

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(StatekitProperties.class)
    static class Bound {}

    /** The properties as "statekit.group.kebab-name", with the value each binds to when nothing is set. */
    static Map<String, Object> boundDefaults() {
        Map<String, Object> defaults = new LinkedHashMap<>();
        new ApplicationContextRunner().withUserConfiguration(Bound.class).run(context -> {
            StatekitProperties p = context.getBean(StatekitProperties.class);
            for (RecordComponent group : StatekitProperties.class.getRecordComponents()) {
                Object value = group.getAccessor().invoke(p);
                for (RecordComponent c : group.getType().getRecordComponents()) {
                    defaults.put("statekit." + kebab(group.getName()) + "." + kebab(c.getName()), c.getAccessor().invoke(value));
                }
            }
        });
        return defaults;
    }

    static String kebab(String camel) {
        return camel.replaceAll("([A-Z])", "-$1").toLowerCase(java.util.Locale.ROOT);
    }

    /** The text metadata and docs give a default as: durations as written ("30s"), others as their value. */
    static String text(Object value) {
        if (value instanceof Duration d) {
            if (d.toMillis() % 60_000 == 0 && d.toMinutes() > 0) return d.toMinutes() + "m";
            if (d.toMillis() % 1000 == 0) return d.toSeconds() + "s";
            return d.toMillis() + "ms";
        }
        return String.valueOf(value);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Map<String, Object>> metadata() throws IOException {
        try (InputStream in = Objects.requireNonNull(PropertiesMetadataTest.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json"))) {
            Map<String, Object> json = new com.fasterxml.jackson.databind.ObjectMapper().readValue(in, Map.class);
            Map<String, Map<String, Object>> byName = new LinkedHashMap<>();
            for (Object p : (List<Object>) json.get("properties")) {
                Map<String, Object> property = (Map<String, Object>) p;
                byName.put((String) property.get("name"), property);
            }
            return byName;
        }
    }

    @Test
    void theMetadataNamesEveryPropertyWithTheDefaultItBindsTo() throws IOException {
        Map<String, Object> bound = boundDefaults();
        Map<String, Map<String, Object>> metadata = metadata();
        assertThat(bound).hasSize(26);
        TreeSet<String> expected = new TreeSet<>(bound.keySet());
        expected.add("management.health.statekit.enabled");
        assertThat(new TreeSet<>(metadata.keySet())).isEqualTo(expected);
        List<String> wrong = new ArrayList<>();
        bound.forEach((name, value) -> {
            Object declared = metadata.get(name).get("defaultValue");
            String want = value == null ? null : text(value);
            String have = declared == null ? null : String.valueOf(declared);
            if (!Objects.equals(want, have)) wrong.add(name + ": binds " + want + ", metadata says " + have);
            if (String.valueOf(metadata.get(name).getOrDefault("description", "")).isBlank()) wrong.add(name + ": no description");
        });
        assertThat(wrong).isEmpty();
    }

    @Test
    void thePageListsEveryPropertyWithItsDefault() throws IOException {
        String page = Files.readString(PAGE);
        List<String> wrong = new ArrayList<>();
        boundDefaults().forEach((name, value) -> {
            String row = "| `" + name + "` | " + (value == null ? "unset" : text(value)) + " |";
            if (!page.contains(row)) wrong.add(row);
        });
        if (!page.contains("| `management.health.statekit.enabled` | true |")) wrong.add("management.health.statekit.enabled");
        assertThat(wrong).as("rows missing from docs/spring-boot.md").isEmpty();
    }

    @Test
    void theAutoConfigurationsAreRegistered() throws IOException {
        try (InputStream in = Objects.requireNonNull(getClass().getResourceAsStream(
                "/META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports"))) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()).containsExactly(
                    "dev.statekit.spring.autoconfigure.StatekitAutoConfiguration",
                    "dev.statekit.spring.autoconfigure.StatekitRuntimeAutoConfiguration",
                    "dev.statekit.spring.autoconfigure.StatekitHealthAutoConfiguration",
                    "dev.statekit.spring.autoconfigure.StatekitMetricsAutoConfiguration",
                    "dev.statekit.spring.autoconfigure.StatekitDashboardAutoConfiguration");
        }
    }
}
