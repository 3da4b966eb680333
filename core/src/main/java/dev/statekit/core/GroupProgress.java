package dev.statekit.core;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * How far the members of one task's group have got (its children, or its dependencies), as of
 * the last resolution pass: one read of the group's counts, whatever its size.
 *
 * @param total      how many members the group has
 * @param succeeded  members in a succeeded state
 * @param failed     members in a failed state
 * @param cancelled  members in a cancelled state
 * @param running    members in a state where a worker holds them
 * @param sealed     whether every member exists
 * @param resolution the event the group last caused on its owner, or null while it is open
 * @param held       whether the group holds its members (children) or its owner (dependencies)
 * @param byState    members per state name
 */
public record GroupProgress(long total, long succeeded, long failed, long cancelled, long running, boolean sealed,
                            @Nullable String resolution, boolean held, Map<String, Long> byState) {

    /** Creates a progress report. */
    public GroupProgress {
        byState = Map.copyOf(byState);
    }

    /** Returns the members that have ended (succeeded, failed or cancelled). */
    public long ended() {
        return succeeded + failed + cancelled;
    }

    /** Returns the members that have not ended, running or waiting. */
    public long open() {
        return total - ended();
    }

    /** Returns the members that have not ended and are not running. */
    public long waiting() {
        return open() - running;
    }
}
