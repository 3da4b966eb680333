package dev.statekit.core;

import dev.statekit.store.TriggerSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
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
    private static final TriggerSource[] SOURCES = TriggerSource.values();

    private final String name;
    private final int version;
    private final @Nullable String description;
    private final @Nullable RunPolicy<S, E> runPolicy;
    private final boolean[] holdsLease;
    private final Class<S> stateType;
    private final Class<E> eventType;
    private final S initial;
    private final Set<S> states;
    private final Set<S> terminals;
    private final List<Transition<S, E>> rows;
    private final Map<String, S> stateByName;
    private final Map<String, E> eventByName;
    // [source][from][event] -> candidate rows for that source, guarded first; null when none
    private final Transition<S, E>[][][][] bySource;
    // [from][event] -> every row regardless of source; null when none
    private final Transition<S, E>[][][] byPair;
    // [from][event] -> the single target state, when every row of the pair leads there
    private final S[][] targets;
    private final Refusal[][] refusals;
    // [from] -> allowed events for any source; [source][from] -> for one source
    private final List<Set<E>> allowedAny;
    private final List<List<Set<E>>> allowedBySource;

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

    @SuppressWarnings({"unchecked", "rawtypes"})
    private Machine(MachineBuilder<S, E> b, Set<S> states) {
        this.name = b.name;
        this.version = b.version;
        this.description = b.description;
        this.runPolicy = b.runPolicy;
        this.holdsLease = new boolean[b.stateType.getEnumConstants().length];
        this.stateType = b.stateType;
        this.eventType = b.eventType;
        this.initial = Objects.requireNonNull(b.initial);
        this.states = Collections.unmodifiableSet(EnumSet.copyOf(states));
        this.terminals = Collections.unmodifiableSet(b.terminals.isEmpty() ? EnumSet.noneOf(stateType) : EnumSet.copyOf(b.terminals));
        this.rows = List.copyOf(b.rows);
        S[] allStates = stateType.getEnumConstants();
        E[] allEvents = eventType.getEnumConstants();
        Map<String, S> sn = new HashMap<>();
        for (S s : states) sn.put(s.name(), s);
        this.stateByName = Map.copyOf(sn);
        Map<String, E> en = new HashMap<>();
        for (E e : allEvents) en.put(e.name(), e);
        this.eventByName = Map.copyOf(en);

        this.byPair = new Transition[allStates.length][allEvents.length][];
        this.bySource = new Transition[SOURCES.length][allStates.length][allEvents.length][];
        this.targets = (S[][]) java.lang.reflect.Array.newInstance(stateType, allStates.length, allEvents.length);
        for (S from : allStates) {
            for (E event : allEvents) {
                List<Transition<S, E>> pair = new ArrayList<>();
                for (Transition<S, E> t : rows) if (t.from() == from && t.event() == event) pair.add(t);
                if (pair.isEmpty()) continue;
                byPair[from.ordinal()][event.ordinal()] = pair.toArray(new Transition[0]);
                S target = pair.get(0).to();
                for (Transition<S, E> t : pair) if (t.to() != target) target = null;
                targets[from.ordinal()][event.ordinal()] = target;
                for (TriggerSource source : SOURCES) {
                    List<Transition<S, E>> candidates = new ArrayList<>();
                    for (Transition<S, E> t : pair) if (t.allows(source) && t.guarded()) candidates.add(t);
                    for (Transition<S, E> t : pair) if (t.allows(source) && !t.guarded()) candidates.add(t);
                    if (!candidates.isEmpty()) {
                        bySource[source.ordinal()][from.ordinal()][event.ordinal()] = candidates.toArray(new Transition[0]);
                    }
                }
            }
        }
        this.refusals = new Refusal[allStates.length][allEvents.length];
        b.refusals.forEach((s, m) -> m.forEach((e, r) -> refusals[s.ordinal()][e.ordinal()] = r));

        List<Set<E>> any = new ArrayList<>();
        List<List<Set<E>>> perSource = new ArrayList<>();
        for (TriggerSource ignored : SOURCES) perSource.add(new ArrayList<>());
        for (S from : allStates) {
            EnumSet<E> all = EnumSet.noneOf(eventType);
            for (E event : allEvents) if (byPair[from.ordinal()][event.ordinal()] != null) all.add(event);
            any.add(Collections.unmodifiableSet(all));
            for (TriggerSource source : SOURCES) {
                EnumSet<E> set = EnumSet.noneOf(eventType);
                for (E event : allEvents) if (bySource[source.ordinal()][from.ordinal()][event.ordinal()] != null) set.add(event);
                perSource.get(source.ordinal()).add(Collections.unmodifiableSet(set));
            }
        }
        this.allowedAny = List.copyOf(any);
        if (runPolicy != null) for (S r : runPolicy.runningStates(this)) holdsLease[r.ordinal()] = true;
        List<List<Set<E>>> frozen = new ArrayList<>();
        for (List<Set<E>> l : perSource) frozen.add(List.copyOf(l));
        this.allowedBySource = List.copyOf(frozen);
    }

    static <S extends Enum<S>, E extends Enum<E>> Machine<S, E> validate(MachineBuilder<S, E> b) {
        List<String> defects = new ArrayList<>();
        if (b.name.isBlank() || !b.name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,99}")) {
            defects.add("name '" + b.name + "' must be 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit");
        }
        if (b.version < 1) defects.add("version must be positive, was " + b.version);
        Set<S> states = b.declaredStates != null ? b.declaredStates : EnumSet.allOf(b.stateType);
        if (states.isEmpty()) defects.add("no states declared");
        S initial = b.initial;
        if (initial == null) defects.add("no initial state");
        else if (!states.contains(initial)) defects.add("initial state " + initial + " is unknown");
        else if (b.terminals.contains(initial)) defects.add("initial state " + initial + " is terminal");
        for (S t : b.terminals) if (!states.contains(t)) defects.add("terminal state " + t + " is unknown");

        Map<S, List<Transition<S, E>>> out = new HashMap<>();
        for (Transition<S, E> t : b.rows) {
            if (!states.contains(t.from())) defects.add("row " + t + " leaves unknown state " + t.from());
            if (!states.contains(t.to())) defects.add("row " + t + " enters unknown state " + t.to());
            if (b.terminals.contains(t.from())) defects.add("row " + t + " leaves terminal state " + t.from());
            out.computeIfAbsent(t.from(), k -> new ArrayList<>()).add(t);
        }
        // ambiguity: rows of one (from, event) whose sources overlap must be told apart by guards
        for (int i = 0; i < b.rows.size(); i++) {
            Transition<S, E> a = b.rows.get(i);
            for (int j = i + 1; j < b.rows.size(); j++) {
                Transition<S, E> c = b.rows.get(j);
                if (a.from() != c.from() || a.event() != c.event() || Collections.disjoint(a.sources(), c.sources())) continue;
                if (!a.guarded() && !c.guarded()) {
                    defects.add("rows " + a + " and " + c + " are ambiguous: no guard tells them apart");
                } else if (a.guarded() && c.guarded() && Objects.equals(a.guardName(), c.guardName())) {
                    defects.add("rows " + a + " and " + c + " are ambiguous: both use guard '" + a.guardName() + "'");
                } else if (a.to() == c.to() && a.guarded() != c.guarded() && Objects.equals(a.effect(), c.effect())) {
                    // a guarded row in front of an unguarded fallback to the same place changes nothing
                    defects.add("rows " + a + " and " + c + " lead to the same state with the same effect: the guard decides nothing");
                }
            }
        }
        b.refusals.forEach((s, m) -> m.forEach((e, r) -> {
            for (Transition<S, E> t : b.rows) {
                if (t.from() == s && t.event() == e) {
                    defects.add("named refusal " + r.code() + " for " + s + "/" + e + " contradicts row " + t);
                    break;
                }
            }
            if (r.code().isBlank()) defects.add("named refusal for " + s + "/" + e + " has a blank code");
        }));
        if (initial != null && states.contains(initial)) {
            EnumSet<S> reached = EnumSet.of(initial);
            ArrayDeque<S> todo = new ArrayDeque<>(List.of(initial));
            while (!todo.isEmpty()) {
                for (Transition<S, E> t : out.getOrDefault(todo.poll(), List.of())) {
                    if (states.contains(t.to()) && reached.add(t.to())) todo.add(t.to());
                }
            }
            for (S s : states) {
                if (!reached.contains(s)) defects.add("state " + s + " is unreachable from " + initial);
            }
        }
        for (S s : states) {
            if (!b.terminals.contains(s) && !out.containsKey(s)) {
                defects.add("state " + s + " is not terminal but no row leaves it");
            }
        }
        if (b.runPolicy != null) defects.addAll(b.runPolicy.defects(b.rows));
        if (!defects.isEmpty()) throw new MachineDefinitionException(b.name, defects);
        return new Machine<>(b, states);
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
        Transition<S, E> @Nullable [] r = byPair[from.ordinal()][event.ordinal()];
        return r == null ? List.of() : List.of(r);
    }

    /** Returns the events that some row allows in {@code state}, from any source. */
    public Set<E> allowedEvents(S state) {
        return allowedAny.get(state.ordinal());
    }

    /** Returns the events {@code source} may fire in {@code state} (guards not evaluated). */
    public Set<E> allowedEvents(S state, TriggerSource source) {
        return allowedBySource.get(source.ordinal()).get(state.ordinal());
    }

    /** Returns whether some row allows {@code event} in {@code from} (guards not evaluated). */
    public boolean permits(S from, E event) {
        return byPair[from.ordinal()][event.ordinal()] != null;
    }

    /**
     * Returns the state {@code event} leads to from {@code from} when every row of that pair leads
     * to the same state; null when no row allows it or guards choose between targets. This is the
     * pure table decision, with no guard evaluated.
     */
    public @Nullable S target(S from, E event) {
        return targets[from.ordinal()][event.ordinal()];
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
    boolean holdsLease(S state) {
        return holdsLease[state.ordinal()];
    }

    Transition<S, E> @Nullable [] candidates(S from, E event, TriggerSource source) {
        return bySource[source.ordinal()][from.ordinal()][event.ordinal()];
    }

    @Nullable Refusal namedRefusal(S from, E event) {
        return refusals[from.ordinal()][event.ordinal()];
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
