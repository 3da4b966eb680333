package dev.statekit.examples.serve.readdo;

import dev.statekit.core.Created;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.Task;
import dev.statekit.examples.ReadDoItem;
import dev.statekit.examples.ReadDoItem.State;
import dev.statekit.examples.hosts.ReadDoHost;
import dev.statekit.examples.serve.ApiException;
import dev.statekit.examples.serve.Exchange;
import dev.statekit.examples.serve.Fires;
import dev.statekit.examples.serve.Idempotency;
import dev.statekit.examples.serve.Options;
import dev.statekit.examples.serve.JsonBody;
import dev.statekit.examples.serve.Reply;
import dev.statekit.examples.serve.Router;
import dev.statekit.examples.serve.ServeContext;
import dev.statekit.examples.serve.Service;
import dev.statekit.examples.serve.SystemService;
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
import java.util.function.Function;

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
public final class ReadDoService extends SystemService {
    // the service's own options: name, value, default and description, listed by `serve --help` and parsed by `serve`
    static final Options.Option<Double> EXTRACT_FAILURE_RATE = Options.rate("extract-failure-rate", 0, "how often the simulated extractor fails");
    static final Options.Option<Double> AI_FAILURE_RATE = Options.rate("ai-failure-rate", 0, "how often a call of the simulated AI fails");
    static final Options.Option<Double> EXPORT_FAILURE_RATE = Options.rate("export-failure-rate", 0, "how often an export's render or write fails");
    static final Options.Option<Integer> WORK_MILLIS = Options.integer("work-millis", 200, 0, 60_000, "how long each simulated call takes, in ms");
    static final Options.Option<Integer> WORKERS = Options.integer("workers", 2, 1, 16, "how many items this process processes at once");
    static final Options.Option<Integer> LEASE_SECONDS = Options.integer("lease-seconds", 30, 1, 3600,
            "how long a processing lease lasts unless renewed");
    static final Options.Option<String> EXPORTS = Options.path("exports", "DIR", "exports", "the folder of the card files, relative to --data");

    /** The service's factory, as {@code examples serve} lists it. */
    public static final Service.Factory FACTORY = new SystemService.Factory("read-do",
            "Read→Do: captured links through extract, summarize, score, todos and card to ready items, exported as card files",
            Options.of(EXTRACT_FAILURE_RATE, AI_FAILURE_RATE, EXPORT_FAILURE_RATE, WORK_MILLIS, WORKERS, LEASE_SECONDS, EXPORTS),
            ReadDoService::new);

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
    /** The key of a capture (seed 002 §5.2): the same {@code capture_id} returns the same item. */
    static final Idempotency CAPTURE_ID = Idempotency.field("capture_id", MAX_KEY);
    /** The key of a process request: the same {@code process_request_id} changes nothing again. */
    static final Idempotency PROCESS_REQUEST_ID = Idempotency.field("process_request_id", MAX_KEY);
    /** The key of an export, required: an export key is exported once. */
    static final Idempotency EXPORT_KEY = Idempotency.field("export_key", MAX_KEY).required();

    /** How the routes word a refusal: the route's code where the table has no row, and the actions allowed now. */
    private static final Fires.Wording<State> PROCESS = wording(s -> s == State.QUEUED ? ALREADY_QUEUED : PROCESS_NOT_ALLOWED,
            "process is allowed from CAPTURED, READY, FAILED_* and ARCHIVED");
    private static final Fires.Wording<State> EXPORT = wording(s -> EXPORT_NOT_ALLOWED, "export is allowed from READY, SHIPPED and FAILED_EXPORT");
    private static final Fires.Wording<State> ARCHIVE = wording(s -> ARCHIVE_NOT_ALLOWED,
            "archive is allowed from CAPTURED, QUEUED, READY, FAILED_* and SHIPPED");
    private static final Fires.Wording<State> UNARCHIVE = wording(s -> NOT_ARCHIVED, "unarchive is allowed from ARCHIVED");
    private static final Set<String> ARCHIVE_REASONS = new LinkedHashSet<>(List.of("USER_ARCHIVE", "SYSTEM_SKIP", "FAILURE_ARCHIVE"));

    private final ReadDoHost host;

    private ReadDoService(ServeContext context) throws IOException {
        this(host(context));
    }

    private ReadDoService(ReadDoHost host) {
        super(new Host(host.engine(), host.runtime(), host::start, host::close), List.of(ReadDoItem.MACHINE), List.of(ReadDoHost.QUEUE),
                Duration.ofSeconds(10));
        this.host = host;
    }

    private static ReadDoHost host(ServeContext context) throws IOException {
        Chance extract = new Chance(context.get(EXTRACT_FAILURE_RATE));
        Chance ai = new Chance(context.get(AI_FAILURE_RATE));
        Chance export = new Chance(context.get(EXPORT_FAILURE_RATE));
        Duration work = Duration.ofMillis(context.get(WORK_MILLIS));
        int workers = context.get(WORKERS);
        Duration lease = Duration.ofSeconds(context.get(LEASE_SECONDS));
        Duration poll = lease.dividedBy(2).compareTo(Duration.ofSeconds(1)) < 0 ? lease.dividedBy(2) : Duration.ofSeconds(1);
        Ledger calls = new Ledger(context.dataDir().resolve("logs").resolve("calls.log"));
        Ledger exports = new Ledger(context.dataDir().resolve("logs").resolve("exports.log"));
        Pipeline pipeline = new Pipeline(new SimulatedExtractor(extract, work), new SimulatedAi(ai, work), calls, context.owner());
        CardFiles cards = new CardFiles(context.dataDir(), context.path(EXPORTS), export, exports, context.owner());
        ReadDoHost.Settings settings = new ReadDoHost.Settings(context.owner(), workers, lease, poll, context.soleOwner());
        return new ReadDoHost(context.store(), context.clock(), null, settings, pipeline, cards);
    }

    private static Fires.Wording<State> wording(Function<State, String> codeOf, String rule) {
        return new Fires.Wording<>("item", codeOf, rule, ItemView::allowed);
    }

    /** Returns the host. */
    public ReadDoHost host() {
        return host;
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
            default -> super.fireUser(machine, id, event, actor);
        };
    }

    // --- routes ------------------------------------------------------------------------------

    private Reply capture(Exchange x) {
        JsonBody body = x.body().requireOnly(List.of("url", "intent", "capture_id"));
        String url = body.requireString("url", MAX_URL);
        checkUrl(url);
        String intent = body.requireString("intent", MAX_INTENT);
        String captureId = CAPTURE_ID.key(x).orElse(null);
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
        x.body().requireOnly(List.of("process_request_id"));
        String requestId = PROCESS_REQUEST_ID.key(x).orElse(null);
        Outcome.Applied<State> a = Fires.applied(ReadDoItem.MACHINE, id, host.process(id, requestId, x.actor()), PROCESS);
        return changed(a);
    }

    private Reply export(Exchange x) {
        long id = x.id("id");
        x.body().requireOnly(List.of("export_key"));
        String key = EXPORT_KEY.key(x).orElseThrow();
        ReadDoHost.Export e = host.export(id, key, x.actor());
        Outcome.Applied<State> a = Fires.applied(ReadDoItem.MACHINE, id, e.outcome(), EXPORT);
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
        Outcome.Applied<State> a = Fires.applied(ReadDoItem.MACHINE, id, host.archive(id, reason, x.actor()), ARCHIVE);
        return changed(a);
    }

    private Reply unarchive(Exchange x) {
        long id = x.id("id");
        JsonBody body = x.body().requireOnly(List.of("regenerate"));
        boolean regenerate = body.bool("regenerate").orElse(false);
        Outcome.Applied<State> a = Fires.applied(ReadDoItem.MACHINE, id, host.unarchive(id, regenerate, x.actor()), UNARCHIVE);
        return changed(a);
    }

    /** Returns the item after an applied change, with whether the change was a replay. */
    private static Reply changed(Outcome.Applied<State> a) {
        Map<String, Object> view = ItemView.full(a.task());
        view.put("replayed", a.replayed());
        return Reply.ok(view);
    }
}
