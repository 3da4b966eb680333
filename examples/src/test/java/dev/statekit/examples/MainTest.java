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
    void badUsageExitsWithStatus2() {
        assertThat(run("diagram").status()).isEqualTo(2);
        assertThat(run("frobnicate").status()).isEqualTo(2);
        assertThat(run("list", "extra").err()).startsWith("usage:");
    }

    @Test
    void listPrintsTheNames() {
        Run r = run("list");
        assertThat(r.status()).isZero();
        assertThat(r.out().lines()).containsExactlyElementsOf(NAMES);
    }

    @Test
    void withoutArgumentsTheNovelProoferHostRunsOnH2() {
        Run r = run();
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("store: H2 at jdbc:h2:file:").contains(Stores.DEFAULT_H2_DIR.toString())
                .contains("novel-proofer host:").contains("summary: job 1 DONE, 6/6 chunks done");
    }

    @Test
    void theUsageNamesEveryCommand() {
        String usage = run("frobnicate").err();
        for (String command : List.of("novel-proofer", "read-do", "etl", "compression", "demo", "list", "diagram NAME")) {
            assertThat(usage).contains(command);
        }
        assertThat(run("compression", "extra").status()).isEqualTo(2);
    }

    @Test
    void theDemoDrivesAnItemThroughItsLifecycle() {
        Run r = run("demo");
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
