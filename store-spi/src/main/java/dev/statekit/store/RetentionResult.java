package dev.statekit.store;

/**
 * What one retention batch did: how many trees (a root with its descendants) and how many tasks
 * in all it archived or deleted.
 *
 * @param trees how many trees, at most the batch's {@code max}
 * @param tasks how many tasks, roots and descendants together
 */
public record RetentionResult(int trees, int tasks) {
    /** Nothing moved. */
    public static final RetentionResult NONE = new RetentionResult(0, 0);

    /**
     * Creates a result.
     *
     * @throws IllegalArgumentException if a count is negative or there are fewer tasks than trees
     */
    public RetentionResult {
        if (trees < 0 || tasks < trees) throw new IllegalArgumentException("invalid counts: " + trees + " trees, " + tasks + " tasks");
    }

    /** Returns the sum of this result and {@code other}. */
    public RetentionResult plus(RetentionResult other) {
        return new RetentionResult(trees + other.trees, tasks + other.tasks);
    }
}
