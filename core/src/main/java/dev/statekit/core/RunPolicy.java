package dev.statekit.core;

import dev.statekit.store.TriggerSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * How a machine's tasks are run: part of the machine's definition, declared with
 * {@link MachineBuilder#run}, validated against the table by {@link MachineBuilder#build()}.
 *
 * <ul>
 *   <li><b>claims</b>: from which states a runtime claims tasks, and the start event of each
 *       (a SYSTEM row without guard, since claims are decided by the store);</li>
 *   <li><b>success</b>, <b>retryable</b> and <b>fatal</b>: the events fired from the running
 *       state for the worker's results (a retryable failure beyond the retry policy is fatal).
 *       Without a retryable event, a retry waits in place: the runtime puts the task back in the
 *       claimable state it was claimed from, with its back-off as not-before time, recorded as
 *       {@code RETRY} in its history;</li>
 *   <li><b>release</b>: the event that puts a running task back where it can be claimed (snooze,
 *       graceful shutdown, pause, lease reclaim by {@link Recovery#REQUEUE}). Without one, the
 *       runtime puts the task back in the claimable state it was claimed from, recorded as
 *       {@code RELEASE}: a lifecycle with one worker needs one running state and no row back;</li>
 *   <li><b>waits</b>: events the runtime fires once a task's not-before time has come (004:
 *       RETRYING → QUEUED after the backoff);</li>
 *   <li><b>cancel</b>: the event a cancellation fires, if the machine can be cancelled;</li>
 *   <li><b>block</b>: the blocked state and the events that enter and leave it, for preconditions;</li>
 *   <li><b>recovery</b> of expired leases and the <b>retry policy</b>.</li>
 * </ul>
 *
 * <p>Immutable and thread-safe.
 *
 * @param <S> the state type
 * @param <E> the event type
 */
public final class RunPolicy<S extends Enum<S>, E extends Enum<E>> {

    /** What happens to a task whose lease expired (its worker died or hung past the lease). */
    public enum Recovery {
        /** Fire the release event (or, without one, go back to the claimable state): claimable again (000 chunks: pending; 002: QUEUED). */
        REQUEUE,
        /** Fire the fatal event: the task fails with code {@code LEASE_EXPIRED}. */
        FAIL,
        /**
         * Fire the interrupt event (004: Running → Interrupted); then, with automatic recovery,
         * the requeue event at the front of the queue with one automatic retry, else the
         * give-up event (Interrupted → Failed).
         */
        INTERRUPT
    }

    private final Map<S, E> claims;
    private final @Nullable E success;
    private final @Nullable E retryable;
    private final @Nullable E fatal;
    private final @Nullable E release;
    private final Map<S, E> waits;
    private final @Nullable E cancel;
    private final @Nullable S blockedState;
    private final @Nullable E block;
    private final @Nullable E unblock;
    private final Recovery recovery;
    private final @Nullable E interrupt;
    private final @Nullable E interruptRequeue;
    private final @Nullable E interruptFail;
    private final boolean autoRecover;
    private final RetryPolicy retry;
    private final @Nullable Duration timeout;
    private final int maxAttempts;
    private final @Nullable String queue;

    /** The most attempts of one stage unless {@link Builder#maxAttempts} says otherwise. */
    public static final int DEFAULT_MAX_ATTEMPTS = 25;

    private RunPolicy(Builder<S, E> b) {
        this.claims = Collections.unmodifiableMap(new EnumMap<>(b.claims));
        this.success = b.success;
        this.retryable = b.retryable;
        this.fatal = b.fatal;
        this.release = b.release;
        this.waits = Collections.unmodifiableMap(b.waits.isEmpty() ? Map.of() : new EnumMap<>(b.waits));
        this.cancel = b.cancel;
        this.blockedState = b.blockedState;
        this.block = b.block;
        this.unblock = b.unblock;
        this.recovery = b.recovery;
        this.interrupt = b.interrupt;
        this.interruptRequeue = b.interruptRequeue;
        this.interruptFail = b.interruptFail;
        this.autoRecover = b.autoRecover;
        this.retry = b.retry;
        this.timeout = b.timeout;
        this.maxAttempts = b.maxAttempts;
        this.queue = b.queue;
    }

    /** Returns the queue a task is moved to when it enters one of this policy's claimable states, or null to keep its queue. */
    public @Nullable String queue() {
        return queue;
    }

    /** Returns the claimable states and the start event of each. */
    public Map<S, E> claims() {
        return claims;
    }

    /** Returns the states a claimed task is in while a worker holds it. */
    public Set<S> runningStates(Machine<S, E> machine) {
        EnumSet<S> running = EnumSet.noneOf(machine.stateType());
        claims.forEach((from, event) -> {
            for (Transition<S, E> t : machine.transitions(from, event)) running.add(t.to());
        });
        return running;
    }

    /** Returns the success event. */
    public @Nullable E success() {
        return success;
    }

    /** Returns the retryable-failure event, or null when retries wait in place, in the claimable state. */
    public @Nullable E retryable() {
        return retryable;
    }

    /** Returns the fatal-failure event. */
    public @Nullable E fatal() {
        return fatal;
    }

    /** Returns the release event, or null. */
    public @Nullable E release() {
        return release;
    }

    /** Returns the events fired when a waiting task's not-before time has come. */
    public Map<S, E> waits() {
        return waits;
    }

    /** Returns the cancel event, or null. */
    public @Nullable E cancel() {
        return cancel;
    }

    /** Returns the longest an attempt may run, or null when there is no limit. */
    public @Nullable Duration timeout() {
        return timeout;
    }

    /** Returns the most attempts a task may use in this stage ({@link Builder#maxAttempts}). */
    public int maxAttempts() {
        return maxAttempts;
    }

    /** Returns how expired leases are recovered. */
    public Recovery recovery() {
        return recovery;
    }

    /** Returns whether interrupted tasks are re-queued automatically ({@link Recovery#INTERRUPT}). */
    public boolean autoRecover() {
        return autoRecover;
    }

    /** Returns the retry policy. */
    public RetryPolicy retry() {
        return retry;
    }

    /** Returns the blocked state, or null. */
    public @Nullable S blockedState() {
        return blockedState;
    }

    /** Returns the event that enters the blocked state, or null. */
    public @Nullable E block() {
        return block;
    }

    /** Returns the event that leaves the blocked state, or null. */
    public @Nullable E unblock() {
        return unblock;
    }

    /** Returns the interrupt event, or null. */
    public @Nullable E interrupt() {
        return interrupt;
    }

    /** Returns the event that re-queues an interrupted task, or null. */
    public @Nullable E interruptRequeue() {
        return interruptRequeue;
    }

    /** Returns the event that fails an interrupted task, or null. */
    public @Nullable E interruptFail() {
        return interruptFail;
    }

    /** Checks the policy against the table; returns one sentence per defect. */
    List<String> defects(List<Transition<S, E>> rows) {
        List<String> defects = new ArrayList<>();
        if (claims.isEmpty()) defects.add("run policy: no claimable state; declare claim(STATE, START_EVENT) with an unguarded SYSTEM row STATE --START_EVENT--> RUNNING_STATE");
        EnumSet<S> running = null;
        for (Map.Entry<S, E> c : claims.entrySet()) {
            List<Transition<S, E>> pair = pair(rows, c.getKey(), c.getValue());
            if (pair.size() != 1 || pair.get(0).guarded() || !pair.get(0).allows(TriggerSource.SYSTEM)) {
                defects.add("run policy: claim " + c.getKey() + "/" + c.getValue() + " needs exactly one unguarded SYSTEM row from "
                        + c.getKey() + " by " + c.getValue() + " (the state the task runs in)");
            } else {
                if (running == null) running = EnumSet.noneOf(c.getKey().getDeclaringClass());
                running.add(pair.get(0).to());
            }
        }
        if (success == null) defects.add("run policy: no success event; declare success(EVENT) with a SYSTEM row from the running state");
        if (fatal == null) defects.add("run policy: no fatal event; declare fatal(EVENT) with a SYSTEM row from the running state to a failed state");
        if (running != null) {
            for (S r : running) {
                requireFrom(rows, defects, r, success, "success");
                requireFrom(rows, defects, r, fatal, "fatal");
                if (retryable != null) requireFrom(rows, defects, r, retryable, "retryable");
                if (release != null) requireFrom(rows, defects, r, release, "release");
                if (release == null && sources(rows, r).size() > 1) {
                    defects.add("run policy: running state " + r + " is entered from " + sources(rows, r) + ", so a task released"
                            + " without a release row could go to either; declare release(EVENT) with a SYSTEM row from " + r);
                }
                if (recovery == Recovery.INTERRUPT) {
                    if (interrupt == null) defects.add("run policy: INTERRUPT recovery needs an interrupt event");
                    else requireFrom(rows, defects, r, interrupt, "interrupt");
                }
            }
        }
        waits.forEach((state, event) -> requireFrom(rows, defects, state, event, "wait"));
        if (recovery == Recovery.INTERRUPT && interrupt != null && running != null) {
            for (S r : running) {
                for (Transition<S, E> t : pair(rows, r, interrupt)) {
                    if (interruptRequeue != null) requireFrom(rows, defects, t.to(), interruptRequeue, "interrupt requeue");
                    if (interruptFail != null) requireFrom(rows, defects, t.to(), interruptFail, "interrupt give-up");
                }
            }
            if (autoRecover && interruptRequeue == null) defects.add("run policy: automatic recovery needs an interrupt requeue event");
            if (!autoRecover && interruptFail == null) defects.add("run policy: recovery without auto-retry needs an interrupt give-up event");
        }
        if ((blockedState == null) != (block == null) || (block == null) != (unblock == null)) {
            defects.add("run policy: blocked needs a state, a block event and an unblock event");
        } else if (blockedState != null) {
            for (S c : claims.keySet()) requireFrom(rows, defects, c, block, "block");
            requireFrom(rows, defects, blockedState, unblock, "unblock");
        }
        return defects;
    }

    /** The claimable states whose claim row enters {@code running}. */
    private List<S> sources(List<Transition<S, E>> rows, S running) {
        List<S> from = new ArrayList<>();
        for (Map.Entry<S, E> c : claims.entrySet()) {
            for (Transition<S, E> t : pair(rows, c.getKey(), c.getValue())) if (t.to() == running) from.add(c.getKey());
        }
        return from;
    }

    private void requireFrom(List<Transition<S, E>> rows, List<String> defects, S state, @Nullable E event, String what) {
        if (event == null) return;
        boolean ok = false;
        for (Transition<S, E> t : pair(rows, state, event)) ok |= t.allows(TriggerSource.SYSTEM);
        if (!ok) defects.add("run policy: the " + what + " event " + event + " has no SYSTEM row from " + state);
    }

    private List<Transition<S, E>> pair(List<Transition<S, E>> rows, S from, E event) {
        List<Transition<S, E>> pair = new ArrayList<>();
        for (Transition<S, E> t : rows) if (t.from() == from && t.event() == event) pair.add(t);
        return pair;
    }

    /** Builds a {@link RunPolicy}; obtained through {@link MachineBuilder#run}. Not thread-safe. */
    public static final class Builder<S extends Enum<S>, E extends Enum<E>> {
        private final Map<S, E> claims;
        private final Map<S, E> waits;
        private @Nullable E success;
        private @Nullable E retryable;
        private @Nullable E fatal;
        private @Nullable E release;
        private @Nullable E cancel;
        private @Nullable S blockedState;
        private @Nullable E block;
        private @Nullable E unblock;
        private Recovery recovery = Recovery.REQUEUE;
        private @Nullable E interrupt;
        private @Nullable E interruptRequeue;
        private @Nullable E interruptFail;
        private boolean autoRecover = true;
        private RetryPolicy retry = RetryPolicy.defaults();
        private @Nullable Duration timeout;
        private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
        private @Nullable String queue;

        Builder(Class<S> stateType) {
            this.claims = new EnumMap<>(stateType);
            this.waits = new EnumMap<>(stateType);
        }

        /** Declares {@code state} claimable, started by {@code startEvent}. */
        public Builder<S, E> claim(S state, E startEvent) {
            claims.put(Objects.requireNonNull(state), Objects.requireNonNull(startEvent));
            return this;
        }

        /** Sets the success event. */
        public Builder<S, E> success(E event) {
            this.success = Objects.requireNonNull(event);
            return this;
        }

        /** Sets the retryable-failure event (into an in-attempt retrying or waiting state). */
        public Builder<S, E> retryable(E event) {
            this.retryable = Objects.requireNonNull(event);
            return this;
        }

        /** Sets the fatal-failure event. */
        public Builder<S, E> fatal(E event) {
            this.fatal = Objects.requireNonNull(event);
            return this;
        }

        /** Sets the release event (running → claimable). */
        public Builder<S, E> release(E event) {
            this.release = Objects.requireNonNull(event);
            return this;
        }

        /** Fires {@code event} at tasks in {@code state} once their not-before time has come. */
        public Builder<S, E> afterWait(S state, E event) {
            waits.put(Objects.requireNonNull(state), Objects.requireNonNull(event));
            return this;
        }

        /** Sets the cancel event. */
        public Builder<S, E> cancel(E event) {
            this.cancel = Objects.requireNonNull(event);
            return this;
        }

        /** Declares the blocked state with the events that enter (from claimable states) and leave it. */
        public Builder<S, E> blocked(S state, E blockEvent, E unblockEvent) {
            this.blockedState = Objects.requireNonNull(state);
            this.block = Objects.requireNonNull(blockEvent);
            this.unblock = Objects.requireNonNull(unblockEvent);
            return this;
        }

        /** Recovers expired leases with the release event, or back to the claimable state without one (the default). */
        public Builder<S, E> recoverByRequeue() {
            this.recovery = Recovery.REQUEUE;
            return this;
        }

        /** Recovers expired leases by failing the task. */
        public Builder<S, E> recoverByFailing() {
            this.recovery = Recovery.FAIL;
            return this;
        }

        /**
         * Recovers expired leases by interrupting the task; then, if {@code automatic}, re-queues it
         * at the front with {@code requeue} and one automatic retry, else fails it with {@code giveUp}.
         */
        public Builder<S, E> recoverByInterrupt(E interruptEvent, E requeue, E giveUp, boolean automatic) {
            this.recovery = Recovery.INTERRUPT;
            this.interrupt = Objects.requireNonNull(interruptEvent);
            this.interruptRequeue = Objects.requireNonNull(requeue);
            this.interruptFail = Objects.requireNonNull(giveUp);
            this.autoRecover = automatic;
            return this;
        }

        /**
         * Sets the longest an attempt may run (default: no limit). Past it the worker is asked to
         * stop ({@code cancelled()} is true, {@code cancelReason()} is {@code TIMEOUT}), and its thread
         * is interrupted after the runtime's cancel grace; whatever the worker then returns, the
         * attempt ends as a retryable failure with code {@code TIMEOUT}, which the retry policy
         * decides like any other. The lease is not renewed past the deadline and the grace, so
         * another process takes the task over if this one cannot end the attempt.
         *
         * @throws IllegalArgumentException if not positive
         */
        public Builder<S, E> timeout(Duration maxRunTime) {
            Objects.requireNonNull(maxRunTime, "maxRunTime");
            if (maxRunTime.isNegative() || maxRunTime.isZero()) throw new IllegalArgumentException("timeout must be positive, was " + maxRunTime);
            this.timeout = maxRunTime;
            return this;
        }

        /**
         * Sets the most attempts a task may use in this stage (default {@value #DEFAULT_MAX_ATTEMPTS}).
         * Every claim is one attempt; a snooze, a release by a stopping runtime and a cancellation
         * back to a claimable state give theirs back. Once a task has used them all, a retryable
         * failure is fatal and an expired lease fails the task with {@code ATTEMPTS_EXHAUSTED}
         * instead of putting it back: a task whose worker crashes its process every time cannot
         * loop for ever. The retry policy bounds the retries of one processing inside this bound.
         *
         * @throws IllegalArgumentException if less than 1
         */
        public Builder<S, E> maxAttempts(int attempts) {
            if (attempts < 1) throw new IllegalArgumentException("maxAttempts must be >= 1, was " + attempts);
            this.maxAttempts = attempts;
            return this;
        }

        /** Sets the retry policy (default {@link RetryPolicy#defaults()}). */
        public Builder<S, E> retry(RetryPolicy policy) {
            this.retry = Objects.requireNonNull(policy);
            return this;
        }

        /**
         * Sets the queue of the stage: a task that enters one of its claimable states moves to this
         * queue in the same write, so each stage has its own queue, concurrency limit and pause.
         */
        public Builder<S, E> queue(String name) {
            Objects.requireNonNull(name, "queue");
            if (name.isBlank()) throw new IllegalArgumentException("queue must not be blank");
            this.queue = name;
            return this;
        }

        RunPolicy<S, E> build() {
            return new RunPolicy<>(this);
        }
    }
}
