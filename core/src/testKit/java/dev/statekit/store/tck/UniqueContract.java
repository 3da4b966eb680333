package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.CreateResult;
import dev.statekit.store.NewTask;
import dev.statekit.store.TaskRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on unique keys: a second creation with a key a task of the machine
 * holds returns that task; the key holds across a claim and a retry within the unique states, and is
 * freed by the change that takes the task out of them; concurrent creations make one task; the
 * idempotency key is looked at first. Every store runs it as {@link StoreContract.Unique}.
 */
abstract class UniqueContract extends ContractPart {
    /** The unique states of these tests: the task keeps its key while it waits, runs or waits to retry. */
    static final Set<String> UNIQUE = Set.of(READY, RUNNING, WAITING);

    UniqueContract(StoreContract contract) {
        super(contract);
    }

    private static NewTask unique(Spec spec, String key) {
        return spec.build().withUniqueKey(key, UNIQUE);
    }

    @Test
    public void aDuplicateReturnsTheTaskThatHoldsTheKey() {
        CreateResult first = store.create(unique(spec(), "in.txt->out.gz"));
        assertThat(first.created()).isTrue();
        assertThat(first.task().uniqueKey()).isEqualTo("in.txt->out.gz");
        assertThat(get(first.task().id()).uniqueKey()).isEqualTo("in.txt->out.gz");

        CreateResult again = store.create(unique(spec().payload("other"), "in.txt->out.gz"));
        assertThat(again.created()).as("the key is taken").isFalse();
        assertThat(again.task().id()).isEqualTo(first.task().id());
        assertThat(again.task().payload()).as("the existing task, as stored").isNull();

        assertThat(store.create(unique(spec(), "b.txt->b.gz")).created()).as("another key").isTrue();
        assertThat(store.create(unique(spec().machine("other"), "in.txt->out.gz")).created()).as("another machine").isTrue();
        assertThat(store.create(spec().build()).created()).as("no key").isTrue();
    }

    @Test
    public void aTaskThatLeavesTheUniqueStatesFreesItsKey() {
        TaskRecord first = store.create(unique(spec(), "k")).task();
        TaskRecord done = applied(change(first, b -> b.state(DONE).uniqueKey(null), null));
        assertThat(done.uniqueKey()).isNull();
        assertThat(done.idempotencyKey()).isNull();

        CreateResult second = store.create(unique(spec(), "k"));
        assertThat(second.created()).as("the key is free again").isTrue();
        assertThat(second.task().id()).isNotEqualTo(first.id());
        assertThat(store.create(unique(spec(), "k")).task().id()).as("now the second holds it").isEqualTo(second.task().id());
    }

    @Test
    public void theKeyHoldsAcrossAClaimAndARetryWithinTheUniqueStates() {
        TaskRecord task = store.create(unique(spec(), "k")).task();
        TaskRecord running = claimOne(task.id(), OWNER, LEASE);
        assertThat(running.uniqueKey()).as("claimed").isEqualTo("k");
        assertThat(store.create(unique(spec(), "k")).created()).as("while it runs").isFalse();

        TaskRecord retrying = applied(release(running, WAITING));
        assertThat(retrying.uniqueKey()).as("waiting to retry").isEqualTo("k");
        CreateResult duplicate = store.create(unique(spec(), "k"));
        assertThat(duplicate.created()).as("while it waits to retry").isFalse();
        assertThat(duplicate.task().id()).isEqualTo(task.id());

        TaskRecord ready = applied(move(retrying, READY, null));
        assertThat(ready.uniqueKey()).isEqualTo("k");
        assertThat(store.create(unique(spec(), "k")).task().id()).isEqualTo(task.id());
        assertThat(queryIds(dev.statekit.store.TaskQuery.all().machine(MACHINE))).as("one task").containsExactly(task.id());
    }

    @Test
    public void aChangeNeverGivesAKey() {
        TaskRecord plain = create();
        TaskRecord moved = applied(change(plain, b -> b.state(RUNNING).uniqueKey("k"), null));
        assertThat(moved.uniqueKey()).as("a task created without a key holds none").isNull();
        assertThat(store.create(unique(spec(), "k")).created()).isTrue();
    }

    @Test
    public void concurrentCreationsWithOneKeyMakeOneTask() throws Exception {
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<CreateResult>> results = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                Callable<CreateResult> create = () -> {
                    start.await();
                    return store.create(unique(spec(), "same"));
                };
                results.add(pool.submit(create));
            }
            start.countDown();
            Set<Long> ids = new HashSet<>();
            int created = 0;
            for (Future<CreateResult> f : results) {
                CreateResult r = f.get(30, TimeUnit.SECONDS);
                ids.add(r.task().id());
                if (r.created()) created++;
            }
            assertThat(created).as("created once").isEqualTo(1);
            assertThat(ids).as("every caller got the one task").hasSize(1);
            assertThat(queryIds(dev.statekit.store.TaskQuery.all().machine(MACHINE))).containsExactlyElementsOf(ids);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    public void theIdempotencyKeyIsLookedAtFirst() {
        TaskRecord first = store.create(unique(spec().key("request-1"), "k")).task();
        CreateResult other = store.create(unique(spec().key("request-2"), "k"));
        assertThat(other.created()).as("turned away by the unique key").isFalse();
        assertThat(other.task().id()).isEqualTo(first.id());

        applied(change(first, b -> b.state(DONE).uniqueKey(null), null));
        CreateResult repeated = store.create(unique(spec().key("request-1"), "k"));
        assertThat(repeated.created()).as("the idempotency key still names the first task").isFalse();
        assertThat(repeated.task().id()).isEqualTo(first.id());

        CreateResult second = store.create(unique(spec().key("request-2"), "k"));
        assertThat(second.created()).as("request-2 was not recorded when it was turned away").isTrue();
        assertThat(second.task().id()).isNotEqualTo(first.id());
        assertThat(store.create(unique(spec().key("request-2"), "k")).task().id()).isEqualTo(second.task().id());
    }
}
