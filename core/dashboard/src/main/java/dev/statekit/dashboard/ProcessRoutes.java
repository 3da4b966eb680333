package dev.statekit.dashboard;

import dev.statekit.core.ops.Attempt;
import dev.statekit.core.ops.ProcessView;
import dev.statekit.core.ops.TaskOperations;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.ProcessRecord;
import dev.statekit.store.ProcessState;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The bodies of the routes of the processes that serve the store ({@code GET BASE/api/processes})
 * and of a task's attempts ({@code GET BASE/api/tasks/{id}/attempts}), read through
 * {@link TaskOperations#processes()} and {@link TaskOperations#attempts(long)}.
 */
final class ProcessRoutes {
    private ProcessRoutes() {
    }

    /**
     * Returns every process with its state, the age of its last heartbeat at {@code now} and its
     * leases, and how many processes are in each state.
     */
    static Map<String, Object> processes(TaskOperations operations, Instant now) {
        List<ProcessView> views = operations.processes();
        Map<ProcessState, Integer> counts = new EnumMap<>(ProcessState.class);
        for (ProcessState s : ProcessState.values()) counts.put(s, 0);
        List<Object> list = new ArrayList<>(views.size());
        for (ProcessView v : views) {
            counts.merge(v.state(), 1, Integer::sum);
            list.add(process(v, now));
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("now", now.toString());
        Map<String, Object> c = new LinkedHashMap<>();
        for (Map.Entry<ProcessState, Integer> e : counts.entrySet()) c.put(e.getKey().name().toLowerCase(java.util.Locale.ROOT), e.getValue());
        body.put("counts", c);
        body.put("processes", list);
        return body;
    }

    private static Map<String, Object> process(ProcessView v, Instant now) {
        ProcessRecord p = v.process();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("owner", p.owner());
        body.put("host", p.host());
        body.put("pid", p.pid());
        body.put("machines", p.machines());
        body.put("queues", p.queues());
        body.put("state", v.state().name().toLowerCase(java.util.Locale.ROOT));
        body.put("startedAt", p.startedAt().toString());
        body.put("lastSeen", p.lastSeen().toString());
        body.put("lastSeenAgeMs", Math.max(0, Duration.between(p.lastSeen(), now).toMillis()));
        body.put("goneAfterMs", p.goneAfter().toMillis());
        body.put("stoppedAt", p.stoppedAt() == null ? null : p.stoppedAt().toString());
        body.put("leaseCount", v.leases().size());
        body.put("moreLeases", v.moreLeases());
        List<Object> leases = new ArrayList<>(v.leases().size());
        for (TaskRecord t : v.leases()) {
            Lease lease = t.lease();
            Map<String, Object> l = new LinkedHashMap<>();
            l.put("id", t.id());
            l.put("machine", t.machine());
            l.put("state", t.state());
            l.put("queue", t.queue());
            l.put("fencingToken", lease == null ? null : lease.fencingToken());
            l.put("expiresAt", lease == null ? null : lease.expiresAt().toString());
            l.put("expired", lease != null && !lease.expiresAt().isAfter(now));
            leases.add(l);
        }
        body.put("leases", leases);
        return body;
    }

    /** Returns the attempts at task {@code id}, oldest first, each with its duration, worker, outcome and error. */
    static Map<String, Object> attempts(TaskOperations operations, long id, Instant now) {
        List<Object> list = new ArrayList<>();
        for (Attempt a : operations.attempts(id)) {
            Map<String, Object> body = new LinkedHashMap<>();
            HistoryEntry end = a.end();
            body.put("number", a.number());
            body.put("startedAt", a.startedAt().toString());
            body.put("endedAt", end == null ? null : end.at().toString());
            body.put("durationMs", a.duration().toMillis());
            body.put("worker", a.worker());
            body.put("running", a.running());
            body.put("state", a.claim().to());
            body.put("outcome", end == null ? null : outcome(end));
            body.put("error", error(a.error()));
            list.add(body);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("taskId", id);
        body.put("now", now.toString());
        body.put("attempts", list);
        return body;
    }

    private static Map<String, Object> outcome(HistoryEntry end) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("event", end.event());
        body.put("to", end.to());
        body.put("actor", end.actor());
        body.put("reason", end.reason());
        return body;
    }

    private static @Nullable Map<String, Object> error(@Nullable TaskError e) {
        if (e == null) return null;
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("code", e.code());
        body.put("message", e.message());
        body.put("retryable", e.retryable());
        body.put("step", e.step());
        body.put("detail", e.detail());
        return body;
    }
}
