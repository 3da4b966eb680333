package dev.statekit.core.ops;

/**
 * What a {@link TaskOperations#count} found: how many tasks match a filter now, and the largest id
 * among them. An operator confirms the count, and the operation runs with
 * {@link TaskFilter#upTo(long) upTo(lastId)}, so that it touches no task created after the count.
 *
 * @param tasks  how many tasks match
 * @param lastId the largest id among them; 0 when none matches
 */
public record BulkCount(long tasks, long lastId) {
    /**
     * Creates a count.
     *
     * @throws IllegalArgumentException if a number is negative
     */
    public BulkCount {
        if (tasks < 0 || lastId < 0) throw new IllegalArgumentException("negative count: " + tasks + ", " + lastId);
    }
}
