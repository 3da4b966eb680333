package dev.statekit.jdbc;

import static dev.statekit.store.tck.StoreContract.tasksOf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.core.Outcome;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.store.ApplyResult;
import dev.statekit.store.Attributes;
import dev.statekit.store.Change;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.NewTask;
import dev.statekit.store.Page;
import dev.statekit.store.StatekitException;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import dev.statekit.test.fixtures.Jobs;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A row that cannot be read, or a task in a state its machine forgot, stops nothing but itself. */
class BadRowsTest {
    static final Instant T0 = Instant.parse("2031-04-05T13:30:00Z");

    static NewTask ready(String payload) {
        return new NewTask("job", 1, "READY", "q", 0, null, Attributes.of("n", "1"), payload, null, null, T0);
    }

    static ClaimRequest claim(int max) {
        return new ClaimRequest("job", "q", List.of(new ClaimRule("READY", "START", "RUNNING")), "w", T0,
                Duration.ofMinutes(1), max, 0);
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void attributesThatDoNotDecodeFailTheirTaskAndNoOther(Dialect dialect) throws Exception {
        try (Opened db = Opened.open(dialect)) {
            JdbcStore store = db.store();
            long first = store.create(ready(null)).task().id();
            long bad = store.create(ready(null)).task().id();
            long third = store.create(ready(null)).task().id();
            assertThat(db.update("update {p}tasks set attributes = ? where id = ?", "{\"n\": 1", bad)).isEqualTo(1);

            assertThatThrownBy(() -> store.find(bad)).isInstanceOfSatisfying(StatekitException.class, e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.STORE_FAILURE);
                assertThat(e.taskId()).isEqualTo(bad);
                assertThat(e.getMessage()).contains("task " + bad).contains("attributes");
            });
            assertThat(JdbcStoreTestSupport.ids(store.query(TaskQuery.all()).items())).containsExactly(first, third);
            // paging still walks past the bad row
            Page<TaskRecord> page = store.query(TaskQuery.all().limit(2));
            assertThat(JdbcStoreTestSupport.ids(page.items())).containsExactly(first);
            assertThat(page.nextAfterId()).isEqualTo(bad);
            assertThat(JdbcStoreTestSupport.ids(store.query(TaskQuery.all().after(bad)).items())).containsExactly(third);
            assertThat(JdbcStoreTestSupport.ids(store.peek(claim(5)))).containsExactly(first, third);
            assertThat(store.findAll(List.of(first, bad, third))).containsOnlyKeys(first, third);

            // claims take the readable tasks, never the bad one
            assertThat(JdbcStoreTestSupport.ids(tasksOf(store.claim(claim(5))))).containsExactly(first, third);
            assertThat(tasksOf(store.claim(claim(5)))).isEmpty();
            assertThat(db.queryLong("select version from {p}tasks where id = ?", bad)).isZero();
            assertThat(db.queryLong("select count(*) from {p}tasks where id = ? and lease_token is null", bad)).isEqualTo(1);
            assertThat(store.history(bad)).isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void aTaskInAStateItsMachineForgotIsSchemaDriftAndOthersRunOn(Dialect dialect) throws Exception {
        try (Opened db = Opened.open(dialect)) {
            TransitionEngine engine = TransitionEngine.builder().store(db.store()).build();
            long first = engine.create(Jobs.SIMPLE, TaskSpec.defaults()).task().id();
            long drifted = engine.create(Jobs.SIMPLE, TaskSpec.defaults()).task().id();
            long third = engine.create(Jobs.SIMPLE, TaskSpec.defaults()).task().id();
            db.update("update {p}tasks set state = ? where id = ?", "ARCHIVED_BY_AN_OLDER_VERSION", drifted);

            assertThatThrownBy(() -> engine.find(Jobs.SIMPLE, drifted)).isInstanceOfSatisfying(StatekitException.class, e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.SCHEMA_DRIFT);
                assertThat(e.taskId()).isEqualTo(drifted);
                assertThat(e.getMessage()).contains("task " + drifted).contains("ARCHIVED_BY_AN_OLDER_VERSION");
            });
            ClaimRequest request = new ClaimRequest(Jobs.SIMPLE.name(), Jobs.SIMPLE.name(),
                    List.of(new ClaimRule("QUEUED", "START", "RUNNING")), "w", T0, Duration.ofMinutes(1), 10, 0);
            assertThat(JdbcStoreTestSupport.ids(tasksOf(db.store().claim(request)))).containsExactly(first, third);
            for (long id : new long[] {first, third}) {
                assertThat(engine.fire(Jobs.SIMPLE, id, Jobs.Event.COMPLETE)).isInstanceOf(Outcome.Applied.class);
                assertThat(engine.find(Jobs.SIMPLE, id)).hasValueSatisfying(t -> assertThat(t.state()).isEqualTo(Jobs.State.DONE));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void aPayloadOverTheLimitNamesItsTaskAndWritesNothing(Dialect dialect) throws Exception {
        try (Opened db = Opened.open(dialect, b -> b.maxPayloadChars(10))) {
            JdbcStore store = db.store();
            assertThatThrownBy(() -> store.create(ready("x".repeat(11)))).isInstanceOfSatisfying(StatekitException.class,
                    e -> assertThat(e.code()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE));
            TaskRecord a = store.create(ready("x".repeat(10))).task();
            TaskRecord b = store.create(ready(null)).task();

            Change tooLarge = change(b, "y".repeat(11));
            assertThatThrownBy(() -> store.apply(tooLarge)).isInstanceOfSatisfying(StatekitException.class, e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE);
                assertThat(e.taskId()).isEqualTo(b.id());
                assertThat(e.getMessage()).contains("task " + b.id()).contains("11").contains("10");
            });
            assertThat(store.find(b.id())).contains(b);
            assertThat(store.history(b.id())).isEmpty();

            // one by one: the change before the refused one is written, the one after it is not tried
            TaskRecord c = store.create(ready(null)).task();
            assertThatThrownBy(() -> store.applyEach(List.of(change(a, "ok"), tooLarge, change(c, "ok"))))
                    .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.taskId()).isEqualTo(b.id()));
            assertThat(store.find(a.id()).orElseThrow().payload()).isEqualTo("ok");
            assertThat(store.find(b.id())).contains(b);
            assertThat(store.find(c.id())).contains(c);
            // all or nothing
            TaskRecord a1 = store.find(a.id()).orElseThrow();
            assertThatThrownBy(() -> store.applyAll(List.of(change(a1, "all"), tooLarge)))
                    .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.taskId()).isEqualTo(b.id()));
            assertThat(store.find(a.id())).contains(a1);
            assertThat(store.applyEach(List.of(change(a1, "each"), change(c, "each"))))
                    .containsExactly(ApplyResult.APPLIED, ApplyResult.APPLIED);
        }
    }

    static Change change(TaskRecord from, String payload) {
        Instant at = from.updatedAt().plusSeconds(1);
        TaskRecord next = from.toBuilder().payload(payload).updatedAt(at).version(from.version() + 1).build();
        return new Change(from.version(), next, new HistoryEntry(from.id(), next.version(), from.state(), from.state(), "EDIT",
                TriggerSource.USER, "tester", null, at, null));
    }
}
