package dev.statekit.core.ops;

import java.util.Map;
import java.util.TreeMap;

/**
 * What a bulk operation did ({@link TaskOperations#retryAll(TaskFilter, Enum, boolean, dev.statekit.core.Command)},
 * {@link TaskOperations#cancelAll}, {@link TaskOperations#deleteAll}): of the tasks it found matching, how many it
 * changed, how many got a cancellation request, how many were refused (by refusal code) and how many failed with an
 * error. Every task it found is counted once: {@code matched == applied + requested + refused + failed}.
 *
 * @param matched  the tasks found matching the filter, page after page
 * @param applied  the tasks changed (retried, cancelled, deleted), each a recorded change
 * @param requested the running tasks whose cancellation was requested ({@link TaskOperations#cancelAll} only)
 * @param refused  the tasks refused: by the table, the authorizer, a change since they were read, or the rules of the operation
 * @param refusals the refused tasks by code ({@link dev.statekit.core.Outcome.Refused#reasonCode()}, or the operation's own
 *                 codes such as {@link TaskOperations#NO_LONGER_MATCHES}); the counts add up to {@code refused}
 * @param failed   the tasks whose change failed with an error (logged); the operation goes on with the next
 * @param alsoDeleted the descendants deleted with the trees of deleted tasks ({@link TaskOperations#deleteAll} only),
 *                 besides the {@code applied} ones
 */
public record BulkResult(long matched, long applied, long requested, long refused, Map<String, Long> refusals, long failed,
                         long alsoDeleted) {

    /**
     * Creates a result; the refusals are copied, sorted by code.
     *
     * @throws IllegalArgumentException if a count is negative or the counts do not add up
     */
    public BulkResult {
        refusals = java.util.Collections.unmodifiableMap(new TreeMap<>(refusals));
        long byCode = 0;
        for (long n : refusals.values()) byCode += n;
        if (matched < 0 || applied < 0 || requested < 0 || refused < 0 || failed < 0 || alsoDeleted < 0) {
            throw new IllegalArgumentException("negative count");
        }
        if (byCode != refused || applied + requested + refused + failed != matched) {
            throw new IllegalArgumentException("counts do not add up: " + matched + " matched, " + applied + " applied, " + requested
                    + " requested, " + refused + " refused " + refusals + ", " + failed + " failed");
        }
    }
}
