package dev.statekit.store.support;

import dev.statekit.store.RateLimit;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A queue's rate limit and key holds over the candidates of one claim: the tasks whose key has no
 * room (its starts in the window reached the limit, or it is held) are passed over, so the claim
 * takes the next task of another key. A passed-over task is invisible to the {@link ClaimPicker}:
 * it is not runnable now, so it does not count as a lower task passed over for anti-starvation.
 *
 * <p>The store gives the starts of each key within the window ({@link RateLimit#windowAfter}) and
 * the keys held at the claim's time, both read under the lock that serialises the queue's claims,
 * then writes one start per task claimed, under its key ({@link RateLimit#keyOf}), at the time of
 * the claim's history entry, so that the starts counted are those the history shows. Belongs to
 * one claim.
 *
 * @param <T> a candidate task
 * @param <X> what the store may throw
 */
public final class RateGate<T, X extends Exception> implements ClaimPicker.Candidates<T, X> {
    /**
     * What the gate asks of the store.
     *
     * @param <T> a candidate task
     */
    public interface Keys<T> {
        /** Returns the key of {@code candidate} under the queue's rate limit ({@link RateLimit#keyOf}). */
        String keyOf(T candidate);
    }

    private final ClaimPicker.Candidates<T, X> inner;
    private final Keys<T> keys;
    private final @Nullable RateLimit limit;
    private final Map<String, Integer> startsInWindow;
    private final Set<String> held;
    private final Map<String, Integer> started = new HashMap<>();

    /**
     * Creates the gate of one claim.
     *
     * @param inner          the store's candidates
     * @param keys           the key of each candidate
     * @param limit          the queue's rate limit, or null (then only holds apply)
     * @param startsInWindow the starts of each key within the window; a key not in it has none
     * @param held           the keys held at the claim's time
     */
    public RateGate(ClaimPicker.Candidates<T, X> inner, Keys<T> keys, @Nullable RateLimit limit,
                    Map<String, Integer> startsInWindow, Set<String> held) {
        this.inner = Objects.requireNonNull(inner, "inner");
        this.keys = Objects.requireNonNull(keys, "keys");
        this.limit = limit;
        this.startsInWindow = Map.copyOf(startsInWindow);
        this.held = Set.copyOf(held);
    }

    /** Returns whether a claim at {@code now} of a queue with a hold until {@code heldUntil} (or none) must look at holds. */
    public static boolean holdsApply(@Nullable Instant heldUntil, Instant now) {
        return heldUntil != null && heldUntil.isAfter(now);
    }

    /** Returns how many tasks of each key this claim took (counted against the limit within the claim). */
    public Map<String, Integer> started() {
        return Map.copyOf(started);
    }

    private boolean hasRoom(T candidate) {
        String key = keys.keyOf(candidate);
        if (held.contains(key)) return false;
        RateLimit l = limit;
        if (l == null) return true;
        return startsInWindow.getOrDefault(key, 0) + started.getOrDefault(key, 0) < l.starts();
    }

    @Override
    public @Nullable T top() throws X {
        while (true) {
            T t = inner.top();
            if (t == null || hasRoom(t)) return t;
            inner.pass(t);
        }
    }

    @Override
    public @Nullable T lower(int priority) throws X {
        while (true) {
            T t = inner.lower(priority);
            if (t == null || hasRoom(t)) return t;
            inner.pass(t);
        }
    }

    @Override
    public int priority(T candidate) {
        return inner.priority(candidate);
    }

    @Override
    public boolean take(T candidate) throws X {
        String key = keys.keyOf(candidate);
        boolean taken = inner.take(candidate);
        if (taken) started.merge(key, 1, Integer::sum);
        return taken;
    }

    @Override
    public void pass(T candidate) throws X {
        inner.pass(candidate);
    }
}
