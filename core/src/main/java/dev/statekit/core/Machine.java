package dev.statekit.core;

import dev.statekit.store.TriggerSource;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.StringJoiner;
import org.jspecify.annotations.Nullable;

/**
 * A lifecycle as data: a named, versioned, immutable transition table over an enum of states and
 * an enum of events, with an initial state and terminal states.
 *
 * <p>Build one with {@link #builder}. The table is indexed once, by ordinal, when built; the same
 * index answers {@link #allowedEvents}, drives the {@link TransitionEngine} and draws the
 * {@linkplain #toMermaid() diagram}. Instances are immutable and thread-safe.
 *
 * <p>Rows for one (state, event) are tried in declaration order, guarded rows before the one
 * unguarded row that may serve as the fallback; the first whose source matches and whose guard
 * allows wins.
 *
 * @param <S> the state type
 * @param <E> the event type
 */
public final class Machine<S extends Enum<S>, E extends Enum<E>> {
    private final String name;
    private final int version;
    private final @Nullable String description;
    private final @Nullable RunPolicy<S, E> runPolicy;
    private final Map<String, RunPolicy<S, E>> stages;
    private final @Nullable String[] stageQueueOf;
    private final @Nullable String[] stageOf;
    private final boolean[] holdsLease;
    private final Class<S> stateType;
    private final Class<E> eventType;
    private final S initial;
    private final Set<S> states;
    private final Set<S> terminals;
    private final List<Transition<S, E>> rows;
    private final Map<String, S> stateByName;
    private final Map<String, E> eventByName;
    private final MachineIndex<S, E> index;
    private final Map<S, Ending> endings;
    private final @Nullable Children<S, E> children;
    private final @Nullable Dependencies<S, E> dependencies;
    private final Set<S> retired;
    private final Map<String, S> migrations;
    private final Set<S> uniqueStates;
    private final Set<String> uniqueStateNames;

    /** A named refusal for an event the table does not allow in some state. */
    record Refusal(String code, String message) {}

    /**
     * Starts the definition of a machine.
     *
     * @param name      a stable name, stored with every task; letters, digits, '-', '_' and '.'
     * @param stateType the enum of states
     * @param eventType the enum of events
     */
    public static <S extends Enum<S>, E extends Enum<E>> MachineBuilder<S, E> builder(
            String name, Class<S> stateType, Class<E> eventType) {
        return new MachineBuilder<>(name, stateType, eventType);
    }

    private Machine(MachineBuilder<S, E> b, Set<S> states) {
        this.name = b.name;
        this.version = b.version;
        this.description = b.description;
        this.runPolicy = b.runPolicy;
        this.stages = Collections.unmodifiableMap(new java.util.LinkedHashMap<>(b.stages));
        this.stateType = b.stateType;
        this.retired = Collections.unmodifiableSet(java.util.EnumSet.copyOf(b.retired));
        this.migrations = Collections.unmodifiableMap(new java.util.LinkedHashMap<>(b.migrations));
        this.uniqueStates = Collections.unmodifiableSet(EnumSet.copyOf(b.unique));
        Set<String> names = new java.util.LinkedHashSet<>();
        for (S u : b.unique) names.add(u.name());
        this.uniqueStateNames = Collections.unmodifiableSet(names);
        this.eventType = b.eventType;
        this.initial = Objects.requireNonNull(b.initial);
        this.states = Collections.unmodifiableSet(EnumSet.copyOf(states));
        this.terminals = Collections.unmodifiableSet(b.terminals.isEmpty() ? EnumSet.noneOf(stateType) : EnumSet.copyOf(b.terminals));
        this.rows = List.copyOf(b.rows);
        Map<String, S> sn = new HashMap<>();
        for (S s : states) sn.put(s.name(), s);
        this.stateByName = Map.copyOf(sn);
        Map<String, E> en = new HashMap<>();
        for (E e : eventType.getEnumConstants()) en.put(e.name(), e);
        this.eventByName = Map.copyOf(en);
        this.index = new MachineIndex<>(stateType, eventType, rows, b.refusals);
        this.endings = Collections.unmodifiableMap(new EnumMap<>(b.endings.isEmpty() ? new EnumMap<S, Ending>(stateType) : b.endings));
        this.children = b.children;
        this.dependencies = b.dependencies;
        this.holdsLease = new boolean[stateType.getEnumConstants().length];
        if (runPolicy != null) for (S r : runPolicy.runningStates(this)) holdsLease[r.ordinal()] = true;
        this.stageQueueOf = new String[holdsLease.length];
        this.stageOf = new String[holdsLease.length];
        stages.forEach((name, p) -> {
            for (S r : p.runningStates(this)) {
                holdsLease[r.ordinal()] = true;
                stageOf[r.ordinal()] = name;
            }
            for (S c : p.claims().keySet()) {
                stageOf[c.ordinal()] = name;
                if (p.queue() != null) stageQueueOf[c.ordinal()] = p.queue();
            }
            for (S w : p.waits().keySet()) stageOf[w.ordinal()] = name;
        });
    }

    static <S extends Enum<S>, E extends Enum<E>> Machine<S, E> validate(MachineBuilder<S, E> b) {
        Set<S> states = b.declaredStates != null ? b.declaredStates : EnumSet.allOf(b.stateType);
        List<String> defects = MachineValidator.defects(b, states);
        if (!defects.isEmpty()) throw new MachineDefinitionException(b.name, defects);
        Machine<S, E> machine = new Machine<>(b, states);
        if (b.children != null) defects.addAll(b.children.defects(machine));
        if (b.dependencies != null) defects.addAll(b.dependencies.defects(machine));
        if (!defects.isEmpty()) throw new MachineDefinitionException(b.name, defects);
        return machine;
    }

    /**
     * Returns the states in which a task's unique key holds ({@link MachineBuilder#unique}); empty
     * when the machine declares none.
     */
    public Set<S> uniqueStates() {
        return uniqueStates;
    }

    /** The names of {@link #uniqueStates()}, as stores take them. */
    Set<String> uniqueStateNames() {
        return uniqueStateNames;
    }

    /** Whether a task in {@code state} keeps the unique key it holds. */
    boolean keepsUniqueKey(S state) {
        return uniqueStates.contains(state);
    }

    /** Returns the machine's stages by name, in declaration order; empty when it has none. */
    public Map<String, RunPolicy<S, E>> stages() {
        return stages;
    }

    /** Returns the queue a task moves to when it enters {@code state}, a claimable state of a stage with its own queue; else null. */
    @Nullable String stageQueue(S state) {
        return stageQueueOf[state.ordinal()];
    }

    /** Returns whether a move from {@code from} to {@code to} enters a stage: {@code to} is a claimable state of a stage {@code from} is not in. */
    public boolean entersStage(S from, S to) {
        String target = stageOf[to.ordinal()];
        return target != null && !target.equals(stageOf[from.ordinal()]) && stageQueueOf.length > 0
                && stages.get(target).claims().containsKey(to);
    }

    /**
     * Returns whether firing {@code event} from {@code from} to {@code to} ends a processing: the
     * release or cancel event of the run policy that claims from {@code to} puts the task back into
     * that claimable state (a pause, a reset, a stopping runtime, a recovered lease). The next
     * processing starts with a fresh retry budget.
     */
    boolean endsProcessing(S from, S to, E event) {
        if (from == to) return false;
        RunPolicy<S, E> p = claimedBy(to);
        return p != null && (event == p.release() || event == p.cancel());
    }

    /** Returns whether the cancel event {@code cancel} takes a task in {@code from} back to a claimable state, to be run again later. */
    boolean cancelsBackToClaim(S from, E cancel) {
        S to = target(from, cancel);
        return to != null && claimedBy(to) != null;
    }

    /** Returns the run policy (the machine's, or its stage's) that claims tasks in {@code state}, or null when none does. */
    private @Nullable RunPolicy<S, E> claimedBy(S state) {
        String stage = stageOf[state.ordinal()];
        RunPolicy<S, E> p = stage != null ? stages.get(stage) : runPolicy;
        return p != null && p.claims().containsKey(state) ? p : null;
    }

    /** Returns the name of the stage {@code state} belongs to, or null when it belongs to none. */
    public @Nullable String stageOf(S state) {
        return stageOf[state.ordinal()];
    }

    /** Returns the cancel event of the machine's run policy, or of its first stage that has one; null if none. */
    public @Nullable E cancelEvent() {
        for (RunPolicy<S, E> p : policies()) if (p.cancel() != null) return p.cancel();
        return null;
    }

    /** Returns whether some row fires the machine's cancel event by SYSTEM. */
    boolean cancelFiredBySystem() {
        E cancel = cancelEvent();
        return cancel != null && firedBySystem(cancel);
    }

    /** Returns every run policy of the machine: the one of {@link #runPolicy()}, then the stages'. */
    List<RunPolicy<S, E>> policies() {
        List<RunPolicy<S, E>> all = new java.util.ArrayList<>();
        if (runPolicy != null) all.add(runPolicy);
        all.addAll(stages.values());
        return all;
    }

    /** Returns how a task in {@code state} has ended, as groups count it, or null if it has not. */
    public @Nullable Ending ending(S state) {
        return endings.get(state);
    }

    /** Returns how a task in the state named {@code stateName} has ended, or null if it has not or the state is unknown. */
    public @Nullable Ending ending(String stateName) {
        S s = stateByName.get(stateName);
        return s == null ? null : endings.get(s);
    }

    /** Returns the declared ending states. */
    public Map<S, Ending> endings() {
        return endings;
    }

    boolean hasEnding(Ending e) {
        return endings.containsValue(e);
    }

    /** Returns what tasks of this machine do with their children, or null if they have none. */
    public @Nullable Children<S, E> children() {
        return children;
    }

    /** Returns what tasks of this machine created with dependencies do, or null. */
    public @Nullable Dependencies<S, E> dependencies() {
        return dependencies;
    }

    /** Returns whether some row fires {@code event} with source SYSTEM. */
    boolean firedBySystem(E event) {
        for (Transition<S, E> t : rows) {
            if (t.event() == event && t.sources().contains(TriggerSource.SYSTEM)) return true;
        }
        return false;
    }

    /** Returns the machine's name, stored with each of its tasks. */
    public String name() {
        return name;
    }

    /** Returns the definition's version. */
    public int version() {
        return version;
    }

    /** Returns how the machine's tasks are run, or null when it declares no run policy. */
    public @Nullable RunPolicy<S, E> runPolicy() {
        return runPolicy;
    }

    /** Returns the one-line description, or null. */
    public @Nullable String description() {
        return description;
    }

    /** Returns the enum of states. */
    public Class<S> stateType() {
        return stateType;
    }

    /** Returns the enum of events. */
    public Class<E> eventType() {
        return eventType;
    }

    /** Returns the state new tasks start in. */
    public S initial() {
        return initial;
    }

    /** Returns the machine's states. */
    public Set<S> states() {
        return states;
    }

    /** Returns the retired states: rows leave them, none enters them. */
    public Set<S> retired() {
        return retired;
    }

    /** Returns the declared migrations: the name of a state this version no longer has, and the state its tasks move to. */
    public Map<String, S> migrations() {
        return migrations;
    }

    /** Returns the terminal states. */
    public Set<S> terminals() {
        return terminals;
    }

    /** Returns whether {@code state} is terminal. */
    public boolean isTerminal(S state) {
        return terminals.contains(state);
    }

    /** Returns the rows in declaration order. */
    public List<Transition<S, E>> transitions() {
        return rows;
    }

    /** Returns the rows for {@code event} in {@code from}, whatever their source; empty when none. */
    public List<Transition<S, E>> transitions(S from, E event) {
        Transition<S, E> @Nullable [] r = index.pair(from, event);
        return r == null ? List.of() : List.of(r);
    }

    /** Returns the events that some row allows in {@code state}, from any source. */
    public Set<E> allowedEvents(S state) {
        return index.allowed(state);
    }

    /** Returns the events {@code source} may fire in {@code state} (guards not evaluated). */
    public Set<E> allowedEvents(S state, TriggerSource source) {
        return index.allowed(state, source);
    }

    /** Returns whether some row allows {@code event} in {@code from} (guards not evaluated). */
    public boolean permits(S from, E event) {
        return index.pair(from, event) != null;
    }

    /**
     * Returns the state {@code event} leads to from {@code from} when every row of that pair leads
     * to the same state; null when no row allows it or guards choose between targets. This is the
     * pure table decision, with no guard evaluated.
     */
    public @Nullable S target(S from, E event) {
        return index.target(from, event);
    }

    /** Returns the state named {@code stateName}, or null when the machine has no such state. */
    public @Nullable S state(String stateName) {
        return stateByName.get(stateName);
    }

    /** Returns the event named {@code eventName}, or null when the machine has no such event. */
    public @Nullable E event(String eventName) {
        return eventByName.get(eventName);
    }

    // --- engine support -------------------------------------------------------------------

    /** Whether a task keeps its lease in {@code state}: true only for the run policy's running states. */
    public boolean holdsLease(S state) {
        return holdsLease[state.ordinal()];
    }

    Transition<S, E> @Nullable [] candidates(S from, E event, TriggerSource source) {
        return index.candidates(from, event, source);
    }

    @Nullable Refusal namedRefusal(S from, E event) {
        return index.refusal(from, event);
    }

    /**
     * Returns the machine as a Mermaid {@code stateDiagram-v2} (the description, if any, as a
     * comment on the second line): one edge per row labelled with its
     * event (and guard, and {@code (user)} or {@code (system)} where only one source may fire it),
     * the initial state entered from {@code [*]} and terminal states leading to {@code [*]}.
     */
    public String toMermaid() {
        StringBuilder sb = new StringBuilder();
        sb.append("stateDiagram-v2\n");
        if (description != null) sb.append("  %% ").append(description.replace('\n', ' ')).append('\n');
        sb.append("  [*] --> ").append(initial.name()).append('\n');
        for (Transition<S, E> t : rows) {
            StringJoiner label = new StringJoiner(" ");
            label.add(t.event().name());
            if (t.guardName() != null) label.add("[" + t.guardName() + "]");
            if (t.sources().size() == 1) label.add("(" + t.sources().iterator().next().name().toLowerCase(Locale.ROOT) + ")");
            if (t.label() != null) label.add("- " + t.label());
            sb.append("  ").append(t.from().name()).append(" --> ").append(t.to().name())
              .append(" : ").append(label.toString().replace(':', ' ').replace(';', ',')).append('\n');
        }
        for (S s : states) if (terminals.contains(s)) sb.append("  ").append(s.name()).append(" --> [*]\n");
        return sb.toString();
    }

    @Override
    public String toString() {
        return "Machine[" + name + " v" + version + ", " + states.size() + " states, " + rows.size() + " rows]";
    }
}
