package dev.statekit.core.spi;

import dev.statekit.core.Task;
import dev.statekit.store.Lease;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link Worker} sees of the task it processes: the task as claimed, its lease, the
 * cancellation signal, and a way to report progress. Provided by the runtime; thread-safe.
 *
 * @param <S> the state type
 */
public interface WorkContext<S extends Enum<S>> {
    /** Returns the task as it was when claimed (in its running state). */
    Task<S> task();

    /** Returns the lease under which the worker runs. */
    Lease lease();

    /** Returns the lease's fencing token: commits carry it and fail once it is stale. */
    default long fencingToken() {
        return lease().fencingToken();
    }

    /**
     * Returns whether the worker should stop: the task was cancelled, the runtime is stopping, or
     * the lease was lost. A worker that sees it should return promptly; its result may be discarded.
     */
    boolean cancelled();

    /** Returns why {@link #cancelled()} is set ({@code CANCELLED}, {@code SHUTDOWN}, {@code LEASE_LOST}), or null. */
    @Nullable String cancelReason();

    /** Registers {@code action} to run once when the work is cancelled (at once if it already is). */
    void onCancel(Runnable action);

    /**
     * Records an attribute to write with the result (for example progress); a later call for the
     * same key wins, and the result's own attributes win over these.
     */
    void progress(String key, String value);

    /** Returns the clock of the runtime, the only source of time a worker should use. */
    Clock clock();
}
