package dev.statekit.core.ops;

import dev.statekit.store.ProcessRecord;
import dev.statekit.store.ProcessState;
import dev.statekit.store.TaskRecord;
import java.util.List;
import java.util.Objects;

/**
 * One process that serves the store, as an operator sees it ({@link TaskOperations#processes()}):
 * its record, its state at the time of the read, and the leases it holds now.
 *
 * @param process   the record the process keeps in the store
 * @param state     alive, stopped, or gone at the time of the read
 * @param leases    the tasks whose lease it holds now, expired or not, at most
 *                  {@link TaskOperations#PROCESS_LEASES}
 * @param moreLeases whether it holds more leases than {@code leases} lists
 */
public record ProcessView(ProcessRecord process, ProcessState state, List<TaskRecord> leases, boolean moreLeases) {
    /** Creates a view. */
    public ProcessView {
        Objects.requireNonNull(process, "process");
        Objects.requireNonNull(state, "state");
        leases = List.copyOf(leases);
    }
}
