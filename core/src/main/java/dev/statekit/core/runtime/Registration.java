package dev.statekit.core.runtime;

import dev.statekit.core.Machine;
import dev.statekit.core.RunPolicy;
import dev.statekit.core.internal.Kernel;

import dev.statekit.core.spi.Worker;
import dev.statekit.store.ClaimRule;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One machine served on one queue by one worker: the claim rules the store runs (their effects
 * decided by {@link Decider}, as a fired event's would be), and the state names a runtime looks
 * for (claimable, waiting, timed). Immutable.
 */
final class Registration<S extends Enum<S>, E extends Enum<E>> {
    final Machine<S, E> machine;
    final RunPolicy<S, E> policy;
    final String queue;
    final Worker<S> worker;
    final QueueOptions options;
    final List<ClaimRule> rules;
    final Set<String> claimStates;
    final Set<String> waitStates;
    final Set<String> timedStates;
    final Set<String> ownStates;
    /** Per running state, the one claimable state a claim enters it from; absent when several do. */
    private final Map<S, S> backTo;

    /**
     * @throws IllegalArgumentException if the machine declares no run policy, or a precondition is
     *         given for a machine without a blocked state
     */
    Registration(Machine<S, E> machine, String queue, Worker<S> worker, QueueOptions options) {
        this(machine, policyOf(machine), queue, worker, options);
    }

    /** Serves one stage (or the run policy) {@code p} of {@code machine}. */
    Registration(Machine<S, E> machine, RunPolicy<S, E> p, String queue, Worker<S> worker, QueueOptions options) {
        this.machine = machine;
        this.policy = p;
        this.queue = queue;
        this.worker = worker;
        this.options = options;
        List<ClaimRule> rs = new ArrayList<>();
        Set<String> cs = new HashSet<>();
        policy.claims().forEach((from, event) -> {
            rs.add(Kernel.claimRule(machine, from, event));
            cs.add(from.name());
        });
        this.rules = List.copyOf(rs);
        this.claimStates = Set.copyOf(cs);
        Set<String> ws = new HashSet<>();
        policy.waits().keySet().forEach(s -> ws.add(s.name()));
        this.waitStates = Set.copyOf(ws);
        Set<String> ts = new HashSet<>(cs);
        ts.addAll(ws);
        this.timedStates = Set.copyOf(ts);
        Set<String> own = new HashSet<>(ts);
        for (S r : policy.runningStates(machine)) own.add(r.name());
        this.ownStates = Set.copyOf(own);
        Map<S, S> back = new java.util.EnumMap<>(machine.stateType());
        Set<S> ambiguous = java.util.EnumSet.noneOf(machine.stateType());
        policy.claims().forEach((from, event) -> {
            S running = machine.target(from, event);
            if (running != null && back.putIfAbsent(running, from) != null) ambiguous.add(running);
        });
        ambiguous.forEach(back::remove);
        this.backTo = back;
        if (options.precondition() != null && policy.block() == null) {
            throw new IllegalArgumentException("queue " + queue + " has a precondition but machine " + machine.name()
                    + " declares no blocked state in its run policy");
        }
    }

    /**
     * Returns the claimable state a task running in {@code state} goes back to when the runtime
     * releases it, or retries it in place, without a row of the table; null when the policy has no
     * single such state.
     */
    @Nullable S backTo(S state) {
        return backTo.get(state);
    }

    private static <S extends Enum<S>, E extends Enum<E>> RunPolicy<S, E> policyOf(Machine<S, E> machine) {
        RunPolicy<S, E> p = machine.runPolicy();
        if (p == null) {
            throw new IllegalArgumentException("machine " + machine.name() + " declares no run policy"
                    + (machine.stages().isEmpty() ? "" : "; register one of its stages " + machine.stages().keySet() + " with registerStage"));
        }
        return p;
    }

    /** Returns whether a task of this machine in {@code state} on {@code queue} is one this registration claims. */
    boolean claims(String queue, String state) {
        return this.queue.equals(queue) && claimStates.contains(state);
    }
}
