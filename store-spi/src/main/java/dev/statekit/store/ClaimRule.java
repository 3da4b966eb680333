package dev.statekit.store;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How a claim moves a runnable task: a task in state {@code from} is claimed by firing
 * {@code event}, which takes it to {@code to} (the machine's running state), its attributes
 * computed by {@code effect} when the row has one.
 *
 * @param from   a claimable state
 * @param event  the start event fired by the claim
 * @param to     the state the task is in while a worker holds it
 * @param effect computes the claimed task's attributes from the task before the claim; null keeps them
 */
public record ClaimRule(String from, String event, String to, @Nullable ClaimEffect effect) {
    /** Creates a rule. */
    public ClaimRule {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(to, "to");
    }

    /** Creates a rule that keeps the task's attributes. */
    public ClaimRule(String from, String event, String to) {
        this(from, event, to, null);
    }

    /** Returns the attributes the claimed task gets. */
    public Attributes attributesOf(TaskRecord before) {
        return effect == null ? before.attributes() : Objects.requireNonNull(effect.attributes(before), "claim effect returned null");
    }

    /**
     * The effect of a start row on attributes, run by the store while it holds the task being
     * claimed. Must be pure, quick and thread-safe.
     */
    @FunctionalInterface
    public interface ClaimEffect {
        /** Returns the attributes of {@code before} after the start row's effect. */
        Attributes attributes(TaskRecord before);
    }
}
