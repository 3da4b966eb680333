package dev.statekit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.jdbc.internal.Rows;
import dev.statekit.jdbc.internal.Sql;
import dev.statekit.jdbc.internal.Times;
import dev.statekit.store.Attributes;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.Claimed;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Lease;
import dev.statekit.store.NewTask;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * PostgreSQL's at-once claim ({@link Sql#claimAtOnce}) writes, in SQL, what {@link ClaimRule#claim}
 * and {@link ClaimRule#entry} describe in Java: the claimed row and its history entry are compared
 * with the rule's, column by column, on a task that has attempts, a retry, an error, a past
 * not-before time and a cancellation request behind it. Both the statement run by itself and a
 * claim through the store (which builds the entry from the statement's row) are checked, with the
 * claimer's clock ahead of the task's last change and behind it.
 */
class ClaimAtOnceContractTest {
    private static final String MACHINE = "job";
    private static final String QUEUE = "q";
    private static final String OWNER = "worker-1";
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final ClaimRule RULE = new ClaimRule("READY", "START", "RUNNING");
    private static final Instant CREATED = Instant.parse("2031-04-05T13:00:00.000001Z");
    private static final Instant CHANGED = Instant.parse("2031-04-05T13:20:00.123456Z");

    /** Creates a task and gives it a past: attempts, a retry, an error, a past not-before, a cancellation request. */
    private static TaskRecord taskWithAPast(Opened db) throws Exception {
        JdbcStore store = db.store();
        store.setConcurrency(QUEUE, 0);       // a queue row without a limit: the at-once claim's case
        TaskRecord created = store.create(new NewTask(MACHINE, 2, "READY", QUEUE, 3, null, Attributes.of("k", "v"),
                "{\"n\":1}", "key-1", null, CREATED)).task();
        db.update("update {p}tasks set attempts = 2, retries = 1, not_before = ?, last_error_code = 'E_IO',"
                        + " last_error_message = 'disk', last_error_retryable = true, last_error_step = 'read', updated_at = ?,"
                        + " version = 7, cancel_requested = true where id = ?",
                utc(CHANGED.minusSeconds(60)), utc(CHANGED), created.id());
        TaskRecord before = store.find(created.id()).orElseThrow();
        assertThat(before.updatedAt()).isEqualTo(CHANGED);
        assertThat(before.notBefore()).isEqualTo(CHANGED.minusSeconds(60));
        assertThat(store.cancelRequested(before.id())).isTrue();
        return before;
    }

    private static OffsetDateTime utc(Instant t) {
        return OffsetDateTime.ofInstant(t, ZoneOffset.UTC);
    }

    private static Instant claimTime(boolean clockBehind) {
        return clockBehind ? CHANGED.minusMillis(1500) : CHANGED.plusSeconds(5).plusNanos(7_000);
    }

    /** Checks that the task and its entry are stored as the rule's claim of {@code before} leaves them. */
    private static void assertStoredAsTheRuleSays(JdbcStore store, TaskRecord before, TaskRecord claimed, Instant now) {
        Lease lease = claimed.lease();
        assertThat(lease).isNotNull();
        TaskRecord expected = RULE.claim(before, new Lease(OWNER, lease.fencingToken(), now.plus(LEASE)), now);
        assertThat(claimed.id()).isEqualTo(expected.id());
        assertThat(claimed.machine()).isEqualTo(expected.machine());
        assertThat(claimed.machineVersion()).isEqualTo(expected.machineVersion());
        assertThat(claimed.state()).as("state").isEqualTo(RULE.to());
        assertThat(claimed.queue()).isEqualTo(expected.queue());
        assertThat(claimed.priority()).isEqualTo(expected.priority());
        assertThat(claimed.sequence()).isEqualTo(expected.sequence());
        assertThat(claimed.parentId()).isEqualTo(expected.parentId());
        assertThat(claimed.attempts()).as("attempts + 1").isEqualTo(before.attempts() + 1).isEqualTo(expected.attempts());
        assertThat(claimed.retries()).isEqualTo(expected.retries());
        assertThat(claimed.lease()).as("lease").isEqualTo(expected.lease());
        assertThat(lease.fencingToken()).isPositive();
        assertThat(claimed.notBefore()).as("not_before").isNull();
        assertThat(claimed.lastError()).isEqualTo(expected.lastError());
        assertThat(claimed.attributes()).isEqualTo(expected.attributes());
        assertThat(claimed.payload()).isEqualTo(expected.payload());
        assertThat(claimed.idempotencyKey()).isEqualTo(expected.idempotencyKey());
        assertThat(claimed.createdAt()).isEqualTo(expected.createdAt());
        assertThat(claimed.updatedAt()).as("updated_at").isEqualTo(ClaimRule.claimTime(before, now)).isEqualTo(expected.updatedAt());
        assertThat(claimed.version()).as("version + 1").isEqualTo(before.version() + 1).isEqualTo(expected.version());
        assertThat(claimed).as("the whole row").isEqualTo(expected);
        assertThat(store.find(before.id())).as("the row as committed").contains(expected);
        assertThat(store.cancelRequested(before.id())).as("cancel_requested").isFalse();

        HistoryEntry entry = RULE.entry(before, OWNER, now);
        List<HistoryEntry> history = store.history(before.id());
        assertThat(history).hasSize(1);
        HistoryEntry written = history.get(0);
        assertThat(written.taskId()).isEqualTo(entry.taskId());
        assertThat(written.version()).isEqualTo(entry.version()).isEqualTo(expected.version());
        assertThat(written.from()).isEqualTo(RULE.from());
        assertThat(written.to()).isEqualTo(RULE.to());
        assertThat(written.event()).isEqualTo(RULE.event());
        assertThat(written.source()).isEqualTo(TriggerSource.SYSTEM);
        assertThat(written.actor()).isEqualTo(OWNER);
        assertThat(written.reason()).isEqualTo(ClaimRule.CLAIM_REASON);
        assertThat(written.at()).isEqualTo(expected.updatedAt());
        assertThat(written.commandKey()).isNull();
        assertThat(written).as("the whole entry").isEqualTo(entry);
    }

    @ParameterizedTest(name = "clock behind the task: {0}")
    @ValueSource(booleans = {false, true})
    void theStatementWritesTheRowAndEntryTheClaimRuleDescribes(boolean clockBehind) throws Exception {
        Databases.requirePostgres();
        try (Opened db = Opened.open(Dialect.POSTGRESQL)) {
            TaskRecord before = taskWithAPast(db);
            Instant now = claimTime(clockBehind);
            Sql sql = new Sql(Dialect.POSTGRESQL, db.store().tablePrefix());
            TaskRecord claimed;
            try (Connection c = db.pool().getConnection()) {
                c.setAutoCommit(false);
                try (PreparedStatement ps = c.prepareStatement(sql.claimAtOnce(1, 1))) {
                    int i = 1;
                    ps.setString(i++, QUEUE);
                    ps.setArray(i++, c.createArrayOf("text", new String[] {RULE.from()}));
                    ps.setArray(i++, c.createArrayOf("text", new String[] {RULE.event()}));
                    ps.setArray(i++, c.createArrayOf("text", new String[] {RULE.to()}));
                    i = runnable(ps, i, now);
                    ps.setString(i++, QUEUE);
                    i = runnable(ps, i, now);
                    i = runnable(ps, i, now);
                    ps.setString(i++, OWNER);
                    Times.ZONED.set(ps, i++, now.plus(LEASE));
                    Times.ZONED.set(ps, i++, now);
                    ps.setString(i++, TriggerSource.SYSTEM.name());
                    ps.setString(i++, OWNER);
                    ps.setString(i, ClaimRule.CLAIM_REASON);
                    try (ResultSet rs = ps.executeQuery()) {
                        assertThat(rs.next()).isTrue();
                        claimed = Rows.task(Times.ZONED, rs);
                        assertThat(rs.getBoolean(25)).as("cancel_requested of the claimed row").isFalse();
                        assertThat(rs.getString(28)).as("from-state").isEqualTo(RULE.from());
                        assertThat(rs.getString(29)).as("event").isEqualTo(RULE.event());
                        assertThat(rs.getBoolean(33)).as("the plain order is the claim order").isTrue();
                        assertThat(Times.ZONED.get(rs, 34)).as("ready since").isEqualTo(ClaimRule.readySince(before));
                        assertThat(rs.next()).as("one task claimed").isFalse();
                    }
                }
                c.commit();
            }
            assertStoredAsTheRuleSays(db.store(), before, claimed, now);
        }
    }

    @ParameterizedTest(name = "clock behind the task: {0}")
    @ValueSource(booleans = {false, true})
    void aClaimThroughTheStoreReturnsAndWritesWhatTheClaimRuleDescribes(boolean clockBehind) throws Exception {
        Databases.requirePostgres();
        try (Opened db = Opened.open(Dialect.POSTGRESQL)) {
            TaskRecord before = taskWithAPast(db);
            Instant now = claimTime(clockBehind);
            List<Claimed> claimed = db.store().claim(new ClaimRequest(MACHINE, QUEUE, List.of(RULE), OWNER, now, LEASE, 1, 0));
            assertThat(claimed).hasSize(1);
            Claimed c = claimed.get(0);
            assertThat(c.entry()).as("the entry the claim returns").isEqualTo(RULE.entry(before, OWNER, now));
            assertThat(c.readySince()).isEqualTo(ClaimRule.readySince(before));
            assertStoredAsTheRuleSays(db.store(), before, c.task(), now);
        }
    }

    private static int runnable(PreparedStatement ps, int first, Instant now) throws Exception {
        int i = first;
        ps.setString(i++, MACHINE);
        ps.setString(i++, QUEUE);
        ps.setString(i++, RULE.from());
        Times.ZONED.set(ps, i++, now);
        return i;
    }
}
