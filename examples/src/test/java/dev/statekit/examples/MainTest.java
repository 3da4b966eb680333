package dev.statekit.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.Machine;
import dev.statekit.core.Transition;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class MainTest {
    static final List<String> NAMES = List.of("novel-proofer-job", "novel-proofer-chunk", "read-do-item", "etl-task", "compression-task");

    /** The output of one command line. */
    record Run(int status, String out, String err) {}

    static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static Stream<String> names() {
        return NAMES.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("names")
    void theDiagramStartsWithStateDiagramAndNamesEveryState(String name) {
        String diagram = Main.diagram(name).orElseThrow();
        Machine<?, ?> machine = SeedMachines.byName(name).orElseThrow();
        assertThat(diagram).startsWith("stateDiagram-v2\n");
        for (Enum<?> s : machine.states()) assertThat(diagram).contains(s.name());
        assertThat(diagram).contains("[*] --> " + machine.initial().name() + "\n");
        for (Enum<?> s : machine.terminals()) assertThat(diagram).contains(s.name() + " --> [*]\n");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("names")
    void theDiagramDrawsEveryRow(String name) {
        String diagram = Main.diagram(name).orElseThrow();
        for (Transition<?, ?> row : SeedMachines.byName(name).orElseThrow().transitions()) {
            assertThat(diagram).contains("  " + row.from() + " --> " + row.to() + " : " + row.event());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("names")
    void theDiagramCommandPrintsTheDiagram(String name) {
        Run r = run("diagram", name);
        assertThat(r.status()).isZero();
        assertThat(r.out()).isEqualTo(Main.diagram(name).orElseThrow());
        assertThat(r.err()).isEmpty();
    }

    @Test
    void anUnknownMachineExitsWithStatus2AndListsTheNames() {
        Run r = run("diagram", "no-such-machine");
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).contains("no-such-machine");
        for (String name : NAMES) assertThat(r.err()).contains(name);
        assertThat(Main.diagram("no-such-machine")).isEmpty();
    }

    @Test
    void everyBadCommandLineSaysWhatIsWrongAndExitsWithStatus2() {
        assertUsageError(run(), "no command given");
        assertUsageError(run("diagram"), "diagram needs a machine NAME: one of novel-proofer-job");
        assertUsageError(run("diagram", "read-do-item", "etl-task"), "diagram takes one NAME, not also 'etl-task'");
        assertUsageError(run("frobnicate"), "unknown command 'frobnicate'");
        assertUsageError(run("list", "extra"), "list takes no arguments, not 'extra'");
        assertUsageError(run("demo"), "demo needs a SYSTEM: one of novel-proofer, read-do, etl, compression, lifecycle");
        assertUsageError(run("demo", "frobnicate"), "unknown program 'frobnicate'");
        assertUsageError(run("demo", "lifecycle", "--in-memory"), "demo lifecycle runs in memory and takes no options");
        assertUsageError(run("read-do"), "unknown command 'read-do'; its scripted program is 'examples demo read-do'");
    }

    private static void assertUsageError(Run r, String problem) {
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).startsWith("examples: " + problem).contains("usage: examples serve SYSTEM");
    }

    @Test
    void helpPrintsTheUsageOnStandardOutputAndExitsWith0() {
        for (String help : List.of("--help", "-h", "help")) {
            Run r = run(help);
            assertThat(r.status()).isZero();
            assertThat(r.err()).isEmpty();
            assertThat(r.out()).startsWith("usage: examples serve SYSTEM");
        }
    }

    @Test
    void listPrintsTheNames() {
        Run r = run("list");
        assertThat(r.status()).isZero();
        assertThat(r.out().lines()).containsExactlyElementsOf(NAMES);
    }

    @Test
    void aProgramWithoutStoreOptionsRunsOnH2InTheUsersStatekitFolder() {
        Run r = run("demo", "novel-proofer");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(Main.DEMO_H2_DIR).isAbsolute();
        assertThat(r.out()).startsWith("store: H2 at jdbc:h2:file:" + Main.DEMO_H2_DIR.resolve("statekit"))
                .contains("novel-proofer host:").contains("summary: job 1 DONE, 6/6 chunks done");
    }

    @Test
    void theUsageNamesEveryCommand() {
        String usage = run("frobnicate").err();
        for (String command : List.of("serve SYSTEM", "demo SYSTEM", "novel-proofer", "read-do", "etl", "compression", "lifecycle",
                "list", "diagram NAME", "--help")) {
            assertThat(usage).contains(command);
        }
    }

    @Test
    void theDemoDrivesAnItemThroughItsLifecycle() {
        Run r = run("demo", "lifecycle");
        assertThat(r.status()).isZero();
        assertThat(r.out())
                .contains("refused   PROCESS")
                .contains("ILLEGAL_TRANSITION PROCESSING_IN_PROGRESS")
                .contains("PROCESSING -> READY")
                .contains("READY -> SHIPPED")
                .contains("SHIPPED -> ARCHIVED")
                .contains("ARCHIVED -> READY (v6)")
                .contains("history of item 1:");
        assertThat(r.out().lines().filter(l -> l.startsWith("  v"))).hasSize(6);
    }

    @Test
    void seedMachinesKnowsTheFiveMachinesByName() {
        assertThat(SeedMachines.all()).extracting(Machine::name).containsExactlyElementsOf(NAMES);
        assertThat(SeedMachines.names()).containsExactlyElementsOf(NAMES);
        for (Machine<?, ?> m : SeedMachines.all()) assertThat(SeedMachines.byName(m.name())).containsSame(m);
        assertThat(SeedMachines.byName("READ-DO-ITEM")).isEmpty();
    }
}
