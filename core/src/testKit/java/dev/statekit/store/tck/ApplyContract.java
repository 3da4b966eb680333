package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.store.ApplyResult;
import dev.statekit.store.Attributes;
import dev.statekit.store.Change;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on applying changes: compare-and-set on the version with one history entry,
 * replayed command keys, and applyAll. Every store runs it as {@link StoreContract.Apply}.
 */
abstract class ApplyContract extends ContractPart {

    ApplyContract(StoreContract contract) {
        super(contract);
    }

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
