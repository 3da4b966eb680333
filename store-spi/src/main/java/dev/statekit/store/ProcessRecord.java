package dev.statekit.store;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The durable record of one process (a task runtime) that serves a store: written when it starts,
 * its {@code lastSeen} refreshed on its heartbeat, its {@code stoppedAt} set by a graceful stop. A
 * process neither stopped nor seen for {@code goneAfter} is {@link ProcessState#GONE gone}: it
 * crashed, or lost its way to the store.
 *
 * @param owner     the lease owner name of the runtime: the key of the record
 * @param host      the host it runs on, if known
 * @param pid       its operating-system process id, if known
 * @param machines  the machines it serves
 * @param queues    the queues it claims from
 * @param startedAt when it started
 * @param lastSeen  when it was last seen: its start, its last heartbeat, or its stop
 * @param goneAfter how long it may go unseen before it counts as gone; positive
 * @param stoppedAt when it stopped gracefully; null while it runs (or when it crashed)
 */
public record ProcessRecord(String owner, @Nullable String host, @Nullable Long pid, List<String> machines, List<String> queues,
                            Instant startedAt, Instant lastSeen, Duration goneAfter, @Nullable Instant stoppedAt) {
    /**
     * Creates a record.
     *
     * @throws NullPointerException if a non-nullable component is null
     * @throws IllegalArgumentException if {@code owner} is blank or {@code goneAfter} is not positive
     */
    public ProcessRecord {
        Objects.requireNonNull(owner, "owner");
        machines = List.copyOf(machines);
        queues = List.copyOf(queues);
        Objects.requireNonNull(startedAt, "startedAt");
        Objects.requireNonNull(lastSeen, "lastSeen");
        Objects.requireNonNull(goneAfter, "goneAfter");
        if (owner.isBlank()) throw new IllegalArgumentException("process owner must not be blank");
        if (goneAfter.isNegative() || goneAfter.isZero()) throw new IllegalArgumentException("goneAfter must be positive, was " + goneAfter);
    }

    /** Returns the state of the process at {@code now}: stopped, gone (not seen for {@link #goneAfter}), or alive. */
    public ProcessState state(Instant now) {
        if (stoppedAt != null) return ProcessState.STOPPED;
        return now.isAfter(lastSeen.plus(goneAfter)) ? ProcessState.GONE : ProcessState.ALIVE;
    }

    /** Returns this record seen at {@code at} (a later {@code lastSeen}; an earlier time changes nothing). */
    public ProcessRecord seen(Instant at) {
        return at.isAfter(lastSeen) ? new ProcessRecord(owner, host, pid, machines, queues, startedAt, at, goneAfter, stoppedAt) : this;
    }

    /** Returns this record stopped at {@code at}, seen then too. */
    public ProcessRecord stopped(Instant at) {
        ProcessRecord r = seen(at);
        return new ProcessRecord(owner, host, pid, machines, queues, startedAt, r.lastSeen, goneAfter, at);
    }
}
