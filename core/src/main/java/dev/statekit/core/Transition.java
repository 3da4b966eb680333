package dev.statekit.core;

import dev.statekit.store.TriggerSource;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One row of a machine's transition table: in state {@code from}, event {@code event} moves a
 * task to {@code to} when fired by one of {@code sources} and the guard (if any) allows it.
 *
 * @param from      the state the row leaves
 * @param event     the event that fires it
 * @param to        the state it enters
 * @param sources   who may fire it; never empty
 * @param guardName the guard's name, shown in diagrams and refusals; null when unguarded
 * @param guard     the guard; null exactly when {@code guardName} is
 * @param effect    the effect on attributes, if any
 * @param label     a description for diagrams, if any
 * @param <S> the state type
 * @param <E> the event type
 */
public record Transition<S extends Enum<S>, E extends Enum<E>>(
        S from, E event, S to, Set<TriggerSource> sources,
        @Nullable String guardName, @Nullable Guard<S> guard, @Nullable Effect<S> effect, @Nullable String label) {

    /**
     * Creates a row.
     *
     * @throws IllegalArgumentException if no source is given or the guard and its name disagree
     */
    public Transition {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(to, "to");
        sources = Set.copyOf(sources);
        if (sources.isEmpty()) throw new IllegalArgumentException("row " + from + " --" + event + "--> " + to + " has no trigger source");
        // in declaration order, so that rows print the same in every run
        sources = Collections.unmodifiableSet(EnumSet.copyOf(sources));
        if ((guard == null) != (guardName == null)) {
            throw new IllegalArgumentException("a guard needs a name and a name needs a guard");
        }
    }

    /** Returns whether {@code source} may fire this row. */
    public boolean allows(TriggerSource source) {
        return sources.contains(source);
    }

    /** Returns whether the row has a guard. */
    public boolean guarded() {
        return guard != null;
    }

    @Override
    public String toString() {
        return from + " --" + event + (guardName == null ? "" : " [" + guardName + "]") + "--> " + to + " by " + sources;
    }
}
