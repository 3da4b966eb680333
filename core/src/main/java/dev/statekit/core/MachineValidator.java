package dev.statekit.core;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Every defect of a machine definition, found at once: names and version, states, rows (unknown
 * or terminal states, ambiguity), named refusals, reachability, dead ends, the run policy, and
 * the unique states' gaps.
 */
final class MachineValidator {
    private MachineValidator() {}

    static <S extends Enum<S>, E extends Enum<E>> List<String> defects(MachineBuilder<S, E> b, Set<S> states) {
        List<String> defects = new ArrayList<>();
        if (b.name.isBlank() || !b.name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,99}")) {
            defects.add("name '" + b.name + "' must be 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit");
        }
        if (b.version < 1) defects.add("version must be positive, was " + b.version);
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
        ambiguities(b.rows, defects);
        namedRefusals(b, defects);
        for (S r : b.retired) {
            if (!states.contains(r)) defects.add("retired state " + r + " is unknown");
            if (r == initial) defects.add("initial state " + r + " is retired");
        }
        for (Transition<S, E> t : b.rows) {
            if (b.retired.contains(t.to()) && t.from() != t.to()) {
                defects.add("row " + t + " enters retired state " + t.to() + "; a retired state is only left");
            }
        }
        b.migrations.forEach((removed, to) -> {
            for (S s : states) {
                if (s.name().equals(removed)) defects.add("migration from " + removed + ": the machine still has that state; retire it instead");
            }
            if (!states.contains(to)) defects.add("migration from " + removed + " to unknown state " + to);
            if (b.retired.contains(to)) defects.add("migration from " + removed + " to retired state " + to);
        });
        if (initial != null && states.contains(initial)) unreachable(states, initial, out, b.retired, defects);
        for (S s : states) {
            if (!b.terminals.contains(s) && !out.containsKey(s)) defects.add("state " + s + " is not terminal but no row leaves it");
        }
        if (b.runPolicy != null) defects.addAll(b.runPolicy.defects(b.rows));
        stages(b, defects);
        for (S s : b.endings.keySet()) if (!states.contains(s)) defects.add("ending state " + s + " is unknown");
        uniqueStates(b, states, out, defects);
        return defects;
    }

    /**
     * The unique states have no gap: they contain the initial state; for every row from a unique
     * state to another state, no path of rows leads from that state back into the unique states
     * (once a task gives up its key it never comes back where the key holds); and no claim leaves
     * them (a claim is written by the store, which keeps the key).
     */
    private static <S extends Enum<S>, E extends Enum<E>> void uniqueStates(MachineBuilder<S, E> b, Set<S> states,
                                                                             Map<S, List<Transition<S, E>>> out, List<String> defects) {
        if (b.unique.isEmpty()) return;
        for (S u : b.unique) if (!states.contains(u)) defects.add("unique state " + u + " is unknown");
        if (b.initial != null && !b.unique.contains(b.initial)) {
            defects.add("unique states " + b.unique + " do not contain the initial state " + b.initial
                    + ": a task would be created where its key does not hold");
        }
        for (Transition<S, E> t : b.rows) {
            if (!b.unique.contains(t.from()) || b.unique.contains(t.to())) continue;
            List<Transition<S, E>> back = pathBack(t.to(), b.unique, out);
            if (back != null) {
                StringBuilder path = new StringBuilder();
                for (Transition<S, E> r : back) path.append(path.length() == 0 ? "" : ", ").append(r);
                defects.add("unique states " + b.unique + " have a gap: row " + t + " leaves them, and " + path
                        + " lead back into them, so a duplicate could be created while the task is out and meet it when it comes back;"
                        + " add the states on the way to the unique states, or end the way back");
            }
        }
        List<RunPolicy<S, E>> policies = new ArrayList<>(b.stages.values());
        if (b.runPolicy != null) policies.add(b.runPolicy);
        for (RunPolicy<S, E> p : policies) {
            p.claims().forEach((from, event) -> {
                if (!b.unique.contains(from)) return;
                for (Transition<S, E> t : b.rows) {
                    if (t.from() == from && t.event() == event && !b.unique.contains(t.to())) {
                        defects.add("unique states " + b.unique + ": claim row " + t + " leaves them; a claim keeps the key, so "
                                + t.to() + " must be a unique state");
                    }
                }
            });
        }
    }

    /** The rows of a shortest path from {@code start} (not unique) into {@code unique}, or null when there is none. */
    private static <S extends Enum<S>, E extends Enum<E>> @org.jspecify.annotations.Nullable List<Transition<S, E>> pathBack(
            S start, Set<S> unique, Map<S, List<Transition<S, E>>> out) {
        Map<S, Transition<S, E>> via = new HashMap<>();
        Set<S> seen = new java.util.HashSet<>(List.of(start));
        ArrayDeque<S> todo = new ArrayDeque<>(List.of(start));
        while (!todo.isEmpty()) {
            S s = todo.poll();
            for (Transition<S, E> t : out.getOrDefault(s, List.of())) {
                if (unique.contains(t.to())) {
                    List<Transition<S, E>> path = new ArrayList<>(List.of(t));
                    for (S at = s; at != start; at = via.get(at).from()) path.add(0, via.get(at));
                    return path;
                }
                if (seen.add(t.to())) {
                    via.put(t.to(), t);
                    todo.add(t.to());
                }
            }
        }
        return null;
    }

    /** Each stage is a valid run policy; no two stages (or a stage and the run policy) claim the same state. */
    private static <S extends Enum<S>, E extends Enum<E>> void stages(MachineBuilder<S, E> b, List<String> defects) {
        Map<S, String> claimedBy = new HashMap<>();
        if (b.runPolicy != null) for (S s : b.runPolicy.claims().keySet()) claimedBy.put(s, "the run policy");
        b.stages.forEach((name, p) -> {
            for (String d : p.defects(b.rows)) defects.add("stage " + name + ": " + d);
            for (S s : p.claims().keySet()) {
                String other = claimedBy.putIfAbsent(s, "stage " + name);
                if (other != null) defects.add("stage " + name + " claims " + s + ", which " + other + " claims too");
            }
        });
    }

    /** Rows of one (from, event) whose sources overlap must be told apart by guards. */
    private static <S extends Enum<S>, E extends Enum<E>> void ambiguities(List<Transition<S, E>> rows, List<String> defects) {
        for (int i = 0; i < rows.size(); i++) {
            Transition<S, E> a = rows.get(i);
            for (int j = i + 1; j < rows.size(); j++) {
                Transition<S, E> c = rows.get(j);
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
    }

    private static <S extends Enum<S>, E extends Enum<E>> void namedRefusals(MachineBuilder<S, E> b, List<String> defects) {
        b.refusals.forEach((s, m) -> m.forEach((e, r) -> {
            for (Transition<S, E> t : b.rows) {
                if (t.from() == s && t.event() == e) {
                    defects.add("named refusal " + r.code() + " for " + s + "/" + e + " contradicts row " + t);
                    break;
                }
            }
            if (r.code().isBlank()) defects.add("named refusal for " + s + "/" + e + " has a blank code");
        }));
    }

    private static <S extends Enum<S>, E extends Enum<E>> void unreachable(Set<S> states, S initial,
                                                                            Map<S, List<Transition<S, E>>> out, Set<S> retired,
                                                                            List<String> defects) {
        EnumSet<S> reached = EnumSet.of(initial);
        ArrayDeque<S> todo = new ArrayDeque<>(List.of(initial));
        while (!todo.isEmpty()) {
            for (Transition<S, E> t : out.getOrDefault(todo.poll(), List.of())) {
                if (states.contains(t.to()) && reached.add(t.to())) todo.add(t.to());
            }
        }
        for (S s : states) {
            if (!reached.contains(s) && !retired.contains(s)) defects.add("state " + s + " is unreachable from " + initial);
        }
    }
}
