package dev.statekit.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a task created with dependencies ({@link TaskSpec#dependsOn}) does when they end. Such a
 * task is held (never claimed) until every dependency has succeeded; then the group resolver
 * releases it, and it runs like any other task of its queue. When a dependency fails, the resolver
 * fires {@link #whenFailed()} on it; when one is cancelled, {@link #whenCancelled()}. A dependent is
 * never left waiting on a dependency that has ended. Declared on the dependent's machine with
 * {@link MachineBuilder#dependencies}; immutable.
 *
 * @param <S> the state type
 * @param <E> the event type
 */
public final class Dependencies<S extends Enum<S>, E extends Enum<E>> {
    private final E whenFailed;
    private final @Nullable E whenCancelled;
    private final List<Machine<?, ?>> upstream;

    private Dependencies(Builder<S, E> b) {
        this.whenFailed = Objects.requireNonNull(b.whenFailed);
        this.whenCancelled = b.whenCancelled;
        this.upstream = List.copyOf(b.upstream);
    }

    /** Returns the event fired on the dependent when a dependency failed. */
    public E whenFailed() {
        return whenFailed;
    }

    /** Returns the event fired on the dependent when a dependency was cancelled (default: the failure event). */
    public E whenCancelled() {
        return whenCancelled != null ? whenCancelled : whenFailed;
    }

    /** Returns the machines dependencies may be of, besides the dependent's own. */
    public List<Machine<?, ?>> upstream() {
        return upstream;
    }

    List<String> defects(Machine<S, E> owner) {
        List<String> defects = new ArrayList<>();
        if (upstream.isEmpty() && !owner.hasEnding(Ending.SUCCEEDED)) {
            defects.add("dependencies on tasks of machine " + owner.name() + " need it to declare its succeeded states (MachineBuilder.succeeded)");
        }
        for (Machine<?, ?> m : upstream) {
            if (m != null && !m.hasEnding(Ending.SUCCEEDED)) {
                defects.add("dependencies on machine " + m.name() + " need it to declare its succeeded states (MachineBuilder.succeeded)");
            }
        }
        for (E e : whenCancelled == null ? List.of(whenFailed) : List.of(whenFailed, whenCancelled)) {
            if (!owner.firedBySystem(e)) defects.add("dependencies: no row fires " + e + " by SYSTEM");
        }
        return defects;
    }

    /**
     * Builds a {@link Dependencies} declaration; {@link #whenFailed} and at least one machine are
     * required. Not thread-safe.
     *
     * @param <S> the state type
     * @param <E> the event type
     */
    public static final class Builder<S extends Enum<S>, E extends Enum<E>> {
        private @Nullable E whenFailed;
        private @Nullable E whenCancelled;
        private final List<Machine<?, ?>> upstream = new ArrayList<>();

        Builder() {}

        /** Names the machines that dependencies may be of besides the dependent's own (their ending states decide). */
        public Builder<S, E> on(Machine<?, ?>... machines) {
            for (Machine<?, ?> m : machines) upstream.add(Objects.requireNonNull(m, "machine"));
            return this;
        }

        /** Sets the event fired on the dependent when a dependency failed. */
        public Builder<S, E> whenFailed(E event) {
            this.whenFailed = Objects.requireNonNull(event, "event");
            return this;
        }

        /** Sets the event fired on the dependent when a dependency was cancelled (default: the failure event). */
        public Builder<S, E> whenCancelled(E event) {
            this.whenCancelled = Objects.requireNonNull(event, "event");
            return this;
        }

        Dependencies<S, E> build() {
            if (whenFailed == null) throw new IllegalArgumentException("dependencies need whenFailed(...)");
            return new Dependencies<>(this);
        }
    }
}
