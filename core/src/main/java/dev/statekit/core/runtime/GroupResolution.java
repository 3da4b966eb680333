package dev.statekit.core.runtime;

import dev.statekit.core.Machine;

import dev.statekit.store.TaskRecord;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A runtime's share of group resolution: passes over the groups owned by tasks of the machines it
 * serves or resolves for, at every housekeeping round (the safety net that makes resolution depend
 * on nothing held in memory), and in the next dispatch round after a change in this process touched
 * a group or the store told of a change in another process (which keeps the delay from a last
 * child to its parent's event short, across processes too).
 */
final class GroupResolution {
    private static final Logger log = LoggerFactory.getLogger(GroupResolution.class);
    /** The most passes one round runs (each of up to {@link Groups#PASS_SIZE} groups); the next round goes on. */
    static final int MAX_PASSES = 20;

    private final RuntimeContext ctx;
    private final List<Machine<?, ?>> owners;
    private final Map<String, Machine<?, ?>> involved;
    private final AtomicBoolean requested = new AtomicBoolean();

    GroupResolution(RuntimeContext ctx, List<Machine<?, ?>> machines) {
        this.ctx = ctx;
        this.owners = machines.stream().filter(m -> m.children() != null || m.dependencies() != null).toList();
        this.involved = ctx.kernel.groupMachines(owners);
    }

    /** Returns whether a change of {@code task} may concern a group this runtime resolves. */
    boolean concerns(String machine, TaskRecord task) {
        return !owners.isEmpty() && (task.parentId() != null || involved.containsKey(machine));
    }

    /** Asks for a pass in the next dispatch round (nothing, when this runtime resolves no group). */
    void request() {
        if (!owners.isEmpty()) requested.set(true);
    }

    /** Runs passes if one was asked for since the last. */
    void runIfRequested() {
        if (requested.getAndSet(false)) run();
    }

    /** Runs passes until none is left to resolve, or {@link #MAX_PASSES}. */
    void run() {
        if (owners.isEmpty()) return;
        try {
            int resolved = ctx.kernel.resolveGroups(owners, MAX_PASSES, ctx.events.listening ? ctx.events::groupResolved : null);
            if (resolved > 0) log.debug("runtime {}: resolved {} groups", ctx.owner, resolved);
        } catch (RuntimeException e) {
            log.warn("runtime {}: group resolution failed ({}); the next round tries again", ctx.owner, e.toString(), e);
        }
    }
}
