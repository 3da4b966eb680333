package dev.statekit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.jdbc.internal.Rows;
import dev.statekit.store.ApplyResult;
import dev.statekit.store.Attributes;
import dev.statekit.store.Change;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.NewTask;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The batch operations the runtime uses: findAll, and applyEach with each change on its own. */
class BatchTest {
    static final Instant T0 = Instant.parse("2031-04-05T13:30:00Z");

    static Change move(TaskRecord from, String state, @Nullable String key) {
        Instant at = from.updatedAt().plusSeconds(1);
        TaskRecord next = from.toBuilder().state(state).updatedAt(at).version(from.version() + 1).build();
        return new Change(from.version(), next, new HistoryEntry(from.id(), next.version(), from.state(), state, "GO",
                TriggerSource.SYSTEM, null, null, at, key));
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void applyEachWritesEveryChangeThatCanBeWrittenAndReportsTheOthers(Dialect dialect) throws Exception {
        try (Opened db = Opened.open(dialect)) {
            JdbcStore store = db.store();
            List<TaskRecord> tasks = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                tasks.add(store.create(new NewTask("job", 1, "READY", "q", 0, null, Attributes.EMPTY, null, null, null, T0)).task());
            }
            TaskRecord stale = tasks.get(1);
            assertThat(store.apply(move(stale, "WAITING", null))).isEqualTo(ApplyResult.APPLIED);
            TaskRecord replayed = tasks.get(3);
            Change first = move(replayed, "WAITING", "cmd-1");
            assertThat(store.apply(first)).isEqualTo(ApplyResult.APPLIED);
            TaskRecord replayedNow = store.find(replayed.id()).orElseThrow();
            TaskRecord last = tasks.get(4);

            List<ApplyResult> results = store.applyEach(List.of(
                    move(tasks.get(0), "DONE", null),
                    move(stale, "DONE", null),                     // computed from version 0, stored is 1
                    move(tasks.get(2), "DONE", "cmd-1"),           // the same key on another task is fine
                    move(replayedNow, "DONE", "cmd-1"),            // a replay of task 3's command
                    move(last, "DONE", null)));
            assertThat(results).containsExactly(ApplyResult.APPLIED, ApplyResult.conflict(stale.id()), ApplyResult.APPLIED,
                    ApplyResult.duplicate(store.findCommand(replayed.id(), "cmd-1").orElseThrow()), ApplyResult.APPLIED);
            assertThat(store.find(tasks.get(0).id()).orElseThrow().state()).isEqualTo("DONE");
            assertThat(store.find(stale.id()).orElseThrow().state()).isEqualTo("WAITING");
            assertThat(store.find(tasks.get(2).id()).orElseThrow().state()).isEqualTo("DONE");
            assertThat(store.find(replayed.id()).orElseThrow().state()).isEqualTo("WAITING");
            assertThat(store.history(replayed.id())).hasSize(1);
            assertThat(store.find(last.id()).orElseThrow().version()).isEqualTo(1);

            // an unknown task is not found, and the others are written all the same
            TaskRecord unknown = new TaskRecord(999_999, "job", 1, "READY", "q", 0, 1, null, 0, 0, null, null, null,
                    Attributes.EMPTY, null, null, T0, T0, 0);
            List<ApplyResult> more = store.applyEach(List.of(move(unknown, "DONE", null),
                    move(store.find(stale.id()).orElseThrow(), "DONE", null)));
            assertThat(more).containsExactly(ApplyResult.notFound(999_999), ApplyResult.APPLIED);
            assertThatThrownBy(() -> store.applyEach(List.of(move(tasks.get(0), "X", null), move(tasks.get(0), "Y", null))))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(store.applyEach(List.of())).isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void findAllReturnsTheTasksThatExistById(Dialect dialect) throws Exception {
        try (Opened db = Opened.open(dialect)) {
            JdbcStore store = db.store();
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 1203; i++) {
                ids.add(store.create(new NewTask("job", 1, "READY", "q", 0, null, Attributes.of("i", Integer.toString(i)), null,
                        null, null, T0)).task().id());
            }
            List<Long> asked = new ArrayList<>(ids);
            asked.add(-5L);
            asked.add(999_999L);
            asked.add(ids.get(0));
            Map<Long, TaskRecord> found = store.findAll(asked);
            assertThat(found).hasSize(1203);
            for (int i = 0; i < ids.size(); i++) {
                assertThat(found.get(ids.get(i))).isEqualTo(store.find(ids.get(i)).orElseThrow());
                assertThat(found.get(ids.get(i)).attributes().get("i")).isEqualTo(Integer.toString(i));
            }
            assertThat(store.findAll(List.of())).isEmpty();
        }
    }

    /**
     * The batched write (on PostgreSQL one statement over arrays) keeps every value as given:
     * text that array syntax would mistake (NULL, quotes, braces, commas, backslashes, line
     * breaks, non-ASCII), nulls, times before year 1 and after 9999 and before the epoch to the
     * microsecond, and a lease kept with its token keeps the stored owner and expiry.
     */
    @ParameterizedTest
    @EnumSource(Dialect.class)
    void applyEachKeepsEveryValueItWrites(Dialect dialect) throws Exception {
        try (Opened db = Opened.open(dialect)) {
            JdbcStore store = db.store();
            List<TaskRecord> tasks = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                tasks.add(store.create(new NewTask("job", 1, "READY", "q", 0, null, Attributes.EMPTY, null, null, null, T0)).task());
            }
            String[] awkward = {"NULL", "null", "\"quoted\", {braced}, a\\b", "line\nbreak\ttab", "", "ünïcödé ✓ 𝄞"};
            Instant[] times = {Instant.parse("-0044-03-15T12:00:00.000001Z"), Instant.parse("0001-01-01T00:00:00Z"),
                Instant.parse("1969-12-31T23:59:59.999999Z"), Instant.parse("+12345-06-07T08:09:10.123456Z")};
            List<Change> changes = new ArrayList<>();
            List<TaskRecord> expected = new ArrayList<>();
            for (int i = 0; i < tasks.size(); i++) {
                TaskRecord t = tasks.get(i);
                String text = awkward[i % awkward.length];
                Instant at = T0.plusNanos(123_456_789L * (i + 1));
                TaskRecord next = t.toBuilder()
                        .state(i % 2 == 0 ? "RUNNING" : "WAITING")
                        .queue(text.isEmpty() ? "q" : text)
                        .attempts(i + 1)
                        .retries(i)
                        .lease(i % 2 == 0 ? new Lease("owner " + awkward[(i + 1) % awkward.length], 100 + i, times[3]) : null)
                        .notBefore(times[i])
                        .lastError(i == 3 ? null : new TaskError(text.isEmpty() ? "E" : text, awkward[(i + 2) % awkward.length],
                                i % 2 == 0, i == 1 ? null : awkward[(i + 3) % awkward.length]))
                        .attributes(Attributes.of("k", text, "NULL", awkward[(i + 4) % awkward.length]))
                        .payload(i == 2 ? null : awkward[(i + 5) % awkward.length])
                        .updatedAt(at)
                        .version(t.version() + 1)
                        .build();
                changes.add(new Change(t.version(), next, new HistoryEntry(t.id(), next.version(), t.state(), next.state(),
                        text.isEmpty() ? "GO" : text, TriggerSource.USER, i == 0 ? null : awkward[(i + 1) % awkward.length],
                        i == 1 ? null : text, at, null)));
                expected.add(next.toBuilder().notBefore(Rows.micros(times[i])).updatedAt(Rows.micros(at)).build());
            }
            assertThat(store.applyEach(changes)).containsOnly(ApplyResult.APPLIED);
            for (int i = 0; i < tasks.size(); i++) {
                assertThat(store.find(tasks.get(i).id()).orElseThrow()).isEqualTo(expected.get(i));
                HistoryEntry written = changes.get(i).entry();
                assertThat(store.history(tasks.get(i).id())).containsExactly(new HistoryEntry(written.taskId(), written.version(),
                        written.from(), written.to(), written.event(), written.source(), written.actor(), written.reason(),
                        Rows.micros(written.at()), null));
            }

            // A change that keeps a lease's token keeps the stored owner and expiry; another token replaces them.
            TaskRecord held = store.find(tasks.get(0).id()).orElseThrow();
            TaskRecord other = store.find(tasks.get(2).id()).orElseThrow();
            Instant later = T0.plusSeconds(60);
            List<ApplyResult> results = store.applyEach(List.of(
                    keepLease(held, new Lease("someone else", held.lease().fencingToken(), later)),
                    keepLease(other, new Lease("new owner", 999, later))));
            assertThat(results).containsOnly(ApplyResult.APPLIED);
            assertThat(store.find(held.id()).orElseThrow().lease()).isEqualTo(held.lease());
            assertThat(store.find(other.id()).orElseThrow().lease()).isEqualTo(new Lease("new owner", 999, later));
        }
    }

    private static Change keepLease(TaskRecord from, Lease lease) {
        Instant at = from.updatedAt().plusSeconds(1);
        TaskRecord next = from.toBuilder().lease(lease).attempts(from.attempts() + 1).updatedAt(at).version(from.version() + 1).build();
        return new Change(from.version(), next, new HistoryEntry(from.id(), next.version(), from.state(), from.state(), "BEAT",
                TriggerSource.SYSTEM, null, null, at, null));
    }
}
