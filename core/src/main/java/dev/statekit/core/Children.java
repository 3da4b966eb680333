package dev.statekit.core;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What a parent does with its children: the events the group resolver fires on the parent when
 * its children end, and what the parent's states mean for its children. Declared on the parent's
 * machine with {@link MachineBuilder#children}; immutable.
 *
 * <p>The group resolver fires {@link #whenSucceeded()} once every child has ended and all
 * succeeded; {@link #whenFailed()} once every child has ended and some failed (or, with
 * {@link #failFast()}, as soon as one failed); {@link #whenCancelled()} (default: the failure event)
 * once every child has ended, none failed and some were cancelled. It fires each exactly once per
 * settlement of the group, in its own transaction with the consumption of the children's marks.
 * When a child is retried after the group was resolved, the group is open again; the parent gets
 * {@link #reopen()} if declared, and the settling event again when the children end again.
 *
 * @param <S> the parent's state type
 * @param <E> the parent's event type
 */
public final class Children<S extends Enum<S>, E extends Enum<E>> {
    private final Machine<?, ?> machine;
    private final E whenSucceeded;
    private final E whenFailed;
    private final @Nullable E whenCancelled;
    private final boolean failFast;
    private final @Nullable E reopen;
    private final Set<S> holdIn;
    private final Set<S> cancelIn;
    private final Set<S> stopIn;
    private final @Nullable String succeededAttribute;

    private Children(Builder<S, E> b) {
        this.stopIn = Set.copyOf(b.stopIn);
        this.succeededAttribute = b.succeededAttribute;
        this.machine = b.machine;
        this.whenSucceeded = Objects.requireNonNull(b.whenSucceeded);
        this.whenFailed = Objects.requireNonNull(b.whenFailed);
        this.whenCancelled = b.whenCancelled;
        this.failFast = b.failFast;
        this.reopen = b.reopen;
        this.holdIn = Set.copyOf(b.holdIn);
        this.cancelIn = Set.copyOf(b.cancelIn);
    }

    /** Returns the children's machine. */
    public Machine<?, ?> machine() {
        return machine;
    }

    /** Returns the event fired on the parent when every child succeeded. */
    public E whenSucceeded() {
        return whenSucceeded;
    }

    /** Returns the event fired on the parent when children failed. */
    public E whenFailed() {
        return whenFailed;
    }

    /** Returns the event fired on the parent when children were cancelled and none failed. */
    public E whenCancelled() {
        return whenCancelled != null ? whenCancelled : whenFailed;
    }

    /** Returns whether the failure event is fired on the first failed child. */
    public boolean failFast() {
        return failFast;
    }

    /** Returns the event fired on the parent when a resolved group opens again, or null. */
    public @Nullable E reopen() {
        return reopen;
    }

    /** Returns the parent states in which its children are held (not claimed; running ones go on). */
    public Set<S> holdIn() {
        return holdIn;
    }

    /** Returns the parent states in which its children are cancelled (running ones are asked to stop). */
    public Set<S> cancelIn() {
        return cancelIn;
    }

    /** Returns the parent states in which running children are asked to stop (their machine's cancel event decides where they go). */
    public Set<S> stopIn() {
        return stopIn;
    }

    /** Returns the parent attribute the settling event writes the number of succeeded children to, or null. */
    public @Nullable String succeededAttribute() {
        return succeededAttribute;
    }

    List<String> defects(Machine<S, E> parent) {
        List<String> defects = new ArrayList<>();
        if (!machine.hasEnding(Ending.SUCCEEDED)) {
            defects.add("children of machine " + machine.name() + " need it to declare its succeeded states (MachineBuilder.succeeded)");
        }
        List<E> events = new ArrayList<>(List.of(whenSucceeded, whenFailed));
        if (whenCancelled != null) events.add(whenCancelled);
        if (reopen != null) events.add(reopen);
        for (E e : events) {
            if (!parent.firedBySystem(e)) {
                defects.add("children: no row fires " + e + " by SYSTEM; add one, e.g. row(RUNNING, " + e + ", ...).by(SYSTEM)");
            }
        }
        if ((!cancelIn.isEmpty() || !stopIn.isEmpty()) && machine.cancelEvent() == null) {
            defects.add("children are cancelled or stopped in " + cancelIn + stopIn + " but machine " + machine.name()
                    + " declares no cancel event (RunPolicy.Builder.cancel)");
        } else if (!cancelIn.isEmpty() && !machine.cancelFiredBySystem()) {
            defects.add("children are cancelled in " + cancelIn + " but no row of machine " + machine.name()
                    + " fires its cancel event by SYSTEM; add SYSTEM to the cancel rows' sources");
        }
        return defects;
    }

    /**
     * Builds a {@link Children} declaration; {@link #whenSucceeded} and {@link #whenFailed} are
     * required. Not thread-safe.
     *
     * @param <S> the parent's state type
     * @param <E> the parent's event type
     */
    public static final class Builder<S extends Enum<S>, E extends Enum<E>> {
        private final Machine<?, ?> machine;
        private @Nullable E whenSucceeded;
        private @Nullable E whenFailed;
        private @Nullable E whenCancelled;
        private boolean failFast;
        private @Nullable E reopen;
        private final EnumSet<S> holdIn;
        private final EnumSet<S> cancelIn;
        private final EnumSet<S> stopIn;
        private @Nullable String succeededAttribute;

        Builder(Machine<?, ?> machine, Class<S> stateType) {
            this.stopIn = EnumSet.noneOf(stateType);
            this.machine = Objects.requireNonNull(machine, "child machine");
            this.holdIn = EnumSet.noneOf(stateType);
            this.cancelIn = EnumSet.noneOf(stateType);
        }

        /** Sets the event fired on the parent once every child has succeeded. */
        public Builder<S, E> whenSucceeded(E event) {
            this.whenSucceeded = Objects.requireNonNull(event, "event");
            return this;
        }

        /** Sets the event fired on the parent once every child has ended and some failed. */
        public Builder<S, E> whenFailed(E event) {
            this.whenFailed = Objects.requireNonNull(event, "event");
            return this;
        }

        /** Sets the event fired once every child has ended, none failed and some were cancelled (default: the failure event). */
        public Builder<S, E> whenCancelled(E event) {
            this.whenCancelled = Objects.requireNonNull(event, "event");
            return this;
        }

        /** Fires the failure event as soon as one child failed, without waiting for the others. */
        public Builder<S, E> failFast() {
            this.failFast = true;
            return this;
        }

        /** Sets the event fired on the parent when a resolved group opens again (a child was retried). */
        public Builder<S, E> reopen(E event) {
            this.reopen = Objects.requireNonNull(event, "event");
            return this;
        }

        /** Holds the children while the parent is in these states: they are not claimed; running ones go on. */
        @SafeVarargs
        public final Builder<S, E> holdIn(S... states) {
            for (S s : states) holdIn.add(Objects.requireNonNull(s, "state"));
            return this;
        }

        /** Cancels the children when the parent is in these states: waiting ones get the child machine's cancel event, running ones are asked to stop. */
        @SafeVarargs
        public final Builder<S, E> cancelIn(S... states) {
            for (S s : states) cancelIn.add(Objects.requireNonNull(s, "state"));
            return this;
        }

        /**
         * Asks running children to stop while the parent is in these states: each gets the
         * cooperative cancel signal, and its machine's cancel event decides where it goes (back to
         * pending, for a pause that keeps the work).
         */
        @SafeVarargs
        public final Builder<S, E> stopIn(S... states) {
            for (S s : states) stopIn.add(Objects.requireNonNull(s, "state"));
            return this;
        }

        /** Has the settling event write the number of succeeded children to the parent's {@code attribute}. */
        public Builder<S, E> recordSucceededAs(String attribute) {
            this.succeededAttribute = Objects.requireNonNull(attribute, "attribute");
            return this;
        }

        Children<S, E> build() {
            if (whenSucceeded == null || whenFailed == null) {
                throw new IllegalArgumentException("children of " + machine.name() + " need whenSucceeded(...) and whenFailed(...)");
            }
            return new Children<>(this);
        }
    }
}
