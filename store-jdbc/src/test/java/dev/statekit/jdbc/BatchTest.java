package dev.statekit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.store.ApplyResult;
import dev.statekit.store.Attributes;
import dev.statekit.store.Change;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.NewTask;
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
}
