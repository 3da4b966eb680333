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
    private final AtomicBoolean running = new AtomicBoolean();

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
        drain();
    }

    /**
     * Runs passes until none is left to resolve, or {@link #MAX_PASSES}. Passes of this runtime run
     * one at a time: asked for while one runs on another thread, this returns at once and the
     * running one runs again when it ends. A second pass beside it would skip the groups the first
     * holds locked, and so miss a member's change that the first read too early to see; run after
     * it, it sees that change.
     */
    void run() {
        if (owners.isEmpty()) return;
        requested.set(true);
        drain();
    }

    private void drain() {
        // A caller sets requested before it looks at running, and a runner clears running before it
        // looks at requested again: one of them sees the other's, so no request is left behind.
        while (requested.get()) {
            if (!running.compareAndSet(false, true)) return;
            try {
                if (requested.getAndSet(false)) pass();
            } finally {
                running.set(false);
            }
        }
    }

    private void pass() {
        try {
            int resolved = ctx.kernel.resolveGroups(owners, MAX_PASSES, ctx.events.listening ? ctx.events::groupResolved : null);
            if (resolved > 0) log.debug("runtime {}: resolved {} groups", ctx.owner, resolved);
        } catch (RuntimeException e) {
            log.warn("runtime {}: group resolution failed ({}); the next round tries again", ctx.owner, e.toString(), e);
        }
    }
}
