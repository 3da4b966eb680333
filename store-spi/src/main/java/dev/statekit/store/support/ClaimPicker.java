package dev.statekit.store.support;

import org.jspecify.annotations.Nullable;

/**
 * The order in which a claim takes runnable tasks, as {@link dev.statekit.store.ClaimRequest}
 * describes it: priority (larger first), then FIFO sequence, then id; and anti-starvation: after
 * {@code starvationLimit} consecutive picks that passed over a runnable task of a lower priority,
 * the best lower-priority task is taken next.
 *
 * <p>A store hands in its runnable tasks through a small {@link Candidates} view and keeps the
 * count of passed-over picks ({@link dev.statekit.store.QueueRecord#skippedLower()}) in its queue
 * record: {@link #pick} starts from the stored count and returns the one to store.
 *
 * <p>Stateless and thread-safe; a {@link Candidates} view belongs to one claim.
 */
public final class ClaimPicker {
    private ClaimPicker() {
    }

    /**
     * The runnable tasks of one claim, as the store finds them. The view answers for the tasks it
     * has not taken yet.
     *
     * @param <T> a candidate task
     * @param <X> what the store may throw while reading its candidates
     */
    public interface Candidates<T, X extends Exception> {
        /**
         * Returns the first untaken runnable task in claim order (priority, then FIFO sequence, then
         * id), or null when none is left.
         *
         * @throws X when the store cannot read
         */
        @Nullable T top() throws X;

        /**
         * Returns the first untaken runnable task in claim order whose priority is below
         * {@code priority}, or null when there is none.
         *
         * @param priority the priority of the current {@link #top()}; never rises within one claim
         * @throws X when the store cannot read
         */
        @Nullable T lower(int priority) throws X;

        /** Returns the priority of {@code candidate}. */
        int priority(T candidate);

        /**
         * Takes {@code candidate} for the claim (claims it, or sets it aside to be written with the
         * others); afterwards neither {@link #top()} nor {@link #lower(int)} returns it.
         *
         * @return whether it was taken; false when it stopped being runnable meanwhile, which
         *         leaves the room for the next candidate
         * @throws X when the store cannot write
         */
        boolean take(T candidate) throws X;

        /**
         * Sets {@code candidate} aside without taking it, for the rest of the claim: afterwards
         * neither {@link #top()} nor {@link #lower(int)} returns it. A {@link RateGate} passes over
         * the tasks whose key has no room.
         *
         * @throws X when the store cannot read
         */
        void pass(T candidate) throws X;
    }

    /**
     * Takes up to {@code room} tasks from {@code candidates} in claim order, with anti-starvation.
     *
     * @param candidates      the claim's runnable tasks
     * @param room            the most tasks to take; nothing is taken when it is 0 or less
     * @param skippedLower    the stored count of consecutive picks that passed over a lower task
     * @param starvationLimit K of "one lower pick after K higher ones"; 0 turns it off
     * @param <T>             a candidate task
     * @param <X>             what the store may throw
     * @return the count of consecutive passed-over picks after this claim, to store
     * @throws X when the store cannot read or write its candidates
     */
    public static <T, X extends Exception> int pick(Candidates<T, X> candidates, int room, int skippedLower,
                                                    int starvationLimit) throws X {
        int skipped = skippedLower;
        int left = room;
        while (left > 0) {
            T top = candidates.top();
            if (top == null) break;
            T lower = candidates.lower(candidates.priority(top));
            T pick = top;
            if (lower != null && starvationLimit > 0 && skipped >= starvationLimit) {
                pick = lower;
                skipped = 0;
            } else {
                skipped = lower != null ? skipped + 1 : 0;
            }
            if (candidates.take(pick)) left--;
        }
        return skipped;
    }
}
