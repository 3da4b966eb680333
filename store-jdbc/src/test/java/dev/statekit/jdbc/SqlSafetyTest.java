package dev.statekit.jdbc;

import static dev.statekit.store.tck.StoreContract.tasksOf;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.Attributes;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.CreateResult;
import dev.statekit.store.NewTask;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Names and values are bound, never spliced into SQL: whatever they hold is stored and found verbatim. */
class SqlSafetyTest {
    static final Instant T0 = Instant.parse("2031-04-05T13:30:00.000001Z");
    static final String QUEUE = "q'; drop table x; --";
    static final String MACHINE = "m\"; delete from statekit_tasks; --";
    static final String READY = "READY' or '1'='1";
    static final String RUNNING = "RUN\\NING %_ ${prefix} ? :name";

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void hostileNamesAndValuesAreStoredAndFoundVerbatim(Dialect dialect) throws Exception {
        try (Opened db = Opened.open(dialect)) {
            JdbcStore store = db.store();
            Attributes attributes = Attributes.of("k'--", "v\"\\ \u0000 \u0001 \t\n\r \u2028 😀 \ud800 ğüşİı",
                    "{\"json\":", "}", "ıİ", "'); drop table " + store.tablePrefix() + "tasks; --");
            String payload = "'; truncate " + store.tablePrefix() + "history; -- \\ \"😀\" ğİı";
            String key = "key'); --";
            CreateResult created = store.create(new NewTask(MACHINE, 3, READY, QUEUE, 5, null, attributes, payload, key, null, T0));
            TaskRecord t = created.task();

            assertThat(store.find(t.id())).contains(t);
            assertThat(t.attributes()).isEqualTo(attributes);
            assertThat(t.payload()).isEqualTo(payload);
            assertThat(store.create(new NewTask(MACHINE, 3, READY, QUEUE, 5, null, Attributes.EMPTY, null, key, null, T0)))
                    .isEqualTo(new CreateResult(t, false));
            assertThat(store.query(TaskQuery.all().machine(MACHINE).queue(QUEUE).states(Set.of(READY))).items()).containsExactly(t);
            assertThat(store.query(TaskQuery.all().queue("q")).items()).isEmpty();

            assertThat(store.pauseQueue(QUEUE, "reason'; --").pauseReason()).isEqualTo("reason'; --");
            assertThat(store.queue(QUEUE).paused()).isTrue();
            assertThat(store.resumeQueue(QUEUE).paused()).isFalse();

            ClaimRequest claim = new ClaimRequest(MACHINE, QUEUE, List.of(new ClaimRule(READY, "START'--", RUNNING)),
                    "owner'; --", T0, Duration.ofMinutes(1), 5, 0);
            List<TaskRecord> claimed = tasksOf(store.claim(claim));
            assertThat(claimed).hasSize(1);
            assertThat(claimed.get(0).state()).isEqualTo(RUNNING);
            assertThat(store.find(t.id())).contains(claimed.get(0));
            assertThat(store.history(t.id())).singleElement().satisfies(e -> {
                assertThat(e.event()).isEqualTo("START'--");
                assertThat(e.actor()).isEqualTo("owner'; --");
            });
            assertThat(store.leasedBy("owner'; --", 10)).containsExactly(claimed.get(0));
            assertThat(store.leased(QUEUE)).isEqualTo(1);

            // every table is still there, with the rows written
            assertThat(db.queryLong("select count(*) from {p}tasks")).isEqualTo(1);
            assertThat(db.queryLong("select count(*) from {p}history")).isEqualTo(1);
            assertThat(db.queryLong("select count(*) from {p}queues")).isEqualTo(1);
        }
    }
}
