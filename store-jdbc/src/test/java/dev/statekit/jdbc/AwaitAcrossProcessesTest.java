package dev.statekit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.Command;
import dev.statekit.core.Task;
import dev.statekit.core.TransitionEngine;
import dev.statekit.test.fixtures.Jobs;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL: a wait in one process is completed by a change another process writes, through the
 * store's watch (LISTEN/NOTIFY): the engine that waits checks its tasks only once an hour.
 */
class AwaitAcrossProcessesTest {
    @Test
    void aChangeInAnotherProcessCompletesTheWait() throws Exception {
        Databases.requirePostgres();
        try (Opened db = Opened.open(Dialect.POSTGRESQL)) {
            TransitionEngine writer = TransitionEngine.builder().store(db.store()).build();
            TransitionEngine waiter = TransitionEngine.builder().store(db.twin()).awaitRecheck(Duration.ofHours(1)).build();
            long id = writer.create(Jobs.SIMPLE).task().id();
            CompletableFuture<Task<Jobs.State>> running = waiter.await(Jobs.SIMPLE, id, Set.of(Jobs.State.RUNNING), Duration.ofHours(1));
            assertThat(running).isNotDone();
            writer.fire(Jobs.SIMPLE, id, Jobs.Event.START, Command.system()).orElseThrow();
            Task<Jobs.State> task = running.get(60, TimeUnit.SECONDS);
            assertThat(task.state()).isEqualTo(Jobs.State.RUNNING);
        }
    }
}
