package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.statekit.store.ApplyResult;
import dev.statekit.store.ArchivedTask;
import dev.statekit.store.Attributes;
import dev.statekit.store.Change;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.Claimed;
import dev.statekit.store.CreateResult;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.GroupKind;
import dev.statekit.store.GroupRecord;
import dev.statekit.store.GroupPass;
import dev.statekit.store.GroupResolver;
import dev.statekit.store.GroupResolver.Resolution;
import dev.statekit.store.GroupWrite;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.MemberState;
import dev.statekit.store.NewTask;
import dev.statekit.store.Page;
import dev.statekit.store.QueueRecord;
import dev.statekit.store.RenewResult;
import dev.statekit.store.StateCount;
import dev.statekit.store.RetentionRequest;
import dev.statekit.store.RetentionResult;
import dev.statekit.store.StatekitException;
import dev.statekit.store.Store;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TimeZone;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link Store} honours, as tests. A store implementation subclasses this class
 * in a test class whose name ends in {@code Test}, returns a new, empty store from
 * {@link #newStore()}, and inherits every test.
 *
 * <p>{@link #newStore()} is called once per test from JUnit Jupiter's {@code @BeforeEach}, and once
 * per try of the property {@link #anyScriptKeepsVersionsHistoriesLeasesAndTasks}, which jqwik runs
 * without Jupiter's callbacks: it must not depend on a subclass's own {@code @BeforeEach} or
 * {@code @BeforeAll}.
 *
 * <p>Every time handed to the store is a whole number of microseconds, so a store that keeps
 * microseconds returns every instant exactly. The base instant {@link #T0} lies an hour before
 * daylight saving time ends in Pacific/Chatham, the zone the build runs tests in: there, {@code T0}
 * and {@code T0 + 1 h} show the same local wall-clock time, so a store that keeps local times loses
 * their order.
 */
public abstract class StoreContract {

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

    /** Returns a new, empty store; called once per test. */
    protected abstract Store newStore();

    /** Releases what {@link #newStore()} acquired (default: nothing). */
    protected void closeStore(Store store) throws Exception {
    }

    /** The largest payload (characters) the store under test accepts; tests of the limit use it. */
    protected abstract int maxPayloadChars();

    @BeforeEach
    protected final void openStoreUnderTest() {
        store = newStore();
    }

    @AfterEach
    protected final void closeStoreUnderTest() throws Exception {
        closeStore(store);
    }

    // --- fixtures ---------------------------------------------------------------------------------

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

    // --- environment ------------------------------------------------------------------------------

    @Test
    public void runsUnderATimeZoneAndLocaleOtherThanUtcAndEnglish() {
        assumeFalse("false".equals(System.getProperty("statekit.tck.hostile")), "statekit.tck.hostile=false");
        TimeZone zone = TimeZone.getDefault();
        assertThat(zone.hasSameRules(TimeZone.getTimeZone("UTC"))).as("default time zone %s is UTC", zone.getID()).isFalse();
        assertThat(zone.getOffset(T0.toEpochMilli())).as("offset of %s at T0", zone.getID()).isNotZero();
        assertThat(Locale.getDefault().getLanguage()).as("default locale").isNotEqualTo(Locale.ENGLISH.getLanguage());
        assertThat(Locale.getDefault(Locale.Category.FORMAT).getLanguage()).as("default format locale")
                .isNotEqualTo(Locale.ENGLISH.getLanguage());
        assertThat(T0.truncatedTo(ChronoUnit.MICROS)).isEqualTo(T0);
    }

    // --- create -----------------------------------------------------------------------------------

    @Nested
    public class Create {

        @Test
        public void startsAtVersionZeroWithoutHistoryAndKeepsEveryField() {
            TaskRecord parent = create();
            Instant createdAt = T0.minusSeconds(30).plus(7, ChronoUnit.MICROS);
            Attributes attributes = Attributes.of("title", "İstanbul ığüşöç", "empty", "", "Iı", "iİ");
            CreateResult r = store.create(new NewTask("billing-ıİ", 3, "waiting_İ", "import-ı", -2, parent.id(), attributes,
                    "{\"name\":\"ıİ\"}", "order-İ-1", T0.plus(HOUR), createdAt));
            assertThat(r.created()).isTrue();
            TaskRecord t = r.task();
            assertThat(t.id()).isPositive().isNotEqualTo(parent.id());
            assertThat(t.machine()).isEqualTo("billing-ıİ");
            assertThat(t.machineVersion()).isEqualTo(3);
            assertThat(t.state()).isEqualTo("waiting_İ");
            assertThat(t.queue()).isEqualTo("import-ı");
            assertThat(t.priority()).isEqualTo(-2);
            assertThat(t.parentId()).isEqualTo(parent.id());
            assertThat(t.attempts()).isZero();
            assertThat(t.retries()).isZero();
            assertThat(t.lease()).isNull();
            assertThat(t.notBefore()).isEqualTo(T0.plus(HOUR));
            assertThat(t.lastError()).isNull();
            assertThat(t.attributes()).isEqualTo(attributes);
            assertThat(t.payload()).isEqualTo("{\"name\":\"ıİ\"}");
            assertThat(t.idempotencyKey()).isEqualTo("order-İ-1");
            assertThat(t.createdAt()).isEqualTo(createdAt);
            assertThat(t.updatedAt()).isEqualTo(createdAt);
            assertThat(t.version()).isZero();
            assertThat(store.find(t.id())).contains(t);
            assertThat(store.history(t.id())).isEmpty();
            assertThat(store.cancelRequested(t.id())).isFalse();
            assertThat(parent.parentId()).isNull();
            assertThat(parent.payload()).isNull();
            assertThat(parent.idempotencyKey()).isNull();
            assertThat(parent.notBefore()).isNull();
            assertThat(parent.attributes()).isEqualTo(Attributes.EMPTY);
        }

        @Test
        public void idsArePositiveAndDistinctAndSequencesFollowCreationOrder() {
            Set<Long> ids = new HashSet<>();
            long lastSequence = Long.MIN_VALUE;
            for (int i = 0; i < 20; i++) {
                TaskRecord t = create(spec().machine(i % 2 == 0 ? MACHINE : "other").priority(i % 3));
                assertThat(t.id()).isPositive();
                assertThat(ids.add(t.id())).as("id %s is new", t.id()).isTrue();
                assertThat(t.sequence()).isGreaterThan(lastSequence);
                lastSequence = t.sequence();
            }
            assertThat(store.query(TaskQuery.all()).items()).hasSize(20);
        }

        @Test
        public void anIdempotencyKeyReturnsTheFirstTaskOfTheMachineAndWritesNothing() {
            TaskRecord first = create(spec().key("order-1").payload("first"));
            TaskRecord moved = applied(move(first, RUNNING, null));
            List<HistoryEntry> history = store.history(first.id());

            CreateResult again = store.create(spec().key("order-1").state(WAITING).queue("elsewhere").payload("second")
                    .createdAt(T0.plus(HOUR)).build());
            assertThat(again.created()).isFalse();
            assertThat(again.task()).as("the task as it is now").isEqualTo(moved);
            assertThat(get(first.id())).isEqualTo(moved);
            assertThat(store.history(first.id())).isEqualTo(history);
            assertThat(queryIds(TaskQuery.all())).containsExactly(first.id());

            TaskRecord otherMachine = create(spec().machine("other").key("order-1"));
            assertThat(otherMachine.id()).isNotEqualTo(first.id());
            TaskRecord otherKey = create(spec().key("order-2"));
            TaskRecord noKey1 = create();
            TaskRecord noKey2 = create();
            assertThat(queryIds(TaskQuery.all()))
                    .containsExactlyInAnyOrder(first.id(), otherMachine.id(), otherKey.id(), noKey1.id(), noKey2.id());
        }

        @Test
        public void concurrentCreationsWithOneKeyCreateOneTask() throws Exception {
            int threads = 4;
            int keys = 15;
            ConcurrentLinkedQueue<CreateResult> results = new ConcurrentLinkedQueue<>();
            concurrently(threads, thread -> {
                for (int i = 0; i < keys; i++) {
                    results.add(store.create(spec().key("key-" + (i + thread * 4) % keys).build()));
                }
            });
            Map<String, List<CreateResult>> byKey = new HashMap<>();
            for (CreateResult r : results) byKey.computeIfAbsent(r.task().idempotencyKey(), k -> new ArrayList<>()).add(r);
            assertThat(byKey).hasSize(keys);
            byKey.forEach((key, rs) -> {
                assertThat(rs).hasSize(threads);
                assertThat(rs).filteredOn(CreateResult::created).as("creations of %s", key).hasSize(1);
                assertThat(rs).extracting(r -> r.task().id()).as("ids of %s", key).containsOnly(rs.get(0).task().id());
            });
            assertThat(store.query(TaskQuery.all()).items()).hasSize(keys);
        }

        @Test
        public void aPayloadAtTheLimitIsKeptExactly() {
            String payload = payloadOf(maxPayloadChars());
            TaskRecord t = create(spec().payload(payload));
            assertThat(get(t.id()).payload()).isEqualTo(payload);
            TaskRecord changed = applied(change(t, b -> b.payload(payloadOf(maxPayloadChars()).replace('ı', 'i')), null));
            assertThat(changed.payload()).isEqualTo(payloadOf(maxPayloadChars()).replace('ı', 'i'));
        }

        @Test
        public void aPayloadOverTheLimitIsRefusedAndNothingIsWritten() {
            NewTask tooLarge = spec().key("k").payload(payloadOf(maxPayloadChars() + 1)).build();
            assertThatThrownBy(() -> store.create(tooLarge))
                    .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE));
            assertThat(store.query(TaskQuery.all()).items()).isEmpty();
            CreateResult withKey = store.create(spec().key("k").build());
            assertThat(withKey.created()).as("the key was not taken").isTrue();
        }

        @Test
        public void aChangeWithAPayloadOverTheLimitIsRefusedAndNothingIsWritten() {
            TaskRecord t = create(spec().payload("small"));
            TaskRecord other = create();
            Change tooLarge = change(t, b -> b.payload(payloadOf(maxPayloadChars() + 1)), "big");
            assertThatThrownBy(() -> store.apply(tooLarge))
                    .isInstanceOfSatisfying(StatekitException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE);
                        assertThat(e.taskId()).isEqualTo(t.id());
                    });
            assertThatThrownBy(() -> store.applyAll(List.of(move(other, RUNNING, null), tooLarge)))
                    .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE));
            assertThat(get(t.id())).isEqualTo(t);
            assertThat(get(other.id())).isEqualTo(other);
            assertThat(store.history(t.id())).isEmpty();
            assertThat(store.history(other.id())).isEmpty();
            assertThat(store.findCommand(t.id(), "big")).isEmpty();
        }

        @Test
        public void unknownIdsAreAbsentEverywhere() {
            TaskRecord t = create();
            long unknown = t.id() + 1000;
            assertThat(store.find(unknown)).isEmpty();
            assertThat(store.history(unknown)).isEmpty();
            assertThat(store.findCommand(unknown, "k")).isEmpty();
            assertThat(store.requestCancel(unknown)).isFalse();
            assertThat(store.cancelRequested(unknown)).isFalse();
            assertThat(store.reorder(unknown, 1, 1)).isFalse();
            assertThat(store.renew(unknown, 1, T0, T0.plus(HOUR))).isEqualTo(RenewResult.LOST);
            assertThat(get(t.id())).isEqualTo(t);
        }
    }

    // --- apply ------------------------------------------------------------------------------------

    @Nested
    public class Apply {

        @Test
        public void anAppliedChangeWritesTheSnapshotAndExactlyOneEntry() {
            TaskRecord t = create(spec().payload("p1").attributes(Attributes.of("phase", "new")));
            Instant at = T0.plus(HOUR).plus(1, ChronoUnit.MICROS);
            TaskRecord next = t.toBuilder().state(RUNNING).attributes(t.attributes().with("phase", "ılık"))
                    .payload("p2-İ").retries(2).lastError(new TaskError("AI_RATE_LIMITED", "yavaş İ", true, "fetch"))
                    .notBefore(T0.plus(HOUR.multipliedBy(2))).updatedAt(at).version(1).build();
            HistoryEntry entry = new HistoryEntry(t.id(), 1, READY, RUNNING, "SUBMIT", TriggerSource.USER, "ayşe",
                    "İptal değil", at, "cmd-1");
            ApplyResult r = store.apply(new Change(0, next, entry));
            assertThat(r.applied()).isTrue();
            assertThat(r.status()).isEqualTo(ApplyResult.Status.APPLIED);
            assertThat(r.prior()).isNull();
            assertThat(get(t.id())).isEqualTo(next);
            assertThat(store.history(t.id())).containsExactly(entry);
            assertThat(store.findCommand(t.id(), "cmd-1")).contains(entry);
            assertThat(store.findCommand(t.id(), "cmd-2")).isEmpty();

            Change plain = change(next, b -> b.state(DONE).lastError(null).payload(null).notBefore(null), null);
            assertThat(applied(plain)).isEqualTo(plain.next());
            assertThat(store.history(t.id())).containsExactly(entry, plain.entry());
            HistoryEntry second = store.history(t.id()).get(1);
            assertThat(second.reason()).isNull();
            assertThat(second.commandKey()).isNull();
        }

        @Test
        public void aStaleVersionIsAConflictAndWritesNothing() {
            TaskRecord t = create();
            TaskRecord now = applied(move(t, RUNNING, null));
            List<HistoryEntry> history = store.history(t.id());

            ApplyResult stale = store.apply(move(t, DONE, "late"));
            assertThat(stale.status()).isEqualTo(ApplyResult.Status.VERSION_CONFLICT);
            assertThat(stale.taskId()).isEqualTo(t.id());
            assertThat(stale.prior()).isNull();
            assertThat(stale.applied()).isFalse();
            ApplyResult ahead = store.apply(move(now.toBuilder().version(5).build(), DONE, null));
            assertThat(ahead.status()).isEqualTo(ApplyResult.Status.VERSION_CONFLICT);
            assertThat(get(t.id())).isEqualTo(now);
            assertThat(store.history(t.id())).isEqualTo(history);
            assertThat(store.findCommand(t.id(), "late")).isEmpty();
        }

        @Test
        public void historyIsKeptInVersionOrder() {
            TaskRecord t = create(spec().state("S0"));
            List<HistoryEntry> written = new ArrayList<>();
            for (int i = 1; i <= 12; i++) {
                int n = i;
                // half an hour apart: entries straddle the hour whose local times repeat
                Instant at = T0.plus(Duration.ofMinutes(30L * i));
                TaskRecord cur = get(t.id());
                TaskRecord next = cur.toBuilder().state("S" + n).updatedAt(at).version(cur.version() + 1).build();
                HistoryEntry e = new HistoryEntry(t.id(), next.version(), cur.state(), next.state(), "E" + n,
                        n % 2 == 0 ? TriggerSource.USER : TriggerSource.SYSTEM, null, null, at, n % 3 == 0 ? "k" + n : null);
                applied(new Change(cur.version(), next, e));
                written.add(e);
            }
            assertThat(assertUnbrokenChain(t.id(), "S0")).containsExactlyElementsOf(written);
            assertThat(get(t.id()).updatedAt()).isEqualTo(T0.plus(Duration.ofMinutes(360)));
        }

        @Test
        public void aReplayedCommandKeyIsADuplicateCarryingThePriorEntry() {
            TaskRecord t = create();
            Change first = move(t, RUNNING, "k1");
            TaskRecord now = applied(first);

            ApplyResult atCurrent = store.apply(move(now, DONE, "k1"));
            assertThat(atCurrent.status()).isEqualTo(ApplyResult.Status.DUPLICATE_COMMAND);
            assertThat(atCurrent.taskId()).isEqualTo(t.id());
            assertThat(atCurrent.prior()).isEqualTo(first.entry());
            // a replay computed from the old snapshot is a duplicate too, not a conflict
            ApplyResult stale = store.apply(move(t, DONE, "k1"));
            assertThat(stale.status()).isEqualTo(ApplyResult.Status.DUPLICATE_COMMAND);
            assertThat(stale.prior()).isEqualTo(first.entry());
            assertThat(get(t.id())).isEqualTo(now);
            assertThat(store.history(t.id())).containsExactly(first.entry());

            TaskRecord other = create();
            assertThat(store.apply(move(other, RUNNING, "k1")).applied()).as("keys are per task").isTrue();
        }

        @Test
        public void anUnknownTaskIsNotFound() {
            TaskRecord t = create();
            TaskRecord missing = new TaskRecord(t.id() + 1000, MACHINE, 1, READY, QUEUE, 0, 0, null, 0, 0, null, null, null,
                    Attributes.EMPTY, null, null, T0, T0, 0);
            ApplyResult r = store.apply(move(missing, RUNNING, null));
            assertThat(r.status()).isEqualTo(ApplyResult.Status.NOT_FOUND);
            assertThat(r.taskId()).isEqualTo(missing.id());
            assertThat(store.find(missing.id())).isEmpty();
            assertThat(store.history(missing.id())).isEmpty();
        }

        @Test
        public void applyAllWritesEveryChange() {
            TaskRecord a = create();
            TaskRecord b = applied(move(create(), RUNNING, null));
            TaskRecord c = create();
            Change ca = move(a, RUNNING, "ka");
            Change cb = move(b, DONE, null);
            Change cc = move(c, WAITING, "kc");
            assertThat(store.applyAll(List.of(cc, ca, cb))).isEqualTo(ApplyResult.APPLIED);
            assertThat(get(a.id())).isEqualTo(ca.next());
            assertThat(get(b.id())).isEqualTo(cb.next());
            assertThat(get(c.id())).isEqualTo(cc.next());
            assertThat(store.history(a.id())).containsExactly(ca.entry());
            assertThat(store.history(b.id())).hasSize(2).endsWith(cb.entry());
            assertThat(store.findCommand(c.id(), "kc")).contains(cc.entry());
        }

        @Test
        public void applyAllWritesNothingAndNamesTheFirstCulpritInTheOrderGiven() {
            TaskRecord a = create();
            TaskRecord b = create();
            TaskRecord c = create();
            Change firstOfB = move(b, RUNNING, "kb");
            TaskRecord bNow = applied(firstOfB);
            TaskRecord missing = new TaskRecord(c.id() + 1000, MACHINE, 1, READY, QUEUE, 0, 0, null, 0, 0, null, null, null,
                    Attributes.EMPTY, null, null, T0, T0, 0);
            TaskRecord aAhead = a.toBuilder().version(3).build();

            ApplyResult conflict = store.applyAll(List.of(move(c, RUNNING, "x"), move(b, DONE, null), move(a, RUNNING, null)));
            assertThat(conflict.status()).isEqualTo(ApplyResult.Status.VERSION_CONFLICT);
            assertThat(conflict.taskId()).isEqualTo(b.id());
            ApplyResult aFirst = store.applyAll(List.of(move(c, RUNNING, null), move(aAhead, DONE, null), move(b, DONE, null)));
            assertThat(aFirst.status()).isEqualTo(ApplyResult.Status.VERSION_CONFLICT);
            assertThat(aFirst.taskId()).isEqualTo(a.id());
            ApplyResult notFound = store.applyAll(List.of(move(a, RUNNING, null), move(missing, RUNNING, null), move(b, DONE, null)));
            assertThat(notFound.status()).isEqualTo(ApplyResult.Status.NOT_FOUND);
            assertThat(notFound.taskId()).isEqualTo(missing.id());
            ApplyResult duplicate = store.applyAll(List.of(move(c, RUNNING, null), move(bNow, DONE, "kb"), move(missing, RUNNING, null)));
            assertThat(duplicate.status()).isEqualTo(ApplyResult.Status.DUPLICATE_COMMAND);
            assertThat(duplicate.taskId()).isEqualTo(b.id());
            assertThat(duplicate.prior()).isEqualTo(firstOfB.entry());
            ApplyResult missingFirst = store.applyAll(List.of(move(missing, RUNNING, null), move(bNow, DONE, "kb")));
            assertThat(missingFirst.status()).isEqualTo(ApplyResult.Status.NOT_FOUND);

            assertThat(get(a.id())).isEqualTo(a);
            assertThat(get(b.id())).isEqualTo(bNow);
            assertThat(get(c.id())).isEqualTo(c);
            assertThat(store.history(a.id())).isEmpty();
            assertThat(store.history(b.id())).containsExactly(firstOfB.entry());
            assertThat(store.history(c.id())).isEmpty();
            assertThat(store.findCommand(c.id(), "x")).isEmpty();
            assertThat(store.find(missing.id())).isEmpty();
        }

        @Test
        public void applyAllRejectsAnEmptyListAndTwoChangesOfOneTask() {
            TaskRecord a = create();
            TaskRecord b = create();
            assertThatThrownBy(() -> store.applyAll(List.of())).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.applyAll(List.of(move(a, RUNNING, null), move(b, RUNNING, null), move(a, DONE, null))))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(get(a.id())).isEqualTo(a);
            assertThat(get(b.id())).isEqualTo(b);
            assertThat(store.history(a.id())).isEmpty();
            assertThat(store.history(b.id())).isEmpty();
        }

        @Test
        public void concurrentAppliesOnOneTaskFormAnUnbrokenVersionChain() throws Exception {
            int threads = 4;
            int each = 10;
            long id = create(spec().state("S")).id();
            Set<String> appliedKeys = ConcurrentHashMap.newKeySet();
            concurrently(threads, thread -> {
                int done = 0;
                for (int attempt = 0; done < each; attempt++) {
                    assertThat(attempt).as("attempts of thread %s", thread).isLessThan(100_000);
                    TaskRecord cur = get(id);
                    String key = "t" + thread + "-" + done;
                    ApplyResult r = store.apply(move(cur, "S" + thread + "-" + done, key));
                    if (r.applied()) {
                        appliedKeys.add(key);
                        done++;
                    } else {
                        assertThat(r.status()).isEqualTo(ApplyResult.Status.VERSION_CONFLICT);
                    }
                }
            });
            List<HistoryEntry> history = assertUnbrokenChain(id, "S");
            assertThat(history).hasSize(threads * each);
            Set<String> keys = new HashSet<>();
            for (HistoryEntry e : history) assertThat(keys.add(e.commandKey())).as("key %s once", e.commandKey()).isTrue();
            assertThat(keys).isEqualTo(appliedKeys);
            for (String key : appliedKeys) assertThat(store.findCommand(id, key)).isPresent();
        }
    }

    // --- metadata that changes without a version -------------------------------------------------

    @Nested
    public class Metadata {

        @Test
        public void priorityAndSequenceSetByReorderSurviveALaterApply() {
            TaskRecord t = create(spec().priority(1));
            long front = store.nextSequence(true);
            assertThat(store.reorder(t.id(), 9, front)).isTrue();
            TaskRecord reordered = get(t.id());
            assertThat(reordered.priority()).isEqualTo(9);
            assertThat(reordered.sequence()).isEqualTo(front);
            assertThat(reordered.version()).as("reorder is not a change").isZero();
            assertThat(reordered.updatedAt()).isEqualTo(t.updatedAt());
            assertThat(store.history(t.id())).isEmpty();

            // a change computed from the snapshot before the reorder
            TaskRecord moved = applied(move(t, WAITING, null));
            assertThat(moved.state()).isEqualTo(WAITING);
            assertThat(moved.priority()).isEqualTo(9);
            assertThat(moved.sequence()).isEqualTo(front);
            // a change that names another priority and sequence does not set them either
            TaskRecord again = applied(change(moved, b -> b.state(READY).priority(-4).sequence(12345), null));
            assertThat(again.state()).isEqualTo(READY);
            assertThat(again.priority()).isEqualTo(9);
            assertThat(again.sequence()).isEqualTo(front);
            assertThat(again.version()).isEqualTo(2);
        }

        @Test
        public void aReorderingChangeWritesPriorityAndSequenceWithTheState() {
            TaskRecord a = create();
            TaskRecord b = create();
            TaskRecord c = create(spec().priority(2));
            long front = store.nextSequence(true);
            Change toFront = reordering(change(b, x -> x.attributes(Attributes.of("moved", "front")).sequence(front), null));
            TaskRecord moved = applied(toFront);
            assertThat(moved).isEqualTo(toFront.next());
            assertThat(moved.sequence()).isEqualTo(front);
            assertThat(moved.version()).isEqualTo(1);
            assertThat(store.history(b.id())).containsExactly(toFront.entry());
            // the claim order follows at once: c by its priority, then b ahead of a
            assertThat(ids(claim(3))).containsExactly(c.id(), b.id(), a.id());

            TaskRecord d = create();
            Change away = reordering(change(d, x -> x.state(WAITING).priority(-7).sequence(front - 1000), "k-d"));
            TaskRecord waiting = applied(away);
            assertThat(waiting.state()).isEqualTo(WAITING);
            assertThat(waiting.priority()).isEqualTo(-7);
            assertThat(waiting.sequence()).isEqualTo(front - 1000);
            // a normal change naming another place keeps the stored one
            TaskRecord kept = applied(change(waiting, x -> x.state(READY).priority(9).sequence(1), null));
            assertThat(kept.priority()).isEqualTo(-7);
            assertThat(kept.sequence()).isEqualTo(front - 1000);
        }

        @Test
        public void reorderingChangesInBatchesWriteTheirPlaceAndTheOthersKeepTheirs() {
            List<TaskRecord> t = new ArrayList<>();
            for (int i = 0; i < 6; i++) t.add(create(spec().priority(1)));
            long front = store.nextSequence(true);
            long back = store.nextSequence(false);
            // in each batch the first change reorders and the second names the same place without reordering
            List<List<Change>> batches = new ArrayList<>();
            for (int i = 0; i < 6; i += 2) {
                int priority = 4 + i;
                long sequence = i == 2 ? back : front - i;
                String key = i == 4 ? "k" : null;
                batches.add(List.of(
                        reordering(change(t.get(i), x -> x.state(WAITING).priority(priority).sequence(sequence), key)),
                        change(t.get(i + 1), x -> x.state(WAITING).priority(priority).sequence(sequence), key)));
            }
            assertThat(store.applyAll(batches.get(0))).isEqualTo(ApplyResult.APPLIED);
            assertThat(store.applyEach(batches.get(1))).as("without command keys").containsExactly(ApplyResult.APPLIED, ApplyResult.APPLIED);
            assertThat(store.applyEach(batches.get(2))).as("with command keys").containsExactly(ApplyResult.APPLIED, ApplyResult.APPLIED);
            for (int i = 0; i < 6; i += 2) {
                Change reordered = batches.get(i / 2).get(0);
                assertThat(get(t.get(i).id())).as("task %s, reordered", i).isEqualTo(reordered.next());
                TaskRecord kept = get(t.get(i + 1).id());
                assertThat(kept.state()).isEqualTo(WAITING);
                assertThat(kept.priority()).as("priority of task %s", i + 1).isEqualTo(t.get(i + 1).priority());
                assertThat(kept.sequence()).as("sequence of task %s", i + 1).isEqualTo(t.get(i + 1).sequence());
            }
        }

        @Test
        public void aRenewedLeaseExpirySurvivesAnApplyThatKeepsTheLease() {
            TaskRecord t = create();
            TaskRecord claimed = claimOne(t.id(), OWNER, LEASE);
            Lease lease = leaseOf(claimed);
            Instant renewed = T0.plus(HOUR);
            assertThat(store.renew(t.id(), lease.fencingToken(), T0.plusSeconds(60), renewed)).isEqualTo(RenewResult.RENEWED);

            // computed from the claimed snapshot, whose lease still has the earlier expiry
            TaskRecord progressed = applied(change(claimed, b -> b.attributes(Attributes.of("phase", "half")), null));
            assertThat(progressed.attributes()).isEqualTo(Attributes.of("phase", "half"));
            assertThat(leaseOf(progressed)).isEqualTo(new Lease(OWNER, lease.fencingToken(), renewed));
            // a change carrying a later expiry for the same token does not extend the lease: only renew does
            TaskRecord later = applied(change(progressed,
                    b -> b.lease(new Lease(OWNER, lease.fencingToken(), T0.plus(HOUR.multipliedBy(5)))), null));
            assertThat(leaseOf(later).expiresAt()).isEqualTo(renewed);
            // releasing the lease is written
            TaskRecord released = applied(release(later, DONE));
            assertThat(released.lease()).isNull();
            assertThat(store.leased(QUEUE)).isZero();
        }
    }

    // --- queries ----------------------------------------------------------------------------------

    @Nested
    public class Queries {

        @Test
        public void filtersByMachineStateParentAndQueue() {
            long job = create(spec().state(RUNNING).queue("jobs")).id();
            long c1 = create(spec().machine("chunk").queue("chunks").parent(job)).id();
            long c2 = create(spec().machine("chunk").state(DONE).queue("chunks").parent(job)).id();
            long c3 = create(spec().machine("chunk").queue("slow").parent(job)).id();
            long orphan = create(spec().machine("chunk").queue("chunks")).id();
            long otherJob = create(spec().queue("jobs")).id();
            long c4 = create(spec().machine("chunk").queue("chunks").parent(otherJob)).id();

            assertThat(queryIds(TaskQuery.all())).containsExactly(job, c1, c2, c3, orphan, otherJob, c4);
            assertThat(queryIds(TaskQuery.all().machine(MACHINE))).containsExactly(job, otherJob);
            assertThat(queryIds(TaskQuery.all().machine("chunk").states(Set.of(READY)))).containsExactly(c1, c3, orphan, c4);
            assertThat(queryIds(TaskQuery.all().states(Set.of(READY, DONE)))).containsExactly(c1, c2, c3, orphan, otherJob, c4);
            assertThat(queryIds(TaskQuery.all().parent(job))).containsExactly(c1, c2, c3);
            assertThat(queryIds(TaskQuery.all().parent(job).queue("chunks"))).containsExactly(c1, c2);
            assertThat(queryIds(TaskQuery.all().queue("slow"))).containsExactly(c3);
            assertThat(queryIds(TaskQuery.all().machine("chunk").states(Set.of(DONE)).parent(job).queue("chunks"))).containsExactly(c2);
            assertThat(queryIds(TaskQuery.all().machine("nothing"))).isEmpty();
            assertThat(queryIds(TaskQuery.all().after(c3))).containsExactly(orphan, otherJob, c4);
            assertThat(store.query(TaskQuery.all().after(c4)).items()).isEmpty();
        }

        @Test
        public void pagesThroughEveryMatchingTaskOnceInAscendingIdOrder() {
            List<Long> chunks = new ArrayList<>();
            List<Long> inQueueA = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                TaskRecord t = create(spec().machine(i % 3 == 0 ? MACHINE : "chunk").queue(i % 5 < 3 ? "a" : "b"));
                if (!t.machine().equals(MACHINE)) chunks.add(t.id());
                if (t.queue().equals("a")) inQueueA.add(t.id());
            }
            assertThat(chunks).hasSize(20);
            assertThat(pageThrough(TaskQuery.all().machine("chunk").limit(6), 4)).containsExactlyElementsOf(chunks);
            assertThat(inQueueA).hasSize(18);
            // 18 in pages of 6: the third page is full and the last
            assertThat(pageThrough(TaskQuery.all().queue("a").limit(6), 3)).containsExactlyElementsOf(inQueueA);
            assertThat(pageThrough(TaskQuery.all().limit(7), 5)).hasSize(30);
        }

        private List<Long> pageThrough(TaskQuery first, int expectedPages) {
            List<Long> seen = new ArrayList<>();
            TaskQuery q = first;
            int pages = 0;
            while (true) {
                Page<TaskRecord> page = store.query(q);
                pages++;
                assertThat(pages).isLessThanOrEqualTo(expectedPages);
                assertThat(page.items()).hasSizeLessThanOrEqualTo(q.limit());
                for (TaskRecord t : page.items()) {
                    assertThat(q.matches(t)).isTrue();
                    if (!seen.isEmpty()) assertThat(t.id()).isGreaterThan(seen.get(seen.size() - 1));
                    seen.add(t.id());
                }
                Long next = page.nextAfterId();
                if (next == null) break;
                assertThat(page.items()).hasSize(q.limit());
                assertThat(next).isEqualTo(page.items().get(page.items().size() - 1).id());
                q = q.after(next);
            }
            assertThat(pages).isEqualTo(expectedPages);
            return seen;
        }

        @Test
        public void aQuerySeesTheCurrentSnapshot() {
            TaskRecord a = create();
            TaskRecord b = create();
            TaskRecord moved = applied(move(a, DONE, null));
            assertThat(store.query(TaskQuery.all().states(Set.of(DONE))).items()).containsExactly(moved);
            assertThat(store.query(TaskQuery.all().states(Set.of(READY))).items()).containsExactly(b);
        }
    }

    // --- claims -----------------------------------------------------------------------------------

    @Nested
    public class Claims {

        @Test
        public void aClaimStartsTheTaskLeasesItAndWritesOneSystemEntry() {
            TaskRecord t = create(spec().attributes(Attributes.of("phase", "queued")).payload("p").priority(3)
                    .notBefore(T0.minus(HOUR)));
            Instant now = T0.plusSeconds(90);
            List<TaskRecord> claimed = tasksOf(store.claim(new ClaimRequest(MACHINE, QUEUE, List.of(START), "worker-ı", now,
                    Duration.ofSeconds(45), 5, 0)));
            assertThat(ids(claimed)).containsExactly(t.id());
            TaskRecord c = claimed.get(0);
            assertThat(get(t.id())).isEqualTo(c);
            assertThat(c.state()).isEqualTo(RUNNING);
            assertThat(c.version()).isEqualTo(1);
            assertThat(c.attempts()).isEqualTo(1);
            assertThat(c.notBefore()).isNull();
            assertThat(c.updatedAt()).isEqualTo(now);
            Lease lease = leaseOf(c);
            assertThat(lease.owner()).isEqualTo("worker-ı");
            assertThat(lease.expiresAt()).isEqualTo(now.plusSeconds(45));
            assertThat(c.toBuilder().state(READY).lease(null).attempts(0).notBefore(T0.minus(HOUR)).updatedAt(t.updatedAt())
                    .version(0).build()).as("everything else is kept").isEqualTo(t);
            List<HistoryEntry> history = store.history(t.id());
            assertThat(history).hasSize(1);
            HistoryEntry e = history.get(0);
            assertThat(e.taskId()).isEqualTo(t.id());
            assertThat(e.version()).isEqualTo(1);
            assertThat(e.from()).isEqualTo(READY);
            assertThat(e.to()).isEqualTo(RUNNING);
            assertThat(e.event()).isEqualTo("START");
            assertThat(e.source()).isEqualTo(TriggerSource.SYSTEM);
            assertThat(e.actor()).isEqualTo("worker-ı");
            assertThat(e.at()).isEqualTo(now);
            assertThat(e.commandKey()).isNull();
            assertThat(store.leased(QUEUE)).isEqualTo(1);
            assertThat(claim(5)).as("nothing left").isEmpty();
        }

        @Test
        public void aClaimEffectComputesTheAttributesFromTheTaskBeforeTheClaim() {
            ClaimRule effectful = new ClaimRule(READY, "START", RUNNING, before -> before.attributes()
                    .with("phase", "started-from-" + before.state())
                    .with("attempt", Integer.toString(before.attempts() + 1))
                    .with("version", Long.toString(before.version())));
            TaskRecord t = create(spec().attributes(Attributes.of("kept", "yes")));
            ClaimRequest request = new ClaimRequest(MACHINE, QUEUE, List.of(effectful), OWNER, T0, LEASE, 1, 0);
            TaskRecord first = tasksOf(store.claim(request)).get(0);
            assertThat(first.attributes()).isEqualTo(Attributes.of("kept", "yes", "phase", "started-from-READY",
                    "attempt", "1", "version", "0"));
            assertThat(get(t.id())).isEqualTo(first);
            TaskRecord again = applied(release(first, READY));
            TaskRecord second = tasksOf(store.claim(request)).get(0);
            assertThat(second.attributes()).isEqualTo(Attributes.of("kept", "yes", "phase", "started-from-READY",
                    "attempt", "2", "version", Long.toString(again.version())));
            // a rule without an effect keeps the attributes
            TaskRecord plain = create(spec().attributes(Attributes.of("kept", "too")));
            assertThat(claim(1).get(0).attributes()).isEqualTo(plain.attributes());
        }

        @Test
        public void eachClaimableStateIsStartedByItsOwnRule() {
            TaskRecord ready = create();
            TaskRecord retry = create(spec().state("RETRY").priority(1));
            TaskRecord waiting = create(spec().state(WAITING).priority(2));
            ClaimRequest request = new ClaimRequest(MACHINE, QUEUE,
                    List.of(START, new ClaimRule("RETRY", "RESTART", "RECOVERING")), OWNER, T0, LEASE, 5, 0);
            List<TaskRecord> claimed = tasksOf(store.claim(request));
            assertThat(ids(claimed)).containsExactly(retry.id(), ready.id());
            assertThat(claimed.get(0).state()).isEqualTo("RECOVERING");
            assertThat(store.history(retry.id())).singleElement().satisfies(e -> {
                assertThat(e.event()).isEqualTo("RESTART");
                assertThat(e.from()).isEqualTo("RETRY");
                assertThat(e.to()).isEqualTo("RECOVERING");
            });
            assertThat(store.history(ready.id())).singleElement().satisfies(e -> assertThat(e.event()).isEqualTo("START"));
            assertThat(get(waiting.id())).isEqualTo(waiting);
        }

        @Test
        public void tasksAreClaimedByPriorityThenFifo() {
            TaskRecord a = create(spec().priority(0));
            TaskRecord b = create(spec().priority(5));
            TaskRecord c = create(spec().priority(5));
            TaskRecord d = create(spec().priority(10));
            TaskRecord e = create(spec().priority(0));
            TaskRecord f = create(spec().priority(-3));
            assertThat(ids(claim(2))).containsExactly(d.id(), b.id());
            assertThat(ids(claim(10))).containsExactly(c.id(), a.id(), e.id(), f.id());
        }

        @Test
        public void aNotBeforeTimeIsRespected() {
            TaskRecord later = create(spec().priority(5).notBefore(T0.plus(HOUR)));
            TaskRecord now = create();
            assertThat(ids(tasksOf(store.claim(claimOf(OWNER, T0, LEASE, 5, 0))))).containsExactly(now.id());
            assertThat(tasksOf(store.claim(claimOf(OWNER, T0.plus(HOUR).minus(1, ChronoUnit.MICROS), LEASE, 5, 0)))).isEmpty();
            assertThat(get(later.id())).isEqualTo(later);
            assertThat(ids(tasksOf(store.claim(claimOf(OWNER, T0.plus(HOUR), LEASE, 5, 0))))).containsExactly(later.id());
        }

        @Test
        public void aPausedQueueGivesNothing() {
            TaskRecord t = create();
            store.pauseQueue(QUEUE, "maintenance");
            assertThat(claim(5)).isEmpty();
            assertThat(get(t.id())).isEqualTo(t);
            assertThat(store.history(t.id())).isEmpty();
            store.resumeQueue(QUEUE);
            assertThat(ids(claim(5))).containsExactly(t.id());
        }

        @Test
        public void aTaskThatHoldsALeaseIsNotClaimed() {
            TaskRecord t = create();
            TaskRecord claimed = claimOne(t.id(), OWNER, LEASE);
            // back in a claimable state while keeping the lease
            TaskRecord held = applied(move(claimed, READY, null));
            assertThat(held.lease()).isEqualTo(claimed.lease());
            assertThat(claim(5)).isEmpty();
            assertThat(tasksOf(store.claim(claimOf("worker-2", T0.plus(HOUR), LEASE, 5, 0)))).as("even once the lease expired").isEmpty();
            assertThat(store.peek(claimOf(OWNER, T0, LEASE, 5, 0))).isEmpty();
            assertThat(get(t.id())).isEqualTo(held);
            TaskRecord free = applied(release(held, READY));
            assertThat(ids(claim(5))).containsExactly(free.id());
        }

        @Test
        public void onlyTheRequestedMachineQueueAndStatesAreClaimed() {
            TaskRecord otherMachine = create(spec().machine("other").priority(9));
            TaskRecord otherQueue = create(spec().queue("elsewhere").priority(9));
            TaskRecord otherState = create(spec().state(WAITING).priority(9));
            TaskRecord match = create();
            assertThat(ids(claim(10))).containsExactly(match.id());
            assertThat(get(otherMachine.id())).isEqualTo(otherMachine);
            assertThat(get(otherQueue.id())).isEqualTo(otherQueue);
            assertThat(get(otherState.id())).isEqualTo(otherState);
        }

        @Test
        public void fencingTokensStrictlyIncreaseAcrossClaims() {
            TaskRecord a = create();
            TaskRecord b = create();
            TaskRecord c = create(spec().machine("other").queue("elsewhere"));
            long ta = leaseOf(claimOne(a.id(), OWNER, LEASE)).fencingToken();
            long tb = leaseOf(claimOne(b.id(), OWNER, LEASE)).fencingToken();
            assertThat(tb).isGreaterThan(ta);
            TaskRecord otherClaim = tasksOf(store.claim(new ClaimRequest("other", "elsewhere", List.of(START), "worker-2", T0, LEASE, 1, 0))).get(0);
            assertThat(otherClaim.id()).isEqualTo(c.id());
            long tc = leaseOf(otherClaim).fencingToken();
            assertThat(tc).isGreaterThan(tb);
            applied(release(get(a.id()), READY));
            TaskRecord again = claimOne(a.id(), OWNER, LEASE);
            assertThat(leaseOf(again).fencingToken()).isGreaterThan(tc);
            assertThat(again.attempts()).isEqualTo(2);
            assertThat(again.version()).isEqualTo(3);
            assertUnbrokenChain(a.id(), READY);
        }

        @Test
        public void theConcurrencyLimitCapsTheTasksOfTheQueueThatHoldALease() {
            TaskRecord foreign = create(spec().machine("other"));
            List<Long> ours = new ArrayList<>();
            for (int i = 0; i < 5; i++) ours.add(create().id());
            assertThat(store.setConcurrency(QUEUE, 3).concurrency()).isEqualTo(3);
            // another machine's task on the same queue counts, even once its lease expired
            tasksOf(store.claim(new ClaimRequest("other", QUEUE, List.of(START), "worker-2", T0, Duration.ofSeconds(1), 1, 0)));
            assertThat(get(foreign.id()).lease()).isNotNull();
            assertThat(store.leased(QUEUE)).isEqualTo(1);
            assertThat(ids(tasksOf(store.claim(claimOf(OWNER, T0.plus(HOUR), LEASE, 5, 0))))).containsExactly(ours.get(0), ours.get(1));
            assertThat(store.leased(QUEUE)).isEqualTo(3);
            assertThat(claim(5)).isEmpty();
            applied(release(get(ours.get(0)), DONE));
            assertThat(store.leased(QUEUE)).isEqualTo(2);
            assertThat(ids(claim(5))).containsExactly(ours.get(2));
            assertThat(claim(5)).isEmpty();
            store.setConcurrency(QUEUE, 0);
            assertThat(ids(claim(5))).as("0 means no limit").containsExactly(ours.get(3), ours.get(4));
            assertThat(store.leased(QUEUE)).isEqualTo(5);
            assertThat(store.leased("elsewhere")).isZero();
        }

        @Test
        public void anExpiredLeaseOnALimitedQueueIsRecoveredBeforeAnythingElseOfTheQueueIsClaimed() {
            store.setConcurrency(QUEUE, 1);
            TaskRecord held = create();
            TaskRecord next = create();
            TaskRecord claimed = claimOne(held.id(), OWNER, Duration.ofSeconds(1));
            Instant later = T0.plus(HOUR);
            assertThat(ids(store.expiredLeases(later, 10))).containsExactly(held.id());
            assertThat(tasksOf(store.claim(claimOf("worker-2", later, LEASE, 5, 0)))).as("the expired lease still counts").isEmpty();
            assertThat(store.leased(QUEUE)).isEqualTo(1);
            assertThat(get(next.id())).isEqualTo(next);
            applied(release(claimed, DONE));
            assertThat(ids(tasksOf(store.claim(claimOf("worker-2", later, LEASE, 5, 0))))).containsExactly(next.id());
        }

        @Test
        public void aClaimIsNeverStampedBeforeTheTasksLastChange() {
            TaskRecord late = create();
            TaskRecord plain = create();
            Instant changedAt = T0.plus(HOUR);
            TaskRecord touched = late.toBuilder().attributes(Attributes.of("touched", "yes")).updatedAt(changedAt).version(1).build();
            applied(new Change(0, touched, new HistoryEntry(late.id(), 1, READY, READY, "TOUCH", TriggerSource.USER, "ayşe",
                    null, changedAt, null)));
            // a claimer whose clock was read before the change reached the store
            Instant now = T0.plusSeconds(30);
            List<Claimed> claimed = store.claim(claimOf(OWNER, now, LEASE, 5, 0));
            assertThat(ids(tasksOf(claimed))).containsExactly(late.id(), plain.id());
            TaskRecord c = claimed.get(0).task();
            assertThat(c.updatedAt()).isEqualTo(changedAt);
            assertThat(claimed.get(0).entry().at()).isEqualTo(changedAt);
            assertThat(leaseOf(c).expiresAt()).as("the lease runs from the claim's time").isEqualTo(now.plus(LEASE));
            assertThat(get(late.id())).isEqualTo(c);
            assertThat(assertUnbrokenChain(late.id(), READY)).extracting(HistoryEntry::at).containsExactly(changedAt, changedAt);
            TaskRecord p = claimed.get(1).task();
            assertThat(p.updatedAt()).as("a task changed before the claim's time is stamped with it").isEqualTo(now);
            assertThat(store.history(plain.id())).singleElement().satisfies(e -> assertThat(e.at()).isEqualTo(now));
            assertThat(get(plain.id())).isEqualTo(p);
        }

        @Test
        public void aTaskMovedToTheFrontIsClaimedFirst() {
            TaskRecord a = create();
            TaskRecord b = create();
            TaskRecord c = create();
            long front = store.nextSequence(true);
            assertThat(front).isLessThan(a.sequence()).isLessThan(b.sequence()).isLessThan(c.sequence());
            long front2 = store.nextSequence(true);
            assertThat(front2).isLessThan(front);
            assertThat(store.reorder(c.id(), c.priority(), front)).isTrue();
            long back = store.nextSequence(false);
            assertThat(back).isGreaterThan(c.sequence());
            assertThat(store.reorder(a.id(), a.priority(), back)).isTrue();
            TaskRecord d = create();
            assertThat(d.sequence()).as("created after a sequence was handed out").isGreaterThan(back);
            assertThat(get(c.id()).version()).isZero();
            assertThat(store.history(c.id())).isEmpty();
            assertThat(ids(claim(4))).containsExactly(c.id(), b.id(), a.id(), d.id());
        }

        @Test
        public void aReorderedPriorityChangesTheClaimOrder() {
            TaskRecord a = create();
            TaskRecord b = create();
            assertThat(store.reorder(b.id(), 4, b.sequence())).isTrue();
            assertThat(ids(claim(2))).containsExactly(b.id(), a.id());
        }
    }

    // --- anti-starvation --------------------------------------------------------------------------

    @Nested
    public class Starvation {

        private List<Long> claimSingly(int times, int limit) {
            List<Long> picked = new ArrayList<>();
            for (int i = 0; i < times; i++) {
                List<TaskRecord> c = tasksOf(store.claim(claimOf(OWNER, T0, LEASE, 1, limit)));
                assertThat(c).hasSize(1);
                picked.add(c.get(0).id());
            }
            return picked;
        }

        @Test
        public void afterKPicksThatPassedOverALowerTaskTheBestLowerOneIsTaken() {
            long h1 = create(spec().priority(10)).id();
            long l1 = create(spec().priority(0)).id();
            long h2 = create(spec().priority(10)).id();
            long m1 = create(spec().priority(5)).id();
            long h3 = create(spec().priority(10)).id();
            long l2 = create(spec().priority(0)).id();
            long h4 = create(spec().priority(10)).id();
            assertThat(claimSingly(1, 2)).containsExactly(h1);
            assertThat(store.queue(QUEUE).skippedLower()).isEqualTo(1);
            assertThat(claimSingly(1, 2)).containsExactly(h2);
            assertThat(store.queue(QUEUE).skippedLower()).isEqualTo(2);
            assertThat(claimSingly(1, 2)).as("the best lower task").containsExactly(m1);
            assertThat(store.queue(QUEUE).skippedLower()).isZero();
            assertThat(claimSingly(4, 2)).containsExactly(h3, h4, l1, l2);
            assertThat(store.queue(QUEUE).skippedLower()).isZero();
        }

        @Test
        public void theCountCarriesOnWithinOneClaim() {
            long h1 = create(spec().priority(10)).id();
            long h2 = create(spec().priority(10)).id();
            long h3 = create(spec().priority(10)).id();
            long l1 = create(spec().priority(0)).id();
            long l2 = create(spec().priority(0)).id();
            long h4 = create(spec().priority(10)).id();
            assertThat(ids(tasksOf(store.claim(claimOf(OWNER, T0, LEASE, 4, 2))))).containsExactly(h1, h2, l1, h3);
            assertThat(store.queue(QUEUE).skippedLower()).isEqualTo(1);
            assertThat(ids(tasksOf(store.claim(claimOf(OWNER, T0, LEASE, 4, 2))))).containsExactly(h4, l2);
            assertThat(store.queue(QUEUE).skippedLower()).isZero();
        }

        @Test
        public void withoutALimitLowerTasksWait() {
            long l1 = create(spec().priority(0)).id();
            long h1 = create(spec().priority(10)).id();
            long m1 = create(spec().priority(5)).id();
            long h2 = create(spec().priority(10)).id();
            long h3 = create(spec().priority(10)).id();
            assertThat(claimSingly(5, 0)).containsExactly(h1, h2, h3, m1, l1);
        }

        @Test
        public void aLowerTaskThatIsNotRunnableIsNotPassedOver() {
            long later = create(spec().priority(0).notBefore(T0.plus(HOUR))).id();
            long h1 = create(spec().priority(10)).id();
            long h2 = create(spec().priority(10)).id();
            long h3 = create(spec().priority(10)).id();
            assertThat(claimSingly(3, 1)).containsExactly(h1, h2, h3);
            assertThat(store.queue(QUEUE).skippedLower()).isZero();
            assertThat(get(later).lease()).isNull();
        }

        @Test
        public void aPickThatPassesOverNoLowerTaskResetsTheCount() {
            long h1 = create(spec().priority(10)).id();
            long l1 = create(spec().priority(0)).id();
            assertThat(claimSingly(1, 3)).containsExactly(h1);
            assertThat(store.queue(QUEUE).skippedLower()).isEqualTo(1);
            assertThat(claimSingly(1, 3)).containsExactly(l1);
            assertThat(store.queue(QUEUE).skippedLower()).isZero();
            long h2 = create(spec().priority(10)).id();
            long h3 = create(spec().priority(10)).id();
            long h4 = create(spec().priority(10)).id();
            long l2 = create(spec().priority(0)).id();
            long h5 = create(spec().priority(10)).id();
            assertThat(claimSingly(5, 3)).containsExactly(h2, h3, h4, l2, h5);
        }
    }

    // --- concurrent claimers ----------------------------------------------------------------------

    @Nested
    public class ConcurrentClaims {

        @Test
        public void neverMoreThanTheLimitHoldALeaseUnderConcurrentClaimsAndCompletions() throws Exception {
            int limit = 3;
            int total = 60;
            int claimers = 4;
            int completers = 2;
            for (int i = 0; i < total; i++) create(spec().priority(i % 3));
            store.setConcurrency(QUEUE, limit);
            BlockingQueue<TaskRecord> toComplete = new LinkedBlockingQueue<>();
            AtomicInteger completed = new AtomicInteger();
            // counted after a claim returns and uncounted before its release: never above the true number
            AtomicInteger held = new AtomicInteger();
            Set<Long> tokens = ConcurrentHashMap.newKeySet();
            concurrently(claimers + completers, thread -> {
                if (thread < claimers) {
                    for (long round = 0; completed.get() < total; round++) {
                        assertThat(round).as("claim rounds").isLessThan(5_000_000);
                        if (Thread.currentThread().isInterrupted()) throw new InterruptedException();
                        List<TaskRecord> claimed = tasksOf(store.claim(claimOf("claimer-" + thread, T0, LEASE, limit, 0)));
                        for (TaskRecord t : claimed) {
                            assertThat(held.incrementAndGet()).as("tasks holding a lease").isLessThanOrEqualTo(limit);
                            assertThat(tokens.add(leaseOf(t).fencingToken())).isTrue();
                            toComplete.add(t);
                        }
                        assertThat(store.leased(QUEUE)).isLessThanOrEqualTo(limit);
                    }
                } else {
                    while (completed.get() < total) {
                        TaskRecord t = toComplete.poll(50, TimeUnit.MILLISECONDS);
                        if (t == null) continue;
                        held.decrementAndGet();
                        assertThat(store.apply(release(t, DONE)).applied()).isTrue();
                        completed.incrementAndGet();
                    }
                }
            });
            assertThat(store.leased(QUEUE)).as("tasks holding a lease afterwards: %s",
                    store.query(TaskQuery.all()).items().stream().filter(t -> t.lease() != null).toList()).isZero();
            List<TaskRecord> all = store.query(TaskQuery.all()).items();
            assertThat(all).hasSize(total);
            for (TaskRecord t : all) {
                assertThat(t.state()).isEqualTo(DONE);
                assertThat(t.attempts()).as("claimed once").isEqualTo(1);
                assertThat(store.history(t.id())).extracting(HistoryEntry::to).containsExactly(RUNNING, DONE);
            }
            assertThat(tokens).hasSize(total);
        }
    }

    // --- renewal and cancellation -----------------------------------------------------------------

    @Nested
    public class Renewal {

        @Test
        public void aRenewalExtendsTheLeaseWithoutAVersion() {
            TaskRecord claimed = claimOne(create().id(), OWNER, LEASE);
            Lease lease = leaseOf(claimed);
            assertThat(store.renew(claimed.id(), lease.fencingToken(), T0.plus(Duration.ofMinutes(4)), T0.plus(HOUR)))
                    .isEqualTo(RenewResult.RENEWED);
            TaskRecord renewed = get(claimed.id());
            assertThat(renewed.lease()).isEqualTo(new Lease(OWNER, lease.fencingToken(), T0.plus(HOUR)));
            assertThat(renewed.toBuilder().lease(lease).build()).isEqualTo(claimed);
            assertThat(store.history(claimed.id())).hasSize(1);
            // renewed again, still before the lease runs out in its extended form
            assertThat(store.renew(claimed.id(), lease.fencingToken(), T0.plus(Duration.ofMinutes(30)), T0.plus(HOUR.multipliedBy(2))))
                    .isEqualTo(RenewResult.RENEWED);
            assertThat(leaseOf(get(claimed.id())).expiresAt()).isEqualTo(T0.plus(HOUR.multipliedBy(2)));
        }

        @Test
        public void aRenewalNeverShortensTheLease() {
            TaskRecord claimed = claimOne(create().id(), OWNER, HOUR);
            long token = leaseOf(claimed).fencingToken();
            assertThat(store.renew(claimed.id(), token, T0, T0.plusSeconds(60))).isEqualTo(RenewResult.RENEWED);
            assertThat(leaseOf(get(claimed.id())).expiresAt()).isEqualTo(T0.plus(HOUR));
        }

        @Test
        public void anExpiredLeaseIsNeverRenewed() {
            TaskRecord claimed = claimOne(create().id(), OWNER, LEASE);
            long token = leaseOf(claimed).fencingToken();
            assertThat(store.renew(claimed.id(), token, T0.plus(LEASE), T0.plus(HOUR))).as("at its expiry").isEqualTo(RenewResult.LOST);
            assertThat(store.renew(claimed.id(), token, T0.plus(HOUR), T0.plus(HOUR.multipliedBy(2)))).isEqualTo(RenewResult.LOST);
            assertThat(get(claimed.id())).isEqualTo(claimed);
            assertThat(store.renew(claimed.id(), token, T0.plus(LEASE).minus(1, ChronoUnit.MICROS), T0.plus(HOUR)))
                    .as("a microsecond before").isEqualTo(RenewResult.RENEWED);
        }

        @Test
        public void aWrongTokenOrAReleasedLeaseIsLost() {
            TaskRecord claimed = claimOne(create().id(), OWNER, LEASE);
            long token = leaseOf(claimed).fencingToken();
            assertThat(store.renew(claimed.id(), token + 1, T0, T0.plus(HOUR))).isEqualTo(RenewResult.LOST);
            if (token > 0) assertThat(store.renew(claimed.id(), token - 1, T0, T0.plus(HOUR))).isEqualTo(RenewResult.LOST);
            assertThat(get(claimed.id())).isEqualTo(claimed);
            TaskRecord released = applied(release(claimed, READY));
            assertThat(store.renew(claimed.id(), token, T0, T0.plus(HOUR))).isEqualTo(RenewResult.LOST);
            assertThat(get(claimed.id())).isEqualTo(released);
            // taken over by a new claim: the old token is lost, the new one renews
            TaskRecord again = claimOne(claimed.id(), "worker-2", LEASE);
            assertThat(store.renew(claimed.id(), token, T0, T0.plus(HOUR))).isEqualTo(RenewResult.LOST);
            assertThat(store.renew(claimed.id(), leaseOf(again).fencingToken(), T0, T0.plus(HOUR))).isEqualTo(RenewResult.RENEWED);
        }

        @Test
        public void aCancelRequestIsReportedByRenewalsUntilTheNextClaim() {
            TaskRecord claimed = claimOne(create().id(), OWNER, LEASE);
            long token = leaseOf(claimed).fencingToken();
            assertThat(store.cancelRequested(claimed.id())).isFalse();
            assertThat(store.requestCancel(claimed.id())).isTrue();
            assertThat(store.cancelRequested(claimed.id())).isTrue();
            assertThat(get(claimed.id())).as("a request is not a change").isEqualTo(claimed);
            assertThat(store.renew(claimed.id(), token, T0.plusSeconds(10), T0.plus(Duration.ofMinutes(10))))
                    .isEqualTo(RenewResult.RENEWED_CANCEL_REQUESTED);
            assertThat(leaseOf(get(claimed.id())).expiresAt()).isEqualTo(T0.plus(Duration.ofMinutes(10)));
            TaskRecord progressed = applied(change(get(claimed.id()), b -> b.attributes(Attributes.of("p", "1")), null));
            assertThat(store.renew(claimed.id(), token, T0.plusSeconds(20), T0.plus(Duration.ofMinutes(11))))
                    .as("an apply keeps the request").isEqualTo(RenewResult.RENEWED_CANCEL_REQUESTED);
            applied(release(progressed, READY));
            assertThat(store.cancelRequested(claimed.id())).as("until the next claim").isTrue();
            TaskRecord again = claimOne(claimed.id(), OWNER, LEASE);
            assertThat(store.cancelRequested(claimed.id())).isFalse();
            assertThat(store.renew(claimed.id(), leaseOf(again).fencingToken(), T0, T0.plus(HOUR))).isEqualTo(RenewResult.RENEWED);
        }
    }

    // --- scans over leases and not-before times ----------------------------------------------------

    @Nested
    public class Scans {

        @Test
        public void expiredLeasesOfOtherMachinesDoNotFillTheWindowOfTheMachinesAsked() {
            List<Long> others = new ArrayList<>();
            for (int i = 0; i < 3; i++) others.add(create(spec().machine("other").queue("elsewhere")).id());
            TaskRecord ours = create();
            tasksOf(store.claim(new ClaimRequest("other", "elsewhere", List.of(START), OWNER, T0, Duration.ofSeconds(1), 3, 0)));
            claimOne(ours.id(), OWNER, Duration.ofMinutes(1));
            Instant later = T0.plus(HOUR);
            assertThat(ids(store.expiredLeases(later, 3))).as("the oldest expiries are the other machine's").containsExactlyElementsOf(others);
            assertThat(ids(store.expiredLeases(List.of(MACHINE), later, 3))).containsExactly(ours.id());
            assertThat(ids(store.expiredLeases(List.of(MACHINE, "other"), later, 2))).containsExactly(others.get(0), others.get(1));
            assertThat(ids(store.expiredLeases(List.of("nobody"), later, 10))).isEmpty();
            assertThat(store.expiredLeases(List.of(MACHINE), T0, 10)).isEmpty();
        }

        @Test
        public void expiredLeasesAreListedOldestExpiryFirst() {
            TaskRecord a = create();
            TaskRecord b = create();
            TaskRecord c = create();
            TaskRecord d = create();
            TaskRecord other = create(spec().machine("other").queue("elsewhere"));
            claimOne(a.id(), OWNER, HOUR.multipliedBy(2));
            TaskRecord cb = claimOne(b.id(), OWNER, Duration.ofMinutes(1));
            claimOne(c.id(), "worker-2", HOUR);
            TaskRecord cd = claimOne(d.id(), OWNER, Duration.ofSeconds(1));
            applied(release(cd, DONE));
            tasksOf(store.claim(new ClaimRequest("other", "elsewhere", List.of(START), OWNER, T0, Duration.ofMinutes(30), 1, 0)));

            assertThat(store.expiredLeases(T0, 10)).isEmpty();
            assertThat(ids(store.expiredLeases(T0.plus(HOUR), 10))).as("at or before T0 + 1 h")
                    .containsExactly(b.id(), other.id(), c.id());
            assertThat(ids(store.expiredLeases(T0.plus(HOUR).minus(1, ChronoUnit.MICROS), 10))).containsExactly(b.id(), other.id());
            assertThat(ids(store.expiredLeases(T0.plus(HOUR), 2))).containsExactly(b.id(), other.id());
            assertThat(ids(store.expiredLeases(T0.plus(HOUR.multipliedBy(5)), 10))).containsExactly(b.id(), other.id(), c.id(), a.id());
            assertThat(store.expiredLeases(T0.plus(HOUR), 10)).first().isEqualTo(get(b.id()));

            assertThat(store.renew(b.id(), leaseOf(cb).fencingToken(), T0.plusSeconds(30), T0.plus(HOUR.multipliedBy(3))))
                    .isEqualTo(RenewResult.RENEWED);
            assertThat(ids(store.expiredLeases(T0.plus(HOUR), 10))).containsExactly(other.id(), c.id());
        }

        @Test
        public void leasedByListsTheTasksHeldByOneOwnerInIdOrder() {
            TaskRecord t1 = create();
            TaskRecord t2 = create();
            TaskRecord t3 = create();
            TaskRecord t4 = create();
            claimOne(t1.id(), "worker-a", LEASE);
            claimOne(t2.id(), "worker-a", Duration.ofSeconds(1));
            claimOne(t3.id(), "worker-b", LEASE);
            TaskRecord c4 = claimOne(t4.id(), "worker-a", LEASE);
            applied(release(c4, DONE));
            assertThat(store.leasedBy("worker-a", 10)).as("expired leases are still held")
                    .containsExactly(get(t1.id()), get(t2.id()));
            assertThat(ids(store.leasedBy("worker-a", 1))).containsExactly(t1.id());
            assertThat(ids(store.leasedBy("worker-b", 10))).containsExactly(t3.id());
            assertThat(store.leasedBy("worker-c", 10)).isEmpty();
        }

        @Test
        public void dueListsLeaseFreeTasksWhoseNotBeforeTimeHasCome() {
            TaskRecord w1 = create(spec().state(WAITING).notBefore(T0.plus(HOUR)));
            TaskRecord w2 = create(spec().state(WAITING).notBefore(T0.minus(HOUR)));
            TaskRecord w3 = create(spec().state(WAITING).notBefore(T0.plus(HOUR.multipliedBy(2))));
            TaskRecord noTime = create(spec().state(WAITING));
            TaskRecord ready = create(spec().notBefore(T0.minus(HOUR.multipliedBy(2))));
            TaskRecord otherMachine = create(spec().machine("other").state(WAITING).notBefore(T0.minus(HOUR.multipliedBy(2))));
            TaskRecord held = create(spec().priority(9));
            TaskRecord claimed = claimOne(held.id(), OWNER, LEASE);
            TaskRecord waitingHeld = applied(change(claimed, b -> b.state(WAITING).notBefore(T0.minus(HOUR.multipliedBy(3))), null));
            assertThat(waitingHeld.lease()).isNotNull();

            List<String> waiting = List.of(WAITING);
            assertThat(store.due(MACHINE, waiting, T0.plus(HOUR), 10)).as("at or before T0 + 1 h")
                    .containsExactly(w2, w1);
            assertThat(ids(store.due(MACHINE, waiting, T0.plus(HOUR).minus(1, ChronoUnit.MICROS), 10))).containsExactly(w2.id());
            assertThat(ids(store.due(MACHINE, waiting, T0.plus(HOUR), 1))).containsExactly(w2.id());
            assertThat(ids(store.due(MACHINE, List.of(WAITING, READY), T0.plus(HOUR), 10))).containsExactly(ready.id(), w2.id(), w1.id());
            assertThat(store.due(MACHINE, waiting, T0.minus(HOUR.multipliedBy(4)), 10)).isEmpty();
            assertThat(ids(store.due(MACHINE, waiting, T0.plus(HOUR.multipliedBy(9)), 10)))
                    .as("a task without a not-before time is not due").containsExactly(w2.id(), w1.id(), w3.id())
                    .doesNotContain(noTime.id(), otherMachine.id());

            TaskRecord freed = applied(change(waitingHeld, b -> b.lease(null), null));
            assertThat(ids(store.due(MACHINE, waiting, T0, 10))).containsExactly(freed.id(), w2.id());
        }

        @Test
        public void nextDueIsTheEarliestLaterNotBeforeTimeOfLeaseFreeTasks() {
            create(spec().state(WAITING).notBefore(T0.plus(HOUR)));
            create(spec().state(WAITING).notBefore(T0.minus(HOUR)));
            create(spec().state(WAITING).notBefore(T0.plus(HOUR.multipliedBy(2))));
            create(spec().state(WAITING));
            create(spec().notBefore(T0.minus(HOUR.multipliedBy(2))));
            create(spec().machine("other").state(WAITING).notBefore(T0.minus(Duration.ofMinutes(150))));
            TaskRecord claimed = claimOne(create(spec().priority(9)).id(), OWNER, LEASE);
            applied(change(claimed, b -> b.state(WAITING).notBefore(T0.minus(HOUR.multipliedBy(3))), null));

            List<String> waiting = List.of(WAITING);
            assertThat(store.nextDue(MACHINE, waiting, T0)).isEqualTo(T0.plus(HOUR));
            assertThat(store.nextDue(MACHINE, waiting, T0.plus(HOUR))).as("strictly after now").isEqualTo(T0.plus(HOUR.multipliedBy(2)));
            assertThat(store.nextDue(MACHINE, waiting, T0.plus(HOUR.multipliedBy(2)))).isNull();
            assertThat(store.nextDue(MACHINE, waiting, T0.minus(HOUR.multipliedBy(4)))).isEqualTo(T0.minus(HOUR));
            assertThat(store.nextDue(MACHINE, List.of(WAITING, READY), T0.minus(HOUR.multipliedBy(4))))
                    .isEqualTo(T0.minus(HOUR.multipliedBy(2)));
            assertThat(store.nextDue("other", waiting, T0.minus(HOUR.multipliedBy(4)))).isEqualTo(T0.minus(Duration.ofMinutes(150)));
            assertThat(store.nextDue(MACHINE, List.of(DONE), T0.minus(HOUR.multipliedBy(4)))).isNull();
        }
    }

    // --- peek -------------------------------------------------------------------------------------

    @Nested
    public class Batches {
        @Test
        void findAllReturnsTheTasksThatExistById() {
            TaskRecord a = create();
            TaskRecord b = create();
            java.util.Map<Long, TaskRecord> found = store.findAll(List.of(a.id(), b.id(), b.id() + 1000));
            assertThat(found).containsOnlyKeys(a.id(), b.id());
            assertThat(found.get(a.id())).isEqualTo(a);
            assertThat(store.findAll(List.of())).isEmpty();
        }

        @Test
        void applyEachWritesEveryChangeOnItsOwn() {
            TaskRecord fresh = create();
            TaskRecord stale = create();
            TaskRecord keyed = create();
            applied(move(stale, WAITING, null));
            TaskRecord keyedNow = applied(move(keyed, WAITING, "k1"));
            TaskRecord missing = fresh.toBuilder().build();
            List<Change> changes = List.of(
                    move(fresh, DONE, null),
                    move(stale, DONE, null),                         // computed from version 0: stale
                    move(keyedNow, DONE, "k1"),                      // the key was applied before
                    new Change(0, new TaskRecord(fresh.id() + 1000, missing.machine(), 1, READY, QUEUE, 0, 1, null, 0, 0,
                            null, null, null, Attributes.EMPTY, null, null, T0, T0.plusSeconds(1), 1),
                            new HistoryEntry(fresh.id() + 1000, 1, READY, DONE, "GO", TriggerSource.SYSTEM, null, null,
                                    T0.plusSeconds(1), null)));
            List<ApplyResult> results = store.applyEach(changes);
            assertThat(results).extracting(ApplyResult::status).containsExactly(ApplyResult.Status.APPLIED,
                    ApplyResult.Status.VERSION_CONFLICT, ApplyResult.Status.DUPLICATE_COMMAND, ApplyResult.Status.NOT_FOUND);
            assertThat(get(fresh.id()).state()).isEqualTo(DONE);
            assertThat(store.history(fresh.id())).hasSize(1);
            assertThat(get(stale.id()).state()).isEqualTo(WAITING);
            assertThat(store.history(stale.id())).hasSize(1);
            assertThat(get(keyed.id()).version()).isEqualTo(1);
        }

        @Test
        void applyEachRefusesTwoChangesForOneTask() {
            TaskRecord t = create();
            assertThatThrownBy(() -> store.applyEach(List.of(move(t, DONE, null), move(t, WAITING, null))))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(get(t.id())).isEqualTo(t);
        }
    }

    @Nested
    public class CreateAll {
        @Test
        void createsEachTaskAsCreateWouldInTheOrderGiven() {
            TaskRecord existing = create(spec().key("k-old").payload("old"));
            List<NewTask> specs = new ArrayList<>();
            for (int i = 0; i < 7; i++) {
                Spec s = spec().priority(i % 3).attributes(Attributes.of("i", Integer.toString(i))).payload(i % 2 == 0 ? "p" + i : null);
                if (i == 2) s.key("k-new");
                if (i == 4) s.key("k-old");
                if (i == 5) s.key("k-new");            // an earlier task of the list holds the key
                if (i == 6) s.notBefore(T0.plus(HOUR)).parent(existing.id());
                specs.add(s.build());
            }
            List<CreateResult> results = store.createAll(specs);
            assertThat(results).extracting(CreateResult::created).containsExactly(true, true, true, true, false, false, true);
            assertThat(results.get(4).task()).isEqualTo(existing);
            assertThat(results.get(5).task()).isEqualTo(results.get(2).task());
            long lastSequence = existing.sequence();
            Set<Long> ids = new HashSet<>(List.of(existing.id()));
            for (int i : new int[] {0, 1, 2, 3, 6}) {
                TaskRecord t = results.get(i).task();
                assertThat(ids.add(t.id())).as("id of task %s is new", i).isTrue();
                assertThat(t.sequence()).as("sequence of task %s", i).isGreaterThan(lastSequence);
                lastSequence = t.sequence();
                assertThat(t.version()).isZero();
                assertThat(t.attributes().get("i")).isEqualTo(Integer.toString(i));
                assertThat(store.find(t.id())).contains(t);
                assertThat(store.history(t.id())).isEmpty();
            }
            assertThat(results.get(6).task().notBefore()).isEqualTo(T0.plus(HOUR));
            assertThat(results.get(6).task().parentId()).isEqualTo(existing.id());
            assertThat(results.get(0).task().payload()).isEqualTo("p0");
            assertThat(results.get(1).task().payload()).isNull();
            assertThat(store.query(TaskQuery.all()).items()).hasSize(6);
            assertThat(store.createAll(List.of())).isEmpty();
        }

        @Test
        void manyTasksAreClaimedInTheOrderTheyWereCreated() {
            List<NewTask> specs = new ArrayList<>();
            for (int i = 0; i < 2500; i++) specs.add(spec().build());
            List<CreateResult> results = store.createAll(specs);
            assertThat(results).hasSize(2500).allSatisfy(r -> assertThat(r.created()).isTrue());
            List<Long> created = new ArrayList<>();
            for (CreateResult r : results) created.add(r.task().id());
            assertThat(new HashSet<>(created)).hasSize(2500);
            assertThat(ids(claim(2500))).containsExactlyElementsOf(created);
        }

        @Test
        void aPayloadOverTheLimitIsRefused() {
            List<NewTask> specs = List.of(spec().build(), spec().payload(payloadOf(maxPayloadChars() + 1)).build());
            assertThatThrownBy(() -> store.createAll(specs))
                    .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE));
        }
    }

    @Nested
    public class Peek {

        @Test
        public void peekShowsTheClaimOrderAndWritesNothing() {
            TaskRecord a = create(spec().priority(0));
            TaskRecord b = create(spec().priority(5));
            TaskRecord c = create(spec().priority(5));
            TaskRecord later = create(spec().priority(9).notBefore(T0.plus(HOUR)));
            TaskRecord d = create(spec().priority(1).state("RETRY"));
            ClaimRequest request = new ClaimRequest(MACHINE, QUEUE, List.of(START, new ClaimRule("RETRY", "RESTART", RUNNING)),
                    OWNER, T0, LEASE, 3, 0);
            List<TaskRecord> peeked = store.peek(request);
            assertThat(peeked).containsExactly(b, c, d);
            assertThat(store.peek(request)).isEqualTo(peeked);
            for (TaskRecord t : List.of(a, b, c, later, d)) {
                assertThat(get(t.id())).isEqualTo(t);
                assertThat(store.history(t.id())).isEmpty();
            }
            assertThat(store.leased(QUEUE)).isZero();
            assertThat(store.queue(QUEUE)).isEqualTo(QueueRecord.defaults(QUEUE));
            assertThat(ids(tasksOf(store.claim(request)))).containsExactly(b.id(), c.id(), d.id());
            assertThat(ids(store.peek(request))).containsExactly(a.id());
        }

        @Test
        public void peekIgnoresAPausedOrFullQueue() {
            TaskRecord a = create();
            TaskRecord b = create();
            store.setConcurrency(QUEUE, 1);
            claimOne(a.id(), OWNER, LEASE);
            store.pauseQueue(QUEUE, null);
            assertThat(claim(1)).isEmpty();
            assertThat(store.peek(claimOf(OWNER, T0, LEASE, 5, 0))).containsExactly(b);
        }

        @Test
        public void peekAppliesNoAntiStarvation() {
            TaskRecord h1 = create(spec().priority(10));
            TaskRecord h2 = create(spec().priority(10));
            TaskRecord l1 = create(spec().priority(0));
            TaskRecord h3 = create(spec().priority(10));
            assertThat(ids(tasksOf(store.claim(claimOf(OWNER, T0, LEASE, 1, 1))))).containsExactly(h1.id());
            assertThat(store.queue(QUEUE).skippedLower()).isEqualTo(1);
            assertThat(ids(store.peek(claimOf(OWNER, T0, LEASE, 3, 1)))).containsExactly(h2.id(), h3.id(), l1.id());
            assertThat(store.queue(QUEUE).skippedLower()).isEqualTo(1);
            assertThat(ids(tasksOf(store.claim(claimOf(OWNER, T0, LEASE, 1, 1))))).as("the claim does").containsExactly(l1.id());
        }
    }

    // --- queue control records --------------------------------------------------------------------

    @Nested
    public class Queues {

        @Test
        public void aQueueNobodyConfiguredHasTheDefaults() {
            assertThat(store.queue("fresh")).isEqualTo(QueueRecord.defaults("fresh"));
            assertThat(store.queue("fresh").paused()).isFalse();
            assertThat(store.queue("fresh").concurrency()).isZero();
            assertThat(store.leased("fresh")).isZero();
        }

        @Test
        public void pausingKeepsTheReasonAndResumingClearsIt() {
            QueueRecord paused = store.pauseQueue(QUEUE, "STOP_AFTER_CURRENT İ");
            assertThat(paused).isEqualTo(new QueueRecord(QUEUE, true, "STOP_AFTER_CURRENT İ", 0, 0));
            assertThat(store.queue(QUEUE)).isEqualTo(paused);
            QueueRecord resumed = store.resumeQueue(QUEUE);
            assertThat(resumed).isEqualTo(QueueRecord.defaults(QUEUE));
            assertThat(store.queue(QUEUE)).isEqualTo(resumed);
            assertThat(store.pauseQueue(QUEUE, null)).isEqualTo(new QueueRecord(QUEUE, true, null, 0, 0));
            assertThat(store.queue("other")).isEqualTo(QueueRecord.defaults("other"));
        }

        @Test
        public void theConcurrencyLimitIsKeptAcrossPauseAndResume() {
            assertThat(store.setConcurrency(QUEUE, 4)).isEqualTo(new QueueRecord(QUEUE, false, null, 4, 0));
            assertThat(store.pauseQueue(QUEUE, "r")).isEqualTo(new QueueRecord(QUEUE, true, "r", 4, 0));
            assertThat(store.setConcurrency(QUEUE, 2)).isEqualTo(new QueueRecord(QUEUE, true, "r", 2, 0));
            assertThat(store.resumeQueue(QUEUE)).isEqualTo(new QueueRecord(QUEUE, false, null, 2, 0));
            assertThatThrownBy(() -> store.setConcurrency(QUEUE, -1)).isInstanceOf(IllegalArgumentException.class);
            assertThat(store.queue(QUEUE)).isEqualTo(new QueueRecord(QUEUE, false, null, 2, 0));
            assertThat(store.setConcurrency(QUEUE, 0).concurrency()).isZero();
        }

        @Test
        public void theStarvationCountIsKeptByPauseResumeAndLimit() {
            create(spec().priority(10));
            create(spec().priority(0));
            tasksOf(store.claim(claimOf(OWNER, T0, LEASE, 1, 3)));
            assertThat(store.queue(QUEUE).skippedLower()).isEqualTo(1);
            assertThat(store.pauseQueue(QUEUE, null).skippedLower()).isEqualTo(1);
            assertThat(store.resumeQueue(QUEUE).skippedLower()).isEqualTo(1);
            assertThat(store.setConcurrency(QUEUE, 5).skippedLower()).isEqualTo(1);
        }
    }

    // --- groups of children -----------------------------------------------------------------------

    @Nested
    public class Groups {

        @Test
        public void aSealedGroupOpensWithItsChildrenInTheWriteThatChangesItsOwner() {
            TaskRecord parent = create();
            List<NewTask> children = List.of(childOf(parent).build(), childOf(parent).priority(2).build(),
                    childOf(parent).payload("p").build());
            ApplyResult r = store.applyAll(List.of(move(parent, WAITING, "split")), List.of(GroupWrite.sealed(parent.id(), children)));

            assertThat(r).isEqualTo(ApplyResult.APPLIED);
            assertThat(get(parent.id()).state()).isEqualTo(WAITING);
            List<TaskRecord> made = store.query(TaskQuery.all().parent(parent.id())).items();
            assertThat(made).hasSize(3).allSatisfy(c -> {
                assertThat(c.state()).isEqualTo(READY);
                assertThat(c.version()).isZero();
                assertThat(store.history(c.id())).isEmpty();
            });
            GroupRecord g = groupOf(parent.id());
            assertThat(g.ownerId()).isEqualTo(parent.id());
            assertThat(g.kind()).isEqualTo(GroupKind.CHILDREN);
            assertThat(g.sealed()).isTrue();
            assertThat(g.total()).isEqualTo(3);
            assertThat(g.counts()).as("counted in the write that created them").isEqualTo(Map.of(member(READY), 3L));
            assertThat(g.resolution()).isNull();
            assertThat(g.hold()).isFalse();
            assertThat(g.awaiting()).isFalse();
            assertThat(store.dependencies(parent.id())).isEmpty();
            assertThat(store.pendingMarks()).as("the group write asks for a look at its owner").isPositive();

            List<GroupRecord> seen = new ArrayList<>();
            assertThat(resolveAll(v -> {
                seen.add(v.group());
                assertThat(v.owner()).isEqualTo(get(parent.id()));
                return KEEP.resolve(v);
            })).isPositive();
            assertThat(seen).allSatisfy(s -> assertThat(s).isEqualTo(g));
            assertThat(groupOf(parent.id())).isEqualTo(g);
            assertThat(store.group(made.get(0).id())).as("a child owns no group").isEmpty();
        }

        @Test
        public void aRepeatedCommandCreatesNoChildTwice() {
            TaskRecord parent = create();
            Change split = move(parent, WAITING, "split-1");
            GroupWrite children = GroupWrite.sealed(parent.id(), List.of(childOf(parent).build(), childOf(parent).build()));
            assertThat(store.applyAll(List.of(split), List.of(children))).isEqualTo(ApplyResult.APPLIED);
            TaskRecord waiting = get(parent.id());

            ApplyResult again = store.applyAll(List.of(split), List.of(children));
            assertThat(again.status()).isEqualTo(ApplyResult.Status.DUPLICATE_COMMAND);
            assertThat(again.taskId()).isEqualTo(parent.id());
            ApplyResult stale = store.applyAll(List.of(move(parent, WAITING, null)), List.of(children));
            assertThat(stale).isEqualTo(ApplyResult.conflict(parent.id()));
            ApplyResult missing = store.applyAll(List.of(), List.of(GroupWrite.open(parent.id() + 1000, List.of())));
            assertThat(missing).isEqualTo(ApplyResult.notFound(parent.id() + 1000));

            assertThat(get(parent.id())).isEqualTo(waiting);
            assertThat(store.query(TaskQuery.all().parent(parent.id())).items()).hasSize(2);
            assertThat(groupOf(parent.id()).total()).isEqualTo(2);
            resolveAll(KEEP);
            assertThat(groupOf(parent.id()).counts()).isEqualTo(Map.of(member(READY), 2L));
            assertThat(store.group(parent.id() + 1000)).isEmpty();
        }

        @Test
        public void childrenWhoseKeysExistAreCountedOnce() {
            TaskRecord parent = create(spec().state(WAITING));
            List<NewTask> first = List.of(childOf(parent).key("c-1").build(), childOf(parent).key("c-2").build(),
                    childOf(parent).key("c-1").build());
            assertThat(store.applyAll(List.of(), List.of(GroupWrite.open(parent.id(), first)))).isEqualTo(ApplyResult.APPLIED);
            assertThat(groupOf(parent.id()).total()).as("a key named twice in one write").isEqualTo(2);
            List<NewTask> second = List.of(childOf(parent).key("c-2").build(), childOf(parent).key("c-3").build());
            assertThat(store.applyAll(List.of(), List.of(GroupWrite.sealed(parent.id(), second)))).isEqualTo(ApplyResult.APPLIED);

            assertThat(store.query(TaskQuery.all().parent(parent.id())).items()).hasSize(3);
            GroupRecord g = groupOf(parent.id());
            assertThat(g.sealed()).isTrue();
            assertThat(g.total()).isEqualTo(3);
            resolveAll(KEEP);
            assertThat(groupOf(parent.id()).counts()).isEqualTo(Map.of(member(READY), 3L));
            assertThat(groupOf(parent.id()).total()).isEqualTo(3);
        }

        @Test
        public void childrenAreNotAddedToASealedGroup() {
            TaskRecord parent = create(spec().state(WAITING));
            assertThat(store.applyAll(List.of(), List.of(GroupWrite.sealed(parent.id(), List.of(childOf(parent).key("c-1").build())))))
                    .isEqualTo(ApplyResult.APPLIED);
            TaskRecord other = create();

            assertThatThrownBy(() -> store.applyAll(List.of(move(parent, RUNNING, null), move(other, DONE, null)),
                    List.of(GroupWrite.open(parent.id(), List.of(childOf(parent).key("c-2").build())))))
                    .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.GROUP_SEALED));
            assertThatThrownBy(() -> store.create(childOf(parent).build()))
                    .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.GROUP_SEALED));
            assertThatThrownBy(() -> store.createAll(List.of(spec().build(), childOf(parent).build())))
                    .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.GROUP_SEALED));
            assertThat(get(parent.id())).isEqualTo(parent);
            assertThat(get(other.id())).isEqualTo(other);
            assertThat(store.query(TaskQuery.all().parent(parent.id())).items()).hasSize(1);

            // a child that exists already is no addition
            TaskRecord existing = store.query(TaskQuery.all().parent(parent.id())).items().get(0);
            CreateResult again = store.create(childOf(parent).key("c-1").build());
            assertThat(again.created()).isFalse();
            assertThat(again.task()).isEqualTo(existing);
            assertThat(store.applyAll(List.of(), List.of(GroupWrite.open(parent.id(), List.of(childOf(parent).key("c-1").build())))))
                    .isEqualTo(ApplyResult.APPLIED);
            assertThat(store.query(TaskQuery.all().parent(parent.id())).items()).containsExactly(existing);
            resolveAll(KEEP);
            assertThat(groupOf(parent.id()).total()).isEqualTo(1);
        }

        @Test
        public void childrenCreatedUnderAnOpenGroupAreCountedByThePass() {
            TaskRecord parent = create(spec().state(WAITING));
            assertThat(store.applyAll(List.of(), List.of(GroupWrite.open(parent.id(), List.of(childOf(parent).build())))))
                    .isEqualTo(ApplyResult.APPLIED);
            assertThat(groupOf(parent.id()).sealed()).isFalse();
            create(childOf(parent).state(RUNNING));
            store.createAll(List.of(childOf(parent).build(), childOf(parent).state(DONE).build(), spec().build()));
            assertThat(groupOf(parent.id()).total()).as("until a pass").isEqualTo(1);

            resolveAll(KEEP);
            GroupRecord g = groupOf(parent.id());
            assertThat(g.total()).isEqualTo(4);
            assertThat(g.counts()).isEqualTo(Map.of(member(READY), 2L, member(RUNNING), 1L, member(DONE), 1L));

            assertThat(store.applyAll(List.of(), List.of(new GroupWrite(parent.id(), List.of(), true, null))))
                    .isEqualTo(ApplyResult.APPLIED);
            assertThat(groupOf(parent.id()).sealed()).isTrue();
            assertThat(groupOf(parent.id()).total()).isEqualTo(4);
        }

        @Test
        public void aHeldGroupsMembersAreNotClaimedUntilItIsReleased() {
            TaskRecord parent = create(spec().state(WAITING));
            TaskRecord loose = create(spec().priority(-1));
            assertThat(store.applyAll(List.of(), List.of(new GroupWrite(parent.id(),
                    List.of(childOf(parent).priority(5).build(), childOf(parent).priority(5).build()), true, true))))
                    .isEqualTo(ApplyResult.APPLIED);
            GroupRecord held = groupOf(parent.id());
            assertThat(held.hold()).isTrue();
            assertThat(held.sealed()).isTrue();
            List<Long> children = queryIds(TaskQuery.all().parent(parent.id()));

            assertThat(ids(store.peek(claimOf(OWNER, T0, LEASE, 10, 0)))).containsExactly(loose.id());
            assertThat(ids(claim(10))).containsExactly(loose.id());

            assertThat(store.applyAll(List.of(), List.of(GroupWrite.hold(parent.id(), false)))).isEqualTo(ApplyResult.APPLIED);
            assertThat(groupOf(parent.id()).hold()).isFalse();
            assertThat(groupOf(parent.id()).sealed()).as("a hold changes nothing else").isTrue();
            assertThat(ids(claim(10))).containsExactlyElementsOf(children);
        }

        @Test
        public void aGroupWriteNeedsSomethingToWriteAndEachOwnerOnce() {
            TaskRecord parent = create(spec().state(WAITING));
            assertThatThrownBy(() -> store.applyAll(List.of(), List.of())).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.applyAll(List.of(), List.of(GroupWrite.open(parent.id(), List.of()),
                    GroupWrite.hold(parent.id(), true)))).isInstanceOf(IllegalArgumentException.class);
            assertThat(store.group(parent.id())).isEmpty();
        }
    }

    // --- resolution passes ------------------------------------------------------------------------

    @Nested
    public class GroupPasses {

        @Test
        public void aPassCountsClaimsCompletionsAndRetries() {
            TaskRecord parent = ownerOfSealed(3);
            resolveAll(KEEP);
            List<TaskRecord> running = claim(2);
            assertThat(store.pendingMarks()).as("one mark per claim").isEqualTo(2);
            assertThat(groupOf(parent.id()).counts()).as("counts change only in a pass").isEqualTo(Map.of(member(READY), 3L));
            resolveAll(KEEP);
            assertThat(groupOf(parent.id()).counts()).isEqualTo(Map.of(member(READY), 1L, member(RUNNING), 2L));

            applied(release(running.get(0), DONE));
            TaskRecord retried = applied(release(running.get(1), READY));
            applied(change(retried, b -> b.attributes(Attributes.of("note", "again")), null));
            assertThat(store.pendingMarks()).as("a change that keeps the state writes no mark").isEqualTo(2);
            resolveAll(KEEP);
            GroupRecord g = groupOf(parent.id());
            assertThat(g.counts()).isEqualTo(Map.of(member(READY), 2L, member(DONE), 1L));
            assertThat(g.total()).isEqualTo(3);
            assertThat(store.pendingMarks()).isZero();
        }

        @Test
        public void aPassWritesTheResolversChangesCreationsAndCancellations() {
            TaskRecord parent = ownerOfSealed(2);
            List<TaskRecord> running = claim(2);
            TaskRecord done = applied(release(running.get(0), DONE));
            long stillRunning = running.get(1).id();
            List<List<Long>> read = new ArrayList<>();
            NewTask report = spec().machine("report").key("report-of-" + parent.id()).build();
            GroupResolver resolver = v -> {
                GroupRecord g = v.group();
                if (g.resolution() != null || g.count(MACHINE, DONE) == 0) return Resolution.keep(g);
                read.add(ids(v.members().inState(MACHINE, RUNNING, 0, 10)));
                read.add(ids(v.members().inState(MACHINE, DONE, 0, 10)));
                read.add(ids(v.members().inState(MACHINE, RUNNING, stillRunning, 10)));
                read.add(ids(v.members().inState(MACHINE, READY, 0, 10)));
                return new Resolution(List.of(move(v.owner(), "REDUCING", null)), List.of(report), List.of(stillRunning),
                        "FIRST_DONE", false);
            };

            GroupPass pass = store.resolveGroups(List.of(MACHINE), T0, 10, resolver);
            assertStored(pass);
            assertThat(pass.resolved()).isEqualTo(1);
            assertThat(pass.changes()).as("the owner's change, as stored").singleElement().satisfies(w -> {
                assertThat(w.task().id()).isEqualTo(parent.id());
                assertThat(w.task().state()).isEqualTo("REDUCING");
                assertThat(w.entry().to()).isEqualTo("REDUCING");
            });
            assertThat(pass.groups()).extracting(GroupRecord::ownerId, GroupRecord::resolution)
                    .containsExactly(tuple(parent.id(), "FIRST_DONE"));
            assertThat(pass.marksLeft()).as("the owner's own change asks for a look").isTrue();
            assertThat(read).containsExactly(List.of(stillRunning), List.of(done.id()), List.of(), List.of());
            TaskRecord owner = get(parent.id());
            assertThat(owner.state()).isEqualTo("REDUCING");
            assertUnbrokenChain(parent.id(), WAITING);
            CreateResult again = store.create(report);
            assertThat(again.created()).as("the follow-on task exists").isFalse();
            assertThat(store.cancelRequested(stillRunning)).isTrue();
            assertThat(store.cancelRequested(done.id())).isFalse();
            GroupRecord g = groupOf(parent.id());
            assertThat(g.resolution()).isEqualTo("FIRST_DONE");
            assertThat(g.awaiting()).isFalse();
            assertThat(g.counts()).isEqualTo(Map.of(member(RUNNING), 1L, member(DONE), 1L));
            assertThat(store.pendingMarks()).as("the marks were taken; the owner's own change asks for a look").isEqualTo(1);

            resolveAll(resolver);
            assertThat(get(parent.id())).isEqualTo(owner);
            assertThat(store.query(TaskQuery.all().machine("report")).items()).hasSize(1);
        }

        @Test
        public void aResolverChangeThatConflictsWritesNothingAndLeavesTheMarks() {
            TaskRecord parent = ownerOfSealed(1);
            resolveAll(KEEP);
            TaskRecord stale = claim(1).get(0);
            applied(release(stale, DONE));
            long marks = store.pendingMarks();
            GroupRecord before = groupOf(parent.id());
            GroupResolver conflicting = v -> new Resolution(List.of(move(v.owner(), DONE, null), release(stale, "FAILED")),
                    List.of(spec().key("never").build()), List.of(stale.id()), "ALL_DONE", false);

            GroupPass refused = store.resolveGroups(List.of(MACHINE), T0, 10, conflicting);
            assertThat(refused.resolved()).isZero();
            assertThat(refused.changes()).as("a refused pass returns nothing written").isEmpty();
            assertThat(refused.groups()).isEmpty();
            assertThat(refused.marksLeft()).isTrue();
            assertThat(get(parent.id())).isEqualTo(parent);
            assertThat(store.history(parent.id())).isEmpty();
            assertThat(store.query(TaskQuery.all()).items()).hasSize(2);
            assertThat(store.cancelRequested(stale.id())).isFalse();
            assertThat(groupOf(parent.id())).isEqualTo(before);
            assertThat(store.pendingMarks()).isEqualTo(marks);

            assertThat(resolveOnce(List.of(MACHINE), 10, KEEP)).as("the next pass takes the marks").isEqualTo(1);
            assertThat(groupOf(parent.id()).counts()).isEqualTo(Map.of(member(DONE), 1L));
            assertThat(store.pendingMarks()).isZero();
        }

        @Test
        public void groupsOfNoChildAndOfOneChildResolve() {
            TaskRecord empty = create(spec().state(WAITING));
            TaskRecord single = create(spec().state(WAITING));
            assertThat(store.applyAll(List.of(), List.of(GroupWrite.sealed(empty.id(), List.of()),
                    GroupWrite.sealed(single.id(), List.of(childOf(single).build()))))).isEqualTo(ApplyResult.APPLIED);
            GroupResolver allDone = v -> {
                GroupRecord g = v.group();
                if (g.resolution() != null || !g.sealed() || g.count(MACHINE, DONE) != g.total()) return Resolution.keep(g);
                return new Resolution(List.of(move(v.owner(), DONE, null)), List.of(), List.of(), "ALL_DONE", false);
            };

            resolveAll(allDone);
            assertThat(get(empty.id()).state()).isEqualTo(DONE);
            assertThat(get(single.id()).state()).isEqualTo(WAITING);
            assertThat(groupOf(empty.id()).resolution()).isEqualTo("ALL_DONE");
            assertThat(groupOf(empty.id()).total()).isZero();
            assertThat(groupOf(empty.id()).counts()).isEmpty();

            applied(release(claim(1).get(0), DONE));
            resolveAll(allDone);
            assertThat(get(single.id()).state()).isEqualTo(DONE);
            assertThat(store.history(single.id())).hasSize(1);
            assertThat(groupOf(single.id()).resolution()).isEqualTo("ALL_DONE");
            assertThat(groupOf(single.id()).counts()).isEqualTo(Map.of(member(DONE), 1L));
        }

        @Test
        public void anAwaitingGroupIsResolvedAgainWithoutANewMarkLeastRecentlyCheckedFirst() {
            TaskRecord first = ownerOfSealed(1);
            TaskRecord second = ownerOfSealed(1);
            List<Long> seen = new ArrayList<>();
            GroupResolver waiting = v -> {
                seen.add(v.owner().id());
                return new Resolution(List.of(), List.of(), List.of(), null, seen.size() < 5);
            };
            assertThat(resolveOnce(List.of(MACHINE), 10, waiting)).isEqualTo(2);
            assertThat(store.pendingMarks()).isZero();
            assertThat(groupOf(first.id()).awaiting()).isTrue();
            assertThat(groupOf(second.id()).awaiting()).isTrue();
            assertThat(resolveOnce(List.of(MACHINE), 1, waiting)).isEqualTo(1);
            assertThat(resolveOnce(List.of(MACHINE), 1, waiting)).isEqualTo(1);
            assertThat(resolveOnce(List.of(MACHINE), 1, waiting)).isEqualTo(1);
            assertThat(seen).containsExactly(first.id(), second.id(), first.id(), second.id(), first.id());
            assertThat(groupOf(first.id()).awaiting()).isFalse();
            assertThat(resolveOnce(List.of(MACHINE), 10, waiting)).isEqualTo(1);
            assertThat(seen).hasSize(6).endsWith(second.id());
            assertThat(groupOf(second.id()).awaiting()).isFalse();
            assertThat(resolveOnce(List.of(MACHINE), 10, waiting)).isZero();
        }

        @Test
        public void aPassTakesOnlyGroupsOfTheMachinesGiven() {
            TaskRecord parent = ownerOfSealed(1);
            long marks = store.pendingMarks();
            assertThat(resolveOnce(List.of("other"), 10, KEEP)).isZero();
            assertThat(store.pendingMarks()).isEqualTo(marks);
            assertThat(resolveOnce(List.of("other", MACHINE), 10, KEEP)).isEqualTo(1);
            assertThat(store.pendingMarks()).isZero();
            assertThatThrownBy(() -> store.resolveGroups(List.of(MACHINE), T0, 0, KEEP)).isInstanceOf(IllegalArgumentException.class);
            assertThat(groupOf(parent.id()).counts()).isEqualTo(Map.of(member(READY), 1L));
        }

        @Test
        public void aResolverThatFailsWritesNothingAndLeavesTheMarks() {
            TaskRecord parent = ownerOfSealed(1);
            applied(release(claim(1).get(0), DONE));
            long marks = store.pendingMarks();
            GroupRecord before = groupOf(parent.id());
            GroupResolver failing = v -> {
                throw new IllegalStateException("resolver failed");
            };
            assertThatThrownBy(() -> store.resolveGroups(List.of(MACHINE), T0, 10, failing))
                    .isInstanceOf(IllegalStateException.class).hasMessage("resolver failed");
            assertThat(store.pendingMarks()).isEqualTo(marks);
            assertThat(groupOf(parent.id())).isEqualTo(before);
            resolveAll(KEEP);
            assertThat(groupOf(parent.id()).counts()).isEqualTo(Map.of(member(DONE), 1L));
        }

        /**
         * Members complete (some after a retry) on several threads while passes run on others: every
         * pass sees counts that add up to the total and never go below zero (it takes every member's
         * changes up to some point, never a later one without an earlier one), and at the end the
         * counts are exact and each owner's event fired once.
         */
        @Test
        public void countsStayExactWhileMembersCompleteAndPassesRunConcurrently() throws Exception {
            int owners = 4;
            int perOwner = 50;
            int members = owners * perOwner;
            List<TaskRecord> parents = new ArrayList<>();
            for (int i = 0; i < owners; i++) parents.add(ownerOfSealed(perOwner));
            AtomicInteger fired = new AtomicInteger();
            GroupResolver once = v -> {
                GroupRecord g = v.group();
                long sum = 0;
                for (Map.Entry<MemberState, Long> e : g.counts().entrySet()) {
                    if (e.getValue() < 0) throw new AssertionError("count " + e + " below zero in " + g);
                    sum += e.getValue();
                }
                if (sum != g.total()) throw new AssertionError("counts " + g.counts() + " do not add up to " + g.total());
                if (g.resolution() != null || g.count(MACHINE, DONE) != g.total()) return Resolution.keep(g);
                fired.incrementAndGet();
                return new Resolution(List.of(move(v.owner(), DONE, null)), List.of(), List.of(), "ALL_DONE", false);
            };
            int workers = 3;
            int passers = 2;
            AtomicInteger completed = new AtomicInteger();
            Set<Long> retried = ConcurrentHashMap.newKeySet();
            concurrently(workers + passers, thread -> {
                if (thread < workers) {
                    for (long round = 0; completed.get() < members; round++) {
                        assertThat(round).as("claim rounds").isLessThan(1_000_000);
                        if (Thread.currentThread().isInterrupted()) throw new InterruptedException();
                        for (TaskRecord t : tasksOf(store.claim(claimOf("worker-" + thread, T0, LEASE, 5, 0)))) {
                            boolean retry = t.id() % 5 == 0 && retried.add(t.id());
                            assertThat(store.apply(release(t, retry ? READY : DONE)).applied()).isTrue();
                            if (!retry) completed.incrementAndGet();
                        }
                    }
                } else {
                    while (completed.get() < members) {
                        if (Thread.currentThread().isInterrupted()) throw new InterruptedException();
                        store.resolveGroups(List.of(MACHINE), T0, 3, once);
                    }
                }
            });
            resolveAll(once);

            assertThat(retried).isNotEmpty();
            assertThat(store.pendingMarks()).isZero();
            for (TaskRecord p : parents) {
                GroupRecord g = groupOf(p.id());
                assertThat(g.total()).isEqualTo(perOwner);
                assertThat(g.counts()).isEqualTo(Map.of(member(DONE), (long) perOwner));
                assertThat(g.resolution()).isEqualTo("ALL_DONE");
                assertThat(get(p.id()).state()).isEqualTo(DONE);
                assertThat(store.history(p.id())).as("the owner's event of task %s", p.id()).hasSize(1);
            }
            assertThat(fired.get()).isEqualTo(owners);
        }
    }

    // --- groups of dependencies -------------------------------------------------------------------

    @Nested
    public class Dependencies {

        @Test
        public void aDependentIsNotClaimedUntilAPassReleasesIt() {
            TaskRecord dependency = applied(move(create(), DONE, null));
            TaskRecord dependent = create(spec().dependsOn(dependency.id()));
            assertThat(groupOf(dependent.id()).hold()).isTrue();
            assertThat(ids(store.peek(claimOf(OWNER, T0, LEASE, 10, 0)))).isEmpty();
            assertThat(claim(10)).isEmpty();

            resolveAll(v -> new Resolution(List.of(), List.of(), List.of(), "released", false, false));
            assertThat(groupOf(dependent.id()).hold()).isFalse();
            assertThat(groupOf(dependent.id()).resolution()).isEqualTo("released");
            assertThat(ids(claim(10))).containsExactly(dependent.id());
        }

        @Test
        public void aTaskWithDependenciesCountsTheirStatesWhenItIsCreated() {
            TaskRecord ready = create();
            TaskRecord done = applied(move(create(), DONE, null));
            TaskRecord other = create(spec().machine("other").state(RUNNING));
            TaskRecord waiter = create(spec().state(WAITING).dependsOn(done.id(), ready.id(), other.id()));
            TaskRecord second = create(spec().state(WAITING).dependsOn(ready.id()));

            GroupRecord g = groupOf(waiter.id());
            assertThat(g.kind()).isEqualTo(GroupKind.DEPENDENCIES);
            assertThat(g.sealed()).isTrue();
            assertThat(g.total()).isEqualTo(3);
            assertThat(g.counts()).isEqualTo(Map.of(member(READY), 1L, member(DONE), 1L, new MemberState("other", RUNNING), 1L));
            assertThat(g.resolution()).isNull();
            assertThat(g.hold()).isTrue();                       // held until the resolver releases it
            assertThat(store.dependencies(waiter.id())).containsExactly(done.id(), ready.id(), other.id());
            assertThat(store.dependencies(second.id())).containsExactly(ready.id());
            assertThat(store.dependencies(ready.id())).isEmpty();
            assertThat(store.group(ready.id())).isEmpty();

            applied(move(ready, DONE, null));
            List<List<Long>> read = new ArrayList<>();
            resolveAll(v -> {
                if (v.owner().id() == waiter.id()) read.add(ids(v.members().inState(MACHINE, DONE, 0, 10)));
                return KEEP.resolve(v);
            });
            assertThat(read).last().isEqualTo(List.of(ready.id(), done.id()));
            assertThat(groupOf(waiter.id()).counts()).isEqualTo(Map.of(member(DONE), 2L, new MemberState("other", RUNNING), 1L));
            assertThat(groupOf(second.id()).counts()).isEqualTo(Map.of(member(DONE), 1L));
        }

        @Test
        public void anUnknownDependencyIsRefusedAndNothingIsCreated() {
            TaskRecord d = create();
            assertThatThrownBy(() -> store.create(spec().dependsOn(d.id(), d.id() + 1000).build()))
                    .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_DEPENDENCY));
            assertThat(queryIds(TaskQuery.all())).containsExactly(d.id());
            assertThat(store.pendingMarks()).isZero();
            assertThatThrownBy(() -> store.create(spec().dependsOn(-1L).build())).isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        public void tasksCreatedTogetherThatWouldDependInACycleAreRefusedWithACode() {
            long before = queryIds(TaskQuery.all()).size();
            for (List<Long> deps : List.of(List.of(-1L), List.of(-2L))) {      // itself; the next task
                assertThatThrownBy(() -> store.createAll(List.of(spec().dependsOn(deps.toArray(new Long[0])).build(), spec().build())))
                        .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.DEPENDENCY_CYCLE));
            }
            assertThat(queryIds(TaskQuery.all())).hasSize((int) before);
        }

        @Test
        public void createAllNamesEarlierTasksOfTheListByNegativeNumbers() {
            TaskRecord existing = create();
            List<CreateResult> results = store.createAll(List.of(spec().build(), spec().dependsOn(-1L).build(),
                    spec().dependsOn(existing.id(), -2L, -1L).build(), spec().build()));
            long a = results.get(0).task().id();
            long b = results.get(1).task().id();
            long c = results.get(2).task().id();
            assertThat(store.dependencies(b)).containsExactly(a);
            assertThat(store.dependencies(c)).containsExactly(existing.id(), b, a);
            assertThat(store.dependencies(a)).isEmpty();
            assertThat(store.dependencies(results.get(3).task().id())).isEmpty();
            assertThat(groupOf(c).total()).isEqualTo(3);
            assertThat(groupOf(c).counts()).isEqualTo(Map.of(member(READY), 3L));
            assertThat(store.group(a)).isEmpty();

            assertThatThrownBy(() -> store.createAll(List.of(spec().build(), spec().dependsOn(-2L).build())))
                    .as("a task cannot name itself").isInstanceOfSatisfying(StatekitException.class,
                            e -> assertThat(e.code()).isEqualTo(ErrorCode.DEPENDENCY_CYCLE));
            assertThatThrownBy(() -> store.createAll(List.of(spec().dependsOn(-2L).build(), spec().build())))
                    .as("nor a later one").isInstanceOfSatisfying(StatekitException.class,
                            e -> assertThat(e.code()).isEqualTo(ErrorCode.DEPENDENCY_CYCLE));
        }

        @Test
        public void aTaskWaitingOnDependenciesTakesNoGroupOfChildren() {
            TaskRecord d = create();
            TaskRecord waiter = create(spec().state(WAITING).dependsOn(d.id()));
            assertThatThrownBy(() -> store.applyAll(List.of(), List.of(GroupWrite.open(waiter.id(), List.of(childOf(waiter).build())))))
                    .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
            assertThat(store.query(TaskQuery.all().parent(waiter.id())).items()).isEmpty();
            create(childOf(waiter));
            resolveAll(KEEP);
            assertThat(groupOf(waiter.id()).kind()).isEqualTo(GroupKind.DEPENDENCIES);
            assertThat(groupOf(waiter.id()).total()).as("a child is no dependency").isEqualTo(1);
        }

        @Test
        public void aChildWithDependenciesIsCountedInItsParentsGroup() {
            TaskRecord parent = create(spec().state(WAITING));
            assertThat(store.applyAll(List.of(), List.of(GroupWrite.open(parent.id(), List.of())))).isEqualTo(ApplyResult.APPLIED);
            TaskRecord d = create();
            TaskRecord child = create(childOf(parent).state(WAITING).dependsOn(d.id()));
            resolveAll(KEEP);
            assertThat(groupOf(parent.id()).total()).isEqualTo(1);
            assertThat(groupOf(parent.id()).counts()).isEqualTo(Map.of(member(WAITING), 1L));
            assertThat(groupOf(child.id()).counts()).isEqualTo(Map.of(member(READY), 1L));
        }

        /**
         * A task created with a parent and a dependency waits for both (its parent's group must not be
         * sealed meanwhile, its dependency's state must not change before it is counted) while another
         * writer changes both at once: neither waits for the other forever.
         */
        @Test
        public void creatingUnderAParentWithADependencyWhileBothChangeDoesNotDeadlock() throws Exception {
            TaskRecord dependency = create(spec().state(WAITING));
            TaskRecord parent = create(spec().state(WAITING));
            assertThat(store.applyAll(List.of(), List.of(GroupWrite.open(parent.id(), List.of())))).isEqualTo(ApplyResult.APPLIED);
            int rounds = 200;
            concurrently(2, thread -> {
                for (int i = 0; i < rounds; i++) {
                    if (thread == 0) {
                        store.create(childOf(parent).dependsOn(dependency.id()).build());
                    } else {
                        String next = i % 2 == 0 ? RUNNING : WAITING;
                        assertThat(store.applyAll(List.of(move(get(dependency.id()), next, null), move(get(parent.id()), next, null))))
                                .isEqualTo(ApplyResult.APPLIED);
                    }
                }
            });
            resolveAll(KEEP);
            assertThat(groupOf(parent.id()).total()).isEqualTo(rounds);
            TaskRecord d = get(dependency.id());
            for (TaskRecord child : store.query(TaskQuery.all().parent(parent.id()).limit(rounds + 1)).items()) {
                assertThat(groupOf(child.id()).counts()).isEqualTo(Map.of(member(d.state()), 1L));
            }
        }
    }

    // --- purge ------------------------------------------------------------------------------------

    @Nested
    public class Purge {

        @Test
        public void purgeDeletesOnlyOldLeaseFreeChildlessTasksOfTheMachineInTheStates() {
            Instant cutoff = T0.plus(HOUR);
            TaskRecord oldDone = applied(move(create(), DONE, "finish"));
            TaskRecord oldFailed = applied(move(create(), "FAILED", null));
            TaskRecord keyed = applied(move(create(spec().key("order-1")), DONE, "finish"));
            TaskRecord recent = applied(change(create(), b -> b.state(DONE).updatedAt(T0.plus(HOUR.multipliedBy(2))), null));
            TaskRecord atCutoff = applied(change(create(), b -> b.state(DONE).updatedAt(cutoff), null));
            TaskRecord running = applied(move(create(), RUNNING, null));
            TaskRecord otherMachine = applied(move(create(spec().machine("other")), DONE, null));
            TaskRecord leased = applied(move(claimOne(create(spec().priority(9)).id(), OWNER, LEASE), DONE, null));
            TaskRecord parent = applied(move(create(), DONE, null));
            TaskRecord child = create(spec().machine("chunk").parent(parent.id()).state(RUNNING));
            assertThat(leased.lease()).isNotNull();

            int purged = store.purge(MACHINE, List.of(DONE, "FAILED"), cutoff, 100);
            assertThat(purged).isEqualTo(3);
            for (TaskRecord gone : List.of(oldDone, oldFailed, keyed)) {
                assertThat(store.find(gone.id())).isEmpty();
                assertThat(store.history(gone.id())).isEmpty();
            }
            assertThat(store.findCommand(oldDone.id(), "finish")).isEmpty();
            assertThat(store.findCommand(keyed.id(), "finish")).isEmpty();
            for (TaskRecord kept : List.of(recent, atCutoff, running, otherMachine, leased, parent, child)) {
                assertThat(get(kept.id())).isEqualTo(kept);
            }
            assertThat(queryIds(TaskQuery.all())).containsExactly(recent.id(), atCutoff.id(), running.id(), otherMachine.id(),
                    leased.id(), parent.id(), child.id());
            assertThat(store.history(parent.id())).hasSize(1);

            CreateResult reused = store.create(spec().key("order-1").build());
            assertThat(reused.created()).as("the key of a purged task can be used again").isTrue();
            assertThat(reused.task().id()).isNotEqualTo(keyed.id());
            assertThat(reused.task().version()).isZero();
            assertThat(store.history(reused.task().id())).isEmpty();
        }

        @Test
        public void purgeDeletesAtMostMaxTasks() {
            for (int i = 0; i < 3; i++) applied(move(create(), DONE, null));
            assertThat(store.purge(MACHINE, List.of(DONE), T0.plus(HOUR), 1)).isEqualTo(1);
            assertThat(store.query(TaskQuery.all()).items()).hasSize(2);
            assertThat(store.purge(MACHINE, List.of(DONE), T0.plus(HOUR), 10)).isEqualTo(2);
            assertThat(store.query(TaskQuery.all()).items()).isEmpty();
            assertThat(store.purge(MACHINE, List.of(DONE), T0.plus(HOUR), 10)).isZero();
        }

        @Test
        public void aParentIsPurgedOnceItsChildrenAreGone() {
            TaskRecord parent = applied(move(create(), DONE, null));
            TaskRecord child = applied(move(create(spec().machine("chunk").parent(parent.id())), DONE, null));
            assertThat(store.purge(MACHINE, List.of(DONE), T0.plus(HOUR), 10)).isZero();
            assertThat(store.purge("chunk", List.of(DONE), T0.plus(HOUR), 10)).isEqualTo(1);
            assertThat(store.find(child.id())).isEmpty();
            assertThat(store.purge(MACHINE, List.of(DONE), T0.plus(HOUR), 10)).isEqualTo(1);
            assertThat(store.find(parent.id())).isEmpty();
        }

        @Test
        public void purgeKeepsDependenciesAndOwnersWithMarksAndDeletesAGroupWithItsOwner() {
            Instant cutoff = T0.plus(HOUR);
            TaskRecord dependency = applied(move(create(), DONE, null));
            TaskRecord waiter = applied(move(create(spec().dependsOn(dependency.id())), DONE, null));
            assertThat(store.pendingMarks()).isPositive();
            assertThat(store.purge(MACHINE, List.of(DONE), cutoff, 10)).as("a dependency, and an owner whose marks wait").isZero();

            resolveAll(KEEP);
            assertThat(store.purge(MACHINE, List.of(DONE), cutoff, 10)).as("the owner; its dependency stays while it exists")
                    .isEqualTo(1);
            assertThat(store.find(waiter.id())).isEmpty();
            assertThat(store.group(waiter.id())).isEmpty();
            assertThat(store.dependencies(waiter.id())).isEmpty();
            assertThat(get(dependency.id())).isEqualTo(dependency);
            assertThat(store.purge(MACHINE, List.of(DONE), cutoff, 10)).isEqualTo(1);
            assertThat(store.find(dependency.id())).isEmpty();

            TaskRecord parent = create(spec().state(WAITING));
            assertThat(store.applyAll(List.of(), List.of(GroupWrite.sealed(parent.id(), List.of(spec().machine("chunk")
                    .parent(parent.id()).state(DONE).build()))))).isEqualTo(ApplyResult.APPLIED);
            applied(move(parent, DONE, null));
            resolveAll(KEEP);
            assertThat(store.purge(MACHINE, List.of(DONE), cutoff, 10)).as("a parent").isZero();
            assertThat(store.purge("chunk", List.of(DONE), cutoff, 10)).isEqualTo(1);
            assertThat(groupOf(parent.id()).total()).as("a purge is no change of state").isEqualTo(1);
            assertThat(store.purge(MACHINE, List.of(DONE), cutoff, 10)).isEqualTo(1);
            assertThat(store.group(parent.id())).isEmpty();
            assertThat(store.pendingMarks()).isZero();
            assertThat(store.query(TaskQuery.all()).items()).isEmpty();
        }
    }

    // --- a model over random scripts ---------------------------------------------------------------

    /**
     * Any script of creations, changes, claims, renewals, moves to the front and completions keeps
     * what a model predicts: claims in priority and FIFO order up to the limit, version equal to
     * history length with an unbroken chain, at most one lease per task with tokens that only grow,
     * and every task created still there.
     */
    @Property(tries = 40)
    public void anyScriptKeepsVersionsHistoriesLeasesAndTasks(@ForAll("scripts") List<ScriptModel.Step> script,
                                                               @ForAll @IntRange(min = 0, max = 3) int limit) throws Exception {
        Store s = newStore();
        try {
            new ScriptModel(s, limit).run(script);
        } finally {
            closeStore(s);
        }
    }

    @Provide
    public Arbitrary<List<ScriptModel.Step>> scripts() {
        return ScriptModel.steps().list().ofMinSize(1).ofMaxSize(30);
    }

    // --- counts by state --------------------------------------------------------------------------

    @Nested
    public class StateCounts {

        @Test
        public void anEmptyStoreCountsNothing() {
            assertThat(store.stateCounts(T0)).isEmpty();
        }

        @Test
        public void tasksAreCountedByMachineQueueAndStateWithTheirLeases() {
            TaskRecord a = create();
            TaskRecord b = create();
            TaskRecord c = create();
            create(spec().queue("other"));
            create(spec().machine("chunk"));
            assertThat(ids(claim(2))).containsExactly(a.id(), b.id());
            TaskRecord done = applied(release(get(b.id()), DONE));

            assertThat(store.stateCounts(T0.plus(HOUR))).containsExactly(
                    new StateCount("chunk", QUEUE, READY, 1, 0, T0),
                    new StateCount(MACHINE, "other", READY, 1, 0, T0),
                    new StateCount(MACHINE, QUEUE, DONE, 1, 0, done.updatedAt()),
                    new StateCount(MACHINE, QUEUE, READY, 1, 0, c.updatedAt()),
                    new StateCount(MACHINE, QUEUE, RUNNING, 1, 1, null));
        }

        @Test
        public void everyTaskOfAStateIsCountedAndAnExpiredLeaseStillCountsAsLeased() {
            for (int i = 0; i < 7; i++) create();
            claim(3);
            Instant afterExpiry = T0.plus(LEASE).plus(HOUR);
            assertThat(store.stateCounts(afterExpiry)).containsExactly(
                    new StateCount(MACHINE, QUEUE, READY, 4, 0, T0),
                    new StateCount(MACHINE, QUEUE, RUNNING, 3, 3, null));
        }

        @Test
        public void theOldestReadyTaskIsTheEarliestToBecomeReadyAmongThoseWhoseTimeHasCome() {
            Instant early = T0.minusSeconds(60);
            create(spec().createdAt(early).notBefore(T0.plusSeconds(15)));      // ready at T0 + 15 s, though created first
            TaskRecord plain = create();                                        // ready at T0
            create(spec().createdAt(early).notBefore(T0.plus(HOUR)));           // not yet
            create(spec().queue("late").createdAt(early).notBefore(T0.plusSeconds(30)));
            create(spec().queue("past").createdAt(early).notBefore(early.minusSeconds(30)));

            assertThat(store.stateCounts(T0.plusSeconds(20))).containsExactly(
                    new StateCount(MACHINE, "late", READY, 1, 0, null),
                    new StateCount(MACHINE, "past", READY, 1, 0, early),
                    new StateCount(MACHINE, QUEUE, READY, 3, 0, plain.updatedAt()));
            assertThat(store.stateCounts(T0.plusSeconds(30)).get(0))
                    .as("a not-before time later than the last change is when the task became ready")
                    .isEqualTo(new StateCount(MACHINE, "late", READY, 1, 0, T0.plusSeconds(30)));
        }

        @Test
        public void aClaimTellsSinceWhenEachTaskItTookWasReady() {
            store.setConcurrency(QUEUE, 0);         // a queue row without a limit, and a queue with a limit, claim differently
            store.setConcurrency("limited", 5);
            Instant early = T0.minusSeconds(60);
            for (String queue : List.of(QUEUE, "limited")) {
                TaskRecord scheduled = create(spec().queue(queue).createdAt(early).notBefore(T0.minusSeconds(30)));
                TaskRecord plain = create(spec().queue(queue).createdAt(early));
                TaskRecord moved = applied(move(create(spec().queue(queue).state(WAITING).createdAt(early)), READY, null));
                List<Claimed> claimed = store.claim(new ClaimRequest(MACHINE, queue, List.of(START), OWNER, T0, LEASE, 10, 0));
                Map<Long, Instant> ready = new HashMap<>();
                for (Claimed c : claimed) ready.put(c.task().id(), c.readySince());
                assertThat(ready).as("queue %s", queue).containsOnly(
                        Map.entry(scheduled.id(), T0.minusSeconds(30)),
                        Map.entry(plain.id(), early),
                        Map.entry(moved.id(), early.plusSeconds(1)));
            }
        }
    }

    // --- retention: the archive --------------------------------------------------------------------

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

    @Nested
    public class Archive {

        @Test
        public void archiveMovesOldFinishedLeaseFreeRootsWithTheirHistoryAndLeavesTheRest() {
            Instant at = T0.plus(HOUR.multipliedBy(3));
            TaskRecord done = applied(move(create(), DONE, "finish"));
            TaskRecord keyed = applied(move(create(spec().key("order-1")), "FAILED", null));
            TaskRecord recent = applied(change(create(), b -> b.state(DONE).updatedAt(T0.plus(HOUR.multipliedBy(2))), null));
            TaskRecord atCutoff = applied(change(create(), b -> b.state(DONE).updatedAt(T0.plus(HOUR)), null));
            TaskRecord running = applied(move(create(), RUNNING, null));
            TaskRecord otherMachine = applied(move(create(spec().machine("other")), DONE, null));
            TaskRecord leased = applied(move(claimOne(create(spec().priority(9)).id(), OWNER, LEASE), DONE, null));
            assertThat(leased.lease()).isNotNull();
            List<HistoryEntry> doneHistory = store.history(done.id());
            List<HistoryEntry> keyedHistory = store.history(keyed.id());

            assertThat(store.archive(finishedJobs(100), at)).isEqualTo(new RetentionResult(2, 2));

            assertArchived(done, doneHistory, done.id(), at);
            assertArchived(keyed, keyedHistory, keyed.id(), at);
            assertThat(doneHistory).hasSize(1);
            assertThat(store.findCommand(done.id(), "finish")).as("a hot read of an archived task's command").isEmpty();
            for (TaskRecord kept : List.of(recent, atCutoff, running, otherMachine, leased)) {
                assertThat(get(kept.id())).isEqualTo(kept);
                assertThat(store.findArchived(kept.id())).as("task %s in the archive", kept.id()).isEmpty();
            }
            assertThat(queryIds(TaskQuery.all())).containsExactly(recent.id(), atCutoff.id(), running.id(), otherMachine.id(),
                    leased.id());
            assertThat(store.findArchived(leased.id() + 1000)).as("a task that never existed").isEmpty();
            assertThat(store.archive(finishedJobs(100), at)).as("nothing more qualifies").isEqualTo(RetentionResult.NONE);

            CreateResult reused = store.create(spec().key("order-1").build());
            assertThat(reused.created()).as("the key of an archived task can be used again").isTrue();
            assertThat(reused.task().id()).isNotEqualTo(keyed.id());
            assertThat(store.findArchived(keyed.id())).as("the archived task keeps its key").hasValueSatisfying(
                    a -> assertThat(a.task().idempotencyKey()).isEqualTo("order-1"));
        }

        @Test
        public void aParentMovesWithItsWholeSubtreeOnlyOnceEveryDescendantIsFinished() {
            Instant at = T0.plus(HOUR.multipliedBy(3));
            TaskRecord parent = applied(move(create(), DONE, null));
            TaskRecord finishedChild = create(spec().machine("chunk").parent(parent.id()).state(DONE));
            TaskRecord grandchild = create(spec().machine("chunk").parent(finishedChild.id()).state(DONE));
            TaskRecord runningChild = create(spec().machine("chunk").parent(parent.id()).state(RUNNING));

            assertThat(store.archive(finishedJobs(100), at)).as("a child still runs").isEqualTo(RetentionResult.NONE);
            assertThat(store.archive(new RetentionRequest("chunk", T0.plus(HOUR.multipliedBy(5)), FINISHED, 100), at))
                    .as("children never move on their own").isEqualTo(RetentionResult.NONE);
            for (TaskRecord kept : List.of(parent, finishedChild, grandchild, runningChild)) assertThat(get(kept.id())).isEqualTo(kept);

            TaskRecord last = applied(move(runningChild, DONE, null));
            List<HistoryEntry> parentHistory = store.history(parent.id());
            List<HistoryEntry> lastHistory = store.history(last.id());
            assertThat(store.archive(finishedJobs(100), at)).as("one tree of four tasks").isEqualTo(new RetentionResult(1, 4));
            assertArchived(parent, parentHistory, parent.id(), at);
            assertArchived(finishedChild, List.of(), parent.id(), at);
            assertArchived(grandchild, List.of(), parent.id(), at);
            assertArchived(last, lastHistory, parent.id(), at);
            assertThat(store.query(TaskQuery.all()).items()).isEmpty();
        }

        @Test
        public void aDescendantOfAMachineTheRequestDoesNotNameKeepsItsTree() {
            TaskRecord parent = applied(move(create(), DONE, null));
            TaskRecord child = create(spec().machine("other").parent(parent.id()).state(DONE));
            assertThat(store.archive(finishedJobs(100), T0.plus(HOUR))).isEqualTo(RetentionResult.NONE);
            assertThat(get(parent.id())).isEqualTo(parent);
            assertThat(get(child.id())).isEqualTo(child);
        }

        @Test
        public void aLeasedDescendantKeepsItsTreeUntilItsLeaseIsReleased() {
            Instant at = T0.plus(HOUR.multipliedBy(3));
            TaskRecord parent = applied(move(create(spec().state(WAITING)), DONE, null));
            TaskRecord child = create(childOf(parent));
            TaskRecord leasedDone = applied(move(claimOne(child.id(), OWNER, LEASE), DONE, null));
            assertThat(leasedDone.lease()).isNotNull();

            assertThat(store.archive(finishedJobs(100), at)).as("finished, but leased").isEqualTo(RetentionResult.NONE);
            assertThat(get(parent.id())).isEqualTo(parent);

            TaskRecord released = applied(release(leasedDone, DONE));
            assertThat(store.archive(finishedJobs(100), at)).isEqualTo(new RetentionResult(1, 2));
            assertThat(store.findArchived(released.id()).orElseThrow().task()).isEqualTo(released);
        }

        @Test
        public void aDependencyOfATaskInTheHotTableStaysAndAnOwnerWithMarksWaitingStays() {
            Instant at = T0.plus(HOUR.multipliedBy(3));
            TaskRecord dependency = applied(move(create(), DONE, null));
            TaskRecord waiter = create(spec().dependsOn(dependency.id()));
            resolveAll(KEEP);
            assertThat(store.archive(finishedJobs(100), at)).as("its dependent is not finished").isEqualTo(RetentionResult.NONE);
            assertThat(get(dependency.id())).isEqualTo(dependency);

            TaskRecord finishedWaiter = applied(move(get(waiter.id()), DONE, null));
            assertThat(store.pendingMarks()).isPositive();
            assertThat(store.archive(finishedJobs(100), at)).as("the owner's marks wait, and its dependency stays with it")
                    .isEqualTo(RetentionResult.NONE);

            resolveAll(KEEP);
            assertThat(archiveAll(finishedJobs(100), at)).as("both, the dependent no later than its dependency")
                    .isEqualTo(new RetentionResult(2, 2));
            assertThat(store.findArchived(dependency.id())).isPresent();
            assertThat(store.findArchived(finishedWaiter.id())).isPresent();
            assertThat(store.group(finishedWaiter.id())).isEmpty();
            assertThat(store.dependencies(finishedWaiter.id())).isEmpty();
        }

        @Test
        public void theGroupOfAMovedParentGoesWithIt() {
            Instant at = T0.plus(HOUR.multipliedBy(3));
            TaskRecord parent = ownerOfSealed(2);
            for (TaskRecord child : store.query(TaskQuery.all().parent(parent.id())).items()) applied(move(child, DONE, null));
            applied(move(parent, DONE, null));
            resolveAll(KEEP);
            assertThat(groupOf(parent.id()).counts()).isEqualTo(Map.of(member(DONE), 2L));

            assertThat(store.archive(finishedJobs(100), at)).isEqualTo(new RetentionResult(1, 3));
            assertThat(store.group(parent.id())).isEmpty();
            assertThat(store.pendingMarks()).isZero();
            assertThat(resolveAll(KEEP)).isZero();
        }

        @Test
        public void batchesAreBoundedByMax() {
            for (int i = 0; i < 5; i++) applied(move(create(), DONE, null));
            Instant at = T0.plus(HOUR);
            assertThat(store.archive(finishedJobs(2), at)).isEqualTo(new RetentionResult(2, 2));
            assertThat(store.query(TaskQuery.all()).items()).hasSize(3);
            assertThat(store.archive(finishedJobs(2), at)).isEqualTo(new RetentionResult(2, 2));
            assertThat(store.archive(finishedJobs(2), at)).isEqualTo(new RetentionResult(1, 1));
            assertThat(store.archive(finishedJobs(2), at)).isEqualTo(RetentionResult.NONE);
            assertThat(store.query(TaskQuery.all()).items()).isEmpty();
        }

        @Test
        public void deleteFinishedDeletesWholeTreesWithoutArchivingThem() {
            TaskRecord parent = applied(move(create(spec().key("k-1")), DONE, "finish"));
            TaskRecord child = create(spec().machine("chunk").parent(parent.id()).state(DONE));
            TaskRecord unfinished = applied(move(create(), RUNNING, null));

            assertThat(store.deleteFinished(finishedJobs(100))).isEqualTo(new RetentionResult(1, 2));
            for (TaskRecord gone : List.of(parent, child)) {
                assertThat(store.find(gone.id())).isEmpty();
                assertThat(store.history(gone.id())).isEmpty();
                assertThat(store.findArchived(gone.id())).isEmpty();
            }
            assertThat(store.findCommand(parent.id(), "finish")).isEmpty();
            assertThat(get(unfinished.id())).isEqualTo(unfinished);
            assertThat(store.create(spec().key("k-1").build()).created()).as("the key can be used again").isTrue();
            assertThat(store.deleteFinished(finishedJobs(100))).isEqualTo(RetentionResult.NONE);
        }

        @Test
        public void purgeArchivedDeletesTreesOfTheMachineArchivedBeforeATime() {
            Instant first = T0.plus(HOUR.multipliedBy(2));
            Instant second = T0.plus(HOUR.multipliedBy(3));
            TaskRecord early = applied(move(create(), DONE, null));
            TaskRecord earlyChild = create(spec().machine("chunk").parent(early.id()).state(DONE));
            TaskRecord other = applied(move(create(spec().machine("other")), DONE, null));
            assertThat(store.archive(finishedJobs(100), first)).isEqualTo(new RetentionResult(1, 2));
            assertThat(store.archive(new RetentionRequest("other", T0.plus(HOUR), Map.of("other", Set.of(DONE)), 100), first))
                    .isEqualTo(new RetentionResult(1, 1));
            TaskRecord late = applied(move(create(), DONE, null));
            TaskRecord late2 = applied(move(create(), DONE, null));
            assertThat(store.archive(finishedJobs(100), second)).isEqualTo(new RetentionResult(2, 2));

            assertThat(store.purgeArchived(MACHINE, first, 10)).as("archived at the time, not before").isEqualTo(RetentionResult.NONE);
            assertThat(store.purgeArchived(MACHINE, second, 10)).isEqualTo(new RetentionResult(1, 2));
            assertThat(store.findArchived(early.id())).isEmpty();
            assertThat(store.findArchived(earlyChild.id())).isEmpty();
            assertThat(store.findArchived(other.id())).as("another machine's tree").isPresent();
            assertThat(store.findArchived(late.id())).isPresent();

            assertThat(store.purgeArchived(MACHINE, second.plusSeconds(1), 1)).as("at most max trees").isEqualTo(new RetentionResult(1, 1));
            assertThat(store.purgeArchived(MACHINE, second.plusSeconds(1), 1)).isEqualTo(new RetentionResult(1, 1));
            assertThat(store.findArchived(late.id())).isEmpty();
            assertThat(store.findArchived(late2.id())).isEmpty();
            assertThat(store.purgeArchived(MACHINE, second.plusSeconds(1), 1)).isEqualTo(RetentionResult.NONE);
            assertThatThrownBy(() -> store.purgeArchived(MACHINE, second, 0)).isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        public void concurrentBatchesMoveEveryTreeOnceAndLoseNone() throws Exception {
            Instant at = T0.plus(HOUR.multipliedBy(3));
            int roots = 120;
            List<NewTask> specs = new ArrayList<>();
            for (int i = 0; i < roots; i++) specs.add(spec().state(DONE).build());
            List<Long> rootIds = new ArrayList<>();
            for (CreateResult r : store.createAll(specs)) rootIds.add(r.task().id());
            List<NewTask> children = new ArrayList<>();
            for (int i = 0; i < roots; i += 3) children.add(spec().machine("chunk").parent(rootIds.get(i)).state(DONE).build());
            int tasks = roots + children.size();
            store.createAll(children);

            int threads = 4;
            AtomicInteger trees = new AtomicInteger();
            AtomicInteger moved = new AtomicInteger();
            concurrently(threads, thread -> {
                for (int quiet = 0; quiet < 3; ) {
                    RetentionResult r = store.archive(finishedJobs(7), at);
                    trees.addAndGet(r.trees());
                    moved.addAndGet(r.tasks());
                    quiet = r.trees() == 0 ? quiet + 1 : 0;
                }
            });
            RetentionResult rest = archiveAll(finishedJobs(7), at);
            assertThat(trees.get() + rest.trees()).as("trees moved in all").isEqualTo(roots);
            assertThat(moved.get() + rest.tasks()).as("tasks moved in all").isEqualTo(tasks);
            assertThat(store.query(TaskQuery.all()).items()).isEmpty();
            for (long id : rootIds) assertThat(store.findArchived(id)).as("root %s", id).isPresent();
        }
    }
}
