package dev.statekit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.core.Command;
import dev.statekit.core.Outcome;
import dev.statekit.core.RefusalCode;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.spi.TransitionListener;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.ApplyResult;
import dev.statekit.store.Change;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.StatekitException;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import dev.statekit.test.fixtures.Jobs;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Tasks created and commands fired in the application's own transaction (DESIGN promise 11): they
 * commit or roll back with its business rows; the engine's listeners, and so a runtime's wake-ups,
 * hear of them only after the commit; a rolled-back task never runs. On a plain connection
 * ({@link JdbcStore#enlist}) and in a framework's transaction ({@link TransactionHooks}), on both
 * databases.
 */
class EnlistTest {
    static final String QUEUE = "q";

    /** A store on tables of their own with a business table {@code <prefix>orders} beside them. */
    static Opened open(Dialect dialect) throws SQLException {
        Opened db = Opened.open(dialect);
        try (Connection c = db.pool().getConnection(); Statement s = c.createStatement()) {
            s.execute("create table " + db.store().tablePrefix() + "orders (id bigint primary key, task_id bigint not null)");
        }
        return db;
    }

    static void close(Opened db) throws SQLException {
        try (Connection c = db.pool().getConnection(); Statement s = c.createStatement()) {
            s.execute("drop table if exists " + db.store().tablePrefix() + "orders");
        }
        db.close();
    }

    static void insertOrder(Connection c, String prefix, long id, long taskId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("insert into " + prefix + "orders (id, task_id) values (?, ?)")) {
            ps.setLong(1, id);
            ps.setLong(2, taskId);
            ps.executeUpdate();
        }
    }

    static Connection begin(Opened db) throws SQLException {
        Connection c = db.pool().getConnection();
        c.setAutoCommit(false);
        return c;
    }

    /** What the engine's listeners heard. */
    static List<String> listen(TransitionEngine engine) {
        List<String> heard = new CopyOnWriteArrayList<>();
        engine.subscribe(new TransitionListener() {
            @Override
            public void onTransition(String machine, TaskRecord task, HistoryEntry entry) {
                heard.add(entry.event() + " " + task.id());
            }

            @Override
            public void onCreated(String machine, TaskRecord task) {
                heard.add("created " + task.id());
            }
        });
        return heard;
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void aTaskAndTheBusinessRowCommitTogetherAndListenersHearAfterTheCommit(Dialect dialect) throws Exception {
        Opened db = open(dialect);
        try {
            TransitionEngine engine = TransitionEngine.builder().store(db.store()).build();
            List<String> heard = listen(engine);
            long id;
            try (Connection c = begin(db)) {
                Enlistment tx = db.store().enlist(c);
                TransitionEngine inTx = engine.within(tx.store());
                id = inTx.create(Jobs.MACHINE, TaskSpec.defaults().queue(QUEUE).idempotencyKey("order-1")).task().id();
                insertOrder(c, db.store().tablePrefix(), 1, id);
                assertThat(inTx.fire(Jobs.MACHINE, id, Jobs.Event.START).isApplied()).isTrue();

                assertThat(db.store().find(id)).as("invisible outside the transaction").isEmpty();
                assertThat(heard).as("nothing heard before the commit").isEmpty();
                c.commit();
                tx.committed();
            }
            assertThat(heard).containsExactly("created " + id, "START " + id);
            assertThat(db.store().find(id).orElseThrow().state()).isEqualTo("RUNNING");
            assertThat(db.store().history(id)).extracting(HistoryEntry::event).containsExactly("START");
            assertThat(db.queryLong("select count(*) from {p}orders where task_id = ?", id)).isEqualTo(1);
            assertThat(engine.create(Jobs.MACHINE, TaskSpec.defaults().queue(QUEUE).idempotencyKey("order-1")).created())
                    .as("the idempotency key committed with the task").isFalse();
        } finally {
            close(db);
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void aRollbackTakesTheTaskItsHistoryAndItsKeyWithTheBusinessRow(Dialect dialect) throws Exception {
        Opened db = open(dialect);
        try {
            TransitionEngine engine = TransitionEngine.builder().store(db.store()).build();
            List<String> heard = listen(engine);
            long id;
            try (Connection c = begin(db)) {
                Enlistment tx = db.store().enlist(c);
                TransitionEngine inTx = engine.within(tx.store());
                id = inTx.create(Jobs.MACHINE, TaskSpec.defaults().queue(QUEUE).idempotencyKey("order-2")).task().id();
                inTx.fire(Jobs.MACHINE, id, Jobs.Event.START);
                insertOrder(c, db.store().tablePrefix(), 2, id);
                c.rollback();
                tx.rolledBack();
            }
            assertThat(heard).isEmpty();
            assertThat(db.store().find(id)).isEmpty();
            assertThat(db.store().history(id)).isEmpty();
            assertThat(db.queryLong("select count(*) from {p}orders")).isZero();
            assertThat(db.queryLong("select count(*) from {p}tasks")).isZero();
            assertThat(db.queryLong("select count(*) from {p}history")).isZero();
            assertThat(engine.create(Jobs.MACHINE, TaskSpec.defaults().queue(QUEUE).idempotencyKey("order-2")).created())
                    .as("the key went with the rolled-back task").isTrue();
        } finally {
            close(db);
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void aRefusalInsideTheTransactionUndoesOnlyItselfAndTheTransactionStaysUsable(Dialect dialect) throws Exception {
        Opened db = open(dialect);
        try {
            TransitionEngine engine = TransitionEngine.builder().store(db.store()).build();
            long id;
            try (Connection c = begin(db)) {
                Enlistment tx = db.store().enlist(c);
                TransitionEngine inTx = engine.within(tx.store());
                id = inTx.create(Jobs.MACHINE, TaskSpec.defaults().queue(QUEUE)).task().id();

                TaskRecord t = tx.store().find(id).orElseThrow();
                TaskRecord stale = t.toBuilder().state("RUNNING").version(8).build();
                ApplyResult refused = tx.store().apply(new Change(7, stale, new HistoryEntry(id, 8, t.state(), "RUNNING", "START",
                        TriggerSource.SYSTEM, null, null, t.updatedAt(), null)));
                assertThat(refused.applied()).as("a compare-and-set on a stale version").isFalse();
                Outcome<Jobs.State> stale2 = inTx.fire(Jobs.MACHINE, id, Jobs.Event.START, Command.system().expectVersion(5));
                assertThat(stale2).isInstanceOfSatisfying(Outcome.Refused.class,
                        r -> assertThat(r.code()).isEqualTo(RefusalCode.VERSION_CONFLICT));

                assertThat(tx.store().find(id)).as("the creation before the refusals stands").isPresent();
                assertThat(inTx.fire(Jobs.MACHINE, id, Jobs.Event.START).isApplied()).isTrue();
                insertOrder(c, db.store().tablePrefix(), 3, id);
                c.commit();
                tx.committed();
            }
            assertThat(db.store().find(id).orElseThrow().state()).isEqualTo("RUNNING");
            assertThat(db.store().history(id)).extracting(HistoryEntry::event).containsExactly("START");
            assertThat(db.queryLong("select count(*) from {p}orders where task_id = ?", id)).isEqualTo(1);
        } finally {
            close(db);
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void theRuntimeWakesAtTheCommitAndNeverRunsARolledBackTask(Dialect dialect) throws Exception {
        Opened db = open(dialect);
        TransitionEngine engine = TransitionEngine.builder().store(db.store()).build();
        List<Long> ran = new CopyOnWriteArrayList<>();
        Semaphore runs = new Semaphore(0);
        // Polling once an hour: a task runs within the test's deadline only when something wakes the runtime.
        TaskRuntime runtime = TaskRuntime.builder(engine).owner("enlisted").workers(1).pollInterval(Duration.ofHours(1))
                .register(Jobs.SIMPLE, QUEUE, ctx -> {
                    ran.add(ctx.task().id());
                    runs.release();
                    return WorkResult.success();
                }, QueueOptions.defaults()).build();
        try {
            runtime.start();
            long rolledBack;
            try (Connection c = begin(db)) {
                Enlistment tx = db.store().enlist(c);
                rolledBack = engine.within(tx.store()).create(Jobs.SIMPLE, TaskSpec.defaults().queue(QUEUE)).task().id();
                c.rollback();
                tx.rolledBack();
            }
            long committed;
            try (Connection c = begin(db)) {
                Enlistment tx = db.store().enlist(c);
                committed = engine.within(tx.store()).create(Jobs.SIMPLE, TaskSpec.defaults().queue(QUEUE)).task().id();
                insertOrder(c, db.store().tablePrefix(), 4, committed);
                assertThat(runs.availablePermits()).isZero();
                assertThat(db.store().find(committed)).as("the runtime's connections cannot see it yet").isEmpty();
                c.commit();
                tx.committed();
            }
            assertThat(runs.tryAcquire(60, TimeUnit.SECONDS)).as("the committed task ran after the commit").isTrue();
            assertThat(ran).containsExactly(committed);
            assertThat(db.store().find(rolledBack)).isEmpty();
            assertThat(engine.awaitTerminal(Jobs.SIMPLE, committed, Duration.ofSeconds(60)).get(60, TimeUnit.SECONDS).state())
                    .isEqualTo(Jobs.State.DONE);
        } finally {
            runtime.stop(Duration.ofSeconds(10)).get(60, TimeUnit.SECONDS);
            close(db);
        }
    }

    /** A framework's transactions as {@link TransactionHooks} see them: a connection bound to the thread, actions for its commit. */
    static final class FakeFramework implements TransactionHooks {
        final ThreadLocal<@Nullable Connection> bound = new ThreadLocal<>();
        final List<Runnable> synchronizations = new ArrayList<>();

        @Override
        public @Nullable Connection current() {
            return bound.get();
        }

        @Override
        public void afterCommit(Runnable action) {
            if (bound.get() == null) throw new IllegalStateException("no transaction");
            synchronizations.add(action);
        }

        void begin(Connection c) throws SQLException {
            c.setAutoCommit(false);
            bound.set(c);
        }

        void commit() throws SQLException {
            Connection c = bound.get();
            bound.remove();
            c.commit();
            List<Runnable> now = new ArrayList<>(synchronizations);
            synchronizations.clear();
            now.forEach(Runnable::run);
        }

        void rollback() throws SQLException {
            Connection c = bound.get();
            bound.remove();
            c.rollback();
            synchronizations.clear();
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void inAFrameworksTransactionTheEnginesWritesJoinItThroughTheHooks(Dialect dialect) throws Exception {
        Opened db = open(dialect);
        try {
            FakeFramework framework = new FakeFramework();
            JdbcStore joining = JdbcStore.builder(db.pool()).tablePrefix(db.store().tablePrefix()).dialect(dialect)
                    .transactions(framework).build();
            TransitionEngine engine = TransitionEngine.builder().store(joining).build();
            List<String> heard = listen(engine);

            long kept;
            try (Connection c = db.pool().getConnection()) {
                framework.begin(c);
                kept = engine.create(Jobs.MACHINE, TaskSpec.defaults().queue(QUEUE)).task().id();
                assertThat(engine.fire(Jobs.MACHINE, kept, Jobs.Event.START).isApplied()).isTrue();
                insertOrder(c, joining.tablePrefix(), 5, kept);
                assertThat(db.store().find(kept)).as("invisible outside the transaction").isEmpty();
                assertThat(heard).isEmpty();
                framework.commit();
            }
            assertThat(heard).containsExactly("created " + kept, "START " + kept);
            assertThat(joining.find(kept).orElseThrow().state()).as("outside a transaction the store commits by itself")
                    .isEqualTo("RUNNING");

            long dropped;
            try (Connection c = db.pool().getConnection()) {
                framework.begin(c);
                dropped = engine.create(Jobs.MACHINE, TaskSpec.defaults().queue(QUEUE)).task().id();
                insertOrder(c, joining.tablePrefix(), 6, dropped);
                framework.rollback();
            }
            assertThat(heard).hasSize(2);
            assertThat(db.store().find(dropped)).isEmpty();
            assertThat(db.queryLong("select count(*) from {p}orders")).isEqualTo(1);

            long outside = engine.create(Jobs.MACHINE, TaskSpec.defaults().queue(QUEUE)).task().id();
            assertThat(heard).as("heard at once without a transaction").endsWith("created " + outside);
            assertThat(db.store().find(outside)).isPresent();
        } finally {
            close(db);
        }
    }

    @Test
    void anEnlistmentThatIsOverRefusesWorkAndAConnectionInAutoCommitIsRefused() throws Exception {
        Opened db = open(Dialect.H2);
        try {
            try (Connection c = begin(db)) {
                Enlistment tx = db.store().enlist(c);
                tx.store().find(1);
                c.commit();
                tx.committed();
                assertThatThrownBy(() -> tx.store().find(1)).isInstanceOf(IllegalStateException.class).hasMessageContaining("committed");
                assertThatThrownBy(tx::committed).isInstanceOf(IllegalStateException.class);
                assertThatThrownBy(() -> tx.afterCommit(() -> { })).isInstanceOf(IllegalStateException.class);
            }
            try (Connection c = db.pool().getConnection()) {
                c.setAutoCommit(true);
                Enlistment tx = db.store().enlist(c);
                assertThatThrownBy(() -> tx.store().find(1)).isInstanceOfSatisfying(StatekitException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
            }
        } finally {
            close(db);
        }
    }

    @Test
    void anotherProcessNeitherSeesNorClaimsTheTaskBeforeTheCommitAndIsWokenAtIt() throws Exception {
        Opened db = open(Dialect.POSTGRESQL);
        try {
            JdbcStore other = db.twin();
            TransitionEngine otherEngine = TransitionEngine.builder().store(other).build();
            CountDownLatch ran = new CountDownLatch(1);
            List<Long> runs = new CopyOnWriteArrayList<>();
            TaskRuntime otherRuntime = TaskRuntime.builder(otherEngine).owner("other").workers(1).pollInterval(Duration.ofHours(1))
                    .register(Jobs.SIMPLE, QUEUE, ctx -> {
                        runs.add(ctx.task().id());
                        ran.countDown();
                        return WorkResult.success();
                    }, QueueOptions.defaults()).build();
            TransitionEngine engine = TransitionEngine.builder().store(db.store()).build();
            try {
                otherRuntime.start();
                long id;
                try (Connection c = begin(db)) {
                    Enlistment tx = db.store().enlist(c);
                    id = engine.within(tx.store()).create(Jobs.SIMPLE, TaskSpec.defaults().queue(QUEUE)).task().id();
                    assertThat(other.find(id)).isEmpty();
                    assertThat(other.peek(new dev.statekit.store.ClaimRequest(Jobs.SIMPLE.name(), QUEUE,
                            List.of(new dev.statekit.store.ClaimRule("QUEUED", "START", "RUNNING")), "peek",
                            java.time.Instant.now(), Duration.ofMinutes(1), 10, 0))).isEmpty();
                    assertThat(runs).isEmpty();
                    c.commit();
                    tx.committed();
                }
                // The other process polls once an hour: only the notification delivered at the commit wakes it in time.
                assertThat(ran.await(60, TimeUnit.SECONDS)).as("the other process ran the task after the commit").isTrue();
                assertThat(runs).containsExactly(id);
            } finally {
                otherRuntime.stop(Duration.ofSeconds(10)).get(60, TimeUnit.SECONDS);
            }
        } finally {
            close(db);
        }
    }
}
