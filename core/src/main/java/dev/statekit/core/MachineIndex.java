package dev.statekit.core;

import dev.statekit.store.TriggerSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The table of a {@link Machine} indexed once by ordinal, for the decisions on the hot path: the
 * candidate rows of (source, from, event) with guarded rows first, every row of a pair, the single
 * target of a pair, named refusals, and the allowed events per state (for any source and for each).
 * Immutable.
 */
final class MachineIndex<S extends Enum<S>, E extends Enum<E>> {
    private static final TriggerSource[] SOURCES = TriggerSource.values();

    // [source][from][event] -> candidate rows for that source, guarded first; null when none
    private final Transition<S, E>[][][][] bySource;
    // [from][event] -> every row regardless of source; null when none
    private final Transition<S, E>[][][] byPair;
    // [from][event] -> the single target state, when every row of the pair leads there
    private final S[][] targets;
    private final Machine.Refusal[][] refusals;
    // [from] -> allowed events for any source; [source][from] -> for one source
    private final List<Set<E>> allowedAny;
    private final List<List<Set<E>>> allowedBySource;

    @SuppressWarnings({"unchecked", "rawtypes"})
    MachineIndex(Class<S> stateType, Class<E> eventType, List<Transition<S, E>> rows, Map<S, Map<E, Machine.Refusal>> named) {
        S[] allStates = stateType.getEnumConstants();
        E[] allEvents = eventType.getEnumConstants();
        this.byPair = new Transition[allStates.length][allEvents.length][];
        this.bySource = new Transition[SOURCES.length][allStates.length][allEvents.length][];
        this.targets = (S[][]) java.lang.reflect.Array.newInstance(stateType, allStates.length, allEvents.length);
        for (S from : allStates) {
            for (E event : allEvents) indexPair(from, event, rows);
        }
        this.refusals = new Machine.Refusal[allStates.length][allEvents.length];
        named.forEach((s, m) -> m.forEach((e, r) -> refusals[s.ordinal()][e.ordinal()] = r));
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
        List<List<Set<E>>> frozen = new ArrayList<>();
        for (List<Set<E>> l : perSource) frozen.add(List.copyOf(l));
        this.allowedBySource = List.copyOf(frozen);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void indexPair(S from, E event, List<Transition<S, E>> rows) {
        List<Transition<S, E>> pair = new ArrayList<>();
        for (Transition<S, E> t : rows) if (t.from() == from && t.event() == event) pair.add(t);
        if (pair.isEmpty()) return;
        byPair[from.ordinal()][event.ordinal()] = pair.toArray(new Transition[0]);
        S target = pair.get(0).to();
        for (Transition<S, E> t : pair) if (t.to() != target) target = null;
        targets[from.ordinal()][event.ordinal()] = target;
        for (TriggerSource source : SOURCES) {
            List<Transition<S, E>> candidates = new ArrayList<>();
            for (Transition<S, E> t : pair) if (t.allows(source) && t.guarded()) candidates.add(t);
            for (Transition<S, E> t : pair) if (t.allows(source) && !t.guarded()) candidates.add(t);
            if (!candidates.isEmpty()) bySource[source.ordinal()][from.ordinal()][event.ordinal()] = candidates.toArray(new Transition[0]);
        }
    }

    Transition<S, E> @Nullable [] candidates(S from, E event, TriggerSource source) {
        return bySource[source.ordinal()][from.ordinal()][event.ordinal()];
    }

    Transition<S, E> @Nullable [] pair(S from, E event) {
        return byPair[from.ordinal()][event.ordinal()];
    }

    @Nullable S target(S from, E event) {
        return targets[from.ordinal()][event.ordinal()];
    }

    Machine.@Nullable Refusal refusal(S from, E event) {
        return refusals[from.ordinal()][event.ordinal()];
    }

    Set<E> allowed(S state) {
        return allowedAny.get(state.ordinal());
    }

    Set<E> allowed(S state, TriggerSource source) {
        return allowedBySource.get(source.ordinal()).get(state.ordinal());
    }
}
