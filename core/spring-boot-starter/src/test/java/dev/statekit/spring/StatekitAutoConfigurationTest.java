package dev.statekit.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.Command;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.ops.TaskOperations;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.spi.RuntimeEvent;
import dev.statekit.core.spi.RuntimeListener;
import dev.statekit.core.spi.TaskInterceptor;
import dev.statekit.core.spi.TransitionListener;
import dev.statekit.jdbc.Dialect;
import dev.statekit.jdbc.JdbcStore;
import dev.statekit.micrometer.StatekitMetrics;
import dev.statekit.spring.autoconfigure.StatekitAutoConfiguration;
import dev.statekit.spring.autoconfigure.StatekitHealthAutoConfiguration;
import dev.statekit.spring.autoconfigure.StatekitMetricsAutoConfiguration;
import dev.statekit.store.Store;
import dev.statekit.store.memory.InMemoryStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The starter in a real application context, on H2 and on PostgreSQL: the beans it makes, a worker
 * bean running tasks, tasks created in Spring-managed transactions, the graceful stop, health,
 * metrics and the properties. The runtime polls once an hour, so a task that runs was woken by its
 * creation's commit.
 */
class StatekitAutoConfigurationTest {
    static final AutoConfigurations AUTO = AutoConfigurations.of(DataSourceAutoConfiguration.class,
            DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
            StatekitAutoConfiguration.class, dev.statekit.spring.autoconfigure.StatekitRuntimeAutoConfiguration.class, StatekitHealthAutoConfiguration.class, StatekitMetricsAutoConfiguration.class);

    private @Nullable String pgPrefix;

    /** A worker bean, with a listener of the engine recording what it heard. */
    @Configuration(proxyBeanMethods = false)
    static class Workers {
        @Bean
        Jobs.Recorder recorder() {
            return new Jobs.Recorder();
        }

        @Bean
        WorkerRegistration<Jobs.State, Jobs.Event> jobWorker(Jobs.Recorder recorder) {
            return WorkerRegistration.of(Jobs.JOB, recorder::work);
        }

        @Bean
        Heard heard() {
            return new Heard();
        }
    }

    /** A transition listener bean: the states the engine told it of, as "id:STATE". */
    static final class Heard implements TransitionListener {
        final List<String> states = new CopyOnWriteArrayList<>();

        @Override
        public void onTransition(String machine, dev.statekit.store.TaskRecord task, dev.statekit.store.HistoryEntry entry) {
            states.add(task.id() + ":" + task.state());
        }

        @Override
        public void onCreated(String machine, dev.statekit.store.TaskRecord task) {
            states.add(task.id() + ":" + task.state());
        }
    }

    ApplicationContextRunner runner(String database) {
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AUTO)
                .withUserConfiguration(Workers.class)
                .withPropertyValues("statekit.store.create-schema-if-missing=true", "statekit.runtime.poll-interval=1h",
                        "statekit.runtime.workers=2");
        if (database.equals("postgresql")) {
            Postgres.require();
            pgPrefix = Postgres.uniquePrefix();
            runner = runner.withPropertyValues("spring.datasource.url=" + Postgres.url(), "spring.datasource.username=" + Postgres.user(),
                    "spring.datasource.password=" + Postgres.password(), "statekit.store.table-prefix=" + pgPrefix);
        }
        return runner;
    }

    @AfterEach
    void dropTables() throws SQLException {
        if (pgPrefix != null) Postgres.drop(pgPrefix);
    }

    static String tasksTable(AssertableApplicationContext context) {
        return context.getBean(JdbcStore.class).tablePrefix() + "tasks";
    }

    /** Counts the committed rows of {@code sql} on a connection of its own, outside any transaction. */
    static long committedCount(DataSource dataSource, String sql, long id) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setLong(1, id);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        }
    }

    static void createOrdersTable(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("create table if not exists spring_orders (id bigint primary key, task_id bigint not null)");
            s.execute("delete from spring_orders");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql"})
    void aWorkerBeanRunsATaskCreatedThroughTheEngineBean(String database) {
        runner(database).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(JdbcStore.class).dialect()).isEqualTo(database.equals("h2") ? Dialect.H2 : Dialect.POSTGRESQL);
            assertThat(context.getBean(StatekitRuntimeLifecycle.class).isRunning()).isTrue();
            TransitionEngine engine = context.getBean(TransitionEngine.class);
            long id = engine.create(Jobs.JOB).task().id();
            assertThat(engine.awaitTerminal(Jobs.JOB, id, Jobs.WAIT).get(30, TimeUnit.SECONDS).state()).isEqualTo(Jobs.State.DONE);
            assertThat(context.getBean(Jobs.Recorder.class).finished).containsExactly(id);
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql"})
    void aTaskCreatedInARolledBackTransactionNeverExistsNorRuns(String database) {
        runner(database).run(context -> {
            DataSource dataSource = context.getBean(DataSource.class);
            createOrdersTable(dataSource);
            TransitionEngine engine = context.getBean(TransitionEngine.class);
            TransactionTemplate tx = new TransactionTemplate(context.getBean(org.springframework.transaction.PlatformTransactionManager.class));
            long rolledBack = tx.execute(status -> {
                long id = engine.create(Jobs.JOB).task().id();
                insertOrder(dataSource, 1, id);
                status.setRollbackOnly();
                return id;
            });
            // A task committed after it runs: the runtime went past the place of the rolled-back one.
            long committed = tx.execute(status -> engine.create(Jobs.JOB).task().id());
            assertThat(engine.awaitTerminal(Jobs.JOB, committed, Jobs.WAIT).get(30, TimeUnit.SECONDS).state()).isEqualTo(Jobs.State.DONE);
            assertThat(engine.find(Jobs.JOB, rolledBack)).isEmpty();
            assertThat(committedCount(dataSource, "select count(*) from spring_orders where id = ?", 1)).isZero();
            Jobs.Recorder recorder = context.getBean(Jobs.Recorder.class);
            assertThat(recorder.started).containsExactly(committed);
            assertThat(context.getBean(Heard.class).states).noneMatch(s -> s.startsWith(rolledBack + ":"));
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql"})
    void aTaskCreatedInACommittedTransactionIsInvisibleUntilTheCommitThenRuns(String database) {
        runner(database).run(context -> {
            DataSource dataSource = context.getBean(DataSource.class);
            createOrdersTable(dataSource);
            TransitionEngine engine = context.getBean(TransitionEngine.class);
            Jobs.Recorder recorder = context.getBean(Jobs.Recorder.class);
            String countTask = "select count(*) from " + tasksTable(context) + " where id = ?";
            TransactionTemplate tx = new TransactionTemplate(context.getBean(org.springframework.transaction.PlatformTransactionManager.class));
            long id = tx.execute(status -> {
                long created = engine.create(Jobs.JOB).task().id();
                insertOrder(dataSource, 2, created);
                try {
                    assertThat(committedCount(dataSource, countTask, created)).as("the task seen outside the transaction").isZero();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
                assertThat(recorder.started).isEmpty();
                return created;
            });
            assertThat(engine.awaitTerminal(Jobs.JOB, id, Jobs.WAIT).get(30, TimeUnit.SECONDS).state()).isEqualTo(Jobs.State.DONE);
            assertThat(committedCount(dataSource, "select count(*) from spring_orders where task_id = ?", id)).isOne();
            assertThat(recorder.finished).containsExactly(id);
        });
    }

    static void insertOrder(DataSource dataSource, long orderId, long taskId) {
        // The application's own write, on the transaction's connection as JdbcTemplate would take it.
        Connection c = org.springframework.jdbc.datasource.DataSourceUtils.getConnection(dataSource);
        try (PreparedStatement s = c.prepareStatement("insert into spring_orders (id, task_id) values (?, ?)")) {
            s.setLong(1, orderId);
            s.setLong(2, taskId);
            s.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        } finally {
            org.springframework.jdbc.datasource.DataSourceUtils.releaseConnection(c, dataSource);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql"})
    void closingTheContextLetsRunningWorkFinishAndStartsNothingNew(String database) throws Exception {
        runner(database).withPropertyValues("statekit.runtime.shutdown-grace=20s").run(context -> {
            TransitionEngine engine = context.getBean(TransitionEngine.class);
            Jobs.Recorder recorder = context.getBean(Jobs.Recorder.class);
            StatekitRuntimeLifecycle lifecycle = context.getBean(StatekitRuntimeLifecycle.class);
            Heard heard = context.getBean(Heard.class);
            recorder.hold();
            long running = engine.create(Jobs.JOB).task().id();
            assertThat(recorder.firstStarted.await(30, TimeUnit.SECONDS)).isTrue();
            Thread closer = new Thread(context::close, "closer");
            closer.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (lifecycle.isRunning() && System.nanoTime() < deadline) Thread.onSpinWait();
            assertThat(lifecycle.isRunning()).isFalse();
            long later = engine.create(Jobs.JOB).task().id();      // the store is still open: the runtime stops first
            assertThat(closer.isAlive()).as("the close waits for the running work").isTrue();
            recorder.release();
            closer.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(closer.isAlive()).isFalse();
            assertThat(recorder.finished).containsExactly(running);
            assertThat(recorder.started).doesNotContain(later);
            assertThat(heard.states).contains(running + ":DONE");
        });
    }

    @Test
    void healthTellsTheStoreTheRuntimeAndPausedQueues() {
        runner("h2").run(context -> {
            HealthIndicator indicator = context.getBean("statekitHealthIndicator", HealthIndicator.class);
            Health up = indicator.health();
            assertThat(up.getStatus()).isEqualTo(Status.UP);
            assertThat(up.getDetails()).containsEntry("runtime", "running").containsEntry("queues", Map.of("spring-job", "active"));
            context.getBean(TaskOperations.class).pause("spring-job", Command.user("ops"));
            assertThat(indicator.health().getDetails()).containsEntry("queues", Map.of("spring-job", "paused: PAUSED"));
            assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
            context.getBean(StatekitRuntimeLifecycle.class).stop();
            Health stopped = indicator.health();
            assertThat(stopped.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
            assertThat(stopped.getDetails()).containsEntry("runtime", "stopped");
        });
    }

    @Test
    void healthIsDownWhenTheStoreCannotBeRead() {
        Store broken = (Store) java.lang.reflect.Proxy.newProxyInstance(Store.class.getClassLoader(), new Class<?>[] {Store.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("toString")) return "BrokenStore";
                    throw new dev.statekit.store.StatekitException(dev.statekit.store.ErrorCode.STORE_UNAVAILABLE, "connection refused");
                });
        Health health = new StatekitHealthIndicator(broken, null, List.of()).health();
        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(health.getDetails()).containsEntry("runtime", "none").containsKey("error");
    }

    /** A registry, as an application with Micrometer has. */
    @Configuration(proxyBeanMethods = false)
    static class Registry {
        @Bean
        MeterRegistry registry() {
            return new SimpleMeterRegistry();
        }
    }

    @Test
    void metricsCountTheRuntimesWorkInTheApplicationsRegistry() {
        runner("h2").withUserConfiguration(Registry.class).run(context -> {
            assertThat(context).hasSingleBean(StatekitMetrics.class);
            TransitionEngine engine = context.getBean(TransitionEngine.class);
            long id = engine.create(Jobs.JOB).task().id();
            engine.awaitTerminal(Jobs.JOB, id, Jobs.WAIT).get(30, TimeUnit.SECONDS);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            // The result is written, then the listener hears of it: wait for the meter.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            Timer attempts = null;
            while (System.nanoTime() < deadline) {
                attempts = registry.find("statekit.task.attempts").tag("outcome", "succeeded").tag("machine", "spring-job").timer();
                if (attempts != null && attempts.count() == 1) break;
                Thread.onSpinWait();
            }
            assertThat(attempts).isNotNull();
            assertThat(attempts.count()).isOne();
            context.getBean(StatekitMetrics.class).refresh();
            assertThat(registry.find("statekit.tasks").tag("state", "DONE").gauge()).isNotNull();
            assertThat(registry.find("statekit.tasks").tag("state", "DONE").gauge().value()).isEqualTo(1.0);
        });
    }

    @Test
    void withoutMicrometerOrActuatorTheRestStillWorks() {
        runner("h2").withUserConfiguration(Registry.class).withClassLoader(new FilteredClassLoader(StatekitMetrics.class, HealthIndicator.class))
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(StatekitMetrics.class).doesNotHaveBean("statekitHealthIndicator");
                    assertThat(context).hasSingleBean(TaskRuntime.class);
                });
        runner("h2").run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(StatekitMetrics.class));      // no registry
        runner("h2").withPropertyValues("management.health.statekit.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("statekitHealthIndicator"));
    }

    @Test
    void propertiesBindAndReachTheStoreEngineAndRuntime() {
        runner("h2").withPropertyValues("statekit.store.table-prefix=jobs_", "statekit.store.dialect=h2", "statekit.store.max-payload-chars=4096",
                        "statekit.store.join-transactions=false", "statekit.engine.max-conflict-retries=7", "statekit.engine.await-recheck=250ms",
                        "statekit.runtime.owner=node-a", "statekit.runtime.workers=3", "statekit.runtime.batch-size=8",
                        "statekit.runtime.lease-duration=1m", "statekit.runtime.heartbeat=10s", "statekit.runtime.cancel-grace=5s",
                        "statekit.runtime.force-cancel-after-grace=false", "statekit.runtime.sole-owner=true",
                        "statekit.runtime.retention-batch=50", "statekit.runtime.retention-interval=2m",
                        "statekit.runtime.shutdown-grace=7s", "statekit.metrics.refresh=10s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    StatekitProperties p = context.getBean(StatekitProperties.class);
                    assertThat(p.store()).isEqualTo(new StatekitProperties.Store("jobs_", Dialect.H2, 4096, true, false));
                    assertThat(p.engine()).isEqualTo(new StatekitProperties.Engine(7, Duration.ofMillis(250)));
                    assertThat(p.runtime()).isEqualTo(new StatekitProperties.Runtime(true, "node-a", 3, 8, Duration.ofMinutes(1),
                            Duration.ofSeconds(10), Duration.ofHours(1), Duration.ofSeconds(5), false, true, 50, Duration.ofMinutes(2),
                            Duration.ofSeconds(7)));
                    assertThat(p.metrics().refresh()).isEqualTo(Duration.ofSeconds(10));
                    JdbcStore store = context.getBean(JdbcStore.class);
                    assertThat(store.tablePrefix()).isEqualTo("jobs_");
                    assertThat(store.maxPayloadChars()).isEqualTo(4096);
                    assertThat(context.getBean(TaskRuntime.class).owner()).isEqualTo("node-a");
                    assertThat(context.getBean(StatekitRuntimeLifecycle.class).grace()).isEqualTo(Duration.ofSeconds(7));
                });
    }

    /** The properties alone, bound with nothing set: no store is built, so no tables are needed. */
    @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
    @org.springframework.boot.context.properties.EnableConfigurationProperties(StatekitProperties.class)
    static class PropertiesOnly {
    }

    @Test
    void theDefaultsAreTheLibrarysOwn() {
        new ApplicationContextRunner().withUserConfiguration(PropertiesOnly.class).run(context -> {
            StatekitProperties p = context.getBean(StatekitProperties.class);
            assertThat(p.store()).isEqualTo(new StatekitProperties.Store(JdbcStore.DEFAULT_TABLE_PREFIX, null, JdbcStore.DEFAULT_MAX_PAYLOAD_CHARS,
                    false, true));
            assertThat(p.engine()).isEqualTo(new StatekitProperties.Engine(100, Duration.ofSeconds(1)));
            assertThat(p.runtime()).isEqualTo(new StatekitProperties.Runtime(true, null, null, null, Duration.ofSeconds(30), null,
                    Duration.ofSeconds(1), Duration.ofSeconds(30), true, false, TaskRuntime.DEFAULT_RETENTION_BATCH,
                    TaskRuntime.DEFAULT_RETENTION_INTERVAL, Duration.ofSeconds(20)));
            assertThat(p.metrics().refresh()).isEqualTo(Duration.ofSeconds(5));
        });
    }

    @Test
    void withoutWorkersOrWithTheRuntimeDisabledThereIsNoRuntime() {
        new ApplicationContextRunner().withConfiguration(AUTO).withPropertyValues("statekit.store.create-schema-if-missing=true").run(context -> {
            assertThat(context).hasSingleBean(TransitionEngine.class).hasSingleBean(TaskOperations.class)
                    .doesNotHaveBean(TaskRuntime.class).doesNotHaveBean(StatekitRuntimeLifecycle.class);
            assertThat(context.getBean("statekitHealthIndicator", HealthIndicator.class).health().getDetails()).containsEntry("runtime", "none");
        });
        runner("h2").withPropertyValues("statekit.runtime.enabled=false")
                .run(context -> assertThat(context).hasSingleBean(TransitionEngine.class).doesNotHaveBean(TaskRuntime.class));
    }

    /** An application's own store and interceptor, and listeners of the engine and the runtime. */
    @Configuration(proxyBeanMethods = false)
    static class OwnStore {
        @Bean
        Store memory() {
            return new InMemoryStore();
        }

        @Bean
        TaskInterceptor tenant() {
            return new TaskInterceptor() {
                @Override
                public Map<String, String> onCreate(String machine, @Nullable Long parentId) {
                    return Map.of("tenant", "acme");
                }
            };
        }

        @Bean
        Events events() {
            return new Events();
        }
    }

    /** A runtime listener bean. */
    static final class Events implements RuntimeListener {
        final List<RuntimeEvent> heard = new CopyOnWriteArrayList<>();

        @Override
        public void onEvent(RuntimeEvent event) {
            heard.add(event);
        }
    }

    @Test
    void anApplicationsStoreReplacesTheJdbcStoreAndItsListenersAndInterceptorsAreAdded() {
        new ApplicationContextRunner().withConfiguration(AUTO).withUserConfiguration(Workers.class, OwnStore.class)
                .withPropertyValues("statekit.runtime.poll-interval=1h").run(context -> {
                    assertThat(context).doesNotHaveBean(JdbcStore.class);
                    TransitionEngine engine = context.getBean(TransitionEngine.class);
                    assertThat(engine.store()).isSameAs(context.getBean(Store.class));
                    long id = engine.create(Jobs.JOB).task().id();
                    assertThat(engine.awaitTerminal(Jobs.JOB, id, Jobs.WAIT).get(30, TimeUnit.SECONDS).attribute("tenant")).isEqualTo("acme");
                    assertThat(context.getBean(Heard.class).states).contains(id + ":QUEUED", id + ":DONE");
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    Events events = context.getBean(Events.class);
                    while (events.heard.size() < 2 && System.nanoTime() < deadline) Thread.onSpinWait();
                    assertThat(events.heard).hasSizeGreaterThanOrEqualTo(2);      // the claim and the result
                });
    }

    /** An application's own engine and runtime lifecycle. */
    @Configuration(proxyBeanMethods = false)
    static class OwnEngine {
        @Bean
        TransitionEngine engine() {
            return TransitionEngine.builder().store(new InMemoryStore()).build();
        }
    }

    @Test
    void anApplicationsEngineIsKept() {
        new ApplicationContextRunner().withConfiguration(AUTO).withUserConfiguration(Workers.class, OwnEngine.class)
                .withPropertyValues("statekit.store.create-schema-if-missing=true").run(context -> {
                    assertThat(context).hasSingleBean(TransitionEngine.class);
                    assertThat(context.getBean(TransitionEngine.class).store()).isInstanceOf(InMemoryStore.class);
                    assertThat(context).hasSingleBean(TaskRuntime.class);
                });
    }
}
