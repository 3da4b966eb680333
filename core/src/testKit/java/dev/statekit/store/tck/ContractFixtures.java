package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.GroupPass;
import dev.statekit.store.ApplyResult;
import dev.statekit.store.ArchivedTask;
import dev.statekit.store.Attributes;
import dev.statekit.store.Change;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.Claimed;
import dev.statekit.store.CreateResult;
import dev.statekit.store.GroupRecord;
import dev.statekit.store.GroupResolver;
import dev.statekit.store.GroupResolver.Resolution;
import dev.statekit.store.GroupWrite;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.MemberState;
import dev.statekit.store.NewTask;
import dev.statekit.store.RetentionRequest;
import dev.statekit.store.RetentionResult;
import dev.statekit.store.Store;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The constants, task descriptions and helpers of the store contract: {@link StoreContract} and
 * each of its parts extend this class, so a store's own tests can use them too.
 *
 * <p>{@link #store} is the store under test. Every time handed to it is a whole number of
 * microseconds from {@link #T0}.
 */
public abstract class ContractFixtures {

    /** Only {@link StoreContract} and its parts extend this class. */
    ContractFixtures() {
    }

    /** The base instant of every test: whole microseconds, never the system clock. */
    protected static final Instant T0 = Instant.parse("2031-04-05T13:30:00.123456Z");
    protected static final Duration HOUR = Duration.ofHours(1);
    protected static final String MACHINE = "job";
    protected static final String QUEUE = "work";
    protected static final String READY = "READY";
    protected static final String RUNNING = "RUNNING";
    protected static final String WAITING = "WAITING";
    protected static final String DONE = "DONE";
    protected static final String OWNER = "worker-1";
    protected static final Duration LEASE = Duration.ofMinutes(5);
    protected static final ClaimRule START = new ClaimRule(READY, "START", RUNNING);

    /** The store under test, new for every test. */
    protected Store store;

    /** The largest payload (characters) the store under test accepts; tests of the limit use it. */
    protected abstract int maxPayloadChars();

    /** A description of a new task, {@link #MACHINE} in {@link #READY} on {@link #QUEUE} by default. */
    protected static final class Spec {
        private String machine = MACHINE;
        private int machineVersion = 1;
        private String state = READY;
        private String queue = QUEUE;
        private int priority;
        private @Nullable Long parent;
        private Attributes attributes = Attributes.EMPTY;
        private @Nullable String payload;
        private @Nullable String key;
        private @Nullable Instant notBefore;
        private Instant createdAt = T0;
        private List<Long> dependsOn = List.of();

        public Spec machine(String value) { machine = value; return this; }
        public Spec machineVersion(int value) { machineVersion = value; return this; }
        public Spec state(String value) { state = value; return this; }
        public Spec queue(String value) { queue = value; return this; }
        public Spec priority(int value) { priority = value; return this; }
        public Spec parent(long value) { parent = value; return this; }
        public Spec attributes(Attributes value) { attributes = value; return this; }
        public Spec payload(@Nullable String value) { payload = value; return this; }
        public Spec key(@Nullable String value) { key = value; return this; }
        public Spec notBefore(@Nullable Instant value) { notBefore = value; return this; }
        public Spec createdAt(Instant value) { createdAt = value; return this; }
        public Spec dependsOn(Long... ids) { dependsOn = List.of(ids); return this; }

        public NewTask build() {
            return new NewTask(machine, machineVersion, state, queue, priority, parent, attributes, payload, key,
                    notBefore, createdAt, dependsOn);
        }
    }

    protected static Spec spec() {
        return new Spec();
    }

    protected TaskRecord create(Spec spec) {
        CreateResult r = store.create(spec.build());
        assertThat(r.created()).as("created").isTrue();
        return r.task();
    }

    protected TaskRecord create() {
        return create(spec());
    }

    protected TaskRecord get(long id) {
        return store.find(id).orElseThrow(() -> new AssertionError("task " + id + " is missing"));
    }

    /** The change made by {@code edit} to {@code from}, one second after its last update, with its entry. */
    protected static Change change(TaskRecord from, UnaryOperator<TaskRecord.Builder> edit, @Nullable String commandKey) {
        Instant at = from.updatedAt().plusSeconds(1);
        TaskRecord next = edit.apply(from.toBuilder().updatedAt(at).version(from.version() + 1)).build();
        HistoryEntry entry = new HistoryEntry(from.id(), next.version(), from.state(), next.state(), "GO",
                TriggerSource.SYSTEM, "tester", null, at, commandKey);
        return new Change(from.version(), next, entry);
    }

    /** The change moving {@code from} to {@code state}, keeping everything else. */
    protected static Change move(TaskRecord from, String state, @Nullable String commandKey) {
        return change(from, b -> b.state(state), commandKey);
    }

    /** The change moving {@code from} to {@code state} and releasing its lease. */
    protected static Change release(TaskRecord from, String state) {
        return change(from, b -> b.state(state).lease(null), null);
    }

    protected TaskRecord applied(Change c) {
        ApplyResult r = store.apply(c);
        assertThat(r).as("result of applying %s", c.entry()).isEqualTo(ApplyResult.APPLIED);
        return get(c.next().id());
    }

    protected static ClaimRequest claimOf(String owner, Instant now, Duration lease, int max, int starvationLimit) {
        return new ClaimRequest(MACHINE, QUEUE, List.of(START), owner, now, lease, max, starvationLimit);
    }

    protected List<TaskRecord> claim(int max) {
        return tasksOf(store.claim(claimOf(OWNER, T0, LEASE, max, 0)));
    }

    protected TaskRecord claimOne(long expectedId, String owner, Duration lease) {
        List<TaskRecord> claimed = tasksOf(store.claim(claimOf(owner, T0, lease, 1, 0)));
        assertThat(ids(claimed)).as("claimed").containsExactly(expectedId);
        return claimed.get(0);
    }

    /** Returns the claimed tasks of a claim, checking that each comes with the entry the claim wrote for it. */
    public static List<TaskRecord> tasksOf(List<Claimed> claimed) {
        List<TaskRecord> tasks = new ArrayList<>(claimed.size());
        for (Claimed c : claimed) {
            assertThat(c.entry().to()).as("claim entry of task %d", c.task().id()).isEqualTo(c.task().state());
            assertThat(c.entry().at()).as("claim entry of task %d", c.task().id()).isEqualTo(c.task().updatedAt());
            tasks.add(c.task());
        }
        return tasks;
    }

    protected static List<Long> ids(List<TaskRecord> tasks) {
        List<Long> ids = new ArrayList<>(tasks.size());
        for (TaskRecord t : tasks) ids.add(t.id());
        return ids;
    }

    protected List<Long> queryIds(TaskQuery q) {
        return ids(store.query(q).items());
    }

    protected static Lease leaseOf(TaskRecord t) {
        Lease l = t.lease();
        assertThat(l).as("lease of task %s", t.id()).isNotNull();
        return java.util.Objects.requireNonNull(l);
    }

    /**
     * Asserts that the history of {@code id} is an unbroken chain ending at the stored version, whose
     * times never go backwards, and returns it.
     */
    protected List<HistoryEntry> assertUnbrokenChain(long id, String initialState) {
        TaskRecord t = get(id);
        List<HistoryEntry> history = store.history(id);
        assertThat(history).as("history length of task %s", id).hasSize((int) t.version());
        String state = initialState;
        for (int i = 0; i < history.size(); i++) {
            HistoryEntry e = history.get(i);
            assertThat(e.taskId()).isEqualTo(id);
            assertThat(e.version()).as("version of entry %s", i).isEqualTo(i + 1);
            assertThat(e.from()).as("entry %s leaves the state entry %s entered", i, i - 1).isEqualTo(state);
            state = e.to();
        }
        assertThat(t.state()).isEqualTo(state);
        assertTimesNeverGoBack(history);
        return history;
    }

    /** Asserts that every entry of one task's history is at or after the one before it. */
    public static void assertTimesNeverGoBack(List<HistoryEntry> history) {
        for (int i = 1; i < history.size(); i++) {
            HistoryEntry e = history.get(i);
            assertThat(e.at()).as("time of entry %s of task %s", e.version(), e.taskId()).isAfterOrEqualTo(history.get(i - 1).at());
        }
    }

    /** The change {@code change} makes, as a change that also writes {@code next}'s priority and sequence. */
    protected static Change reordering(Change change) {
        return new Change(change.expectedVersion(), change.next(), change.entry(), true);
    }

    /** A payload of {@code length} characters, not all of them ASCII. */
    protected static String payloadOf(int length) {
        String pattern = "{\"ı\":\"İé\"}ğüşöç-";
        StringBuilder b = new StringBuilder(length);
        while (b.length() < length) b.append(pattern.charAt(b.length() % pattern.length()));
        return b.toString();
    }

    /** A resolver that writes only the counts. */
    protected static final GroupResolver KEEP = v -> Resolution.keep(v.group());

    /** A child of {@code parent}: {@link #MACHINE} in {@link #READY} on {@link #QUEUE}, so that claims take it. */
    protected static Spec childOf(TaskRecord parent) {
        return spec().parent(parent.id());
    }

    /** Creates a task in {@link #WAITING} that owns a sealed group of {@code n} children in {@link #READY}; returns it. */
    protected TaskRecord ownerOfSealed(int n) {
        TaskRecord parent = create(spec().state(WAITING));
        List<NewTask> children = new ArrayList<>();
        for (int i = 0; i < n; i++) children.add(childOf(parent).build());
        assertThat(store.applyAll(List.of(), List.of(GroupWrite.sealed(parent.id(), children)))).isEqualTo(ApplyResult.APPLIED);
        return get(parent.id());
    }

    protected GroupRecord groupOf(long ownerId) {
        return store.group(ownerId).orElseThrow(() -> new AssertionError("task " + ownerId + " owns no group"));
    }

    protected static MemberState member(String state) {
        return new MemberState(MACHINE, state);
    }

    /**
     * Runs passes over the groups of {@link #MACHINE} with {@code resolver} until a pass resolves
     * nothing and no mark is left; returns how many groups the passes resolved.
     */
    protected int resolveAll(GroupResolver resolver) {
        int resolved = 0;
        for (int pass = 0; pass < 100; pass++) {
            GroupPass written = store.resolveGroups(List.of(MACHINE), T0, 100, resolver);
            assertStored(written);
            resolved += written.resolved();
            if (written.resolved() == 0 && !written.marksLeft()) return resolved;
        }
        throw new AssertionError("marks still wait after 100 passes: " + store.pendingMarks());
    }

    /**
     * Runs one pass over the groups of {@code machines} at {@link #T0}, checks that what it returns
     * is what it stored ({@link #assertStored}), and returns how many groups it resolved.
     */
    protected int resolveOnce(List<String> machines, int max, GroupResolver resolver) {
        GroupPass pass = store.resolveGroups(machines, T0, max, resolver);
        assertStored(pass);
        return pass.resolved();
    }

    /**
     * Checks that a pass returned what it stored, while nothing else has written since: each change's
     * task as the store has it, its entry in the task's history, each group as the store has it (in
     * owner id order), and whether marks are left.
     */
    protected void assertStored(GroupPass pass) {
        for (GroupPass.Written w : pass.changes()) {
            assertThat(store.find(w.task().id())).as("the task the pass wrote").contains(w.task());
            assertThat(store.history(w.task().id())).as("the entry the pass wrote").contains(w.entry());
        }
        List<Long> owners = new ArrayList<>();
        for (GroupRecord g : pass.groups()) {
            owners.add(g.ownerId());
            assertThat(store.group(g.ownerId())).as("the group the pass wrote").contains(g);
        }
        assertThat(owners).as("the groups in owner id order").isSorted().doesNotHaveDuplicates();
        assertThat(pass.marksLeft()).as("whether marks are left").isEqualTo(store.pendingMarks() > 0);
    }

    /** A body run on one of several threads; {@code thread} counts from 0. */
    @FunctionalInterface
    protected interface ThreadBody {
        void run(int thread) throws Exception;
    }

    /**
     * Runs {@code body} on {@code threads} threads released together by a barrier, joins them with a
     * timeout and rethrows the first failure.
     */
    protected static void concurrently(int threads, ThreadBody body) throws InterruptedException {
        CyclicBarrier start = new CyclicBarrier(threads);
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            int thread = i;
            Thread w = new Thread(() -> {
                try {
                    start.await(30, TimeUnit.SECONDS);
                    body.run(thread);
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "statekit-tck-" + i);
            w.setDaemon(true);
            workers.add(w);
            w.start();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (Thread w : workers) w.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        List<String> alive = new ArrayList<>();
        for (Thread w : workers) {
            if (w.isAlive()) {
                alive.add(w.getName());
                w.interrupt();
            }
        }
        Throwable first = failures.poll();
        if (first != null) {
            AssertionError e = new AssertionError("a thread failed: " + first, first);
            for (Throwable t : failures) e.addSuppressed(t);
            throw e;
        }
        assertThat(alive).as("threads still running after the timeout").isEmpty();
    }

    /** The finished states of the machines of the retention tests: {@link #MACHINE} and {@code chunk}; {@code other} is unknown. */
    protected static final Map<String, Set<String>> FINISHED = Map.of(MACHINE, Set.of(DONE, "FAILED"), "chunk", Set.of(DONE));

    /** A request for trees of {@link #MACHINE} finished before {@code T0} + 1 hour, at most {@code max}. */
    protected static RetentionRequest finishedJobs(int max) {
        return new RetentionRequest(MACHINE, T0.plus(HOUR), FINISHED, max);
    }

    /** Archives, stamped {@code at}, one batch after another until one moves nothing; returns the sum. */
    protected RetentionResult archiveAll(RetentionRequest request, Instant at) {
        RetentionResult sum = RetentionResult.NONE;
        for (int batch = 0; batch < 10_000; batch++) {
            RetentionResult r = store.archive(request, at);
            if (r.trees() == 0) return sum;
            sum = sum.plus(r);
        }
        throw new AssertionError("archive still moving after 10,000 batches: " + sum);
    }

    /** Asserts that {@code task} is gone from the hot table and archived as it was, with {@code history}. */
    protected void assertArchived(TaskRecord task, List<HistoryEntry> history, long rootId, Instant at) {
        assertThat(store.find(task.id())).as("task %s in the hot table", task.id()).isEmpty();
        assertThat(store.history(task.id())).as("hot history of task %s", task.id()).isEmpty();
        ArchivedTask archived = store.findArchived(task.id()).orElseThrow(() -> new AssertionError("task " + task.id() + " is not archived"));
        assertThat(archived.task()).as("archived task %s", task.id()).isEqualTo(task);
        assertThat(archived.history()).as("archived history of task %s", task.id()).isEqualTo(history);
        assertThat(archived.rootId()).as("root of task %s", task.id()).isEqualTo(rootId);
        assertThat(archived.archivedAt()).isEqualTo(at);
    }
}
