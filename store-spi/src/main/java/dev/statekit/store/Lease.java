package dev.statekit.store;

import java.time.Instant;
import java.util.Objects;

/**
 * The right of one owner to work on a task until {@code expiresAt}.
 *
 * <p>The fencing token grows with every claim of a task, so a holder whose lease was taken over
 * can be told apart from the current one even when both carry the same owner name.
 *
 * @param owner        the runtime instance (worker) holding the lease
 * @param fencingToken strictly increasing per task, across claims
 * @param expiresAt    when the lease lapses unless renewed
 */
public record Lease(String owner, long fencingToken, Instant expiresAt) {
    /**
     * Creates a lease.
     *
     * @throws NullPointerException if {@code owner} or {@code expiresAt} is null
     * @throws IllegalArgumentException if {@code owner} is blank or {@code fencingToken} is negative
     */
    public Lease {
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(expiresAt, "expiresAt");
        if (owner.isBlank()) throw new IllegalArgumentException("lease owner must not be blank");
        if (fencingToken < 0) throw new IllegalArgumentException("fencingToken must be >= 0, was " + fencingToken);
    }
}
