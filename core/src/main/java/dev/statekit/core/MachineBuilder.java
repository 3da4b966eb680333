package dev.statekit.core;

import dev.statekit.store.TriggerSource;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Builds an immutable {@link Machine}. Obtain one from {@link Machine#builder}.
 *
 * <p>Arguments are checked for null as they are given; everything else is checked by
 * {@link #build()}, which reports every defect at once. Not thread-safe.
 *
 * @param <S> the state type
 * @param <E> the event type
 */
public final class MachineBuilder<S extends Enum<S>, E extends Enum<E>> {
    final String name;
    final Class<S> stateType;
    final Class<E> eventType;
    int version = 1;
    @Nullable S initial;
    final EnumSet<S> terminals;
    @Nullable EnumSet<S> declaredStates;
    final List<Transition<S, E>> rows = new ArrayList<>();
    final Map<S, Map<E, Machine.Refusal>> refusals;
    @Nullable String description;
    @Nullable RunPolicy<S, E> runPolicy;
    final EnumMap<S, Ending> endings;
    final java.util.LinkedHashMap<String, RunPolicy<S, E>> stages = new java.util.LinkedHashMap<>();
    @Nullable Children<S, E> children;
    @Nullable Dependencies<S, E> dependencies;
    final EnumSet<S> retired;
    final java.util.LinkedHashMap<String, S> migrations = new java.util.LinkedHashMap<>();
    final EnumSet<S> unique;

    MachineBuilder(String name, Class<S> stateType, Class<E> eventType) {
        this.name = Objects.requireNonNull(name, "name");
        this.stateType = Objects.requireNonNull(stateType, "stateType");
        this.eventType = Objects.requireNonNull(eventType, "eventType");
        this.terminals = EnumSet.noneOf(stateType);
        this.refusals = new EnumMap<>(stateType);
        this.endings = new EnumMap<>(stateType);
        this.retired = EnumSet.noneOf(stateType);
        this.unique = EnumSet.noneOf(stateType);
    }

    /**
     * Declares the states in which a task created with a {@link TaskSpec#uniqueKey unique key} is
     * unique among the machine's tasks: while one task holding the key is in one of them, creating
     * another with the same key returns it. The task keeps its key while it moves between these
     * states and gives it up with the change that takes it out of them.
     *
     * <p>{@link #build()} checks the set against the table: it contains the initial state, and once
     * a task has left it no path of rows leads back into it (a state between two unique states that
     * is not unique itself would be a gap a duplicate slips through: a retry waiting outside the set
     * while a second task is created, then coming back). A claim row from a unique state stays in the
     * set. Each defect names the row that leaves the set and the path back.
     */
    @SafeVarargs
    public final MachineBuilder<S, E> unique(S... states) {
        Set<S> set = new java.util.HashSet<>();
        for (S s : states) set.add(Objects.requireNonNull(s, "state"));
        return unique(set);
    }

    /** Declares the unique states, as {@link #unique(Enum[])} does. */
    public MachineBuilder<S, E> unique(Set<S> states) {
        for (S s : states) unique.add(Objects.requireNonNull(s, "state"));
        if (states.isEmpty()) throw new IllegalArgumentException("no unique states given");
        return this;
    }

    /**
     * Retires {@code states}: no row may enter them any more, rows still leave them, so the tasks
     * in them drain. A retired state is not refused as unreachable; it must not be the initial state.
     */
    @SafeVarargs
    public final MachineBuilder<S, E> retire(S... states) {
        for (S s : states) retired.add(Objects.requireNonNull(s, "state"));
        return this;
    }

    /**
     * Declares that tasks stored in state {@code removedState}, which this version of the machine
     * no longer has, move to {@code to} when {@link TransitionEngine#migrate} runs: in batches, each
     * with a history entry (event {@code MIGRATE}). Until then, reading such a task is refused with
     * {@code SCHEMA_DRIFT} naming it.
     */
    public MachineBuilder<S, E> migrate(String removedState, S to) {
        Objects.requireNonNull(removedState, "removedState");
        migrations.put(removedState, Objects.requireNonNull(to, "to"));
        return this;
    }

    /** Sets the definition's version (default 1); must be positive. */
    public MachineBuilder<S, E> version(int value) {
        this.version = value;
        return this;
    }

    /** Sets a one-line description, shown as the diagram's title. */
    public MachineBuilder<S, E> description(String text) {
        this.description = Objects.requireNonNull(text, "description");
        return this;
    }

    /** Sets the state every new task starts in. Required. */
    public MachineBuilder<S, E> initial(S state) {
        this.initial = Objects.requireNonNull(state, "initial");
        return this;
    }

    /** Declares terminal states: no row may leave them. */
    @SafeVarargs
    public final MachineBuilder<S, E> terminal(S... states) {
        for (S s : states) terminals.add(Objects.requireNonNull(s, "terminal state"));
        return this;
    }

    /**
     * Restricts the machine to these states (default: every constant of the state enum). A row,
     * initial or terminal state outside them is reported by {@link #build()} as unknown.
     */
    @SafeVarargs
    public final MachineBuilder<S, E> states(S... states) {
        EnumSet<S> set = EnumSet.noneOf(stateType);
        for (S s : states) set.add(Objects.requireNonNull(s, "state"));
        this.declaredStates = set;
        return this;
    }

    /** Adds the unguarded row {@code from --event--> to}, fired by the given sources. */
    public MachineBuilder<S, E> transition(S from, E event, S to, TriggerSource source, TriggerSource... more) {
        return row(from, event, to).by(source, more).add();
    }

    /** Starts a row with a guard, an effect or a label; finish it with {@link RowBuilder#add()}. */
    public RowBuilder row(S from, E event, S to) {
        return new RowBuilder(Objects.requireNonNull(from, "from"), Objects.requireNonNull(event, "event"),
                Objects.requireNonNull(to, "to"));
    }

    /**
     * Names the refusal for an event the table does not allow in {@code state}: instead of the
     * generic {@link RefusalCode#ILLEGAL_TRANSITION} message, a refusal then carries
     * {@code code} (for example {@code PROCESSING_IN_PROGRESS}) and {@code message}.
     */
    public MachineBuilder<S, E> refuse(S state, E event, String code, String message) {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
        refusals.computeIfAbsent(state, k -> new EnumMap<>(eventType)).put(event, new Machine.Refusal(code, message));
        return this;
    }

    /**
     * Declares how the machine's tasks are run by a runtime: claimable states, the events for
     * worker results, waits, cancellation, blocking, recovery and retries. Checked against the
     * table by {@link #build()}.
     */
    public MachineBuilder<S, E> run(java.util.function.Consumer<RunPolicy.Builder<S, E>> spec) {
        RunPolicy.Builder<S, E> b = new RunPolicy.Builder<>(stateType);
        Objects.requireNonNull(spec, "spec").accept(b);
        this.runPolicy = b.build();
        return this;
    }

    /**
     * Declares a work stage: like {@link #run}, a run policy (claimable states, result events,
     * retries, recovery), one of several of the machine, served by its own worker
     * ({@code TaskRuntimeBuilder.registerStage}) and, with {@link RunPolicy.Builder#queue}, on its
     * own queue. A stage's success event may enter the next stage's claimable state: the chain is
     * rows of the table, written in one write, and each stage's attempts count from zero.
     *
     * @throws IllegalArgumentException if the name is blank or already declared
     */
    public MachineBuilder<S, E> stage(String name, java.util.function.Consumer<RunPolicy.Builder<S, E>> spec) {
        Objects.requireNonNull(name, "stage name");
        if (name.isBlank()) throw new IllegalArgumentException("stage name must not be blank");
        if (stages.containsKey(name)) throw new IllegalArgumentException("stage " + name + " is declared twice");
        RunPolicy.Builder<S, E> b = new RunPolicy.Builder<>(stateType);
        Objects.requireNonNull(spec, "spec").accept(b);
        stages.put(name, b.build());
        return this;
    }

    /** Declares states in which a task has ended with success, as groups count it (see {@link Ending}). */
    @SafeVarargs
    public final MachineBuilder<S, E> succeeded(S... states) {
        for (S s : states) endings.put(Objects.requireNonNull(s, "state"), Ending.SUCCEEDED);
        return this;
    }

    /** Declares states in which a task has ended in failure, as groups count it (see {@link Ending}). */
    @SafeVarargs
    public final MachineBuilder<S, E> failed(S... states) {
        for (S s : states) endings.put(Objects.requireNonNull(s, "state"), Ending.FAILED);
        return this;
    }

    /** Declares states in which a task has ended cancelled, as groups count it (see {@link Ending}). */
    @SafeVarargs
    public final MachineBuilder<S, E> cancelled(S... states) {
        for (S s : states) endings.put(Objects.requireNonNull(s, "state"), Ending.CANCELLED);
        return this;
    }

    /**
     * Declares that tasks of this machine have children of {@code childMachine}, created with
     * {@link TransitionEngine#fireWithChildren}, and what the group resolver does when they end.
     */
    public MachineBuilder<S, E> children(Machine<?, ?> childMachine, java.util.function.Consumer<Children.Builder<S, E>> spec) {
        Children.Builder<S, E> b = new Children.Builder<>(childMachine, stateType);
        Objects.requireNonNull(spec, "spec").accept(b);
        this.children = b.build();
        return this;
    }

    /** Declares what tasks of this machine created with dependencies do when a dependency ends badly. */
    public MachineBuilder<S, E> dependencies(java.util.function.Consumer<Dependencies.Builder<S, E>> spec) {
        Dependencies.Builder<S, E> b = new Dependencies.Builder<>();
        Objects.requireNonNull(spec, "spec").accept(b);
        this.dependencies = b.build();
        return this;
    }

    /**
     * Validates the definition and returns the machine.
     *
     * @throws MachineDefinitionException listing every defect: a missing or unknown initial state,
     *         unknown or unreachable states, rows leaving a terminal state, non-terminal states
     *         without exits, rows for one (state, event) that no guard or source tells apart,
     *         named refusals for events the table allows, and unique states with a gap
     */
    public Machine<S, E> build() {
        return Machine.validate(this);
    }

    /** Builds one row of the table. Not thread-safe. */
    public final class RowBuilder {
        private final S from;
        private final E event;
        private final S to;
        private final EnumSet<TriggerSource> sources = EnumSet.noneOf(TriggerSource.class);
        private @Nullable String guardName;
        private @Nullable Guard<S> guard;
        private @Nullable Effect<S> effect;
        private @Nullable String label;

        RowBuilder(S from, E event, S to) {
            this.from = from;
            this.event = event;
            this.to = to;
        }

        /** Adds who may fire the row. At least one source is required. */
        public RowBuilder by(TriggerSource source, TriggerSource... more) {
            sources.add(Objects.requireNonNull(source, "source"));
            for (TriggerSource s : more) sources.add(Objects.requireNonNull(s, "source"));
            return this;
        }

        /** Sets the row's guard and its name (shown in diagrams and refusals). */
        public RowBuilder guard(String name, Guard<S> condition) {
            Objects.requireNonNull(name, "guard name");
            if (name.isBlank()) throw new IllegalArgumentException("guard name must not be blank");
            this.guardName = name;
            this.guard = Objects.requireNonNull(condition, "guard");
            return this;
        }

        /** Sets the row's effect on attributes. */
        public RowBuilder effect(Effect<S> value) {
            this.effect = Objects.requireNonNull(value, "effect");
            return this;
        }

        /** Sets a description shown in diagrams. */
        public RowBuilder label(String text) {
            this.label = Objects.requireNonNull(text, "label");
            return this;
        }

        /**
         * Adds the row to the machine and returns the machine builder.
         *
         * @throws IllegalArgumentException if no source was given
         */
        public MachineBuilder<S, E> add() {
            if (sources.isEmpty()) {
                throw new IllegalArgumentException("row " + from + " --" + event + "--> " + to + " needs by(...) with a trigger source");
            }
            rows.add(new Transition<>(from, event, to, Set.copyOf(sources), guardName, guard, effect, label));
            return MachineBuilder.this;
        }
    }
}
