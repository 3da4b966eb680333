package dev.statekit.dashboard;

import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.runtime.RuntimeMetrics;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskRecord;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The statekit dashboard: a web page of plain HTML, CSS and JavaScript modules served from the
 * class path under a base path, over a JSON operations API under {@code BASE/api} built on
 * {@link dev.statekit.core.ops.TaskOperations} and the engine's reads. It needs no web framework:
 * {@link #mount(HttpServer)} serves it on the JDK's own HTTP server, {@link DashboardServlet} in a
 * servlet container, and {@link #handle(DashboardRequest)} on any other server.
 *
 * <pre>{@code
 * Dashboard dashboard = Dashboard.builder(engine)
 *         .machines(Order.MACHINE)
 *         .basePath("/statekit")
 *         .identity(request -> request.principal() == null ? null : request.principal().getName())
 *         .authorization(Authorization.allow((user, action, target) -> user != null))
 *         .build();
 * dashboard.mount(server);      // a com.sun.net.httpserver.HttpServer
 * }</pre>
 *
 * <p>The API ({@code BASE} is the base path):
 * <ul>
 *   <li>{@code GET BASE/api/overview}: the dashboard's name, whether its user may change anything,
 *       the queues (paused, why, concurrency limit, tasks, leases) and the machines with their
 *       tasks counted by state;</li>
 *   <li>{@code GET BASE/api/machines/{machine}}: a machine's states and rows, for its diagram;</li>
 *   <li>{@code GET BASE/api/tasks?machine=&state=&queue=&parent=&q=&after=&limit=}: one page of
 *       tasks, filtered, and searched for {@code q} in their ids, attributes, keys and errors;</li>
 *   <li>{@code GET BASE/api/tasks/{id}}: a task with its attributes, last error, lease, the user
 *       events of its state, its history and, for a parent, its children's progress;</li>
 *   <li>{@code POST BASE/api/tasks/{id}/events} {@code {"event": …}}: fires a user event through
 *       {@link Actions#fire} (a refusal is the table's 409 with its {@code error_code});</li>
 *   <li>{@code POST BASE/api/tasks/{id}/retry-failed-children}: {@link Actions#retryFailedChildren};</li>
 *   <li>{@code POST BASE/api/queues/{queue}/pause}, {@code /resume}, {@code /stop-after-current},
 *       {@code /concurrency} {@code {"limit": n}}: the queue's controls;</li>
 *   <li>{@code POST BASE/api/bulk/count} with a filter (machine, state, queue, parent, errorCode,
 *       createdFrom, createdTo, updatedFrom, updatedTo): how many tasks there are now and the last of
 *       them ({@code upTo}); {@code POST BASE/api/bulk/retry}, {@code /cancel}, {@code /delete} with that
 *       filter and {@code upTo}: the bulk action over the tasks counted;</li>
 *   <li>{@code GET BASE/api/schedules}, {@code POST BASE/api/schedules/{name}/pause}, {@code /resume},
 *       {@code /delete}: the recurring schedules of the dashboard's machines;</li>
 *   <li>{@code GET BASE/api/processes}: the processes that serve the store (owner, host, pid,
 *       machines, queues, started, last seen and its age, state alive, stopped or gone) with the
 *       leases each holds now;</li>
 *   <li>{@code GET BASE/api/tasks/{id}/attempts}: the attempts at a task's work, from its history:
 *       start, duration, worker, outcome and error with its stack trace.</li>
 * </ul>
 *
 * <p>Every change (a POST) must come from the dashboard's own page: a request whose
 * {@code Sec-Fetch-Site} is not {@code same-origin}, or whose {@code Origin} is not this server's
 * host (nor one of {@link Builder#allowedOrigins}), or that is sent as a type a form of another site
 * can send ({@code application/x-www-form-urlencoded}, {@code multipart/form-data},
 * {@code text/plain} or none) without the header {@value #CUSTOM_HEADER}, is answered 403
 * {@code CROSS_SITE_REQUEST}. Then the request's user, from the {@link Builder#identity} function,
 * must be allowed by the {@link Authorization}: 403 {@code FORBIDDEN} otherwise. The user is the
 * actor written in the history of what the change did ({@value #ANONYMOUS} when the function names
 * nobody).
 */
public final class Dashboard {
    /** The header that marks a change sent by a script of the page, whatever its content type. */
    public static final String CUSTOM_HEADER = "X-Statekit-Dashboard";
    /** The actor written in the history when the identity function names nobody. */
    public static final String ANONYMOUS = "anonymous";
    /** The largest body the dashboard's own adapters read, in bytes; a larger one is answered 413. */
    public static final int MAX_BODY = 64 * 1024;

    /** Where the page's files are, on the class path. */
    static final String ASSETS = "dev/statekit/dashboard/ui/";
    /** The page's files and their content types. */
    static final Map<String, String> FILES = Map.of(
            "app.js", "text/javascript; charset=utf-8",
            "api.js", "text/javascript; charset=utf-8",
            "dom.js", "text/javascript; charset=utf-8",
            "views.js", "text/javascript; charset=utf-8",
            "panels.js", "text/javascript; charset=utf-8",
            "processes.js", "text/javascript; charset=utf-8",
            "diagram.js", "text/javascript; charset=utf-8",
            "charts.js", "text/javascript; charset=utf-8",
            "app.css", "text/css; charset=utf-8",
            "icon.svg", "image/svg+xml");
    static final String JSON = "application/json; charset=utf-8";
    private static final String HTML = "text/html; charset=utf-8";
    private static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
    private static final Pattern BASE_PATH = Pattern.compile("(/[A-Za-z0-9._~-]+)+");

    private final TransitionEngine engine;
    private final String name;
    private final String basePath;
    private final List<Machine<?, ?>> machines;
    private final @Nullable List<String> queues;
    private final Function<DashboardRequest, @Nullable String> identity;
    private final Authorization authorization;
    private final Actions actions;
    private final Set<String> allowedOrigins;
    private final @Nullable Supplier<RuntimeMetrics> metrics;
    private final Function<TaskRecord, List<TaskError>> blockingErrors;
    private final Map<String, byte[]> files = new LinkedHashMap<>();
    private final byte[] page;
    private final Api api;

    private Dashboard(Builder b) {
        this.engine = b.engine;
        this.name = b.name;
        this.basePath = b.basePath;
        this.machines = List.copyOf(b.machines);
        this.queues = b.queues == null ? null : List.copyOf(b.queues);
        this.identity = b.identity;
        this.authorization = b.authorization;
        this.actions = b.actions == null ? Actions.engine(engine) : b.actions;
        this.allowedOrigins = Set.copyOf(b.allowedOrigins);
        this.metrics = b.metrics;
        this.blockingErrors = b.blockingErrors;
        for (String file : FILES.keySet()) files.put(file, resource(file));
        this.page = new String(resource("index.html"), StandardCharsets.UTF_8).replace("{{base}}", basePath).getBytes(StandardCharsets.UTF_8);
        this.api = new Api(this);
    }

    /**
     * Starts a dashboard over {@code engine}'s store.
     *
     * @param engine the engine every change goes through and every read reads
     * @return a builder
     */
    public static Builder builder(TransitionEngine engine) {
        return new Builder(engine);
    }

    /** Builds a {@link Dashboard}. */
    public static final class Builder {
        private final TransitionEngine engine;
        private final List<Machine<?, ?>> machines = new ArrayList<>();
        private @Nullable List<String> queues;
        private String name = "statekit";
        private String basePath = "/statekit";
        private Function<DashboardRequest, @Nullable String> identity = Builder::principalName;
        private Authorization authorization = Authorization.readOnly();
        private @Nullable Actions actions;
        private final Set<String> allowedOrigins = new LinkedHashSet<>();
        private @Nullable Supplier<RuntimeMetrics> metrics;
        private Function<TaskRecord, List<TaskError>> blockingErrors = task -> List.of();

        private Builder(TransitionEngine engine) {
            this.engine = Objects.requireNonNull(engine, "engine");
        }

        private static @Nullable String principalName(DashboardRequest request) {
            Principal p = request.principal();
            return p == null ? null : p.getName();
        }

        /**
         * Adds the machines whose tasks the dashboard shows, the top-level machine first; the machines
         * of their children are shown too.
         *
         * @param machines the machines
         * @return this builder
         */
        public Builder machines(Machine<?, ?>... machines) {
            return machines(List.of(machines));
        }

        /**
         * Adds the machines whose tasks the dashboard shows, the top-level machine first; the machines
         * of their children are shown too.
         *
         * @param machines the machines
         * @return this builder
         */
        public Builder machines(List<? extends Machine<?, ?>> machines) {
            this.machines.addAll(machines);
            return this;
        }

        /**
         * Sets the queues the dashboard shows and controls. Without it, the queues that hold tasks of
         * its machines.
         *
         * @param queues the queues' names
         * @return this builder
         */
        public Builder queues(List<String> queues) {
            this.queues = List.copyOf(queues);
            return this;
        }

        /**
         * Sets the name shown at the top of the page; {@code statekit} by default.
         *
         * @param name the name, e.g. the application's
         * @return this builder
         */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * Sets the path the dashboard is served under: the page at {@code BASE}, its files under
         * {@code BASE/assets}, its API under {@code BASE/api}. {@code /statekit} by default.
         *
         * @param basePath one or more segments of letters, digits and {@code . _ ~ -}, each after a
         *                 {@code /}, without a trailing {@code /}
         * @return this builder
         */
        public Builder basePath(String basePath) {
            if (!BASE_PATH.matcher(basePath).matches()) {
                throw new IllegalArgumentException("a base path is /SEGMENT[/SEGMENT…] of letters, digits and . _ ~ -, not '" + basePath + "'");
            }
            this.basePath = basePath;
            return this;
        }

        /**
         * Sets how the user of a request is known: a function from the request (its headers, its
         * principal) to the user's name, or null for nobody; it may throw {@link DashboardException}
         * to refuse the request. The name is handed to the {@link Authorization} and written as the
         * actor of every change. By default the principal's name, if the server authenticated one.
         *
         * @param identity the function
         * @return this builder
         */
        public Builder identity(Function<DashboardRequest, @Nullable String> identity) {
            this.identity = Objects.requireNonNull(identity, "identity");
            return this;
        }

        /**
         * Sets who may view and change what; {@link Authorization#readOnly()} by default.
         *
         * @param authorization the authorization
         * @return this builder
         */
        public Builder authorization(Authorization authorization) {
            this.authorization = Objects.requireNonNull(authorization, "authorization");
            return this;
        }

        /**
         * Sets how the task buttons act; by default every user event is fired through the engine.
         *
         * @param actions the actions
         * @return this builder
         */
        public Builder actions(Actions actions) {
            this.actions = Objects.requireNonNull(actions, "actions");
            return this;
        }

        /**
         * Adds origins, besides the server's own host, that may send changes: e.g.
         * {@code https://ops.example.com} when a proxy in front rewrites the {@code Host} header.
         *
         * @param origins the origins, each {@code scheme://host[:port]}
         * @return this builder
         */
        public Builder allowedOrigins(String... origins) {
            for (String o : origins) allowedOrigins.add(o.toLowerCase(Locale.ROOT));
            return this;
        }

        /**
         * Sets where the overview reads what waits on each queue: the runtime's metrics (e.g.
         * {@code runtime::metrics}), which count the runnable tasks of the machines it serves and how
         * long the longest of them has waited. Without it, the dashboard counts the unleased tasks
         * in the claim states of its machines' run policies. Either way a finished task never
         * counts as waiting.
         *
         * @param metrics the runtime's metrics, read at each overview
         * @return this builder
         */
        public Builder metrics(Supplier<RuntimeMetrics> metrics) {
            this.metrics = Objects.requireNonNull(metrics, "metrics");
            return this;
        }

        /**
         * Sets what blocks a task beyond its own record, shown at the top of its page: e.g. the
         * error of another task doing a step of its work (a merge that cannot write its file). The
         * function is called for each task page read, with the task as the store holds it; it
         * returns the errors that keep the task from going on now, or none.
         *
         * @param blockingErrors the function
         * @return this builder
         */
        public Builder blockingErrors(Function<TaskRecord, List<TaskError>> blockingErrors) {
            this.blockingErrors = Objects.requireNonNull(blockingErrors, "blockingErrors");
            return this;
        }

        /**
         * Builds the dashboard.
         *
         * @return the dashboard
         * @throws IllegalStateException when no machine was given
         */
        public Dashboard build() {
            if (machines.isEmpty()) throw new IllegalStateException("a dashboard shows the tasks of at least one machine: call machines(…)");
            return new Dashboard(this);
        }
    }

    private static byte[] resource(String file) {
        try (InputStream in = Dashboard.class.getClassLoader().getResourceAsStream(ASSETS + file)) {
            if (in == null) throw new IllegalStateException("the dashboard's file " + file + " is missing from the class path");
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Returns the path the dashboard is served under.
     *
     * @return the base path, e.g. {@code /statekit}
     */
    public String basePath() {
        return basePath;
    }

    /**
     * Mounts the dashboard on the JDK's HTTP server, at its base path.
     *
     * @param server the server
     * @return the server's context of the dashboard
     */
    public HttpContext mount(HttpServer server) {
        return server.createContext(basePath, httpHandler());
    }

    /**
     * Returns the dashboard as a handler of the JDK's HTTP server, for a context at its base path.
     * It reads bodies up to {@value #MAX_BODY} bytes (413 beyond).
     *
     * @return the handler
     */
    public HttpHandler httpHandler() {
        return new JdkHandler(this);
    }

    /**
     * Answers one request. Its path must start with the base path; any other is answered 404.
     * Never throws: every error is an answer in the JSON error shape.
     *
     * @param request the request
     * @return the answer
     */
    public DashboardResponse handle(DashboardRequest request) {
        String method = request.method().toUpperCase(Locale.ROOT);
        try {
            return api.answer(method, request);
        } catch (DashboardException e) {
            return error(e);
        } catch (dev.statekit.store.StatekitException e) {
            Api.log.warn("dashboard {} {}: the store failed: {}", method, DashboardException.truncate(request.rawPath()), e.getMessage());
            return error(new DashboardException(503, "STORE_UNAVAILABLE", "the store cannot be reached: " + e.getMessage()));
        } catch (RuntimeException e) {
            Api.log.error("dashboard {} {} failed", method, DashboardException.truncate(request.rawPath()), e);
            return error(new DashboardException(500, "INTERNAL_ERROR", "the request failed: " + e));
        }
    }

    static DashboardResponse error(DashboardException e) {
        return json(e.status(), e.body());
    }

    static DashboardResponse json(int status, @Nullable Object body) {
        return respond(status, JSON, JsonText.write(body).getBytes(StandardCharsets.UTF_8));
    }

    static DashboardResponse respond(int status, String type, byte[] body) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("X-Content-Type-Options", "nosniff");
        headers.put("Cache-Control", "no-store");
        headers.put("Referrer-Policy", "no-referrer");
        if (type.startsWith("text/html")) {
            headers.put("Content-Security-Policy", CSP);
            headers.put("X-Frame-Options", "DENY");
        }
        return new DashboardResponse(status, type, headers, body);
    }

    // --- what the API reads of the dashboard ------------------------------------------------------

    TransitionEngine engine() {
        return engine;
    }

    String name() {
        return name;
    }

    byte[] page() {
        return page;
    }

    @Nullable String fileType(String file) {
        return FILES.get(file);
    }

    byte[] file(String file) {
        return Objects.requireNonNull(files.get(file));
    }

    List<Machine<?, ?>> machineList() {
        return machines;
    }

    @Nullable List<String> configuredQueues() {
        return queues;
    }

    Authorization authorization() {
        return authorization;
    }

    Actions actions() {
        return actions;
    }

    @Nullable Supplier<RuntimeMetrics> metrics() {
        return metrics;
    }

    List<TaskError> blockingErrors(TaskRecord task) {
        return blockingErrors.apply(task);
    }

    Set<String> allowedOrigins() {
        return allowedOrigins;
    }

    /** Returns the user of {@code request}: the identity function's name for it, or null. */
    @Nullable String user(DashboardRequest request) {
        return identity.apply(request);
    }

    /** Returns the command of a change by {@code user}. */
    static Command command(@Nullable String user) {
        return Command.user(user == null ? ANONYMOUS : user);
    }

    static String html() {
        return HTML;
    }
}
