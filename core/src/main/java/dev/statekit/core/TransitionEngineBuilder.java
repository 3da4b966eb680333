package dev.statekit.core;

import dev.statekit.core.spi.Clock;
import dev.statekit.core.spi.TaskInterceptor;
import dev.statekit.core.spi.TransitionListener;
import dev.statekit.store.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** Builds a {@link TransitionEngine}. Not thread-safe. */
public final class TransitionEngineBuilder {
    @Nullable Store store;
    Clock clock = Clock.system();
    final List<TransitionListener> listeners = new ArrayList<>();
    final List<TaskInterceptor> interceptors = new ArrayList<>();
    int maxConflictRetries = 100;
    Duration awaitRecheck = Duration.ofSeconds(1);
    Authorizer authorizer = Authorizer.ALLOW_ALL;

    TransitionEngineBuilder() {}

    /** Sets the store. Required. */
    public TransitionEngineBuilder store(Store value) {
        this.store = Objects.requireNonNull(value, "store");
        return this;
    }

    /** Sets the clock (default {@link Clock#system()}). */
    public TransitionEngineBuilder clock(Clock value) {
        this.clock = Objects.requireNonNull(value, "clock");
        return this;
    }

    /** Adds a listener, called after every applied change in the order added. */
    public TransitionEngineBuilder listener(TransitionListener value) {
        listeners.add(Objects.requireNonNull(value, "listener"));
        return this;
    }

    /**
     * Adds an interceptor: it adds attributes to every task this engine creates, and runs around
     * every attempt of runtimes over this engine, in the order added (the first added outermost).
     */
    public TransitionEngineBuilder interceptor(TaskInterceptor value) {
        interceptors.add(Objects.requireNonNull(value, "interceptor"));
        return this;
    }

    /**
     * Sets how often a command without an expected version is decided again after losing a
     * compare-and-set to a concurrent change (default 100) before it is refused with
     * {@link RefusalCode#VERSION_CONFLICT}.
     *
     * @throws IllegalArgumentException if negative
     */
    public TransitionEngineBuilder maxConflictRetries(int value) {
        if (value < 0) throw new IllegalArgumentException("maxConflictRetries must be >= 0, was " + value);
        this.maxConflictRetries = value;
        return this;
    }

    /**
     * Sets how often the tasks that {@link TransitionEngine#await} waits for are read again
     * while waits are pending (default 1 second, on the engine's clock): the safety net for
     * changes neither this engine nor the store's watch tells of.
     *
     * @throws IllegalArgumentException if not positive
     */
    public TransitionEngineBuilder awaitRecheck(Duration value) {
        if (value.isNegative() || value.isZero()) throw new IllegalArgumentException("awaitRecheck must be positive, was " + value);
        this.awaitRecheck = value;
        return this;
    }

    /**
     * Sets the authorizer asked about every command of a person (default {@link Authorizer#ALLOW_ALL}).
     */
    public TransitionEngineBuilder authorizer(Authorizer value) {
        this.authorizer = Objects.requireNonNull(value, "authorizer");
        return this;
    }

    /**
     * Builds the engine.
     *
     * @throws IllegalStateException if no store was given
     */
    public TransitionEngine build() {
        if (store == null) throw new IllegalStateException("a TransitionEngine needs a store");
        return new TransitionEngine(this);
    }
}
