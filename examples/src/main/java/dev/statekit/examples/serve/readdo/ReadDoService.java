package dev.statekit.examples.serve.readdo;

import dev.statekit.core.Created;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.RefusalCode;
import dev.statekit.core.Task;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.TransitionEngine;
import dev.statekit.examples.ReadDoItem;
import dev.statekit.examples.ReadDoItem.State;
import dev.statekit.examples.hosts.ReadDoHost;
import dev.statekit.examples.serve.ApiException;
import dev.statekit.examples.serve.Exchange;
import dev.statekit.examples.serve.JsonBody;
import dev.statekit.examples.serve.Reply;
import dev.statekit.examples.serve.Router;
import dev.statekit.examples.serve.ServeContext;
import dev.statekit.examples.serve.Service;
import dev.statekit.store.Page;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskQuery;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code examples serve read-do}: the Read→Do item service of seed 002 (its API, sections 3 to 5
 * of the contract) over a {@link ReadDoHost}.
 *
 * <ul>
 *   <li>{@code POST /capture} stores an item and enqueues it; the same {@code capture_id} returns
 *       the same item (201 on create, 200 on replay), in any process, across restarts.</li>
 *   <li>{@code GET /items}, {@code GET /items/{id}}: the items and one item with its state, its
 *       failure while {@code FAILED_*}, attempts, run id, artifacts and exports.</li>
 *   <li>{@code POST /items/{id}/process} (optional {@code process_request_id}),
 *       {@code /export} (required {@code export_key}), {@code /archive}, {@code /unarchive}
 *       (optional {@code regenerate}).</li>
 * </ul>
 * A refused change is 409 with the route's code and the actions allowed now. The pipeline runs in
 * the host's runtime under leases; the extractor and the AI are simulated, with failure rates as
 * options. Export files go to {@code DATA/exports/}, once per export key; the call and export
 * ledgers to {@code DATA/logs/}.
 */
public final class ReadDoService implements Service {
    /** The service's factory, as {@code examples serve} lists it. */
    public static final Service.Factory FACTORY = new Factory();

    /** The refusal of {@code /process} from QUEUED. */
    public static final String ALREADY_QUEUED = "ALREADY_QUEUED";
    /** The refusal of {@code /process} from SHIPPED. */
    public static final String PROCESS_NOT_ALLOWED = "PROCESS_NOT_ALLOWED";
    /** The refusal of {@code /export} from anything but READY, SHIPPED and FAILED_EXPORT. */
    public static final String EXPORT_NOT_ALLOWED = "EXPORT_NOT_ALLOWED";
    /** The refusal of {@code /archive} from ARCHIVED (from PROCESSING it is {@value ReadDoItem#PROCESSING_IN_PROGRESS}). */
    public static final String ARCHIVE_NOT_ALLOWED = "ARCHIVE_NOT_ALLOWED";
    /** The refusal of {@code /unarchive} from anything but ARCHIVED. */
    public static final String NOT_ARCHIVED = "NOT_ARCHIVED";

    /** The longest URL accepted. */
    static final int MAX_URL = 2048;
    /** The longest intent accepted. */
    static final int MAX_INTENT = 1000;
    /** The longest key ({@code capture_id}, {@code process_request_id}, {@code export_key}) accepted. */
    static final int MAX_KEY = 200;

    private static final Logger log = LoggerFactory.getLogger(ReadDoService.class);
    private static final Set<String> ARCHIVE_REASONS = new LinkedHashSet<>(List.of("USER_ARCHIVE", "SYSTEM_SKIP", "FAILURE_ARCHIVE"));

    private final ReadDoHost host;
    private final AtomicBoolean closed = new AtomicBoolean();

    private ReadDoService(ReadDoHost host) {
        this.host = host;
    }

    /** The factory of {@code read-do}. */
    private static final class Factory implements Service.Factory {
        @Override
        public String name() {
            return "read-do";
        }

        @Override
        public String summary() {
            return "Read→Do: captured links through extract, summarize, score, todos and card to ready items, exported as card files";
        }

        @Override
        public Map<String, String> options() {
            Map<String, String> o = new LinkedHashMap<>();
            o.put("extract-failure-rate", "how often the simulated extractor fails, 0 to 1 (default 0)");
            o.put("ai-failure-rate", "how often a call of the simulated AI fails, 0 to 1 (default 0)");
            o.put("export-failure-rate", "how often an export's render or write fails, 0 to 1 (default 0)");
            o.put("work-millis", "how long each simulated call takes, in ms (default 200)");
            o.put("workers", "how many items this process processes at once (default 2)");
            o.put("lease-seconds", "how long a processing lease lasts unless renewed (default 30)");
            o.put("exports", "the folder of the card files, relative to --data (default exports)");
            return o;
        }

        @Override
        public Service create(ServeContext context) throws IOException {
            Chance extract = new Chance(context.rate("extract-failure-rate", 0));
            Chance ai = new Chance(context.rate("ai-failure-rate", 0));
            Chance export = new Chance(context.rate("export-failure-rate", 0));
            Duration work = Duration.ofMillis(context.integer("work-millis", 200, 0, 60_000));
            int workers = context.integer("workers", 2, 1, 16);
            Duration lease = Duration.ofSeconds(context.integer("lease-seconds", 30, 1, 3600));
            Duration poll = lease.dividedBy(2).compareTo(Duration.ofSeconds(1)) < 0 ? lease.dividedBy(2) : Duration.ofSeconds(1);
            Ledger calls = new Ledger(context.dataDir().resolve("logs").resolve("calls.log"));
            Ledger exports = new Ledger(context.dataDir().resolve("logs").resolve("exports.log"));
            Pipeline pipeline = new Pipeline(new SimulatedExtractor(extract, work), new SimulatedAi(ai, work), calls, context.owner());
            CardFiles cards = new CardFiles(context.dataDir(), context.path("exports", "exports"), export, exports, context.owner());
            ReadDoHost host = new ReadDoHost(context.store(), context.clock(), null,
                    new ReadDoHost.Settings(context.owner(), workers, lease, poll), pipeline, cards);
            return new ReadDoService(host);
        }
    }

    /** Returns the host. */
    public ReadDoHost host() {
        return host;
    }

    @Override
    public TransitionEngine engine() {
        return host.engine();
    }

    @Override
    public TaskRuntime runtime() {
        return host.runtime();
    }

    @Override
    public List<Machine<?, ?>> machines() {
        return List.of(ReadDoItem.MACHINE);
    }

    @Override
    public List<String> queues() {
        return List.of(ReadDoHost.QUEUE);
    }

    @Override
    public void routes(Router router) {
        router.post("/capture", this::capture);
        router.get("/items", this::list);
        router.get("/items/{id}", this::item);
        router.post("/items/{id}/process", this::process);
        router.post("/items/{id}/export", this::export);
        router.post("/items/{id}/archive", this::archive);
        router.post("/items/{id}/unarchive", this::unarchive);
    }

    @Override
    public void start() {
        host.start();
    }

    /**
     * The dashboard's buttons: {@code PROCESS} and {@code UNARCHIVE} as their routes do,
     * {@code EXPORT_SUCCEEDED} as an export under the key {@code card-RUN_ID} (the card of the
     * item's run, exported once); an export failure is only ever reported by an export.
     */
    @Override
    public Outcome<?> fireUser(Machine<?, ?> machine, long id, String event, String actor) {
        return switch (event) {
            case "PROCESS" -> host.process(id, null, actor);
            case "UNARCHIVE" -> host.unarchive(id, false, actor);
            case "EXPORT_SUCCEEDED" -> {
                Task<State> item = host.engine().find(ReadDoItem.MACHINE, id).orElseThrow(() -> ApiException.notFound("item", id));
                yield host.export(id, "card-" + item.attribute(ReadDoItem.RUN_ID), actor).outcome();
            }
            case "EXPORT_FAILED" -> throw new ApiException(409, "NOT_SUPPORTED", "an export failure is reported by the export itself");
            default -> Service.super.fireUser(machine, id, event, actor);
        };
    }

    /** Stops the runtime: running pipelines get 10 s to finish, then their items are released to the queue. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        try {
            host.runtime().stop(Duration.ofSeconds(10)).get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.warn("the read-do runtime did not stop cleanly: {}", e.toString());
        } finally {
            host.close();
        }
    }

    // --- routes ------------------------------------------------------------------------------

    private Reply capture(Exchange x) {
        JsonBody body = x.body().requireOnly(List.of("url", "intent", "capture_id"));
        String url = body.requireString("url", MAX_URL);
        checkUrl(url);
        String intent = body.requireString("intent", MAX_INTENT);
        String captureId = body.string("capture_id", MAX_KEY).orElse(null);
        Created<State> c = host.capture(url, Map.of(Pipeline.INTENT, intent), captureId);
        Map<String, Object> view = ItemView.full(host.engine().find(ReadDoItem.MACHINE, c.task().id()).orElse(c.task()));
        view.put("replayed", !c.created());
        return c.created() ? Reply.created(view) : Reply.ok(view);
    }

    private static void checkUrl(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw ApiException.badField("url", "is not a URL: " + e.getReason());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null || uri.getHost().isBlank()) {
            throw ApiException.badField("url", "must be an http or https URL with a host");
        }
    }

    private Reply list(Exchange x) {
        Optional<String> stateName = x.query("state");
        long limit = x.queryLong("limit", 50, 1, 200);
        long after = x.queryLong("after", 0, 0, Long.MAX_VALUE);
        TaskQuery q = TaskQuery.all().machine(ReadDoItem.MACHINE.name()).limit((int) limit);
        if (stateName.isPresent()) {
            State state = ReadDoItem.MACHINE.state(stateName.get().toUpperCase(Locale.ROOT));
            if (state == null) {
                List<String> names = new ArrayList<>();
                for (State s : State.values()) names.add(s.name());
                throw new ApiException(400, "INVALID_QUERY", "state must be one of " + String.join(", ", names), "state", null);
            }
            q = q.states(List.of(state.name()));
        }
        if (after > 0) q = q.after(after);
        Page<Task<State>> page = host.engine().query(ReadDoItem.MACHINE, q);
        List<Map<String, Object>> items = new ArrayList<>();
        for (Task<State> t : page.items()) items.add(ItemView.summary(t));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("items", items);
        body.put("next_after", page.nextAfterId());
        return Reply.ok(body);
    }

    private Reply item(Exchange x) {
        long id = x.id("id");
        return Reply.ok(ItemView.full(find(id)));
    }

    private Task<State> find(long id) {
        return host.engine().find(ReadDoItem.MACHINE, id).orElseThrow(() -> ApiException.notFound("item", id));
    }

    private Reply process(Exchange x) {
        long id = x.id("id");
        JsonBody body = x.body().requireOnly(List.of("process_request_id"));
        String requestId = body.string("process_request_id", MAX_KEY).orElse(null);
        Outcome.Applied<State> a = applied(host.process(id, requestId, x.actor()), id,
                s -> s == State.QUEUED ? ALREADY_QUEUED : PROCESS_NOT_ALLOWED,
                "process is allowed from CAPTURED, READY, FAILED_* and ARCHIVED");
        return changed(a);
    }

    private Reply export(Exchange x) {
        long id = x.id("id");
        JsonBody body = x.body().requireOnly(List.of("export_key"));
        String key = body.requireString("export_key", MAX_KEY);
        ReadDoHost.Export e = host.export(id, key, x.actor());
        Outcome.Applied<State> a = applied(e.outcome(), id, s -> EXPORT_NOT_ALLOWED, "export is allowed from READY, SHIPPED and FAILED_EXPORT");
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("item_id", id);
        reply.put("state", a.task().state().name());
        reply.put("export_key", key);
        TaskError failure = e.failure();
        if (failure != null) {
            reply.put("exported", false);
            reply.put("failed_step", failure.step());
            reply.put("error_code", failure.code());
            reply.put("message", failure.message());
            reply.put("retryable", failure.retryable());
        } else {
            reply.put("exported", true);
            reply.put("file", e.file());
            reply.put("written", e.written());
            reply.put("replayed", a.replayed());
        }
        return Reply.ok(reply);
    }

    private Reply archive(Exchange x) {
        long id = x.id("id");
        JsonBody body = x.body().requireOnly(List.of("archive_reason"));
        String reason = body.oneOf("archive_reason", ARCHIVE_REASONS).orElse(null);
        Outcome.Applied<State> a = applied(host.archive(id, reason, x.actor()), id, s -> ARCHIVE_NOT_ALLOWED,
                "archive is allowed from CAPTURED, QUEUED, READY, FAILED_* and SHIPPED");
        return changed(a);
    }

    private Reply unarchive(Exchange x) {
        long id = x.id("id");
        JsonBody body = x.body().requireOnly(List.of("regenerate"));
        boolean regenerate = body.bool("regenerate").orElse(false);
        Outcome.Applied<State> a = applied(host.unarchive(id, regenerate, x.actor()), id, s -> NOT_ARCHIVED,
                "unarchive is allowed from ARCHIVED");
        return changed(a);
    }

    /** Returns the item after an applied change, with whether the change was a replay. */
    private static Reply changed(Outcome.Applied<State> a) {
        Map<String, Object> view = ItemView.full(a.task());
        view.put("replayed", a.replayed());
        return Reply.ok(view);
    }

    /**
     * Returns {@code outcome} when applied; throws its refusal otherwise: 404 for an unknown item,
     * else the refusal's status with the route's code ({@code codeOf} the state) where the table
     * has no row, the named refusal's or guard's code where it has one, and the actions allowed now.
     */
    private static Outcome.Applied<State> applied(Outcome<State> outcome, long id, Function<State, String> codeOf, String rule) {
        if (outcome instanceof Outcome.Applied<State> a) return a;
        Outcome.Refused<State> r = (Outcome.Refused<State>) outcome;
        if (r.code() == RefusalCode.NOT_FOUND) throw ApiException.notFound("item", id);
        State state = r.state();
        String code = r.reasonCode();
        String message = r.message();
        if (r.code() == RefusalCode.ILLEGAL_TRANSITION && state != null) {
            // the table has no row: the route's code, unless the machine names the refusal (PROCESSING_IN_PROGRESS)
            if (code.equals(RefusalCode.ILLEGAL_TRANSITION.name())) code = codeOf.apply(state);
            message = "item " + id + " is " + state + "; " + rule;
        }
        List<String> allowed = state == null ? List.of() : ItemView.allowed(state);
        throw new ApiException(r.code().httpStatus(), code, message, null, allowed);
    }
}
