package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.Page;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on queries: filters, pages in ascending id order, and the current snapshot.
 * Every store runs it as {@link StoreContract.Queries}.
 */
abstract class QueryContract extends ContractPart {

    QueryContract(StoreContract contract) {
        super(contract);
    }

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
    public void filtersByLastErrorCodeAndHalfOpenTimeRanges() {
        TaskError limited = new TaskError("RATE_LIMITED", "slow down", true, null);
        TaskRecord early = create(spec().createdAt(T0));
        TaskRecord failed = applied(change(create(spec().createdAt(T0.plus(HOUR))), b -> b.lastError(limited), null));
        TaskRecord other = applied(change(create(spec().createdAt(T0.plus(HOUR.multipliedBy(2)))),
                b -> b.lastError(new TaskError("TIMEOUT", "too slow", false, "fetch")), null));
        TaskRecord late = applied(change(create(spec().createdAt(T0.plus(HOUR.multipliedBy(3)))), b -> b.lastError(limited), null));
        Instant failedUpdated = failed.updatedAt();

        assertThat(queryIds(TaskQuery.all().errorCode("RATE_LIMITED"))).containsExactly(failed.id(), late.id());
        assertThat(queryIds(TaskQuery.all().errorCode("TIMEOUT"))).containsExactly(other.id());
        assertThat(queryIds(TaskQuery.all().errorCode("NONE"))).isEmpty();
        assertThat(queryIds(TaskQuery.all().createdBetween(T0.plus(HOUR), T0.plus(HOUR.multipliedBy(3)))))
                .as("from inclusive, to exclusive").containsExactly(failed.id(), other.id());
        assertThat(queryIds(TaskQuery.all().createdBetween(null, T0.plus(HOUR)))).containsExactly(early.id());
        assertThat(queryIds(TaskQuery.all().createdBetween(T0.plus(HOUR.multipliedBy(3)), null))).containsExactly(late.id());
        assertThat(queryIds(TaskQuery.all().updatedBetween(failedUpdated, failedUpdated.plusNanos(1000))))
                .containsExactly(failed.id());
        assertThat(queryIds(TaskQuery.all().updatedBetween(failedUpdated.plusNanos(1000), null))).containsExactly(other.id(), late.id());
        assertThat(queryIds(TaskQuery.all().updatedBetween(null, failedUpdated))).containsExactly(early.id());
        assertThat(queryIds(TaskQuery.all().errorCode("RATE_LIMITED").createdBetween(T0, T0.plus(HOUR.multipliedBy(2)))
                .machine(MACHINE).states(Set.of(READY)).queue(QUEUE))).containsExactly(failed.id());
        for (TaskRecord t : List.of(early, failed, other, late)) {
            assertThat(TaskQuery.all().errorCode("RATE_LIMITED").matches(t)).isEqualTo(t == failed || t == late);
        }
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
