package dev.statekit.dashboard;

import dev.statekit.core.Command;
import dev.statekit.core.GroupProgress;
import dev.statekit.core.HistoryStep;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.ops.BulkCount;
import dev.statekit.core.ops.BulkResult;
import dev.statekit.core.ops.ScheduleView;
import dev.statekit.core.ops.TaskFilter;
import dev.statekit.core.ops.TaskOperations;
import dev.statekit.core.runtime.QueueMetrics;
import dev.statekit.core.runtime.RuntimeMetrics;
import dev.statekit.store.ArchivedTask;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Page;
import dev.statekit.store.StateCount;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The dashboard's routes: its page, its files and its JSON API, each request checked before its route. */
final class Api {
    static final Logger log = LoggerFactory.getLogger(Dashboard.class);
    /** The largest page of tasks. */
    static final int MAX_LIMIT = 200;
    /** How many tasks one search reads at most before it answers with what it found. */
    static final int SEARCH_SCAN = 5_000;
    /** The longest query parameter value accepted. */
    static final int MAX_QUERY_VALUE = 200;
    private static final Pattern DIGITS = Pattern.compile("[0-9]{1,18}");
    private static final Set<String> SIMPLE_TYPES = Set.of("", "application/x-www-form-urlencoded", "multipart/form-data", "text/plain");

    private final Dashboard dashboard;
    private final List<Route> routes = new ArrayList<>();

    @FunctionalInterface
    private interface Handler {
        DashboardResponse handle(Call call);
    }

    private record Route(String method, String[] segments, boolean change, Handler handler) {}

    /** A request on its route: its path parameters, query, body and user. */
    private static final class Call {
        final DashboardRequest request;
        final Map<String, String> parameters;
        final Map<String, List<String>> query;
        final @Nullable String user;
        private @Nullable Body body;

        Call(DashboardRequest request, Map<String, String> parameters, @Nullable String user) {
            this.request = request;
            this.parameters = parameters;
            this.query = request.query();
            this.user = user;
        }

        String parameter(String name) {
            return parameters.get(name);
        }

        long id(String name) {
            String value = parameter(name);
            if (!DIGITS.matcher(value).matches() || Long.parseLong(value) == 0) {
                throw new DashboardException(400, "INVALID_ID", name + " must be a positive integer of at most 18 digits, not '"
                        + DashboardException.truncate(value) + "'", name, null);
            }
            return Long.parseLong(value);
        }

        Optional<String> query(String name) {
            List<String> values = query.get(name);
            if (values == null || values.isEmpty()) return Optional.empty();
            if (values.size() > 1) throw new DashboardException(400, "INVALID_QUERY", name + " is given " + values.size() + " times", name, null);
            String value = values.get(0);
            if (value.length() > MAX_QUERY_VALUE) {
                throw new DashboardException(400, "INVALID_QUERY", name + " must be at most " + MAX_QUERY_VALUE + " characters", name, null);
            }
            return value.isEmpty() ? Optional.empty() : Optional.of(value);
        }

        long queryLong(String name, long fallback, long min, long max) {
            Optional<String> value = query(name);
            if (value.isEmpty()) return fallback;
            String v = value.get();
            if (!Pattern.matches("-?[0-9]{1,18}", v)) {
                throw new DashboardException(400, "INVALID_QUERY", name + " must be an integer, not '" + DashboardException.truncate(v) + "'", name, null);
            }
            long parsed = Long.parseLong(v);
            if (parsed < min || parsed > max) {
                throw new DashboardException(400, "INVALID_QUERY", name + " must be between " + min + " and " + max + ", not " + parsed, name, null);
            }
            return parsed;
        }

        Body body() {
            Body b = body;
            if (b == null) {
                b = Body.parse(new String(request.body(), StandardCharsets.UTF_8));
                body = b;
            }
            return b;
        }

        Command command() {
            return Dashboard.command(user);
        }

        String actor() {
            return user == null ? Dashboard.ANONYMOUS : user;
        }
    }

    Api(Dashboard dashboard) {
        this.dashboard = dashboard;
        get("", c -> Dashboard.respond(200, Dashboard.html(), dashboard.page()));
        get("/assets/{file}", this::asset);
        get("/api/overview", c -> ok(overview(c)));
        get("/api/machines/{machine}", c -> ok(Views.machine(machine(c.parameter("machine")))));
        get("/api/tasks", this::tasks);
        get("/api/tasks/{id}", c -> ok(task(c, c.id("id"))));
        post("/api/tasks/{id}/events", this::fire);
        post("/api/tasks/{id}/retry-failed-children", this::retryFailedChildren);
        for (String action : List.of("pause", "resume", "stop-after-current", "concurrency")) {
            post("/api/queues/{queue}/" + action, c -> queueControl(c, action));
        }
        post("/api/bulk/count", this::bulkCount);
        post("/api/bulk/{action}", this::bulk);
        get("/api/schedules", c -> ok(schedules()));
        get("/api/processes", c -> ok(ProcessRoutes.processes(operations(), dashboard.engine().clock().now())));
        get("/api/tasks/{id}/attempts", c -> {
            long id = c.id("id");
            task(c, id);      // 404 for a task that does not exist or of a machine this dashboard does not show
            return ok(ProcessRoutes.attempts(operations(), id, dashboard.engine().clock().now()));
        });
        get("/api/activity", c -> ok(activity(c)));
        post("/api/schedules/{name}/{action}", this::scheduleControl);
    }

    private void get(String template, Handler handler) {
        routes.add(new Route("GET", split(template), false, handler));
    }

    private void post(String template, Handler handler) {
        routes.add(new Route("POST", split(template), true, handler));
    }

    private static String[] split(String path) {
        if (path.isEmpty() || path.equals("/")) return new String[0];
        String p = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        return p.substring(1).split("/", -1);
    }

    private static DashboardResponse ok(Object body) {
        return Dashboard.json(200, body);
    }

    /** Routes {@code request}, checks it, and answers it. */
    DashboardResponse answer(String method, DashboardRequest request) {
        String raw = request.rawPath();
        String base = dashboard.basePath();
        if (!raw.equals(base) && !raw.startsWith(base + "/")) {
            throw new DashboardException(404, "NOT_FOUND", "no resource at " + DashboardException.truncate(raw));
        }
        String[] segments = split(raw.substring(base.length()));
        for (int i = 0; i < segments.length; i++) segments[i] = decode(segments[i]);
        String lookup = method.equals("HEAD") ? "GET" : method;
        Set<String> methods = new LinkedHashSet<>();
        for (Route r : routes) {
            Map<String, String> parameters = parameters(r.segments(), segments);
            if (parameters == null) continue;
            if (!r.method().equals(lookup)) {
                methods.add(r.method());
                continue;
            }
            if (r.change()) checkSameOrigin(request);
            String user = dashboard.user(request);
            Authorization authorization = dashboard.authorization();
            if (!authorization.mayView(user)) {
                throw new DashboardException(403, "FORBIDDEN", user == null ? "sign in to see the dashboard" : user + " may not see the dashboard");
            }
            if (r.change() && !authorization.mayChange(user)) {
                throw new DashboardException(403, "FORBIDDEN", "the dashboard is read-only" + (user == null ? "" : " for " + user));
            }
            return r.handler().handle(new Call(request, parameters, user));
        }
        if (methods.isEmpty()) throw new DashboardException(404, "NOT_FOUND", "no resource at " + DashboardException.truncate(raw));
        throw new DashboardException(405, "METHOD_NOT_ALLOWED", method + " is not allowed on " + DashboardException.truncate(raw)
                + "; allowed: " + String.join(", ", methods), null, List.copyOf(methods));
    }

    private static String decode(String segment) {
        try {
            return URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new DashboardException(400, "BAD_REQUEST", "the path cannot be decoded");
        }
    }

    private static @Nullable Map<String, String> parameters(String[] template, String[] path) {
        if (template.length != path.length) return null;
        Map<String, String> parameters = new LinkedHashMap<>();
        for (int i = 0; i < template.length; i++) {
            String t = template[i];
            if (t.startsWith("{") && t.endsWith("}")) {
                if (path[i].isEmpty()) return null;
                parameters.put(t.substring(1, t.length() - 1), path[i]);
            } else if (!t.equals(path[i])) {
                return null;
            }
        }
        return parameters;
    }

    /**
     * Refuses (403 {@code CROSS_SITE_REQUEST}) a change a page of another site could have sent: one
     * the browser marks as not from this origin, one whose {@code Origin} is not this server, or one
     * sent as a type a form can send without the dashboard's own header.
     */
    private void checkSameOrigin(DashboardRequest request) {
        String fetchSite = request.header("Sec-Fetch-Site");
        if (fetchSite != null && !fetchSite.equalsIgnoreCase("same-origin") && !fetchSite.equalsIgnoreCase("none")) {
            throw new DashboardException(403, "CROSS_SITE_REQUEST", "a page of another site cannot change anything here (Sec-Fetch-Site: "
                    + DashboardException.truncate(fetchSite) + ")");
        }
        String origin = request.header("Origin");
        if (origin != null) {
            if (origin.equals("null")) throw new DashboardException(403, "CROSS_SITE_REQUEST", "a page of an opaque origin cannot change anything here");
            String host = request.header("Host");
            String originHost = origin.replaceFirst("^[a-zA-Z][a-zA-Z0-9+.-]*://", "");
            boolean same = host != null && originHost.equalsIgnoreCase(host);
            if (!same && !dashboard.allowedOrigins().contains(origin.toLowerCase(Locale.ROOT))) {
                throw new DashboardException(403, "CROSS_SITE_REQUEST", "a page of " + DashboardException.truncate(origin) + " cannot change anything here");
            }
        }
        String type = request.header("Content-Type");
        String media = type == null ? "" : type.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
        if (SIMPLE_TYPES.contains(media) && request.header(Dashboard.CUSTOM_HEADER) == null) {
            throw new DashboardException(403, "CROSS_SITE_REQUEST", "a change is sent as Content-Type: application/json (or with the header "
                    + Dashboard.CUSTOM_HEADER + "), which a form of another site cannot send"
                    + (type == null ? "" : ", not as " + DashboardException.truncate(type)));
        }
    }

    /** Refuses (403 {@code FORBIDDEN}) what the authorization does not allow the call's user. */
    private void authorize(Call c, String action, Authorization.Target target) {
        if (!dashboard.authorization().allows(c.user, action, target)) {
            throw new DashboardException(403, "FORBIDDEN", (c.user == null ? "nobody signed in" : c.user) + " may not " + action + " " + target);
        }
    }

    private DashboardResponse asset(Call c) {
        String file = c.parameter("file");
        String type = dashboard.fileType(file);
        if (type == null) throw new DashboardException(404, "NOT_FOUND", "the dashboard has no file " + DashboardException.truncate(file));
        return Dashboard.respond(200, type, dashboard.file(file));
    }

    // --- reads ------------------------------------------------------------------------------

    private TaskOperations operations() {
        return TaskOperations.of(dashboard.engine());
    }

    private Map<String, Object> overview(Call c) {
        Instant now = dashboard.engine().clock().now();
        List<StateCount> counts = operations().stateCounts();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("system", dashboard.name());
        body.put("readOnly", !dashboard.authorization().mayChange(c.user));
        body.put("user", c.user);
        body.put("now", now.toString());
        List<Object> machines = new ArrayList<>();
        for (Machine<?, ?> m : machines().values()) machines.add(Views.machineCounts(m, counts));
        body.put("machines", machines);
        List<Object> queues = new ArrayList<>();
        Map<String, Views.Waiting> waiting = waiting();
        for (String q : queues(counts)) queues.add(queue(q, counts, waiting));
        body.put("queues", queues);
        body.put("waitingFrom", waiting == null ? "claim-states" : "runtime");
        return body;
    }

    /**
     * Returns per queue of the dashboard's machines, per minute of the last {@code minutes} (60 by
     * default), the attempts started, succeeded, failed and retried, from the store's history
     * ({@link TaskOperations#activity}): every process's work.
     */
    private Map<String, Object> activity(Call c) {
        java.time.Duration window = java.time.Duration.ofMinutes(c.queryLong("minutes", 60, 1, 1440));
        java.time.Duration bucket = java.time.Duration.ofMinutes(1);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("now", dashboard.engine().clock().now().toString());
        body.put("window", window.toString());
        body.put("bucket", bucket.toString());
        body.put("series", List.of("started", "succeeded", "failed", "retried"));
        List<Object> queues = new ArrayList<>();
        for (dev.statekit.core.ops.QueueActivity q : operations().activity(machines().values(), window, bucket)) {
            Map<String, Object> queue = new LinkedHashMap<>();
            queue.put("queue", q.queue());
            queue.put("total", point(q.total(), false));
            List<Object> points = new ArrayList<>();
            for (dev.statekit.core.ops.QueueActivity.Point p : q.points()) points.add(point(p, true));
            queue.put("points", points);
            queues.add(queue);
        }
        body.put("queues", queues);
        return body;
    }

    private static Map<String, Object> point(dev.statekit.core.ops.QueueActivity.Point p, boolean at) {
        Map<String, Object> point = new LinkedHashMap<>();
        if (at) point.put("at", p.at().toString());
        point.put("started", p.started());
        point.put("succeeded", p.succeeded());
        point.put("failed", p.failed());
        point.put("retried", p.retried());
        return point;
    }

    /**
     * Returns what waits on each queue as the runtime's metrics count it, summed over the
     * dashboard's machines; null when the dashboard has no metrics.
     */
    private @Nullable Map<String, Views.Waiting> waiting() {
        java.util.function.Supplier<RuntimeMetrics> source = dashboard.metrics();
        if (source == null) return null;
        RuntimeMetrics metrics = source.get();
        Map<String, Machine<?, ?>> machines = machines();
        Map<String, Views.Waiting> out = new LinkedHashMap<>();
        for (QueueMetrics q : metrics.queues()) {
            if (!machines.containsKey(q.machine())) continue;
            Views.Waiting w = out.getOrDefault(q.queue(), new Views.Waiting(0, null));
            Instant oldest = w.oldest();
            if (q.oldestReadyAge() != null) {
                Instant ready = metrics.at().minus(q.oldestReadyAge());
                if (oldest == null || ready.isBefore(oldest)) oldest = ready;
            }
            out.put(q.queue(), new Views.Waiting(w.tasks() + q.waiting(), oldest));
        }
        return out;
    }

    /** Returns the queues shown: those given, or those holding tasks of the dashboard's machines. */
    private List<String> queues(List<StateCount> counts) {
        List<String> configured = dashboard.configuredQueues();
        if (configured != null) return configured;
        Map<String, Machine<?, ?>> machines = machines();
        Set<String> found = new TreeSet<>();
        for (StateCount c : counts) if (machines.containsKey(c.machine())) found.add(c.queue());
        return List.copyOf(found);
    }

    private Map<String, Object> queue(String name, List<StateCount> counts, @Nullable Map<String, Views.Waiting> waiting) {
        return Views.queue(operations().queue(name), counts, machines(),
                waiting == null ? null : waiting.getOrDefault(name, new Views.Waiting(0, null)));
    }

    private DashboardResponse tasks(Call x) {
        Optional<String> machineName = x.query("machine");
        Machine<?, ?> machine = null;
        if (machineName.isPresent()) {
            machine = machines().get(machineName.get());
            if (machine == null) {
                throw new DashboardException(400, "INVALID_QUERY", "machine: this dashboard has no machine '"
                        + DashboardException.truncate(machineName.get()) + "'; its machines: " + String.join(", ", machines().keySet()), "machine", null);
            }
        }
        TaskQuery query = TaskQuery.all();
        if (machine != null) query = query.machine(machine.name());
        Optional<String> state = x.query("state");
        if (state.isPresent()) {
            // one state, or several separated by commas (a parent's failed children: every failed state)
            List<String> states = List.of(state.get().split(",", -1));
            for (String s : states) {
                if (s.isEmpty() || machine != null && machine.state(s) == null) {
                    throw new DashboardException(400, "INVALID_QUERY", "state: machine " + (machine == null ? "" : machine.name()) + " has no state '"
                            + DashboardException.truncate(s) + "'", "state", null);
                }
            }
            query = query.states(states);
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
            for (TaskRecord r : page.items()) items.add(Views.summary(r));
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
                    if (Views.matches(r, needle)) items.add(Views.summary(r));
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
        return ok(body);
    }

    private Map<String, Object> task(Call c, long id) {
        TransitionEngine engine = dashboard.engine();
        TaskOperations operations = operations();
        boolean archived = false;
        Optional<TaskRecord> found = operations.task(id);
        if (found.isEmpty()) {
            found = operations.archived(id).map(ArchivedTask::task);
            archived = found.isPresent();
        }
        TaskRecord record = found.orElseThrow(() -> DashboardException.notFound("task", id));
        Machine<?, ?> machine = machines().get(record.machine());
        if (machine == null) {
            throw new DashboardException(404, "NOT_FOUND", "task " + id + " is a task of machine " + DashboardException.truncate(record.machine())
                    + ", which this dashboard does not show");
        }
        Map<String, Object> body = Views.detail(record, machine);
        body.put("archived", archived);
        body.put("userEvents", Views.userEvents(machine, record.state()));
        Machine<?, ?> m = machine;
        body.put("actions", archived ? List.of()
                : Views.actions(machine, record, c.command(), event -> dashboard.actions().deletes(m, id, event)));
        List<HistoryEntry> entries = new ArrayList<>();
        for (HistoryStep<?, ?> step : engine.history(machine, id)) entries.add(step.entry());
        boolean holds = Views.errorHolds(machine, record, entries);
        body.put("lastErrorHolds", holds);
        body.put("currentError", holds ? Views.error(java.util.Objects.requireNonNull(record.lastError())) : null);
        List<Object> blocking = new ArrayList<>();
        if (!archived) for (TaskError e : dashboard.blockingErrors(record)) blocking.add(Views.error(e));
        body.put("blockingErrors", blocking);
        List<Object> history = new ArrayList<>();
        for (HistoryEntry e : entries) history.add(Views.entry(e));
        body.put("history", history);
        if (machine.children() != null) {
            Optional<GroupProgress> progress = engine.progress(machine, id);
            body.put("progress", progress.map(Views::progress).orElse(null));
        }
        return body;
    }

    // --- changes ----------------------------------------------------------------------------

    private DashboardResponse fire(Call x) {
        long id = x.id("id");
        Body body = x.body().requireOnly(Set.of("event"));
        String event = body.requireString("event", 100);
        Machine<?, ?> machine = machineOf(id);
        authorize(x, event.toLowerCase(Locale.ROOT).replace('_', '-'), Authorization.Target.task(machine.name(), id));
        Outcome<?> outcome = dashboard.actions().fire(machine, id, event, x.command());
        if (outcome instanceof Outcome.Refused<?> refused) {
            log.info("dashboard: {} fired {} on {} {}: refused {}", x.actor(), event, machine.name(), id, refused.reasonCode());
            throw refusal(machine, refused);
        }
        log.info("dashboard: {} fired {} on {} {}", x.actor(), event, machine.name(), id);
        return ok(Views.applied((Outcome.Applied<?>) outcome));
    }

    /** Returns the error of a refusal: its status, its code and message, and the events a user may fire now. */
    private static DashboardException refusal(Machine<?, ?> machine, Outcome.Refused<?> refused) {
        List<String> allowed = refused.state() == null ? List.of() : Views.userEvents(machine, refused.state().name());
        return new DashboardException(refused.code().httpStatus(), refused.reasonCode(), refused.message(), null, allowed);
    }

    private DashboardResponse retryFailedChildren(Call x) {
        long id = x.id("id");
        x.body().requireOnly(Set.of());
        Machine<?, ?> machine = machineOf(id);
        authorize(x, "retry-failed-children", Authorization.Target.task(machine.name(), id));
        log.info("dashboard: {} retries the failed children of {} {}", x.actor(), machine.name(), id);
        return ok(dashboard.actions().retryFailedChildren(machine, id, x.command()));
    }

    private DashboardResponse queueControl(Call x, String action) {
        String queue = x.parameter("queue");
        TaskOperations operations = operations();
        List<String> queues = queues(operations.stateCounts());
        if (!queues.contains(queue)) {
            throw new DashboardException(404, "NOT_FOUND", "this dashboard has no queue " + DashboardException.truncate(queue)
                    + "; its queues: " + String.join(", ", queues));
        }
        Body body = x.body().requireOnly(action.equals("concurrency") ? Set.of("limit") : Set.of());
        authorize(x, action, Authorization.Target.queue(queue));
        Command command = x.command();
        switch (action) {
            case "pause" -> operations.pause(queue, command);
            case "resume" -> operations.resume(queue, command);
            case "stop-after-current" -> operations.stopAfterCurrent(queue, command);
            case "concurrency" -> {
                long limit = body.integer("limit", 0, 10_000).orElseThrow(() -> DashboardException.badField("limit", "is required"));
                operations.setConcurrency(queue, (int) limit, command);      // heard by the runtime: a raised limit may start tasks now
            }
            default -> throw new IllegalArgumentException(action);
        }
        log.info("dashboard: {} {} queue {}", x.actor(), action, queue);
        return ok(queue(queue, operations.stateCounts(), waiting()));
    }

    // --- bulk actions -------------------------------------------------------------------------

    private static final Set<String> FILTER_FIELDS = Set.of("machine", "state", "queue", "parent", "errorCode", "createdFrom", "createdTo",
            "updatedFrom", "updatedTo");

    private DashboardResponse bulkCount(Call x) {
        Body body = x.body().requireOnly(FILTER_FIELDS);
        TaskFilter<?, ?> filter = filter(body);
        BulkCount count = operations().count(filter);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("count", count.tasks());
        answer.put("upTo", count.lastId());
        return ok(answer);
    }

    private DashboardResponse bulk(Call x) {
        String action = x.parameter("action");
        if (!Set.of("retry", "cancel", "delete").contains(action)) {
            throw new DashboardException(404, "NOT_FOUND", "no bulk action " + DashboardException.truncate(action) + "; the actions: retry, cancel, delete");
        }
        Set<String> fields = new HashSet<>(FILTER_FIELDS);
        fields.add("upTo");
        if (action.equals("retry")) fields.add("event");
        Body body = x.body().requireOnly(fields);
        long upTo = body.integer("upTo", 0, Long.MAX_VALUE)
                .orElseThrow(() -> DashboardException.badField("upTo", "is required: the upTo of a count, so that only the tasks counted are changed"));
        TaskFilter<?, ?> filter = filter(body).upTo(upTo);
        authorize(x, "bulk-" + action, Authorization.Target.machine(filter.machine().name()));
        Command command = x.command();
        BulkResult result = switch (action) {
            case "retry" -> retryAll(filter, body.requireString("event", 100), command);
            case "cancel" -> {
                if (filter.machine().cancelEvent() == null) {
                    throw new DashboardException(409, "NOT_SUPPORTED", "machine " + filter.machine().name() + " declares no cancel event");
                }
                yield operations().cancelAll(filter, command);
            }
            default -> operations().deleteAll(filter, command);
        };
        log.info("dashboard: {} bulk {} of {} up to #{}: {}", x.actor(), action, body.fields(), upTo, result);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("matched", result.matched());
        answer.put("applied", result.applied());
        answer.put("requested", result.requested());
        answer.put("refused", result.refused());
        answer.put("refusals", result.refusals());
        answer.put("failed", result.failed());
        answer.put("alsoDeleted", result.alsoDeleted());
        return ok(answer);
    }

    private <S extends Enum<S>, E extends Enum<E>> BulkResult retryAll(TaskFilter<S, E> filter, String eventName, Command command) {
        E event = filter.machine().event(eventName);
        if (event == null) {
            throw DashboardException.badField("event", "machine " + filter.machine().name() + " has no event '" + DashboardException.truncate(eventName) + "'");
        }
        return operations().retryAll(filter, event, false, command);
    }

    /**
     * The filter in {@code body}: a machine (required), and a state, a queue, a parent, a last error code and
     * created or updated time ranges (start inclusive, end exclusive) if given.
     */
    private TaskFilter<?, ?> filter(Body body) {
        String name = body.string("machine", 200)
                .orElseThrow(() -> DashboardException.badField("machine", "is required: a bulk action concerns the tasks of one machine"));
        Machine<?, ?> machine = machines().get(name);
        if (machine == null) {
            throw DashboardException.badField("machine", "this dashboard has no machine '" + DashboardException.truncate(name) + "'; its machines: "
                    + String.join(", ", machines().keySet()));
        }
        return filter(machine, body);
    }

    private <S extends Enum<S>, E extends Enum<E>> TaskFilter<S, E> filter(Machine<S, E> machine, Body body) {
        TaskFilter<S, E> filter = TaskFilter.of(machine);
        Optional<String> stateName = body.string("state", 200);
        if (stateName.isPresent()) {
            S state = machine.state(stateName.get());
            if (state == null) {
                throw DashboardException.badField("state", "machine " + machine.name() + " has no state '" + DashboardException.truncate(stateName.get()) + "'");
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
    private static @Nullable Instant instant(Body body, String field) {
        Optional<String> text = body.string(field, 64);
        if (text.isEmpty()) return null;
        try {
            return Instant.parse(text.get());
        } catch (DateTimeParseException e) {
            throw DashboardException.badField(field, "is an instant such as 2024-05-01T10:00:00Z, not '" + DashboardException.truncate(text.get()) + "'");
        }
    }

    // --- schedules ----------------------------------------------------------------------------

    /** The recurring schedules of the dashboard's machines, by name, each with its next occurrences. */
    private Map<String, Object> schedules() {
        Map<String, Machine<?, ?>> machines = machines();
        List<Object> list = new ArrayList<>();
        for (ScheduleView v : operations().schedules()) {
            if (machines.containsKey(v.record().machine())) list.add(Views.schedule(v));
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("now", dashboard.engine().clock().now().toString());
        body.put("schedules", list);
        return body;
    }

    private DashboardResponse scheduleControl(Call x) {
        String name = x.parameter("name");
        String action = x.parameter("action");
        if (!Set.of("pause", "resume", "delete").contains(action)) {
            throw new DashboardException(404, "NOT_FOUND", "no schedule action " + DashboardException.truncate(action) + "; the actions: pause, resume, delete");
        }
        x.body().requireOnly(Set.of());
        TaskOperations operations = operations();
        Optional<ScheduleView> found = operations.schedule(name).filter(v -> machines().containsKey(v.record().machine()));
        if (found.isEmpty()) throw new DashboardException(404, "NOT_FOUND", "this dashboard has no schedule " + DashboardException.truncate(name));
        authorize(x, action, Authorization.Target.schedule(name));
        Map<String, Object> answer;
        switch (action) {
            case "pause" -> answer = Views.schedule(operations.pauseSchedule(name).orElseThrow(() -> gone(name)));
            case "resume" -> answer = Views.schedule(operations.resumeSchedule(name).orElseThrow(() -> gone(name)));
            default -> {
                if (!operations.deleteSchedule(name)) throw gone(name);
                answer = new LinkedHashMap<>();
                answer.put("name", name);
                answer.put("deleted", true);
            }
        }
        log.info("dashboard: {} {} schedule {}", x.actor(), action, name);
        return ok(answer);
    }

    private static DashboardException gone(String name) {
        return new DashboardException(404, "NOT_FOUND", "schedule " + DashboardException.truncate(name) + " was deleted meanwhile");
    }

    // --- machines ---------------------------------------------------------------------------

    /** Returns the dashboard's machines by name, and the machines of their children. */
    private Map<String, Machine<?, ?>> machines() {
        Map<String, Machine<?, ?>> all = new LinkedHashMap<>();
        for (Machine<?, ?> m : dashboard.machineList()) all.putIfAbsent(m.name(), m);
        for (Machine<?, ?> m : dashboard.machineList()) {
            if (m.children() != null) all.putIfAbsent(m.children().machine().name(), m.children().machine());
        }
        return all;
    }

    private Machine<?, ?> machine(String name) {
        Machine<?, ?> m = machines().get(name);
        if (m == null) throw new DashboardException(404, "NOT_FOUND", "this dashboard has no machine " + DashboardException.truncate(name));
        return m;
    }

    private Machine<?, ?> machineOf(long id) {
        TaskRecord record = operations().task(id).orElseThrow(() -> DashboardException.notFound("task", id));
        Machine<?, ?> machine = machines().get(record.machine());
        if (machine == null) {
            throw new DashboardException(404, "NOT_FOUND", "task " + id + " is a task of machine " + DashboardException.truncate(record.machine())
                    + ", which this dashboard does not show");
        }
        return machine;
    }
}
