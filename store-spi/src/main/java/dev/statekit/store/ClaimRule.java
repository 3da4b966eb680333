package dev.statekit.store;

import java.util.Objects;

/**
 * How a claim moves a runnable task: a task in state {@code from} is claimed by firing
 * {@code event}, which takes it to {@code to} (the machine's running state).
 *
 * @param from  a claimable state
 * @param event the start event fired by the claim
 * @param to    the state the task is in while a worker holds it
 */
public record ClaimRule(String from, String event, String to) {
    /** Creates a rule. */
    public ClaimRule {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(to, "to");
    }
}
