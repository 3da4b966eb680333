package dev.statekit.store.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.store.ApplyResult;
import dev.statekit.store.Attributes;
import dev.statekit.store.Change;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.Claimed;
import dev.statekit.store.CreateResult;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.NewTask;
import dev.statekit.store.Page;
import dev.statekit.store.StatekitException;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class InMemoryStoreTest {
    static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

    final InMemoryStore store = new InMemoryStore();

    static NewTask newTask(String machine, String state) {
        return new NewTask(machine, 1, state, machine, 0, null, Attributes.EMPTY, null, null, null, T0);
    }

    static NewTask newTask(String machine, String state, String queue, @Nullable Long parent, @Nullable String key) {
        return new NewTask(machine, 1, state, queue, 0, parent, Attributes.EMPTY, null, key, null, T0);
    }

    /** The change moving {@code from} to {@code state}, one second after its last update. */
    static Change move(TaskRecord from, String state, @Nullable String commandKey) {
        Instant at = from.updatedAt().plusSeconds(1);
        TaskRecord next = from.transitioned(state, from.attributes(), at);
        HistoryEntry entry = new HistoryEntry(from.id(), next.version(), from.state(), state, "GO",
                TriggerSource.SYSTEM, "worker-1", "because", at, commandKey);
        return new Change(from.version(), next, entry);
    }

    TaskRecord get(long id) {
        return store.find(id).orElseThrow();
    }

    @Test
    void createsTasksAtVersionZeroWithIncreasingIdsAndSequences() {
        NewTask spec = new NewTask("job", 3, "PENDING", "bulk", 7, null, Attributes.of("a", "1"), "{}", null,
                T0.plusSeconds(60), T0);
        CreateResult first = store.create(spec);
        CreateResult second = store.create(newTask("job", "PENDING"));
        assertThat(first.created()).isTrue();
        TaskRecord t = first.task();
        assertThat(t.id()).isPositive();
        assertThat(second.task().id()).isGreaterThan(t.id());
        assertThat(second.task().sequence()).isGreaterThan(t.sequence());
        assertThat(t.machine()).isEqualTo("job");
        assertThat(t.machineVersion()).isEqualTo(3);
        assertThat(t.state()).isEqualTo("PENDING");
        assertThat(t.queue()).isEqualTo("bulk");
        assertThat(t.priority()).isEqualTo(7);
        assertThat(t.parentId()).isNull();
        assertThat(t.attempts()).isZero();
        assertThat(t.retries()).isZero();
        assertThat(t.lease()).isNull();
        assertThat(t.lastError()).isNull();
        assertThat(t.notBefore()).isEqualTo(T0.plusSeconds(60));
        assertThat(t.attributes()).isEqualTo(Attributes.of("a", "1"));
        assertThat(t.payload()).isEqualTo("{}");
        assertThat(t.createdAt()).isEqualTo(T0);
        assertThat(t.updatedAt()).isEqualTo(T0);
        assertThat(t.version()).isZero();
        assertThat(store.find(t.id())).contains(t);
        assertThat(store.history(t.id())).isEmpty();
    }

    @Test
    void findsNothingForUnknownIds() {
        assertThat(store.find(1)).isEmpty();
        assertThat(store.find(-5)).isEmpty();
        assertThat(store.history(1)).isEmpty();
        assertThat(store.findCommand(1, "k")).isEmpty();
    }

    @Test
    void creationIsIdempotentPerMachineAndKey() {
        CreateResult first = store.create(newTask("job", "PENDING", "q", null, "order-1"));
        store.apply(move(first.task(), "RUNNING", null));
        CreateResult again = store.create(newTask("job", "OTHER", "q2", null, "order-1"));
        assertThat(again.created()).isFalse();
        assertThat(again.task().id()).isEqualTo(first.task().id());
        assertThat(again.task()).isEqualTo(get(first.task().id()));     // the task as it is now
        assertThat(again.task().state()).isEqualTo("RUNNING");
        CreateResult otherMachine = store.create(newTask("chunk", "PENDING", "q", null, "order-1"));
        assertThat(otherMachine.created()).isTrue();
        assertThat(otherMachine.task().id()).isNotEqualTo(first.task().id());
        assertThat(store.query(TaskQuery.all()).items()).hasSize(2);
    }

    @Test
    void refusesPayloadsOverTheLimitAndCreatesNothing() {
        InMemoryStore small = new InMemoryStore(4);
        assertThat(small.create(new NewTask("job", 1, "P", "q", 0, null, Attributes.EMPTY, "1234", null, null, T0))
                .created()).isTrue();
        assertThatThrownBy(() -> small.create(new NewTask("job", 1, "P", "q", 0, null, Attributes.EMPTY, "12345", "k", null, T0)))
                .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE))
                .hasMessageContaining("5 chars");
        assertThat(small.query(TaskQuery.all()).items()).hasSize(1);
        // the key was not taken by the refused creation
        assertThat(small.create(new NewTask("job", 1, "P", "q", 0, null, Attributes.EMPTY, null, "k", null, T0)).created()).isTrue();
        assertThatThrownBy(() -> new InMemoryStore(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void refusesAChangeWhosePayloadIsOverTheLimit() {
        InMemoryStore small = new InMemoryStore(4);
        TaskRecord t = small.create(new NewTask("job", 1, "P", "q", 0, null, Attributes.EMPTY, "1", null, null, T0)).task();
        TaskRecord next = t.toBuilder().payload("123456").version(1).build();
        Change c = new Change(0, next, new HistoryEntry(t.id(), 1, "P", "P", "E", TriggerSource.SYSTEM, null, null, T0, null));
        assertThatThrownBy(() -> small.apply(c))
                .isInstanceOfSatisfying(StatekitException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE);
                    assertThat(e.taskId()).isEqualTo(t.id());
                });
        assertThat(small.find(t.id())).contains(t);
        assertThat(small.history(t.id())).isEmpty();
    }

    @Test
    void appliesAChangeWithItsHistoryEntry() {
        TaskRecord t = store.create(newTask("job", "PENDING")).task();
        Change c = move(t, "RUNNING", "cmd-1");
        assertThat(store.apply(c)).isEqualTo(ApplyResult.APPLIED);
        assertThat(get(t.id())).isEqualTo(c.next());
        assertThat(get(t.id()).version()).isEqualTo(1);
        assertThat(store.history(t.id())).containsExactly(c.entry());
        assertThat(store.findCommand(t.id(), "cmd-1")).contains(c.entry());
        assertThat(store.findCommand(t.id(), "cmd-2")).isEmpty();
    }

    @Test
    void staleVersionIsAConflictAndWritesNothing() {
        TaskRecord t = store.create(newTask("job", "PENDING")).task();
        assertThat(store.apply(move(t, "RUNNING", null)).applied()).isTrue();
        TaskRecord now = get(t.id());
        List<HistoryEntry> history = store.history(t.id());

        ApplyResult stale = store.apply(move(t, "CANCELLED", "late"));
        assertThat(stale.status()).isEqualTo(ApplyResult.Status.VERSION_CONFLICT);
        assertThat(stale.taskId()).isEqualTo(t.id());
        assertThat(stale.prior()).isNull();
        assertThat(stale.applied()).isFalse();
        assertThat(get(t.id())).isEqualTo(now);
        assertThat(store.history(t.id())).isEqualTo(history);
        assertThat(store.findCommand(t.id(), "late")).isEmpty();

        // a change from the future is a conflict too
        TaskRecord ahead = now.toBuilder().version(5).build();
        assertThat(store.apply(move(ahead, "X", null)).status()).isEqualTo(ApplyResult.Status.VERSION_CONFLICT);
        assertThat(get(t.id())).isEqualTo(now);
    }

    @Test
    void unknownTaskIsNotFound() {
        TaskRecord ghost = store.create(newTask("job", "PENDING")).task();
        TaskRecord missing = new TaskRecord(ghost.id() + 100, "job", 1, "P", "q", 0, 0, null, 0, 0, null, null, null,
                Attributes.EMPTY, null, null, T0, T0, 0);
        ApplyResult r = store.apply(move(missing, "RUNNING", null));
        assertThat(r.status()).isEqualTo(ApplyResult.Status.NOT_FOUND);
        assertThat(r.taskId()).isEqualTo(missing.id());
        assertThat(store.find(missing.id())).isEmpty();
        assertThat(store.history(missing.id())).isEmpty();
    }

    @Test
    void duplicateCommandKeyIsRefusedWithThePriorEntry() {
        TaskRecord t = store.create(newTask("job", "PENDING")).task();
        Change first = move(t, "RUNNING", "k1");
        store.apply(first);
        TaskRecord now = get(t.id());
        // same key at the current version: still a duplicate, reported before any version check
        ApplyResult again = store.apply(move(now, "DONE", "k1"));
        assertThat(again.status()).isEqualTo(ApplyResult.Status.DUPLICATE_COMMAND);
        assertThat(again.prior()).isEqualTo(first.entry());
        assertThat(again.taskId()).isEqualTo(t.id());
        ApplyResult staleDuplicate = store.apply(move(t, "DONE", "k1"));
        assertThat(staleDuplicate.status()).isEqualTo(ApplyResult.Status.DUPLICATE_COMMAND);
        assertThat(get(t.id())).isEqualTo(now);
        assertThat(store.history(t.id())).containsExactly(first.entry());
        // keys are per task
        TaskRecord other = store.create(newTask("job", "PENDING")).task();
        assertThat(store.apply(move(other, "RUNNING", "k1")).applied()).isTrue();
    }

    @Test
    void historyIsKeptInOrder() {
        TaskRecord t = store.create(newTask("job", "S0")).task();
        List<HistoryEntry> written = new ArrayList<>();
        for (int i = 1; i <= 20; i++) {
            Change c = move(get(t.id()), "S" + i, i % 3 == 0 ? "k" + i : null);
            assertThat(store.apply(c).applied()).isTrue();
            written.add(c.entry());
        }
        List<HistoryEntry> history = store.history(t.id());
        assertThat(history).containsExactlyElementsOf(written);
        for (int i = 0; i < history.size(); i++) {
            assertThat(history.get(i).version()).isEqualTo(i + 1);
            if (i > 0) assertThat(history.get(i).from()).isEqualTo(history.get(i - 1).to());
        }
        assertThat(get(t.id()).version()).isEqualTo(20);
        assertThat(get(t.id()).state()).isEqualTo("S20");
        assertThatThrownBy(() -> history.add(written.get(0))).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void applyAllWritesEveryChangeOrNone() {
        TaskRecord a = store.create(newTask("job", "P")).task();
        TaskRecord b = store.create(newTask("job", "P")).task();
        TaskRecord c = store.create(newTask("job", "P")).task();
        store.apply(move(b, "R", null));
        TaskRecord bNow = get(b.id());

        // c, then a stale change of b, then a: nothing is written, b is named
        ApplyResult r = store.applyAll(List.of(move(c, "R", "x"), move(b, "Q", null), move(a, "R", null)));
        assertThat(r.status()).isEqualTo(ApplyResult.Status.VERSION_CONFLICT);
        assertThat(r.taskId()).isEqualTo(b.id());
        assertThat(get(a.id())).isEqualTo(a);
        assertThat(get(b.id())).isEqualTo(bNow);
        assertThat(get(c.id())).isEqualTo(c);
        assertThat(store.history(a.id())).isEmpty();
        assertThat(store.history(c.id())).isEmpty();
        assertThat(store.findCommand(c.id(), "x")).isEmpty();

        // in the order given, the first task standing in the way is named
        TaskRecord aAhead = a.toBuilder().version(3).build();
        ApplyResult bFirst = store.applyAll(List.of(move(c, "R", null), move(b, "Q", null), move(aAhead, "Q", null)));
        assertThat(bFirst.status()).isEqualTo(ApplyResult.Status.VERSION_CONFLICT);
        assertThat(bFirst.taskId()).isEqualTo(b.id());
        ApplyResult aFirst = store.applyAll(List.of(move(c, "R", null), move(aAhead, "Q", null), move(b, "Q", null)));
        assertThat(aFirst.taskId()).isEqualTo(a.id());

        Change ca = move(a, "R", "ka");
        Change cb = move(bNow, "S", null);
        Change cc = move(c, "R", null);
        assertThat(store.applyAll(List.of(cc, ca, cb))).isEqualTo(ApplyResult.APPLIED);
        assertThat(get(a.id())).isEqualTo(ca.next());
        assertThat(get(b.id())).isEqualTo(cb.next());
        assertThat(get(c.id())).isEqualTo(cc.next());
        assertThat(store.history(a.id())).containsExactly(ca.entry());
        assertThat(store.history(b.id())).hasSize(2).endsWith(cb.entry());
        assertThat(store.findCommand(a.id(), "ka")).contains(ca.entry());
    }

    @Test
    void applyAllReportsADuplicateCommandAndWritesNothing() {
        TaskRecord a = store.create(newTask("job", "P")).task();
        TaskRecord b = store.create(newTask("job", "P")).task();
        Change first = move(a, "R", "k");
        store.apply(first);
        ApplyResult r = store.applyAll(List.of(move(b, "R", null), move(get(a.id()), "S", "k")));
        assertThat(r.status()).isEqualTo(ApplyResult.Status.DUPLICATE_COMMAND);
        assertThat(r.taskId()).isEqualTo(a.id());
        assertThat(r.prior()).isEqualTo(first.entry());
        assertThat(get(b.id())).isEqualTo(b);
        assertThat(store.history(a.id())).containsExactly(first.entry());
    }

    @Test
    void applyAllWithAnUnknownTaskIsNotFoundAndWritesNothing() {
        TaskRecord a = store.create(newTask("job", "P")).task();
        TaskRecord missing = new TaskRecord(a.id() + 1000, "job", 1, "P", "job", 0, 0, null, 0, 0, null, null, null,
                Attributes.EMPTY, null, null, T0, T0, 0);
        ApplyResult r = store.applyAll(List.of(move(a, "R", null), move(missing, "R", null)));
        assertThat(r.status()).isEqualTo(ApplyResult.Status.NOT_FOUND);
        assertThat(r.taskId()).isEqualTo(missing.id());
        assertThat(get(a.id())).isEqualTo(a);
        assertThat(store.history(a.id())).isEmpty();
    }

    @Test
    void applyAllRejectsAnEmptyListAndTwoChangesOfOneTask() {
        TaskRecord a = store.create(newTask("job", "P")).task();
        assertThatThrownBy(() -> store.applyAll(List.of())).isInstanceOf(IllegalArgumentException.class);
        Change one = move(a, "R", null);
        Change two = move(a, "S", null);
        TaskRecord b = store.create(newTask("job", "P")).task();
        assertThatThrownBy(() -> store.applyAll(List.of(one, move(b, "R", null), two)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(Long.toString(a.id()));
        assertThat(get(a.id())).isEqualTo(a);
        assertThat(get(b.id())).isEqualTo(b);
    }

    @Test
    void queriesFilterByMachineStateParentAndQueue() {
        long job = store.create(newTask("job", "RUNNING", "jobs", null, null)).task().id();
        long c1 = store.create(newTask("chunk", "PENDING", "chunks", job, null)).task().id();
        long c2 = store.create(newTask("chunk", "DONE", "chunks", job, null)).task().id();
        long c3 = store.create(newTask("chunk", "PENDING", "slow", job, null)).task().id();
        long orphan = store.create(newTask("chunk", "PENDING", "chunks", null, null)).task().id();
        long otherJob = store.create(newTask("job", "PENDING", "jobs", null, null)).task().id();
        long c4 = store.create(newTask("chunk", "PENDING", "chunks", otherJob, null)).task().id();

        assertThat(ids(TaskQuery.all())).containsExactly(job, c1, c2, c3, orphan, otherJob, c4);
        assertThat(ids(TaskQuery.all().machine("job"))).containsExactly(job, otherJob);
        assertThat(ids(TaskQuery.all().machine("chunk").states(Set.of("PENDING")))).containsExactly(c1, c3, orphan, c4);
        assertThat(ids(TaskQuery.all().states(Set.of("PENDING", "DONE")))).containsExactly(c1, c2, c3, orphan, otherJob, c4);
        assertThat(ids(TaskQuery.all().parent(job))).containsExactly(c1, c2, c3);
        assertThat(ids(TaskQuery.all().parent(job).queue("chunks"))).containsExactly(c1, c2);
        assertThat(ids(TaskQuery.all().queue("slow"))).containsExactly(c3);
        assertThat(ids(TaskQuery.all().machine("nothing"))).isEmpty();
        assertThat(ids(TaskQuery.all().after(c3))).containsExactly(orphan, otherJob, c4);

        // a query sees the current snapshot
        store.apply(move(get(c1), "DONE", null));
        assertThat(ids(TaskQuery.all().machine("chunk").states(Set.of("DONE")))).containsExactly(c1, c2);
    }

    @Test
    void pagesThroughManyTasksWithKeysetPaging() {
        List<Long> expected = new ArrayList<>();
        for (int i = 0; i < 53; i++) {
            long id = store.create(newTask(i % 2 == 0 ? "chunk" : "job", "PENDING")).task().id();
            if (i % 2 == 0) expected.add(id);
        }
        List<Long> seen = new ArrayList<>();
        TaskQuery q = TaskQuery.all().machine("chunk").limit(5);
        int pages = 0;
        while (true) {
            Page<TaskRecord> page = store.query(q);
            pages++;
            assertThat(page.items()).hasSizeLessThanOrEqualTo(5);
            page.items().forEach(t -> seen.add(t.id()));
            if (!page.hasNext()) {
                assertThat(page.nextAfterId()).isNull();
                break;
            }
            assertThat(page.items()).hasSize(5);
            assertThat(page.nextAfterId()).isEqualTo(page.items().get(4).id());
            q = q.after(page.nextAfterId());
        }
        assertThat(seen).containsExactlyElementsOf(expected);      // 27 tasks, ascending, none twice
        assertThat(pages).isEqualTo(6);
    }

    @Test
    void aFullLastPageHasNoNextPage() {
        for (int i = 0; i < 4; i++) store.create(newTask("job", "P"));
        Page<TaskRecord> first = store.query(TaskQuery.all().limit(2));
        assertThat(first.hasNext()).isTrue();
        Page<TaskRecord> second = store.query(TaskQuery.all().limit(2).after(first.nextAfterId()));
        assertThat(second.items()).hasSize(2);
        assertThat(second.hasNext()).isFalse();
        assertThatThrownBy(() -> second.items().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aStoredRecordIsImmutableFromOutside() {
        TaskRecord t = store.create(newTask("job", "P")).task();
        Change c = move(t, "R", null);
        store.apply(c);
        assertThat(get(t.id())).isSameAs(c.next());
        assertThat(t.version()).isZero();
        assertThat(Duration.between(t.updatedAt(), get(t.id()).updatedAt())).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void concurrentCreationsWithOneKeyCreateOneTask() throws Exception {
        int threads = 4;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CyclicBarrier gate = new CyclicBarrier(threads);
            List<Future<List<CreateResult>>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    gate.await(30, TimeUnit.SECONDS);
                    List<CreateResult> results = new ArrayList<>();
                    for (int k = 0; k < 200; k++) results.add(store.create(newTask("job", "P", "q", null, "key-" + k)));
                    return results;
                }));
            }
            Map<String, List<CreateResult>> byKey = new HashMap<>();
            for (Future<List<CreateResult>> f : futures) {
                for (CreateResult r : f.get(60, TimeUnit.SECONDS)) {
                    byKey.computeIfAbsent(r.task().idempotencyKey(), k -> new ArrayList<>()).add(r);
                }
            }
            assertThat(byKey).hasSize(200);
            byKey.forEach((key, results) -> {
                assertThat(results).hasSize(threads);
                assertThat(results).filteredOn(CreateResult::created).as("creations of %s", key).hasSize(1);
                assertThat(results).extracting(r -> r.task().id()).as("ids of %s", key).containsOnly(results.get(0).task().id());
            });
            assertThat(store.query(TaskQuery.all().limit(1000)).items()).hasSize(200);
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void concurrentBatchesOverOverlappingTasksAreAtomic() throws Exception {
        int threads = 4;
        int rounds = 300;
        long[] ids = new long[3];
        for (int i = 0; i < ids.length; i++) ids[i] = store.create(newTask("job", "S")).task().id();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CyclicBarrier gate = new CyclicBarrier(threads);
            List<Future<Map<String, long[]>>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    gate.await(30, TimeUnit.SECONDS);
                    Map<String, long[]> applied = new HashMap<>();
                    for (int i = 0; i < rounds; i++) {
                        // pairs in both orders, so that two batches may want the same two locks
                        long first = ids[(thread + i) % 3];
                        long second = ids[(thread + i + 1 + i % 2) % 3];
                        String key = "t" + thread + "-" + i;
                        ApplyResult r = store.applyAll(List.of(move(get(first), "S", key), move(get(second), "S", key)));
                        if (r.applied()) applied.put(key, new long[] {first, second});
                        else assertThat(r.status()).isEqualTo(ApplyResult.Status.VERSION_CONFLICT);
                    }
                    return applied;
                }));
            }
            Map<String, long[]> applied = new HashMap<>();
            for (Future<Map<String, long[]>> f : futures) applied.putAll(f.get(60, TimeUnit.SECONDS));
            assertThat(applied).isNotEmpty();
            long entries = 0;
            for (long id : ids) {
                List<HistoryEntry> history = store.history(id);
                assertThat(get(id).version()).isEqualTo(history.size());
                for (int i = 0; i < history.size(); i++) assertThat(history.get(i).version()).isEqualTo(i + 1);
                for (HistoryEntry e : history) {
                    long[] pair = applied.get(e.commandKey());
                    assertThat(pair).as("entry %s belongs to an applied batch", e.commandKey()).isNotNull();
                    assertThat(pair).contains(id);
                }
                entries += history.size();
            }
            assertThat(entries).as("both changes of every applied batch, nothing else").isEqualTo(2L * applied.size());
            applied.forEach((key, pair) -> {
                assertThat(store.findCommand(pair[0], key)).isPresent();
                assertThat(store.findCommand(pair[1], key)).isPresent();
            });
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    private List<Long> ids(TaskQuery q) {
        return store.query(q).items().stream().map(TaskRecord::id).toList();
    }

    static ClaimRequest claimOf(String queue, int max) {
        return new ClaimRequest("job", queue, List.of(new ClaimRule("Q", "START", "R")), "w", T0, Duration.ofSeconds(30), max, 0);
    }

    @Test
    void tasksCreatedBeforeTheFirstClaimAreIndexedInClaimOrderWithTheChangesMadeSince() {
        List<Long> low = new ArrayList<>();
        List<Long> high = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            long id = store.create(newTask("job", "Q", i % 3 == 0 ? "other" : "q", null, null)).task().id();
            if (i % 3 != 0) (i % 5 == 0 ? high : low).add(id);
        }
        for (long id : high) assertThat(store.reorder(id, 7, store.nextSequence(false))).isTrue();
        long moved = low.remove(0);
        store.apply(move(get(moved), "X", null));        // no longer claimable
        List<Long> claimed = new ArrayList<>();
        for (List<Claimed> batch = store.claim(claimOf("q", 64)); !batch.isEmpty(); batch = store.claim(claimOf("q", 64))) {
            for (Claimed c : batch) claimed.add(c.task().id());
        }
        List<Long> expected = new ArrayList<>(high);
        expected.addAll(low);
        assertThat(claimed).as("higher priority first, then FIFO").containsExactlyElementsOf(expected);
        assertThat(get(moved).state()).isEqualTo("X");
        assertThat(store.claim(claimOf("other", 1000))).as("the other queue's tasks are indexed too").hasSize(100);
    }

    @Test
    void tasksChangedWhileTheIndexIsBuiltAreAllClaimedOnce() throws Exception {
        int n = 20_000;
        for (int i = 0; i < n; i++) store.create(newTask("job", "Q"));
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            CyclicBarrier gate = new CyclicBarrier(2);
            Future<List<Claimed>> first = pool.submit(() -> {
                gate.await(30, TimeUnit.SECONDS);
                return store.claim(new ClaimRequest("job", "job", List.of(new ClaimRule("Q", "START", "R")), "w", T0,
                        Duration.ofSeconds(30), 1, 0));
            });
            Future<?> reorders = pool.submit(() -> {
                gate.await(30, TimeUnit.SECONDS);
                for (long id = n; id >= 1; id -= 3) store.reorder(id, (int) (id % 4), store.nextSequence(id % 2 == 0));
                return null;
            });
            reorders.get(60, TimeUnit.SECONDS);
            List<Long> claimed = new ArrayList<>();
            for (Claimed c : first.get(60, TimeUnit.SECONDS)) claimed.add(c.task().id());
            ClaimRequest rest = new ClaimRequest("job", "job", List.of(new ClaimRule("Q", "START", "R")), "w", T0, Duration.ofSeconds(30), 500, 0);
            for (List<Claimed> batch = store.claim(rest); !batch.isEmpty(); batch = store.claim(rest)) {
                for (Claimed c : batch) claimed.add(c.task().id());
            }
            assertThat(claimed).hasSize(n).doesNotHaveDuplicates();
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
    }
}
