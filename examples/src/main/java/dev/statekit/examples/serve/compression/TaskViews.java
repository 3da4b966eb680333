package dev.statekit.examples.serve.compression;

import dev.statekit.core.Task;
import dev.statekit.examples.CompressionTask;
import dev.statekit.examples.CompressionTask.State;
import dev.statekit.examples.hosts.CompressionHost;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.QueueRecord;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskRecord;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** The JSON of the compression API: tasks in queue order, the queue, history entries. */
final class TaskViews {
    /** The states of a task that waits in the queue: its place can change. */
    static final Set<State> WAITING = EnumSet.of(State.CREATED, State.QUEUED, State.BLOCKED, State.RETRYING, State.PAUSED);
    /** The states of a waiting task that will start in its turn (a held one is passed over): it has a position. */
    static final Set<State> IN_LINE = EnumSet.of(State.CREATED, State.QUEUED, State.BLOCKED, State.RETRYING);
    /** The states of a task that has ended, for now (failed) or for good. */
    static final Set<State> ENDED = EnumSet.of(State.FAILED, State.COMPLETED, State.CANCELED);
    /** The blocked reason shown for a lack of free disk space. */
    static final String DISK_FULL = "disk full";

    private TaskViews() {}

    /**
     * Returns {@code tasks} in queue order: the running one (and one being recovered after a
     * crash) first, then the waiting ones in the order they start (priority, then their place),
     * then the ended ones in the order they ended.
     */
    static List<Task<State>> inQueueOrder(List<Task<State>> tasks) {
        List<Task<State>> sorted = new ArrayList<>(tasks);
        sorted.sort((a, b) -> {
            int ra = rank(a.state());
            int rb = rank(b.state());
            if (ra != rb) return Integer.compare(ra, rb);
            int c = 0;
            if (ra == 1) {
                c = Integer.compare(b.record().priority(), a.record().priority());
                if (c == 0) c = Long.compare(a.record().sequence(), b.record().sequence());
            } else if (ra == 2) {
                c = a.record().updatedAt().compareTo(b.record().updatedAt());
            }
            return c != 0 ? c : Long.compare(a.id(), b.id());
        });
        return sorted;
    }

    private static int rank(State s) {
        if (WAITING.contains(s)) return 1;
        if (ENDED.contains(s)) return 2;
        return 0;
    }

    /** Returns the API's name of a priority: high, normal or low. */
    static String priority(int value) {
        if (value >= CompressionTask.HIGH) return "high";
        if (value <= CompressionTask.LOW) return "low";
        return "normal";
    }

    /** Returns the priority named high, normal or low. */
    static int priority(String name) {
        return switch (name) {
            case "high" -> CompressionTask.HIGH;
            case "low" -> CompressionTask.LOW;
            default -> CompressionTask.NORMAL;
        };
    }

    /**
     * Returns the JSON of {@code task}.
     *
     * @param position its place among the tasks in line (1 starts next), or null when it is not in line
     */
    static Map<String, Object> task(Task<State> task, @Nullable Integer position, WorkFolder folder) {
        TaskRecord r = task.record();
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("id", task.id());
        v.put("input", task.attribute(CompressionHost.INPUT));
        v.put("state", task.state().name());
        v.put("priority", priority(r.priority()));
        v.put("position", position);
        v.put("progress_percent", progress(task, folder));
        v.put("on_conflict", task.attributes().getOrDefault(FileCompressor.ON_CONFLICT, "rename"));
        v.put("output", task.attribute(FileCompressor.OUTPUT));
        v.put("conflict", task.attribute(FileCompressor.CONFLICT));
        v.put("size_bytes", number(task.attribute(CompressionHost.SIZE)));
        v.put("output_bytes", number(task.attribute(CompressionHost.OUTPUT_BYTES)));
        String blocked = task.attribute(CompressionTask.BLOCKED_REASON);
        v.put("blocked_reason", CompressionHost.DISK_SPACE.equals(blocked) ? DISK_FULL : blocked);
        v.put("cancel_reason", task.attribute(CompressionTask.CANCEL_REASON));
        v.put("attempts", r.attempts());
        v.put("retries", r.retries());
        v.put("interruptions", number(task.attribute("interruptions")));
        TaskError e = r.lastError();
        if (e == null) {
            v.put("last_error", null);
        } else {
            Map<String, Object> error = new LinkedHashMap<>();
            error.put("code", e.code());
            error.put("message", e.message());
            error.put("retryable", e.retryable());
            v.put("last_error", error);
        }
        Lease lease = r.lease();
        v.put("worker", lease == null ? null : lease.owner());
        v.put("created_at", r.createdAt().toString());
        v.put("updated_at", r.updatedAt().toString());
        v.put("version", r.version());
        return v;
    }

    private static @Nullable Integer progress(Task<State> task, WorkFolder folder) {
        if (task.state() == State.COMPLETED) return 100;
        Lease lease = task.record().lease();
        if (task.state() != State.RUNNING || lease == null) return null;
        return folder.percent(task.id(), lease.fencingToken()).orElse(0);
    }

    private static @Nullable Long number(@Nullable String value) {
        if (value == null) return null;
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Returns the JSON of tasks in queue order, each with its place when it is in line. */
    static List<Map<String, Object>> tasks(List<Task<State>> ordered, WorkFolder folder) {
        List<Map<String, Object>> views = new ArrayList<>(ordered.size());
        int position = 0;
        for (Task<State> t : ordered) {
            Integer place = IN_LINE.contains(t.state()) ? ++position : null;
            views.add(task(t, place, folder));
        }
        return views;
    }

    /** Returns the place of task {@code id} among the tasks in line of {@code ordered}, or null. */
    static @Nullable Integer position(List<Task<State>> ordered, long id) {
        int position = 0;
        for (Task<State> t : ordered) {
            if (!IN_LINE.contains(t.state())) continue;
            position++;
            if (t.id() == id) return position;
        }
        return null;
    }

    /** Returns the JSON of the queue: its switch, limit, running tasks and counts by state. */
    static Map<String, Object> queue(QueueRecord q, List<Task<State>> tasks, long minFreeBytes, long usableBytes) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("queue", q.name());
        v.put("state", !q.paused() ? "running" : "STOP_AFTER_CURRENT".equals(q.pauseReason()) ? "stop-after-current" : "paused");
        v.put("paused", q.paused());
        v.put("concurrency", q.concurrency());
        List<Long> running = new ArrayList<>();
        Map<State, Integer> counts = new EnumMap<>(State.class);
        for (State s : State.values()) counts.put(s, 0);
        for (Task<State> t : tasks) {
            counts.merge(t.state(), 1, Integer::sum);
            if (t.state() == State.RUNNING) running.add(t.id());
        }
        v.put("running", running);
        Map<String, Integer> byName = new LinkedHashMap<>();
        counts.forEach((s, n) -> byName.put(s.name(), n));
        v.put("counts", byName);
        v.put("min_free_bytes", minFreeBytes);
        v.put("usable_bytes", usableBytes);
        return v;
    }

    /** Returns the JSON of a history entry. */
    static Map<String, Object> history(HistoryEntry e) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("version", e.version());
        v.put("from", e.from());
        v.put("to", e.to());
        v.put("event", e.event());
        v.put("source", e.source().name().toLowerCase(Locale.ROOT));
        v.put("actor", e.actor());
        v.put("reason", e.reason());
        v.put("at", e.at().toString());
        return v;
    }
}
