package dev.statekit.store.tck;

import static dev.statekit.store.tck.StoreContract.DONE;
import static dev.statekit.store.tck.StoreContract.LEASE;
import static dev.statekit.store.tck.StoreContract.OWNER;
import static dev.statekit.store.tck.StoreContract.QUEUE;
import static dev.statekit.store.tck.StoreContract.READY;
import static dev.statekit.store.tck.StoreContract.RUNNING;
import static dev.statekit.store.tck.StoreContract.T0;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.ApplyResult;
import dev.statekit.store.Attributes;
import dev.statekit.store.CreateResult;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.RenewResult;
import dev.statekit.store.Store;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import org.jspecify.annotations.Nullable;

/**
 * A model of one queue of one machine, run against a store step by step: it predicts what every
 * claim takes and checks that versions, histories, leases and tasks stay as predicted.
 */
final class ScriptModel {

    /** One step of a script; {@code pick} chooses among the tasks the step applies to, modulo their number. */
    sealed interface Step permits Create, Touch, Claim, Finish, Retry, Delay, Wait, Renew, Front {}

    /** Creates a task; {@code key} below 0 means no idempotency key. */
    record Create(int priority, int key) implements Step {}

    /** Applies a change that keeps the state, or a stale one that must conflict. */
    record Touch(int pick, boolean stale) implements Step {}

    /** Claims up to {@code max} tasks. */
    record Claim(int max) implements Step {}

    /** Completes a leased task, releasing its lease. */
    record Finish(int pick) implements Step {}

    /** Returns a leased task to the claimable state, releasing its lease. */
    record Retry(int pick) implements Step {}

    /** Returns a leased task to the claimable state, to be run no sooner than {@code seconds} from now. */
    record Delay(int pick, int seconds) implements Step {}

    /** Lets {@code seconds} pass: the time of the claims that follow. */
    record Wait(int seconds) implements Step {}

    /** Renews a lease, with its token or a wrong one. */
    record Renew(int pick, boolean wrongToken) implements Step {}

    /** Moves a task to the front of its priority. */
    record Front(int pick) implements Step {}

    static Arbitrary<Step> steps() {
        Arbitrary<Integer> pick = Arbitraries.integers().between(0, 30);
        Arbitrary<Boolean> flag = Arbitraries.of(true, false);
        Arbitrary<Step> create = Combinators.combine(Arbitraries.integers().between(0, 2), Arbitraries.integers().between(-2, 2))
                .as(Create::new);
        Arbitrary<Step> touch = Combinators.combine(pick, flag).as(Touch::new);
        Arbitrary<Step> claim = Arbitraries.integers().between(1, 3).map(Claim::new);
        Arbitrary<Step> finish = pick.map(Finish::new);
        Arbitrary<Step> retry = pick.map(Retry::new);
        Arbitrary<Step> delay = Combinators.combine(pick, Arbitraries.integers().between(1, 3)).as(Delay::new);
        Arbitrary<Step> wait = Arbitraries.integers().between(1, 3).map(Wait::new);
        Arbitrary<Step> renew = Combinators.combine(pick, flag).as(Renew::new);
        Arbitrary<Step> front = pick.map(Front::new);
        return Arbitraries.oneOf(List.of(create, create, create, touch, touch, claim, claim, claim, finish, finish, retry,
                delay, wait, renew, front));
    }

    /** What the model knows of one task. */
    private static final class Known {
        final long id;
        final int priority;
        long sequence;
        String state = READY;
        long version;
        @Nullable Long token;
        @Nullable Instant notBefore;

        Known(long id, int priority, long sequence) {
            this.id = id;
            this.priority = priority;
            this.sequence = sequence;
        }
    }

    private static final Comparator<Known> CLAIM_ORDER = Comparator.comparingInt((Known k) -> k.priority).reversed()
            .thenComparingLong(k -> k.sequence).thenComparingLong(k -> k.id);

    private final Store store;
    private final int limit;
    private final int priorities;
    private final TreeMap<Long, Known> tasks = new TreeMap<>();
    private final Map<String, Long> keys = new HashMap<>();
    private long lastToken = -1;
    private Instant now = T0;

    /**
     * A model of a queue with a concurrency limit of {@code limit} (0 is a queue whose row says it
     * has none, below 0 a queue that has no row) whose tasks have up to {@code priorities} priorities.
     */
    ScriptModel(Store store, int limit, int priorities) {
        this.store = store;
        this.limit = limit;
        this.priorities = priorities;
        if (limit >= 0) store.setConcurrency(QUEUE, limit);
    }

    void run(List<Step> script) {
        for (Step step : script) {
            if (step instanceof Create c) create(c);
            else if (step instanceof Touch t) touch(t);
            else if (step instanceof Claim c) claim(c);
            else if (step instanceof Finish f) release(f.pick(), DONE);
            else if (step instanceof Retry r) release(r.pick(), READY);
            else if (step instanceof Delay d) delay(d);
            else if (step instanceof Wait w) now = now.plusSeconds(w.seconds());
            else if (step instanceof Renew r) renew(r);
            else if (step instanceof Front f) front(f);
            List<Known> held = held();
            assertThat(store.leased(QUEUE)).as("leased after %s", step).isEqualTo(held.size());
            if (limit > 0) assertThat(held.size()).as("leased after %s", step).isLessThanOrEqualTo(limit);
        }
        checkEverything();
    }

    private List<Known> held() {
        List<Known> held = new ArrayList<>();
        for (Known k : tasks.values()) if (k.token != null) held.add(k);
        return held;
    }

    private static @Nullable Known pick(List<Known> among, int pick) {
        return among.isEmpty() ? null : among.get(pick % among.size());
    }

    private TaskRecord stored(long id) {
        return store.find(id).orElseThrow(() -> new AssertionError("task " + id + " was lost"));
    }

    private void create(Create step) {
        String key = step.key() < 0 ? null : "key-" + step.key();
        int priority = step.priority() % priorities;
        CreateResult r = store.create(StoreContract.spec().priority(priority).key(key).build());
        Long known = key == null ? null : keys.get(key);
        if (known != null) {
            assertThat(r.created()).isFalse();
            assertThat(r.task().id()).isEqualTo(known);
            assertThat(r.task()).isEqualTo(stored(known));
            return;
        }
        assertThat(r.created()).isTrue();
        assertThat(r.task().version()).isZero();
        assertThat(tasks).doesNotContainKey(r.task().id());
        tasks.put(r.task().id(), new Known(r.task().id(), priority, r.task().sequence()));
        if (key != null) keys.put(key, r.task().id());
    }

    private void touch(Touch step) {
        Known k = pick(new ArrayList<>(tasks.values()), step.pick());
        if (k == null) return;
        TaskRecord current = stored(k.id);
        if (step.stale() && current.version() > 0) {
            TaskRecord old = current.toBuilder().version(current.version() - 1).build();
            ApplyResult r = store.apply(StoreContract.change(old, b -> b.attributes(Attributes.of("stale", "yes")), null));
            assertThat(r.status()).isEqualTo(ApplyResult.Status.VERSION_CONFLICT);
            assertThat(stored(k.id)).isEqualTo(current);
            return;
        }
        ApplyResult r = store.apply(StoreContract.change(current,
                b -> b.attributes(Attributes.of("touched", Long.toString(current.version()))), "touch-" + current.version()));
        assertThat(r).isEqualTo(ApplyResult.APPLIED);
        k.version++;
    }

    private void claim(Claim step) {
        List<Known> runnable = new ArrayList<>();
        for (Known k : tasks.values()) {
            if (k.state.equals(READY) && k.token == null && (k.notBefore == null || !k.notBefore.isAfter(now))) runnable.add(k);
        }
        runnable.sort(CLAIM_ORDER);
        int room = limit > 0 ? Math.min(step.max(), limit - held().size()) : step.max();
        List<Long> expected = new ArrayList<>();
        for (int i = 0; i < Math.min(room, runnable.size()); i++) expected.add(runnable.get(i).id);

        List<TaskRecord> claimed = StoreContract.tasksOf(store.claim(StoreContract.claimOf(OWNER, now, LEASE, step.max(), 0)));
        assertThat(StoreContract.ids(claimed)).as("claimed by %s", step).isEqualTo(expected);
        for (TaskRecord t : claimed) {
            Known k = Objects.requireNonNull(tasks.get(t.id()));
            Lease lease = StoreContract.leaseOf(t);
            assertThat(lease.fencingToken()).as("fencing token").isGreaterThan(lastToken);
            lastToken = lease.fencingToken();
            assertThat(t.state()).isEqualTo(RUNNING);
            assertThat(t.version()).isEqualTo(k.version + 1);
            k.state = RUNNING;
            k.version++;
            k.token = lease.fencingToken();
            k.notBefore = null;
        }
    }

    private void delay(Delay step) {
        Known k = pick(held(), step.pick());
        if (k == null) return;
        Instant notBefore = now.plusSeconds(step.seconds());
        ApplyResult r = store.apply(StoreContract.change(stored(k.id), b -> b.state(READY).lease(null).notBefore(notBefore), null));
        assertThat(r).isEqualTo(ApplyResult.APPLIED);
        k.state = READY;
        k.version++;
        k.token = null;
        k.notBefore = notBefore;
    }

    private void release(int pickIndex, String to) {
        Known k = pick(held(), pickIndex);
        if (k == null) return;
        ApplyResult r = store.apply(StoreContract.release(stored(k.id), to));
        assertThat(r).isEqualTo(ApplyResult.APPLIED);
        k.state = to;
        k.version++;
        k.token = null;
    }

    private void renew(Renew step) {
        Known k = pick(held(), step.pick());
        if (k == null) return;
        long token = Objects.requireNonNull(k.token);
        RenewResult r = store.renew(k.id, step.wrongToken() ? token + 7 : token, T0, T0.plus(Duration.ofMinutes(10)));
        assertThat(r).isEqualTo(step.wrongToken() ? RenewResult.LOST : RenewResult.RENEWED);
    }

    private void front(Front step) {
        Known k = pick(new ArrayList<>(tasks.values()), step.pick());
        if (k == null) return;
        long sequence = store.nextSequence(true);
        for (Known other : tasks.values()) assertThat(sequence).isLessThan(other.sequence);
        assertThat(store.reorder(k.id, k.priority, sequence)).isTrue();
        k.sequence = sequence;
    }

    private void checkEverything() {
        assertThat(StoreContract.ids(store.query(TaskQuery.all().limit(1000)).items()))
                .as("every task created, none else").containsExactlyElementsOf(tasks.keySet());
        List<Long> held = new ArrayList<>();
        for (Known k : held()) held.add(k.id);
        assertThat(StoreContract.ids(store.leasedBy(OWNER, 1000))).as("leased by the owner").isEqualTo(held);
        for (Known k : tasks.values()) {
            TaskRecord t = stored(k.id);
            assertThat(t.version()).as("version of %s", k.id).isEqualTo(k.version);
            assertThat(t.state()).as("state of %s", k.id).isEqualTo(k.state);
            assertThat(t.sequence()).as("sequence of %s", k.id).isEqualTo(k.sequence);
            Lease lease = t.lease();
            assertThat(lease == null ? null : lease.fencingToken()).as("lease of %s", k.id).isEqualTo(k.token);
            List<HistoryEntry> history = store.history(k.id);
            assertThat(history).as("history of %s", k.id).hasSize((int) k.version);
            String state = READY;
            for (int i = 0; i < history.size(); i++) {
                HistoryEntry e = history.get(i);
                assertThat(e.version()).isEqualTo(i + 1);
                assertThat(e.from()).isEqualTo(state);
                state = e.to();
            }
            assertThat(state).isEqualTo(k.state);
            StoreContract.assertTimesNeverGoBack(history);
        }
    }
}
