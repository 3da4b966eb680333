package dev.statekit.examples.docs;

import dev.statekit.core.TransitionEngineBuilder;
import dev.statekit.core.runtime.TaskRuntimeBuilder;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.Children;
import dev.statekit.core.Command;
import dev.statekit.core.Dependencies;
import dev.statekit.core.Machine;
import dev.statekit.core.MachineBuilder;
import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.runtime.Retention;
import dev.statekit.core.RetryPolicy;
import dev.statekit.core.RunPolicy;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.jdbc.JdbcStore;
import dev.statekit.jdbc.JdbcStoreBuilder;
import dev.statekit.store.memory.InMemoryStore;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md lists every public method of the builders and option types, each in its
 * section, and the defaults it states are the code's.
 */
class ConfigurationPageTest {
    static final String PAGE = "docs/configuration.md";

    /** Builders: every public method is an option. The section of the page that lists them, by the start of its heading. */
    static final Map<Class<?>, String> BUILDERS = new LinkedHashMap<>();
    /** Immutable option types: their public methods that return the type itself (factories and withers) are the options. */
    static final Map<Class<?>, String> OPTION_TYPES = new LinkedHashMap<>();

    static {
        BUILDERS.put(TransitionEngineBuilder.class, "TransitionEngine");
        BUILDERS.put(MachineBuilder.class, "Machine (");
        BUILDERS.put(MachineBuilder.RowBuilder.class, "Rows");
        BUILDERS.put(Children.Builder.class, "Children");
        BUILDERS.put(Dependencies.Builder.class, "Dependencies");
        BUILDERS.put(RunPolicy.Builder.class, "Run policy");
        BUILDERS.put(TaskRuntimeBuilder.class, "TaskRuntime");
        BUILDERS.put(JdbcStoreBuilder.class, "JdbcStore");
        OPTION_TYPES.put(RetryPolicy.class, "RetryPolicy");
        OPTION_TYPES.put(QueueOptions.class, "QueueOptions");
        OPTION_TYPES.put(Retention.class, "Retention");
        OPTION_TYPES.put(TaskSpec.class, "TaskSpec");
        OPTION_TYPES.put(Command.class, "Command");
    }

    @Test
    void thePageListsEveryPublicMethodOfEveryBuilderAndOptionTypeInItsSection() throws IOException {
        String page = Markdown.read(PAGE);
        Map<String, Set<String>> missing = new LinkedHashMap<>();
        int checked = 0;
        Map<Class<?>, String> all = new LinkedHashMap<>(BUILDERS);
        all.putAll(OPTION_TYPES);
        for (Map.Entry<Class<?>, String> e : all.entrySet()) {
            String section = Markdown.section(page, e.getValue());
            Set<String> absent = new TreeSet<>();
            for (String option : options(e.getKey(), BUILDERS.containsKey(e.getKey()))) {
                checked++;
                if (!Pattern.compile("[`.]" + Pattern.quote(option) + "\\(").matcher(section).find()) absent.add(option);
            }
            if (!absent.isEmpty()) missing.put(e.getKey().getName() + " (section '" + e.getValue() + "')", absent);
        }
        assertThat(checked).isGreaterThan(100);
        assertThat(missing).as("options that " + PAGE + " does not list in their section").isEmpty();
    }

    @Test
    void theFactoriesThatStartTheBuildersAreInTheirSectionsHeadings() throws IOException {
        String page = Markdown.read(PAGE);
        assertThat(page).contains("## TransitionEngine (`TransitionEngine.builder()`)", "## TaskRuntime (`TaskRuntime.builder(engine)`)",
                "## JdbcStore (`JdbcStore.builder(dataSource)`)", "## Machine (`Machine.builder(name, State.class, Event.class)`)");
        // builder() returns the Builder, not the engine; within(store) is a view of the engine over another store, not an option
        assertThat(options(TransitionEngine.class, false)).containsExactly("within");
        assertThat(publicStatic(TransitionEngine.class, "builder")).isTrue();
        assertThat(publicStatic(TaskRuntime.class, "builder")).isTrue();
        assertThat(publicStatic(JdbcStore.class, "builder")).isTrue();
        assertThat(publicStatic(Machine.class, "builder")).isTrue();
    }

    @Test
    void theDefaultsThePageStatesAreTheCodes() throws Exception {
        String page = Markdown.read(PAGE);
        TransitionEngineBuilder engineBuilder = TransitionEngine.builder();
        expect(page, "TransitionEngine", "maxConflictRetries(", field(engineBuilder, "maxConflictRetries"), 100, "100");
        expect(page, "TransitionEngine", "awaitRecheck(", field(engineBuilder, "awaitRecheck"), Duration.ofSeconds(1), "1 s");

        TaskRuntimeBuilder runtime = TaskRuntime.builder(TransitionEngine.builder().store(new InMemoryStore()).build());
        expect(page, "TaskRuntime", "leaseDuration(", field(runtime, "leaseDuration"), Duration.ofSeconds(30), "30 s");
        expect(page, "TaskRuntime", "pollInterval(", field(runtime, "pollInterval"), Duration.ofSeconds(1), "1 s");
        expect(page, "TaskRuntime", "cancelGrace(", field(runtime, "cancelGrace"), Duration.ofSeconds(30), "30 s");
        expect(page, "TaskRuntime", "forceCancelAfterGrace(", field(runtime, "forceCancel"), true, "true");
        expect(page, "TaskRuntime", "heartbeat(", field(runtime, "heartbeat"), null, "a third of the lease");
        expect(page, "TaskRuntime", "batchSize(", field(runtime, "batchSize"), 0, "adaptive");
        expect(page, "TaskRuntime", "retentionBatch(", field(runtime, "retentionBatch"), 500, "500");
        expect(page, "TaskRuntime", "retentionInterval(", field(runtime, "retentionInterval"), Duration.ofMinutes(1), "1 minute");
        expect(page, "TaskRuntime", "workers(", field(runtime, "workers"),
                Math.max(2, Runtime.getRuntime().availableProcessors()), "the number of cores, at least 2");
        assertThat((String) field(runtime, "owner")).matches("runtime-[0-9a-f]{8}");
        expect(page, "TaskRuntime", "owner(", "runtime-", "runtime-", "`runtime-` and 8 hex digits");

        expect(page, "Machine (", "version(", field(Machine.builder("m", Dummy.class, Dummy.class), "version"), 1, "1");
        expect(page, "Run policy", "maxAttempts(", RunPolicy.DEFAULT_MAX_ATTEMPTS, 25, "25");

        JdbcStoreBuilder jdbc = JdbcStore.builder(dataSource());
        expect(page, "JdbcStore", "tablePrefix(", field(jdbc, "tablePrefix"), "statekit_", "`statekit_`");
        expect(page, "JdbcStore", "maxPayloadChars(", field(jdbc, "maxPayloadChars"), 1_048_576, "1,048,576");
        expect(page, "JdbcStore", "createSchemaIfMissing(", field(jdbc, "createSchemaIfMissing"), false, "false");
        assertThat(InMemoryStore.DEFAULT_MAX_PAYLOAD_CHARS).isEqualTo(1_048_576);
        assertThat(Markdown.section(page, "JdbcStore")).contains("`new InMemoryStore()` (1,048,576");

        RetryPolicy retry = RetryPolicy.defaults();
        assertThat(List.of(retry.maxRetries(), retry.initial(), retry.cap(), retry.jitter()))
                .containsExactly(3, Duration.ofSeconds(1), Duration.ofSeconds(30), 0.2);
        assertThat(row(page, "RetryPolicy", "RetryPolicy.defaults()"))
                .containsExactly("`RetryPolicy.defaults()`", "3", "1 s, 2 s, 4 s (doubling, capped at 30 s)",
                        "each delay reduced by a random fraction up to 0.2");

        assertThat(TaskSpec.defaults().priority()).isEqualTo(TaskSpec.NORMAL_PRIORITY).isZero();
        assertThat(row(page, "TaskSpec", "priority(").get(1)).startsWith("0 ");
        assertThat(QueueOptions.defaults().concurrency()).isEqualTo(-1);          // the stored limit is kept
        assertThat(QueueOptions.defaults().starvationLimit()).isZero();
        assertThat(row(page, "QueueOptions", "starvationLimit(").get(1)).isEqualTo("0 (off)");
    }

    enum Dummy { A }

    /** The public options of {@code type}: every public method of a builder; the public methods returning the type itself of an option type. */
    static Set<String> options(Class<?> type, boolean builder) {
        Set<String> names = new TreeSet<>();
        for (Method m : type.getDeclaredMethods()) {
            if (!Modifier.isPublic(m.getModifiers()) || m.isSynthetic() || m.isBridge()) continue;
            if (builder || m.getReturnType() == type) names.add(m.getName());
        }
        return names;
    }

    private static boolean publicStatic(Class<?> type, String name) {
        for (Method m : type.getDeclaredMethods()) {
            if (m.getName().equals(name) && Modifier.isStatic(m.getModifiers()) && Modifier.isPublic(m.getModifiers())) return true;
        }
        return false;
    }

    /** Checks that the code's default is {@code expected}, and that the page's default for {@code option} says {@code shown}. */
    private static void expect(String page, String section, String option, Object actual, Object expected, String shown) {
        if (expected instanceof String s && actual instanceof String a) assertThat(a).startsWith(s);
        else assertThat(actual).as("the default of " + option + " in the code").isEqualTo(expected);
        assertThat(row(page, section, option).get(1)).as("the default of " + option + " on the page").contains(shown);
    }

    /** The row of the table in {@code section} whose first cell starts with {@code option} in backticks. */
    private static List<String> row(String page, String section, String option) {
        List<List<String>> found = new ArrayList<>();
        for (List<String> row : Markdown.tableRows(Markdown.section(page, section))) {
            if (row.get(0).startsWith("`" + option)) found.add(row);
        }
        assertThat(found).as("rows of section " + section + " for " + option).hasSize(1);
        return found.get(0);
    }

    private static Object field(Object builder, String name) throws ReflectiveOperationException {
        Field f = builder.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(builder);
    }

    private static DataSource dataSource() {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
            throw new UnsupportedOperationException("a builder's defaults need no connection");
        });
    }
}
