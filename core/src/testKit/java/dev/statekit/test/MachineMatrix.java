package dev.statekit.test;

import dev.statekit.core.Machine;
import dev.statekit.core.RefusalCode;
import dev.statekit.store.TriggerSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What {@link MachineChecker#check()} found: for every reachable state, every event and every
 * trigger source, whether the engine applied the event (and to which state) or refused it (with
 * which code), plus the violations of the machine's promises. Immutable.
 *
 * @param <S> the state type
 * @param <E> the event type
 */
public final class MachineMatrix<S extends Enum<S>, E extends Enum<E>> {

    /** What the engine did with one event fired by one source at a task in one state. */
    public sealed interface Result permits Applied, Refused {}

    /**
     * The event was applied and moved the task to {@code target}.
     *
     * @param target the state the task was in afterwards
     */
    public record Applied(Enum<?> target) implements Result {
        /** Creates an applied result. */
        public Applied {
            Objects.requireNonNull(target, "target");
        }

        @Override
        public String toString() {
            return "→ " + target.name();
        }
    }

    /**
     * The event was refused, and changed nothing.
     *
     * @param code       the refusal's stable code
     * @param reasonCode the application's code: a guard's or a named refusal's, else {@code code.name()}
     */
    public record Refused(RefusalCode code, String reasonCode) implements Result {
        /** Creates a refused result. */
        public Refused {
            Objects.requireNonNull(code, "code");
            Objects.requireNonNull(reasonCode, "reasonCode");
        }

        @Override
        public String toString() {
            return reasonCode.equals(code.name()) ? "refused: " + code : "refused: " + code + " (" + reasonCode + ")";
        }
    }

    /**
     * One cell of the matrix: {@code event} fired by {@code source} at a task in {@code state}.
     *
     * @param state  the task's state
     * @param event  the event fired
     * @param source who fired it
     * @param result what the engine did
     * @param <S>    the state type
     * @param <E>    the event type
     */
    public record Cell<S extends Enum<S>, E extends Enum<E>>(S state, E event, TriggerSource source, Result result) {
        /** Creates a cell. */
        public Cell {
            Objects.requireNonNull(state, "state");
            Objects.requireNonNull(event, "event");
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(result, "result");
        }

        /** Returns whether the event was applied. */
        public boolean applied() {
            return result instanceof Applied;
        }
    }

    private final Machine<S, E> machine;
    private final List<Cell<S, E>> cells;
    private final Set<S> reachable;
    private final List<String> violations;

    MachineMatrix(Machine<S, E> machine, List<Cell<S, E>> cells, Set<S> reachable, List<String> violations) {
        this.machine = machine;
        this.cells = List.copyOf(cells);
        this.reachable = Collections.unmodifiableSet(reachable.isEmpty() ? EnumSet.noneOf(machine.stateType()) : EnumSet.copyOf(reachable));
        this.violations = List.copyOf(violations);
    }

    /** Returns the machine checked. */
    public Machine<S, E> machine() {
        return machine;
    }

    /** Returns every cell: reachable states in declaration order, then events, then sources. */
    public List<Cell<S, E>> cells() {
        return cells;
    }

    /** Returns the states a task reached through the engine, from the initial state. */
    public Set<S> reachable() {
        return reachable;
    }

    /** Returns the machine's states no task reached through the engine. */
    public Set<S> unreachable() {
        Set<S> all = EnumSet.copyOf(machine.states());
        all.removeAll(reachable);
        return Collections.unmodifiableSet(all);
    }

    /** Returns what the engine did with {@code event} fired by {@code source} in {@code state}, or null when the state was not reached. */
    public @Nullable Result result(S state, E event, TriggerSource source) {
        for (Cell<S, E> c : cells) if (c.state() == state && c.event() == event && c.source() == source) return c.result();
        return null;
    }

    /** Returns the state {@code event} by {@code source} moved a task in {@code state} to, or null when it was refused or not tried. */
    public @Nullable S target(S state, E event, TriggerSource source) {
        Result r = result(state, event, source);
        return r instanceof Applied a ? machine.stateType().cast(a.target()) : null;
    }

    /** Returns the violations of the machine's promises found while checking; empty when it keeps them all. */
    public List<String> violations() {
        return violations;
    }

    /**
     * Asserts the machine's promises: no event leaves a terminal state, every applied event
     * follows a row of the table for its source and wrote one history entry, and every refusal
     * changed nothing (state, version, attributes and history). Returns this matrix.
     *
     * @throws AssertionError listing every violation
     */
    public MachineMatrix<S, E> assertPromises() {
        if (!violations.isEmpty()) {
            throw new AssertionError("machine " + machine.name() + " breaks " + violations.size() + " promise(s):\n  "
                    + String.join("\n  ", violations));
        }
        return this;
    }

    /**
     * Returns the matrix as a Markdown table: one line per reachable state and event, one column
     * per trigger source, each cell {@code → TARGET} or {@code refused: CODE}.
     */
    public String toMarkdown() {
        StringBuilder b = new StringBuilder();
        b.append("| state | event |");
        for (TriggerSource s : TriggerSource.values()) b.append(' ').append(s).append(" |");
        b.append('\n').append("|---|---|");
        for (int i = 0; i < TriggerSource.values().length; i++) b.append("---|");
        b.append('\n');
        List<Cell<S, E>> row = new ArrayList<>();
        for (Cell<S, E> c : cells) {
            row.add(c);
            if (row.size() == TriggerSource.values().length) {
                b.append("| ").append(c.state().name()).append(" | ").append(c.event().name()).append(" |");
                for (Cell<S, E> x : row) b.append(' ').append(x.result()).append(" |");
                b.append('\n');
                row.clear();
            }
        }
        return b.toString();
    }

    @Override
    public String toString() {
        return "MachineMatrix[" + machine.name() + ": " + reachable.size() + " reachable states, " + cells.size() + " cells, "
                + violations.size() + " violations]";
    }
}
