package dev.statekit.core.runtime;

import dev.statekit.store.ProcessRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runtime's own {@link ProcessRecord} in the store: written at the start (with the machines and
 * queues it serves, its host and process id), refreshed at every heartbeat, marked stopped when a
 * graceful stop completes. Records of stopped and gone processes last seen more than the retention
 * ago are deleted at the start and then once per retention at most, at a heartbeat. A store failure
 * is logged: the record is diagnostic, the work goes on without it.
 */
final class ProcessRecords {
    private static final Logger log = LoggerFactory.getLogger(TaskRuntime.class);

    private final RuntimeContext ctx;
    private final Duration goneAfter;
    private final Duration retention;
    private volatile @Nullable Instant startedAt;
    private volatile @Nullable Instant nextPurge;
    private volatile @Nullable String host;
    private volatile @Nullable Long pid;

    ProcessRecords(RuntimeContext ctx, Duration goneAfter, Duration retention) {
        this.ctx = ctx;
        this.goneAfter = goneAfter;
        this.retention = retention;
    }

    /** Writes the record of this runtime as it starts, and purges old ones. */
    void register() {
        Instant now = ctx.clock.now();
        startedAt = now;
        host = host();
        pid = pid();
        write(now);
        purge(now);
    }

    /** Refreshes the record at a heartbeat at {@code now} (writing it again if it was purged meanwhile). */
    void beat(Instant now) {
        try {
            if (!ctx.store.touchProcess(ctx.owner, now)) write(now);
        } catch (RuntimeException e) {
            log.warn("runtime {}: could not refresh its process record: {}", ctx.owner, e.toString());
        }
        Instant due = nextPurge;
        if (due != null && !now.isBefore(due)) purge(now);
    }

    /** Marks the record stopped, at the end of a graceful stop. */
    void stopped() {
        if (startedAt == null) return;
        try {
            ctx.store.stopProcess(ctx.owner, ctx.clock.now());
        } catch (RuntimeException e) {
            log.warn("runtime {}: could not mark its process record stopped: {}", ctx.owner, e.toString());
        }
    }

    private void write(Instant now) {
        Instant started = startedAt != null ? startedAt : now;
        List<String> machines = new ArrayList<>();
        List<String> queues = new ArrayList<>();
        for (Registration<?, ?> r : ctx.registrations.all()) {
            if (!machines.contains(r.machine.name())) machines.add(r.machine.name());
            if (!queues.contains(r.queue)) queues.add(r.queue);
        }
        try {
            ctx.store.registerProcess(new ProcessRecord(ctx.owner, host, pid, machines, queues, started, now, goneAfter, null));
        } catch (RuntimeException e) {
            log.warn("runtime {}: could not write its process record: {}", ctx.owner, e.toString());
        }
    }

    private void purge(Instant now) {
        nextPurge = now.plus(retention);
        try {
            int n = ctx.store.purgeProcesses(now.minus(retention));
            if (n > 0) log.debug("runtime {}: deleted {} old process record(s)", ctx.owner, n);
        } catch (RuntimeException e) {
            log.warn("runtime {}: could not delete old process records: {}", ctx.owner, e.toString());
        }
    }

    private static @Nullable String host() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException | RuntimeException e) {
            String env = System.getenv("HOSTNAME");
            return env == null || env.isBlank() ? null : env;
        }
    }

    private static @Nullable Long pid() {
        try {
            return ProcessHandle.current().pid();
        } catch (UnsupportedOperationException | SecurityException e) {
            return null;
        }
    }
}
