package dev.statekit.store;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How a claim moves a runnable task: a task in state {@code from} is claimed by firing
 * {@code event}, which takes it to {@code to} (the machine's running state), its attributes
 * computed by {@code effect} when the row has one.
 *
 * <p>What a claim writes is defined here once, for every store: the claimed snapshot
 * ({@link #claim}) and its history entry ({@link #entry}), both stamped with
 * {@link #claimTime}.
 *
 * @param from   a claimable state
 * @param event  the start event fired by the claim
 * @param to     the state the task is in while a worker holds it
 * @param effect computes the claimed task's attributes from the task before the claim; null keeps them
 */
public record ClaimRule(String from, String event, String to, @Nullable ClaimEffect effect) {
    /** The reason of every claim's history entry, {@value}. */
    public static final String CLAIM_REASON = "claimed";

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
     * Returns the time a claim at {@code now} stamps on {@code before}: {@code now}, or the time of
     * the task's last change when that is later. A claimer whose clock was read before a slow
     * store call must not write history that goes backwards; the lease still runs from {@code now}.
     *
     * @param before the task before the claim
     * @param now    the claim's time ({@link ClaimRequest#now()})
     * @return the later of the two
     */
    public static Instant claimTime(TaskRecord before, Instant now) {
        return before.updatedAt().isAfter(now) ? before.updatedAt() : now;
    }

    /**
     * Returns when {@code before} became ready to be claimed: the later of its last change and its
     * not-before time. A task kept back meanwhile by a paused or full queue, or by a held group, is
     * counted as ready all the same.
     *
     * @param before the task before the claim
     * @return the time it has been ready since
     */
    public static Instant readySince(TaskRecord before) {
        Instant notBefore = before.notBefore();
        return notBefore != null && notBefore.isAfter(before.updatedAt()) ? notBefore : before.updatedAt();
    }

    /**
     * Returns {@code before} as this rule's claim leaves it: in state {@code to}, with the
     * attributes of {@link #attributesOf} (the effect runs here), holding {@code lease}, one
     * attempt more, no not-before time, updated at {@link #claimTime}, one version later.
     *
     * @param before the task before the claim, in state {@code from}
     * @param lease  the lease the claim hands out
     * @param now    the claim's time
     * @return the claimed snapshot
     * @throws IllegalArgumentException if {@code before} is not in state {@code from}
     */
    public TaskRecord claim(TaskRecord before, Lease lease, Instant now) {
        return claim(before, attributesOf(before), lease, now);
    }

    /**
     * Returns {@code before} as this rule's claim leaves it, as {@link #claim(TaskRecord, Lease, Instant)}
     * does, with attributes the store computed already with {@link #attributesOf} (a store that
     * writes them before it learns the lease, so that the effect runs once).
     *
     * @param before     the task before the claim, in state {@code from}
     * @param attributes {@code attributesOf(before)}
     * @param lease      the lease the claim hands out
     * @param now        the claim's time
     * @return the claimed snapshot
     * @throws IllegalArgumentException if {@code before} is not in state {@code from}
     */
    public TaskRecord claim(TaskRecord before, Attributes attributes, Lease lease, Instant now) {
        requireFrom(before);
        return before.toBuilder()
                .state(to)
                .attributes(attributes)
                .lease(lease)
                .attempts(before.attempts() + 1)
                .notBefore(null)
                .updatedAt(claimTime(before, now))
                .version(before.version() + 1)
                .build();
    }

    /**
     * Returns the history entry of this rule's claim of {@code before}: from {@code from} to
     * {@code to} by {@code event}, source {@link TriggerSource#SYSTEM}, the owner as actor, reason
     * {@link #CLAIM_REASON}, at {@link #claimTime}, no command key.
     *
     * @param before the task before the claim, in state {@code from}
     * @param owner  the lease owner
     * @param now    the claim's time
     * @return the entry, at the claimed snapshot's version
     * @throws IllegalArgumentException if {@code before} is not in state {@code from}
     */
    public HistoryEntry entry(TaskRecord before, String owner, Instant now) {
        requireFrom(before);
        return new HistoryEntry(before.id(), before.version() + 1, from, to, event, TriggerSource.SYSTEM, owner,
                CLAIM_REASON, claimTime(before, now), null);
    }

    private void requireFrom(TaskRecord before) {
        if (!before.state().equals(from)) {
            throw new IllegalArgumentException("task " + before.id() + " is in state " + before.state()
                    + ", not in " + from + " where this rule claims");
        }
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
