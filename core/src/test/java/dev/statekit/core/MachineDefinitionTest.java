package dev.statekit.core;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.statekit.store.ErrorCode;
import dev.statekit.store.TriggerSource;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MachineDefinitionTest {
    enum S { A, B, C, D, E, F }

    enum Ev { GO, STOP, BACK, POKE }

    static final Guard<S> ALWAYS = (task, command) -> Verdict.allow();

    private static List<String> defectsOf(MachineBuilder<S, Ev> builder) {
        MachineDefinitionException e = catchThrowableOfType(builder::build, MachineDefinitionException.class);
        assertThat(e).as("build() must refuse the definition").isNotNull();
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_DEFINITION);
        return e.defects();
    }

    @Test
    void buildReportsEveryDefectAtOnce() {
        MachineBuilder<S, Ev> b = Machine.builder("bad name", S.class, Ev.class)
                .version(0)
                .states(S.A, S.B, S.C, S.D, S.E)
                .initial(S.A)
                .terminal(S.D)
                .transition(S.A, Ev.GO, S.B, SYSTEM)
                .transition(S.B, Ev.GO, S.F, SYSTEM)                 // F is not one of the machine's states
                .transition(S.D, Ev.BACK, S.A, SYSTEM)               // leaves a terminal state
                .transition(S.C, Ev.GO, S.A, SYSTEM)                 // C is never entered
                .transition(S.A, Ev.STOP, S.E, SYSTEM)               // E has no way out
                .transition(S.B, Ev.BACK, S.A, SYSTEM)
                .transition(S.B, Ev.BACK, S.D, SYSTEM, USER)         // overlaps the row above, no guard
                .row(S.B, Ev.STOP, S.A).by(SYSTEM).guard("ready", ALWAYS).add()
                .row(S.B, Ev.STOP, S.D).by(SYSTEM).guard("ready", ALWAYS).add()
                .refuse(S.A, Ev.GO, "BUSY", "A is busy");            // but A allows GO
        MachineDefinitionException e = catchThrowableOfType(b::build, MachineDefinitionException.class);
        assertThat(e.defects()).containsExactly(
                "name 'bad name' must be 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit",
                "version must be positive, was 0",
                "row B --GO--> F by [SYSTEM] enters unknown state F",
                "row D --BACK--> A by [SYSTEM] leaves terminal state D",
                "rows B --BACK--> A by [SYSTEM] and B --BACK--> D by [SYSTEM, USER] are ambiguous: no guard tells them apart",
                "rows B --STOP [ready]--> A by [SYSTEM] and B --STOP [ready]--> D by [SYSTEM] are ambiguous: both use guard 'ready'",
                "named refusal BUSY for A/GO contradicts row A --GO--> B by [SYSTEM]",
                "state C is unreachable from A",
                "state E is not terminal but no row leaves it");
        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_DEFINITION);
        assertThat(e.getMessage()).startsWith("[INVALID_DEFINITION] machine 'bad name' has 9 defects: name 'bad name'")
                .contains("; version must be positive, was 0; ");
    }

    @Test
    void missingInitialBlankNameAndNegativeVersion() {
        assertThat(defectsOf(Machine.builder(" ", S.class, Ev.class).version(-3).states(S.A, S.B)
                .transition(S.A, Ev.GO, S.B, USER).transition(S.B, Ev.GO, S.A, USER)))
                .containsExactly(
                        "name ' ' must be 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit",
                        "version must be positive, was -3",
                        "no initial state");
        assertThat(defectsOf(Machine.builder("", S.class, Ev.class).states(S.A).initial(S.A).terminal(S.B)))
                .containsExactly(
                        "name '' must be 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit",
                        "terminal state B is unknown",
                        "state A is not terminal but no row leaves it");
    }

    @Test
    void namesFollowTheirSyntax() {
        for (String good : List.of("a", "chunk", "Job-2.v_1", "9lives", "x".repeat(100))) {
            Machine<S, Ev> m = twoStates(good).build();
            assertThat(m.name()).isEqualTo(good);
        }
        for (String bad : List.of("-x", ".x", "_x", "a b", "a/b", "ğ", "x".repeat(101), "a\n")) {
            assertThat(defectsOf(twoStates(bad))).singleElement().asString().startsWith("name '" + bad + "'");
        }
    }

    @Test
    void initialStateMustBeKnownAndNotTerminal() {
        assertThat(defectsOf(Machine.builder("m", S.class, Ev.class).states(S.A, S.B).initial(S.C)
                .terminal(S.B).transition(S.A, Ev.GO, S.B, SYSTEM)))
                .containsExactly("initial state C is unknown");
        assertThat(defectsOf(Machine.builder("m", S.class, Ev.class).states(S.A, S.B).initial(S.A)
                .terminal(S.A, S.B).transition(S.B, Ev.GO, S.A, SYSTEM)))
                .containsExactly("initial state A is terminal", "row B --GO--> A by [SYSTEM] leaves terminal state B",
                        "state B is unreachable from A");
        assertThat(defectsOf(Machine.builder("m", S.class, Ev.class).states()))
                .contains("no states declared", "no initial state");
    }

    @Test
    void aGuardInFrontOfAFallbackToTheSameStateDecidesNothing() {
        assertThat(defectsOf(Machine.builder("m", S.class, Ev.class).states(S.A, S.B).initial(S.A).terminal(S.B)
                .row(S.A, Ev.GO, S.B).by(SYSTEM).guard("ready", ALWAYS).add()
                .transition(S.A, Ev.GO, S.B, SYSTEM)))
                .containsExactly("rows A --GO [ready]--> B by [SYSTEM] and A --GO--> B by [SYSTEM] lead to the same state"
                        + " with the same effect: the guard decides nothing");
        // with an effect of its own, the guarded row does decide something
        Machine<S, Ev> m = Machine.builder("m", S.class, Ev.class).states(S.A, S.B).initial(S.A).terminal(S.B)
                .row(S.A, Ev.GO, S.B).by(SYSTEM).guard("ready", ALWAYS).effect((t, c, ch) -> ch.put("k", "v")).add()
                .transition(S.A, Ev.GO, S.B, SYSTEM)
                .build();
        assertThat(m.target(S.A, Ev.GO)).isEqualTo(S.B);
    }

    @Test
    void rowsWithDisjointSourcesOrDistinctGuardsAreNotAmbiguous() {
        Machine<S, Ev> m = Machine.builder("m", S.class, Ev.class).states(S.A, S.B, S.C, S.D).initial(S.A).terminal(S.D)
                .transition(S.A, Ev.GO, S.B, SYSTEM)
                .transition(S.A, Ev.GO, S.C, USER)
                .row(S.B, Ev.GO, S.C).by(SYSTEM).guard("one", ALWAYS).add()
                .row(S.B, Ev.GO, S.D).by(SYSTEM).guard("two", ALWAYS).add()
                .transition(S.C, Ev.GO, S.D, SYSTEM, USER)
                .build();
        assertThat(m.transitions(S.A, Ev.GO)).hasSize(2);
        assertThat(m.transitions(S.B, Ev.GO)).extracting(Transition::guardName).containsExactly("one", "two");
    }

    @Test
    void aGuardNameNeedsAGuardAndARowNeedsASource() {
        MachineBuilder<S, Ev> b = Machine.builder("m", S.class, Ev.class);
        assertThatThrownBy(() -> b.row(S.A, Ev.GO, S.B).add()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("by(");
        assertThatThrownBy(() -> b.row(S.A, Ev.GO, S.B).guard(" ", ALWAYS)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Transition<S, Ev>(S.A, Ev.GO, S.B, EnumSet.noneOf(TriggerSource.class), null, null, null, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Transition<S, Ev>(S.A, Ev.GO, S.B, EnumSet.of(SYSTEM), "g", null, null, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Transition<S, Ev>(S.A, Ev.GO, S.B, EnumSet.of(SYSTEM), null, ALWAYS, null, null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRowListsItsSourcesInDeclarationOrder() {
        Transition<S, Ev> t = new Transition<>(S.A, Ev.GO, S.B, Set.of(USER, SYSTEM), null, null, null, null);
        assertThat(List.copyOf(t.sources())).containsExactly(SYSTEM, USER);
        assertThat(t).hasToString("A --GO--> B by [SYSTEM, USER]");
        assertThat(t).isEqualTo(new Transition<>(S.A, Ev.GO, S.B, EnumSet.of(SYSTEM, USER), null, null, null, null));
        assertThatThrownBy(() -> t.sources().add(SYSTEM)).isInstanceOf(UnsupportedOperationException.class);
        assertThat(t.allows(USER)).isTrue();
        assertThat(t.guarded()).isFalse();
    }

    @Test
    void allowedEventsPerStateAndSource() {
        Machine<S, Ev> m = Machine.builder("m", S.class, Ev.class).states(S.A, S.B, S.C, S.D).initial(S.A).terminal(S.D)
                .transition(S.A, Ev.GO, S.B, SYSTEM)
                .transition(S.A, Ev.POKE, S.C, USER)
                .transition(S.A, Ev.STOP, S.D, SYSTEM, USER)
                .row(S.B, Ev.GO, S.C).by(USER).guard("g", ALWAYS).add()
                .transition(S.B, Ev.BACK, S.A, SYSTEM)
                .transition(S.C, Ev.STOP, S.D, SYSTEM)
                .build();
        assertThat(m.allowedEvents(S.A)).containsExactly(Ev.GO, Ev.STOP, Ev.POKE);
        assertThat(m.allowedEvents(S.A, SYSTEM)).containsExactly(Ev.GO, Ev.STOP);
        assertThat(m.allowedEvents(S.A, USER)).containsExactly(Ev.STOP, Ev.POKE);
        assertThat(m.allowedEvents(S.B)).containsExactly(Ev.GO, Ev.BACK);
        assertThat(m.allowedEvents(S.B, USER)).containsExactly(Ev.GO);
        assertThat(m.allowedEvents(S.B, SYSTEM)).containsExactly(Ev.BACK);
        assertThat(m.allowedEvents(S.D)).isEmpty();
        assertThat(m.allowedEvents(S.D, USER)).isEmpty();
        assertThat(m.allowedEvents(S.E)).isEmpty();          // not a state of this machine
        assertThatThrownBy(() -> m.allowedEvents(S.A).add(Ev.BACK)).isInstanceOf(UnsupportedOperationException.class);

        assertThat(m.permits(S.A, Ev.POKE)).isTrue();
        assertThat(m.permits(S.A, Ev.BACK)).isFalse();
        assertThat(m.permits(S.B, Ev.GO)).isTrue();          // guards are not evaluated
        assertThat(m.permits(S.D, Ev.GO)).isFalse();
    }

    @Test
    void targetIsThePureTableDecision() {
        Effect<S> mark = (t, c, ch) -> ch.put("via", "guard");
        Machine<S, Ev> m = Machine.builder("m", S.class, Ev.class).states(S.A, S.B, S.C, S.D).initial(S.A).terminal(S.D)
                .transition(S.A, Ev.GO, S.B, SYSTEM)
                .transition(S.A, Ev.GO, S.C, USER)                              // two targets: no single answer
                .row(S.B, Ev.GO, S.C).by(SYSTEM).guard("g", ALWAYS).effect(mark).add()
                .transition(S.B, Ev.GO, S.C, SYSTEM)                            // same target either way
                .row(S.C, Ev.GO, S.D).by(SYSTEM).guard("g", (t, c) -> Verdict.refuse("NO", "never")).add()
                .transition(S.C, Ev.STOP, S.D, SYSTEM)
                .build();
        assertThat(m.target(S.A, Ev.GO)).isNull();
        assertThat(m.target(S.B, Ev.GO)).isEqualTo(S.C);
        assertThat(m.target(S.C, Ev.GO)).isEqualTo(S.D);                    // the guard is not evaluated
        assertThat(m.target(S.A, Ev.STOP)).isNull();
        assertThat(m.target(S.D, Ev.GO)).isNull();
    }

    @Test
    void describesItself() {
        Machine<S, Ev> m = Machine.builder("doc", S.class, Ev.class).version(4).states(S.A, S.B, S.C).initial(S.A)
                .terminal(S.C)
                .transition(S.A, Ev.GO, S.B, SYSTEM)
                .transition(S.B, Ev.GO, S.C, SYSTEM)
                .build();
        assertThat(m.name()).isEqualTo("doc");
        assertThat(m.version()).isEqualTo(4);
        assertThat(m.stateType()).isEqualTo(S.class);
        assertThat(m.eventType()).isEqualTo(Ev.class);
        assertThat(m.initial()).isEqualTo(S.A);
        assertThat(m.states()).containsExactly(S.A, S.B, S.C);
        assertThat(m.terminals()).containsExactly(S.C);
        assertThat(m.isTerminal(S.C)).isTrue();
        assertThat(m.isTerminal(S.B)).isFalse();
        assertThat(m.transitions()).extracting(Transition::to).containsExactly(S.B, S.C);
        assertThat(m.state("B")).isEqualTo(S.B);
        assertThat(m.state("F")).isNull();                                  // restricted away
        assertThat(m.state("b")).isNull();
        assertThat(m.event("GO")).isEqualTo(Ev.GO);
        assertThat(m.event("go")).isNull();
        assertThat(m).hasToString("Machine[doc v4, 3 states, 2 rows]");
        assertThatThrownBy(() -> m.states().add(S.D)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> m.transitions().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void theBuilderCanBeReusedWithoutChangingABuiltMachine() {
        MachineBuilder<S, Ev> b = Machine.builder("m", S.class, Ev.class).states(S.A, S.B, S.C).initial(S.A)
                .terminal(S.B).transition(S.A, Ev.GO, S.B, SYSTEM).transition(S.C, Ev.GO, S.B, SYSTEM)
                .transition(S.A, Ev.STOP, S.C, SYSTEM);
        Machine<S, Ev> first = b.build();
        b.transition(S.A, Ev.POKE, S.B, USER).terminal(S.C).refuse(S.A, Ev.BACK, "NO", "no");
        assertThat(first.transitions()).hasSize(3);
        assertThat(first.terminals()).containsExactly(S.B);
        assertThat(first.permits(S.A, Ev.POKE)).isFalse();
    }

    @Test
    void mermaidDiagramHasOneEdgePerRow() {
        Machine<S, Ev> m = Machine.builder("door", S.class, Ev.class).states(S.A, S.B, S.C, S.D).initial(S.A)
                .terminal(S.C, S.D)
                .transition(S.A, Ev.GO, S.B, USER)
                .transition(S.B, Ev.BACK, S.A, USER, SYSTEM)
                .row(S.A, Ev.POKE, S.C).by(SYSTEM).guard("hard", ALWAYS).label("too: hard; really").add()
                .transition(S.B, Ev.STOP, S.D, SYSTEM)
                .build();
        assertThat(m.toMermaid()).isEqualTo("""
                stateDiagram-v2
                  [*] --> A
                  A --> B : GO (user)
                  B --> A : BACK
                  A --> C : POKE [hard] (system) - too  hard, really
                  B --> D : STOP (system)
                  C --> [*]
                  D --> [*]
                """);
    }

    @Test
    void mermaidDiagramCarriesTheDescriptionAsAComment() {
        Machine<S, Ev> m = Machine.builder("tiny", S.class, Ev.class).description("A tiny machine").states(S.A, S.B)
                .initial(S.A).terminal(S.B).transition(S.A, Ev.GO, S.B, SYSTEM, USER).build();
        assertThat(m.toMermaid()).isEqualTo("stateDiagram-v2\n  %% A tiny machine\n  [*] --> A\n"
                + "  A --> B : GO\n  B --> [*]\n");
    }

    @Test
    void theChunkMachineIsValid() {
        Machine<Chunk.State, Chunk.Event> m = Chunk.MACHINE;
        assertThat(m.initial()).isEqualTo(Chunk.State.PENDING);
        assertThat(m.allowedEvents(Chunk.State.PROCESSING)).containsExactly(
                Chunk.Event.SUCCEED, Chunk.Event.FAIL, Chunk.Event.RETRYABLE_ERROR, Chunk.Event.RELEASE);
        assertThat(m.allowedEvents(Chunk.State.ERROR, TriggerSource.USER)).containsExactly(Chunk.Event.RETRY_FAILED);
        assertThat(m.allowedEvents(Chunk.State.PENDING, TriggerSource.USER)).isEmpty();
    }

    private static MachineBuilder<S, Ev> twoStates(String name) {
        return Machine.builder(name, S.class, Ev.class).states(S.A, S.B).initial(S.A).terminal(S.B)
                .transition(S.A, Ev.GO, S.B, SYSTEM);
    }
}
