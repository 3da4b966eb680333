package dev.statekit.examples.serve;

import dev.statekit.core.Command;
import dev.statekit.core.ops.BulkCount;
import dev.statekit.core.ops.BulkResult;
import dev.statekit.core.ops.ScheduleView;
import dev.statekit.core.ops.TaskFilter;
import dev.statekit.core.ops.TaskOperations;
import dev.statekit.core.GroupProgress;
import dev.statekit.core.HistoryStep;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.TransitionEngine;
import dev.statekit.store.ArchivedTask;
import dev.statekit.store.Page;
import dev.statekit.store.QueueRecord;
import dev.statekit.store.StateCount;
import dev.statekit.store.Store;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The web dashboard every service serves at {@code /ui}: a page of plain HTML, CSS and JavaScript
 * modules served by the service itself, over a JSON API under {@code /ui/api}.
 *
 * <p>It knows a service only through {@link Service#machines()}, {@link Service#queues()},
 * {@link Service#engine()} and {@link Service#runtime()}:
 * <ul>
 *   <li>{@code GET /ui/api/overview}: the system, its queues (paused, why, concurrency limit,
 *       tasks and leases) and its machines with their tasks counted by state
 *       ({@link Store#stateCounts});</li>
 *   <li>{@code GET /ui/api/machines/{machine}}: a machine's states and rows, for its diagram;</li>
 *   <li>{@code GET /ui/api/tasks?machine=&state=&queue=&parent=&q=&after=&limit=}: one page of
 *       tasks, filtered, and searched for {@code q} in their ids, attributes, keys and errors;</li>
 *   <li>{@code GET /ui/api/tasks/{id}}: a task with its attributes, last error, lease, the user
 *       events of its state, its history and, for a parent, its children's progress;</li>
 *   <li>{@code POST /ui/api/tasks/{id}/events} {@code {"event": …}}: fires a user event through
 *       {@link Service#fireUser} (a refusal is the table's 409 with its {@code error_code});</li>
 *   <li>{@code POST /ui/api/tasks/{id}/retry-failed-children}: {@link Service#retryFailedChildren};</li>
 *   <li>{@code POST /ui/api/queues/{queue}/pause}, {@code /resume}, {@code /stop-after-current},
 *       {@code /concurrency} {@code {"limit": n}}: the queue's controls;</li>
 *   <li>{@code POST /ui/api/bulk/count} {@code {"machine": …, "state": …, "queue": …, "parent": …, "errorCode": …,
 *       "createdFrom": …, "createdTo": …, "updatedFrom": …, "updatedTo": …}}: how many tasks of the filter there are
 *       now ({@code count}) and the last of them ({@code upTo});</li>
 *   <li>{@code POST /ui/api/bulk/retry}, {@code /cancel}, {@code /delete} with that filter and the count's
 *       {@code upTo} (and for a retry the user {@code event} to fire): {@link TaskOperations#retryAll(TaskFilter,
 *       Enum, boolean, Command)}, {@link TaskOperations#cancelAll}, {@link TaskOperations#deleteAll} over the tasks
 *       counted, answering what was applied, requested, refused (by code) and failed;</li>
 *   <li>{@code GET /ui/api/schedules}: the recurring schedules of the service's machines with their next
 *       occurrences ({@link TaskOperations#schedules()});</li>
 *   <li>{@code POST /ui/api/schedules/{name}/pause}, {@code /resume}, {@code /delete}: {@link TaskOperations#pauseSchedule},
 *       {@link TaskOperations#resumeSchedule}, {@link TaskOperations#deleteSchedule}.</li>
 * </ul>
 * With {@code --read-only-dashboard} the page shows no controls and every POST answers 403
 * {@code FORBIDDEN}. The actor of a change is the request's {@code X-User}.
 */
final class Dashboard {
    private static final Logger log = LoggerFactory.getLogger(Dashboard.class);
    /** Where the page's files are, on the class path. */
    static final String ASSETS = "dev/statekit/examples/serve/ui/";
    /** The page's files and their content types. */
    static final Map<String, String> FILES = Map.of(
            "app.js", "text/javascript; charset=utf-8",
            "api.js", "text/javascript; charset=utf-8",
            "dom.js", "text/javascript; charset=utf-8",
            "views.js", "text/javascript; charset=utf-8",
            "panels.js", "text/javascript; charset=utf-8",
            "diagram.js", "text/javascript; charset=utf-8",
            "app.css", "text/css; charset=utf-8",
            "icon.svg", "image/svg+xml");
    /** The largest page of tasks. */
    static final int MAX_LIMIT = 200;
    /** How many tasks one search reads at most before it answers with what it found. */
    static final int SEARCH_SCAN = 5_000;

    private final Service service;
    private final String system;
    private final boolean readOnly;
    private final Map<String, String> files = new LinkedHashMap<>();
    private final String index;

    Dashboard(Service service, String system, boolean readOnly) {
        this.service = service;
        this.system = system;
        this.readOnly = readOnly;
        for (String name : FILES.keySet()) files.put(name, resource(name));
        this.index = resource("index.html");
    }

    private static String resource(String name) {
        try (InputStream in = Dashboard.class.getClassLoader().getResourceAsStream(ASSETS + name)) {
            if (in == null) throw new IllegalStateException("the dashboard's file " + name + " is missing from the class path");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Adds the dashboard's routes. */
    void routes(Router router) {
        router.get("/ui", x -> Reply.text("text/html; charset=utf-8", index));
        router.get("/ui/assets/{file}", this::asset);
        router.get("/ui/api/overview", x -> Reply.ok(overview()));
        router.get("/ui/api/machines/{machine}", x -> Reply.ok(DashboardViews.machine(machine(x.parameter("machine")))));
        router.get("/ui/api/tasks", this::tasks);
        router.get("/ui/api/tasks/{id}", x -> Reply.ok(task(x.id("id"))));
        router.post("/ui/api/tasks/{id}/events", change(this::fire));
        router.post("/ui/api/tasks/{id}/retry-failed-children", change(this::retryFailedChildren));
        router.post("/ui/api/queues/{queue}/pause", change(x -> queueControl(x, "pause")));
        router.post("/ui/api/queues/{queue}/resume", change(x -> queueControl(x, "resume")));
        router.post("/ui/api/queues/{queue}/stop-after-current", change(x -> queueControl(x, "stop-after-current")));
        router.post("/ui/api/queues/{queue}/concurrency", change(x -> queueControl(x, "concurrency")));
        router.post("/ui/api/bulk/count", change(this::bulkCount));
        router.post("/ui/api/bulk/{action}", change(this::bulk));
        router.get("/ui/api/schedules", x -> Reply.ok(schedules()));
        router.post("/ui/api/schedules/{name}/{action}", change(this::scheduleControl));
    }

    /** A route that changes something: 403 when the dashboard is read-only. */
    private Route change(Route route) {
        return x -> {
            if (readOnly) throw new ApiException(403, "FORBIDDEN", "the dashboard is read-only (--read-only-dashboard)");
            return route.handle(x);
        };
    }

    private Reply asset(Exchange x) {
        String name = x.parameter("file");
        String type = FILES.get(name);
        if (type == null) throw new ApiException(404, "NOT_FOUND", "the dashboard has no file " + Router.truncate(name));
        return Reply.text(type, files.get(name));
    }

    // --- reads ------------------------------------------------------------------------------

    private Map<String, Object> overview() {
        Instant now = service.engine().clock().now();
        List<StateCount> counts = operations().stateCounts();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("system", system);
        body.put("readOnly", readOnly);
        body.put("now", now.toString());
        List<Object> machines = new ArrayList<>();
        for (Machine<?, ?> m : machines().values()) machines.add(DashboardViews.machineCounts(m, counts));
        body.put("machines", machines);
        List<Object> queues = new ArrayList<>();
        for (String q : service.queues()) queues.add(queue(q, counts));
        body.put("queues", queues);
        return body;
    }

    private Map<String, Object> queue(String name, List<StateCount> counts) {
        return DashboardViews.queue(operations().queue(name), counts, machines());
    }

    private Reply tasks(Exchange x) {
        Optional<String> machineName = x.query("machine");
        Machine<?, ?> machine = null;
        if (machineName.isPresent()) {
            machine = machines().get(machineName.get());
            if (machine == null) {
                throw new ApiException(400, "INVALID_QUERY", "machine: this service has no machine '"
                        + Router.truncate(machineName.get()) + "'; its machines: " + String.join(", ", machines().keySet()), "machine", null);
            }
        }
        TaskQuery query = TaskQuery.all();
        if (machine != null) query = query.machine(machine.name());
        Optional<String> state = x.query("state");
        if (state.isPresent()) {
            if (machine != null && machine.state(state.get()) == null) {
                throw new ApiException(400, "INVALID_QUERY", "state: machine " + machine.name() + " has no state '"
                        + Router.truncate(state.get()) + "'", "state", null);
            }
            query = query.states(List.of(state.get()));
        }
        Optional<String> queue = x.query("queue");
        if (queue.isPresent()) query = query.queue(queue.get());
        long parent = x.queryLong("parent", 0, 1, Long.MAX_VALUE);
        if (parent > 0) query = query.parent(parent);
        long after = x.queryLong("after", 0, 0, Long.MAX_VALUE);
        int limit = (int) x.queryLong("limit", 50, 1, MAX_LIMIT);
        Optional<String> q = x.query("q");
        TaskOperations store = operations();
        List<Object> items = new ArrayList<>();
        Long next;
        long scanned = 0;
        if (q.isEmpty()) {
            Page<TaskRecord> page = store.tasks(query.after(after).limit(limit));
            for (TaskRecord r : page.items()) items.add(DashboardViews.summary(r));
            next = page.nextAfterId();
            scanned = page.items().size();
        } else {
            String needle = q.get().toLowerCase(Locale.ROOT);
            next = after;
            while (next != null && items.size() < limit && scanned < SEARCH_SCAN) {
                Page<TaskRecord> page = store.tasks(query.after(next).limit(500));
                next = page.nextAfterId();
                for (TaskRecord r : page.items()) {
                    scanned++;
                    if (DashboardViews.matches(r, needle)) items.add(DashboardViews.summary(r));
                    if (items.size() == limit) {
                        // the next search goes on after this task, or after the page when it was the page's last
                        boolean last = r == page.items().get(page.items().size() - 1);
                        next = last ? page.nextAfterId() : Long.valueOf(r.id());
                        break;
                    }
                }
            }
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("items", items);
        body.put("nextAfter", next);
        body.put("scanned", scanned);
        return Reply.ok(body);
    }

    private Map<String, Object> task(long id) {
        TransitionEngine engine = service.engine();
        TaskOperations operations = operations();
        boolean archived = false;
        Optional<TaskRecord> found = operations.task(id);
        if (found.isEmpty()) {
            found = operations.archived(id).map(ArchivedTask::task);
            archived = found.isPresent();
        }
        TaskRecord record = found.orElseThrow(() -> ApiException.notFound("task", id));
        Machine<?, ?> machine = machines().get(record.machine());
        if (machine == null) {
            throw new ApiException(404, "NOT_FOUND", "task " + id + " is a task of machine " + Router.truncate(record.machine())
                    + ", which this service does not serve");
        }
        Map<String, Object> body = DashboardViews.detail(record, machine);
        body.put("archived", archived);
        body.put("userEvents", Fires.userEvents(machine, record.state()));
        List<Object> history = new ArrayList<>();
        for (HistoryStep<?, ?> step : engine.history(machine, id)) history.add(DashboardViews.entry(step.entry()));
        body.put("history", history);
        if (machine.children() != null) {
            Optional<GroupProgress> progress = engine.progress(machine, id);
            body.put("progress", progress.map(DashboardViews::progress).orElse(null));
        }
        return body;
    }

    // --- changes ----------------------------------------------------------------------------

    private Reply fire(Exchange x) {
        long id = x.id("id");
        String actor = x.actor();
        JsonBody body = x.body().requireOnly(Set.of("event"));
        String event = body.requireString("event", 100);
        Machine<?, ?> machine = machineOf(id);
        Outcome<?> outcome = service.fireUser(machine, id, event, actor);
        if (outcome instanceof Outcome.Refused<?> refused) {
            log.info("dashboard: {} fired {} on {} {}: refused {}", actor, event, machine.name(), id, refused.reasonCode());
        } else {
            log.info("dashboard: {} fired {} on {} {}", actor, event, machine.name(), id);
        }
        return Fires.reply(machine, outcome, 200, outcome instanceof Outcome.Applied<?> ? Fires.applied(outcome) : Map.of());
    }

    private Reply retryFailedChildren(Exchange x) {
        long id = x.id("id");
        String actor = x.actor();
        x.body().requireOnly(Set.of());
        Machine<?, ?> machine = machineOf(id);
        log.info("dashboard: {} retries the failed children of {} {}", actor, machine.name(), id);
        return service.retryFailedChildren(machine, id, actor);
    }

    private Reply queueControl(Exchange x, String action) {
        String queue = URLDecoder.decode(x.parameter("queue"), StandardCharsets.UTF_8);
        if (!service.queues().contains(queue)) {
            throw new ApiException(404, "NOT_FOUND", "this service has no queue " + Router.truncate(queue)
                    + "; its queues: " + String.join(", ", service.queues()));
        }
        String actor = x.actor();
        JsonBody body = x.body().requireOnly(action.equals("concurrency") ? Set.of("limit") : Set.of());
        TaskOperations operations = operations();
        Command command = Command.user(actor);
        switch (action) {
            case "pause" -> operations.pause(queue, command);
            case "resume" -> operations.resume(queue, command);
            case "stop-after-current" -> operations.stopAfterCurrent(queue, command);
            case "concurrency" -> {
                long limit = body.integer("limit", 0, 10_000).orElseThrow(() -> ApiException.badField("limit", "is required"));
                operations.setConcurrency(queue, (int) limit, command);      // heard by the runtime: a raised limit may start tasks now
            }
            default -> throw new IllegalArgumentException(action);
        }
        log.info("dashboard: {} {} queue {}", actor, action, queue);
        return Reply.ok(queue(queue, operations.stateCounts()));
    }

    // --- bulk actions -------------------------------------------------------------------------

    private static final Set<String> FILTER_FIELDS = Set.of("machine", "state", "queue", "parent", "errorCode", "createdFrom", "createdTo",
            "updatedFrom", "updatedTo");

    private Reply bulkCount(Exchange x) {
        JsonBody body = x.body().requireOnly(FILTER_FIELDS);
        TaskFilter<?, ?> filter = filter(body);
        BulkCount count = operations().count(filter);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("count", count.tasks());
        answer.put("upTo", count.lastId());
        return Reply.ok(answer);
    }

    private Reply bulk(Exchange x) {
        String action = x.parameter("action");
        if (!Set.of("retry", "cancel", "delete").contains(action)) {
            throw new ApiException(404, "NOT_FOUND", "no bulk action " + Router.truncate(action) + "; the actions: retry, cancel, delete");
        }
        Set<String> fields = new java.util.HashSet<>(FILTER_FIELDS);
        fields.add("upTo");
        if (action.equals("retry")) fields.add("event");
        JsonBody body = x.body().requireOnly(fields);
        long upTo = body.integer("upTo", 0, Long.MAX_VALUE)
                .orElseThrow(() -> ApiException.badField("upTo", "is required: the upTo of a count, so that only the tasks counted are changed"));
        String actor = x.actor();
        BulkResult result = switch (action) {
            case "retry" -> retryAll(filter(body).upTo(upTo), body.requireString("event", 100), Command.user(actor));
            case "cancel" -> {
                TaskFilter<?, ?> filter = filter(body).upTo(upTo);
                if (filter.machine().cancelEvent() == null) {
                    throw new ApiException(409, "NOT_SUPPORTED", "machine " + filter.machine().name() + " declares no cancel event");
                }
                yield operations().cancelAll(filter, Command.user(actor));
            }
            default -> operations().deleteAll(filter(body).upTo(upTo), Command.user(actor));
        };
        log.info("dashboard: {} bulk {} of {} up to #{}: {}", actor, action, body.node(), upTo, result);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("matched", result.matched());
        answer.put("applied", result.applied());
        answer.put("requested", result.requested());
        answer.put("refused", result.refused());
        answer.put("refusals", result.refusals());
        answer.put("failed", result.failed());
        answer.put("alsoDeleted", result.alsoDeleted());
        return Reply.ok(answer);
    }

    private <S extends Enum<S>, E extends Enum<E>> BulkResult retryAll(TaskFilter<S, E> filter, String eventName, Command command) {
        E event = filter.machine().event(eventName);
        if (event == null) {
            throw ApiException.badField("event", "machine " + filter.machine().name() + " has no event '" + Router.truncate(eventName) + "'");
        }
        return operations().retryAll(filter, event, false, command);
    }

    /**
     * The filter in {@code body}: a machine (required), and a state, a queue, a parent, a last error code and
     * created or updated time ranges (start inclusive, end exclusive) if given.
     */
    private TaskFilter<?, ?> filter(JsonBody body) {
        String name = body.string("machine", 200)
                .orElseThrow(() -> ApiException.badField("machine", "is required: a bulk action concerns the tasks of one machine"));
        Machine<?, ?> machine = machines().get(name);
        if (machine == null) {
            throw ApiException.badField("machine", "this service has no machine '" + Router.truncate(name) + "'; its machines: "
                    + String.join(", ", machines().keySet()));
        }
        return filter(machine, body);
    }

    private <S extends Enum<S>, E extends Enum<E>> TaskFilter<S, E> filter(Machine<S, E> machine, JsonBody body) {
        TaskFilter<S, E> filter = TaskFilter.of(machine);
        Optional<String> stateName = body.string("state", 200);
        if (stateName.isPresent()) {
            S state = machine.state(stateName.get());
            if (state == null) {
                throw ApiException.badField("state", "machine " + machine.name() + " has no state '" + Router.truncate(stateName.get()) + "'");
            }
            filter = filter.states(List.of(state));
        }
        Optional<String> queue = body.string("queue", 200);
        if (queue.isPresent()) filter = filter.queue(queue.get());
        Optional<Long> parent = body.integer("parent", 1, Long.MAX_VALUE);
        if (parent.isPresent()) filter = filter.parent(parent.get());
        Optional<String> errorCode = body.string("errorCode", 200);
        if (errorCode.isPresent()) filter = filter.errorCode(errorCode.get());
        Instant createdFrom = instant(body, "createdFrom");
        Instant createdTo = instant(body, "createdTo");
        Instant updatedFrom = instant(body, "updatedFrom");
        Instant updatedTo = instant(body, "updatedTo");
        return filter.createdBetween(createdFrom, createdTo).updatedBetween(updatedFrom, updatedTo);
    }

    /** An instant of the filter, ISO-8601 as {@code 2024-05-01T10:00:00Z}, if given. */
    private static @Nullable Instant instant(JsonBody body, String field) {
        Optional<String> text = body.string(field, 64);
        if (text.isEmpty()) return null;
        try {
            return Instant.parse(text.get());
        } catch (DateTimeParseException e) {
            throw ApiException.badField(field, "is an instant such as 2024-05-01T10:00:00Z, not '" + Router.truncate(text.get()) + "'");
        }
    }

    // --- schedules ----------------------------------------------------------------------------

    /** The recurring schedules of the service's machines, by name, each with its next occurrences. */
    private Map<String, Object> schedules() {
        Map<String, Machine<?, ?>> machines = machines();
        List<Object> list = new ArrayList<>();
        for (ScheduleView v : operations().schedules()) {
            if (machines.containsKey(v.record().machine())) list.add(DashboardViews.schedule(v));
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("now", service.engine().clock().now().toString());
        body.put("schedules", list);
        return body;
    }

    private Reply scheduleControl(Exchange x) {
        String name = URLDecoder.decode(x.parameter("name"), StandardCharsets.UTF_8);
        String action = x.parameter("action");
        if (!Set.of("pause", "resume", "delete").contains(action)) {
            throw new ApiException(404, "NOT_FOUND", "no schedule action " + Router.truncate(action) + "; the actions: pause, resume, delete");
        }
        String actor = x.actor();
        x.body().requireOnly(Set.of());
        TaskOperations operations = operations();
        Optional<ScheduleView> found = operations.schedule(name).filter(v -> machines().containsKey(v.record().machine()));
        if (found.isEmpty()) throw new ApiException(404, "NOT_FOUND", "this service has no schedule " + Router.truncate(name));
        Map<String, Object> answer;
        switch (action) {
            case "pause" -> answer = DashboardViews.schedule(operations.pauseSchedule(name).orElseThrow(() -> gone(name)));
            case "resume" -> answer = DashboardViews.schedule(operations.resumeSchedule(name).orElseThrow(() -> gone(name)));
            default -> {
                if (!operations.deleteSchedule(name)) throw gone(name);
                answer = new LinkedHashMap<>();
                answer.put("name", name);
                answer.put("deleted", true);
            }
        }
        log.info("dashboard: {} {} schedule {}", actor, action, name);
        return Reply.ok(answer);
    }

    private static ApiException gone(String name) {
        return new ApiException(404, "NOT_FOUND", "schedule " + Router.truncate(name) + " was deleted meanwhile");
    }

    private TaskOperations operations() {
        return TaskOperations.of(service.engine());
    }

    // --- machines ---------------------------------------------------------------------------

    /** Returns the service's machines by name, and the machines of their children. */
    private Map<String, Machine<?, ?>> machines() {
        Map<String, Machine<?, ?>> all = new LinkedHashMap<>();
        for (Machine<?, ?> m : service.machines()) all.putIfAbsent(m.name(), m);
        for (Machine<?, ?> m : service.machines()) {
            if (m.children() != null) all.putIfAbsent(m.children().machine().name(), m.children().machine());
        }
        return all;
    }

    private Machine<?, ?> machine(String name) {
        Machine<?, ?> m = machines().get(name);
        if (m == null) throw new ApiException(404, "NOT_FOUND", "this service has no machine " + Router.truncate(name));
        return m;
    }

    private Machine<?, ?> machineOf(long id) {
        TaskRecord record = operations().task(id).orElseThrow(() -> ApiException.notFound("task", id));
        Machine<?, ?> machine = machines().get(record.machine());
        if (machine == null) {
            throw new ApiException(404, "NOT_FOUND", "task " + id + " is a task of machine " + Router.truncate(record.machine())
                    + ", which this service does not serve");
        }
        return machine;
    }
}
