package dev.statekit.store.support;

import dev.statekit.store.Change;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.NewTask;
import dev.statekit.store.StatekitException;
import dev.statekit.store.TaskRecord;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The argument checks every store makes, each with one message, so that a caller meets the same
 * refusal whichever store it runs on. Stateless and thread-safe.
 */
public final class StoreChecks {
    private StoreChecks() {
    }

    /**
     * Refuses a new task whose payload is longer than {@code maxPayloadChars}.
     *
     * @throws StatekitException with {@link ErrorCode#PAYLOAD_TOO_LARGE} naming the machine
     */
    public static void checkPayload(NewTask task, int maxPayloadChars) {
        String payload = task.payload();
        if (payload != null && payload.length() > maxPayloadChars) {
            throw new StatekitException(ErrorCode.PAYLOAD_TOO_LARGE, tooLarge(payload, maxPayloadChars)
                    + " for a new task of machine " + task.machine());
        }
    }

    /**
     * Refuses a snapshot whose payload is longer than {@code maxPayloadChars}.
     *
     * @throws StatekitException with {@link ErrorCode#PAYLOAD_TOO_LARGE} carrying the task id
     */
    public static void checkPayload(TaskRecord next, int maxPayloadChars) {
        String payload = next.payload();
        if (payload != null && payload.length() > maxPayloadChars) {
            throw new StatekitException(ErrorCode.PAYLOAD_TOO_LARGE, tooLarge(payload, maxPayloadChars)
                    + " for task " + next.id(), next.id(), null);
        }
    }

    private static String tooLarge(String payload, int maxPayloadChars) {
        return "payload of " + payload.length() + " chars exceeds the limit of " + maxPayloadChars;
    }

    /**
     * Refuses a batch in which two changes concern the same task.
     *
     * @throws IllegalArgumentException naming the first task changed twice
     */
    public static void requireDistinctTasks(List<Change> changes) {
        Set<Long> ids = new HashSet<>(2 * changes.size());
        for (Change c : changes) {
            if (!ids.add(c.next().id())) throw new IllegalArgumentException("two changes for task " + c.next().id());
        }
    }

    /**
     * Refuses a negative concurrency limit.
     *
     * @return {@code limit}
     * @throws IllegalArgumentException if {@code limit} is negative
     */
    public static int requireConcurrencyLimit(int limit) {
        if (limit < 0) throw new IllegalArgumentException("concurrency limit must be >= 0, was " + limit);
        return limit;
    }
}
