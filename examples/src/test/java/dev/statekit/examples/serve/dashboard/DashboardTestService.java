package dev.statekit.examples.serve.dashboard;

import dev.statekit.core.ops.TaskOperations;
import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.Verdict;
import dev.statekit.core.spi.WorkContext;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.examples.serve.Reply;
import dev.statekit.examples.serve.Options;
import dev.statekit.examples.serve.Router;
import dev.statekit.examples.serve.ServeContext;
import dev.statekit.examples.serve.Service;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The dashboard tests' own service: batches (parents) of items (children) on one queue, run by a
 * worker the test controls.
 *
 * <p>An item's worker waits for the gate its attribute {@code gate} names, until the test opens
 * it ({@link Control#open}), and then fails with {@value #FAILED_CODE} while its name is in
 * {@link Control#failing}. A failed item may be retried by a user unless its attribute
 * {@code locked} is {@code true} (the guard refuses with {@value #LOCKED_CODE}); a running item
 * cannot be held ({@value #RUNNING_CODE}).
 */
final class DashboardTestService implements Service {
    static final String NAME = "dash-test";
    static final String QUEUE = "dash-items";
    static final String FAILED_CODE = "DASH_FAILED";
    static final String LOCKED_CODE = "RETRY_LOCKED";
    static final String RUNNING_CODE = "ITEM_RUNNING";

    enum BatchState { OPEN, DONE, FAILED, CANCELLED }

    enum BatchEvent { ITEMS_DONE, ITEMS_FAILED, ITEMS_CANCELLED, REOPEN, CANCEL }

    enum ItemState { QUEUED, RUNNING, DONE, FAILED, HELD, CANCELLED }

    enum ItemEvent { START, SUCCEED, FAIL, RELEASE, RETRY, HOLD, UNHOLD, CANCEL }

    static final Machine<ItemState, ItemEvent> ITEM = item();
    static final Machine<BatchState, BatchEvent> BATCH = Machine.builder("dash-batch", BatchState.class, BatchEvent.class)
            .version(1)
            .description("a batch of items, done when every item is done")
            .initial(BatchState.OPEN)
            .terminal(BatchState.DONE, BatchState.CANCELLED)
            .succeeded(BatchState.DONE).failed(BatchState.FAILED).cancelled(BatchState.CANCELLED)
            .transition(BatchState.OPEN, BatchEvent.ITEMS_DONE, BatchState.DONE, SYSTEM)
            .transition(BatchState.OPEN, BatchEvent.ITEMS_FAILED, BatchState.FAILED, SYSTEM)
            .transition(BatchState.OPEN, BatchEvent.ITEMS_CANCELLED, BatchState.CANCELLED, SYSTEM)
            .transition(BatchState.FAILED, BatchEvent.REOPEN, BatchState.OPEN, SYSTEM)
            .transition(BatchState.OPEN, BatchEvent.CANCEL, BatchState.CANCELLED, USER)
            .transition(BatchState.FAILED, BatchEvent.CANCEL, BatchState.CANCELLED, USER)
            .children(ITEM, c -> c.whenSucceeded(BatchEvent.ITEMS_DONE).whenFailed(BatchEvent.ITEMS_FAILED)
                    .whenCancelled(BatchEvent.ITEMS_CANCELLED).reopen(BatchEvent.REOPEN).cancelIn(BatchState.CANCELLED))
            .build();

    private static Machine<ItemState, ItemEvent> item() {
        var b = Machine.builder("dash-item", ItemState.class, ItemEvent.class)
                .version(1)
                .description("an item, run by a worker the test controls")
                .initial(ItemState.QUEUED)
                .terminal(ItemState.DONE, ItemState.CANCELLED)
                .succeeded(ItemState.DONE).failed(ItemState.FAILED).cancelled(ItemState.CANCELLED)
                .transition(ItemState.QUEUED, ItemEvent.START, ItemState.RUNNING, SYSTEM)
                .transition(ItemState.RUNNING, ItemEvent.SUCCEED, ItemState.DONE, SYSTEM)
                .transition(ItemState.RUNNING, ItemEvent.FAIL, ItemState.FAILED, SYSTEM)
                .transition(ItemState.RUNNING, ItemEvent.RELEASE, ItemState.QUEUED, SYSTEM)
                .row(ItemState.FAILED, ItemEvent.RETRY, ItemState.QUEUED).by(USER)
                    .guard("not-locked", (task, command) -> Verdict.when(!"true".equals(task.attribute("locked")), LOCKED_CODE,
                            "a locked item is not retried; unlock it first"))
                    .label("retry").add()
                .transition(ItemState.QUEUED, ItemEvent.HOLD, ItemState.HELD, USER)
                .transition(ItemState.HELD, ItemEvent.UNHOLD, ItemState.QUEUED, USER)
                .refuse(ItemState.RUNNING, ItemEvent.HOLD, RUNNING_CODE, "a running item cannot be held; pause its queue instead");
        for (ItemState s : List.of(ItemState.QUEUED, ItemState.HELD, ItemState.FAILED, ItemState.RUNNING)) {
            b.transition(s, ItemEvent.CANCEL, ItemState.CANCELLED, USER, SYSTEM);
        }
        return b.run(r -> r.claim(ItemState.QUEUED, ItemEvent.START).success(ItemEvent.SUCCEED).fatal(ItemEvent.FAIL)
                        .release(ItemEvent.RELEASE).cancel(ItemEvent.CANCEL).recoverByRequeue())
                .build();
    }

    /** What the test decides about the work. */
    static final class Control {
        /** The names of the items whose work fails. */
        final Set<String> failing = ConcurrentHashMap.newKeySet();
        private final Map<String, CompletableFuture<Void>> gates = new ConcurrentHashMap<>();
        private volatile boolean closing;

        /** Returns the gate named {@code name}. */
        CompletableFuture<Void> gate(String name) {
            CompletableFuture<Void> gate = gates.computeIfAbsent(name, n -> new CompletableFuture<>());
            if (closing) gate.complete(null);
            return gate;
        }

        /** Lets the items waiting at gate {@code name} finish, and those that come to it later pass. */
        void open(String name) {
            gate(name).complete(null);
        }

        /** Opens every gate, for the service to stop. */
        void openAll() {
            closing = true;
            gates.values().forEach(g -> g.complete(null));
        }
    }

    /** The factory, holding the test's control of the work. */
    static final class Factory implements Service.Factory {
        final Control control = new Control();
        volatile DashboardTestService created;

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public String summary() {
            return "the dashboard tests' batches of items";
        }

        @Override
        public Options options() {
            return Options.none();
        }

        @Override
        public Service create(ServeContext context) {
            DashboardTestService s = new DashboardTestService(context, control);
            created = s;
            return s;
        }
    }

    private final TransitionEngine engine;
    private final TaskRuntime runtime;
    private final Control control;

    private DashboardTestService(ServeContext context, Control control) {
        this.control = control;
        this.engine = TransitionEngine.builder().store(context.store()).clock(context.clock()).build();
        this.runtime = TaskRuntime.builder(engine).owner(context.owner()).workers(4)
                .leaseDuration(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .register(ITEM, QUEUE, this::work, QueueOptions.defaults())
                .resolves(BATCH)
                .build();
    }

    private WorkResult work(WorkContext<ItemState> ctx) throws InterruptedException {
        String name = ctx.task().attributes().getOrDefault("name", "");
        String gateName = ctx.task().attribute("gate");
        if (gateName != null) {
            CompletableFuture<Void> gate = control.gate(gateName);
            while (!gate.isDone()) {
                if (ctx.cancelled()) return WorkResult.fatal("STOPPED", "stopped while waiting for the gate");
                try {
                    gate.get(50, TimeUnit.MILLISECONDS);
                } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
                    // not open yet: look at the cancel signal again
                }
            }
        }
        if (control.failing.contains(name)) return WorkResult.fatal(FAILED_CODE, "item " + name + " failed as the test asked");
        return WorkResult.success(Map.of("result", "done"));
    }

    /** Adds an item with {@code attributes} (its name among them) on the queue. */
    long addItem(Map<String, String> attributes) {
        return engine.create(ITEM, TaskSpec.defaults().queue(QUEUE).attributes(attributes)).task().id();
    }

    /** Adds a batch whose children are items with the given attributes, created and sealed in one write. */
    long addBatch(String key, List<Map<String, String>> items) {
        long batch = engine.create(BATCH, TaskSpec.defaults().idempotencyKey(key)).task().id();
        List<TaskSpec> specs = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            specs.add(TaskSpec.defaults().queue(QUEUE).idempotencyKey(key + "/" + i).attributes(items.get(i)));
        }
        engine.addChildren(BATCH, batch, specs, true);
        return batch;
    }

    @Override
    public TransitionEngine engine() {
        return engine;
    }

    @Override
    public TaskRuntime runtime() {
        return runtime;
    }

    @Override
    public List<Machine<?, ?>> machines() {
        return List.of(BATCH, ITEM);
    }

    @Override
    public List<String> queues() {
        return List.of(QUEUE);
    }

    @Override
    public void routes(Router router) {
        router.get("/dash/ping", x -> Reply.ok(Map.of("system", NAME)));
    }

    @Override
    public void start() {
        runtime.start();
    }

    @Override
    public Reply retryFailedChildren(Machine<?, ?> machine, long id, String actor) {
        if (machine != BATCH) return Service.super.retryFailedChildren(machine, id, actor);
        List<Outcome<ItemState>> outcomes = TaskOperations.of(engine).retryAll(ITEM, ItemState.FAILED, ItemEvent.RETRY, id, null, false, Command.user(actor));
        long retried = outcomes.stream().filter(o -> o instanceof Outcome.Applied<?>).count();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("retried", retried);
        body.put("refused", outcomes.size() - retried);
        return Reply.ok(body);
    }

    /** Cancelling an item whose attribute {@code discard} is {@code true} is declared as deleting it, to show the confirmation. */
    @Override
    public @org.jspecify.annotations.Nullable String deletes(Machine<?, ?> machine, long id, String event) {
        if (machine != ITEM || !event.equals(ItemEvent.CANCEL.name())) return null;
        boolean discard = engine.find(ITEM, id).map(t -> "true".equals(t.attribute("discard"))).orElse(false);
        return discard ? "item #" + id + " and its result" : null;
    }

    @Override
    public void close() {
        control.openAll();
        runtime.close();
    }
}
