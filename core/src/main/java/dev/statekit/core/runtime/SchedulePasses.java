package dev.statekit.core.runtime;

import dev.statekit.core.Machine;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.internal.ScheduleRecords;
import dev.statekit.core.schedule.Recurrence;
import dev.statekit.store.SchedulePass;
import dev.statekit.store.TaskRecord;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A runtime's share of recurring schedules: declares the schedules of its builder when it starts
 * (a store keeps an unchanged declaration's progress), and at every housekeeping round runs schedule
 * passes over the schedules of the machines it knows, each a store transaction that creates the due
 * occurrences once whatever the number of processes; tells the engine's listeners of the tasks
 * created (which wakes the runtimes serving them), and returns when the next schedule falls due.
 */
final class SchedulePasses {
    private static final Logger log = LoggerFactory.getLogger(SchedulePasses.class);
    /** The most schedules one pass takes. */
    static final int PASS_SIZE = 100;
    /** The most passes one round runs; the next round goes on. */
    static final int MAX_PASSES = 20;

    /** A schedule declared on the builder. */
    record Declared(Machine<?, ?> machine, Recurrence recurrence, TaskSpec template) {
        Declared {
            Objects.requireNonNull(machine, "machine");
            Objects.requireNonNull(recurrence, "recurrence");
            Objects.requireNonNull(template, "template");
        }
    }

    private final RuntimeContext ctx;
    private final List<Declared> declared;
    private final Map<String, Machine<?, ?>> machines = new LinkedHashMap<>();

    SchedulePasses(RuntimeContext ctx, List<Declared> declared, List<Machine<?, ?>> known) {
        this.ctx = ctx;
        this.declared = List.copyOf(declared);
        for (Machine<?, ?> m : known) machines.putIfAbsent(m.name(), m);
        for (Declared d : declared) machines.putIfAbsent(d.machine().name(), d.machine());
    }

    /** Writes the declared schedules: new ones start now; unchanged ones keep their progress. */
    void declare() {
        Instant now = ctx.clock.now();
        for (Declared d : declared) ctx.store.upsertSchedule(ScheduleRecords.declare(d.machine(), d.recurrence(), d.template(), now));
    }

    /**
     * Runs passes until none is left due at {@code now}, or {@link #MAX_PASSES}; returns when the
     * next schedule of this runtime's machines falls due, or null when none does (or the pass failed).
     */
    @Nullable Instant run(Instant now) {
        try {
            SchedulePass pass = null;
            for (int i = 0; i < MAX_PASSES; i++) {
                pass = ctx.store.fireSchedules(machines.keySet(), now, PASS_SIZE,
                        s -> ScheduleRecords.fire(s, now, spec -> ctx.kernel.newTask(Objects.requireNonNull(machines.get(s.machine())), spec)));
                for (SchedulePass.Fired f : pass.fired()) {
                    for (TaskRecord t : f.created()) ctx.kernel.announceCreated(f.schedule().machine(), t);
                    if (!f.created().isEmpty()) log.debug("runtime {}: schedule {} created {} tasks", ctx.owner, f.schedule().name(), f.created().size());
                }
                if (pass.fired().size() < PASS_SIZE) break;
            }
            return pass == null ? null : pass.nextDue();
        } catch (RuntimeException e) {
            log.warn("runtime {}: schedule pass failed ({}); the next round tries again", ctx.owner, e.toString(), e);
            return null;
        }
    }
}
