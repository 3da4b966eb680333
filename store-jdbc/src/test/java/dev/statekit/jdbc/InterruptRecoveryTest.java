package dev.statekit.jdbc;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.Machine;
import dev.statekit.core.runtime.QueueOptions;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.TransitionListener;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.ClaimRule;
import dev.statekit.store.Claimed;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.TaskRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An interrupted task of a queue limited to one goes back to the front before anything else of
 * the queue is claimed, on the JDBC store, even when another process claims in the middle of its
 * recovery (004: a compression killed while it ran is resumed first).
 */
class InterruptRecoveryTest {
    enum State { QUEUED, RUNNING, INTERRUPTED, DONE, FAILED }

    enum Event { START, COMPLETE, FAIL, RELEASE, INTERRUPT, RECOVER, GIVE_UP }

    static final Machine<State, Event> MACHINE = Machine.builder("jdbc-interruptible", State.class, Event.class)
            .initial(State.QUEUED)
            .terminal(State.DONE, State.FAILED)
            .transition(State.QUEUED, Event.START, State.RUNNING, SYSTEM)
            .transition(State.RUNNING, Event.COMPLETE, State.DONE, SYSTEM)
            .transition(State.RUNNING, Event.FAIL, State.FAILED, SYSTEM)
            .transition(State.RUNNING, Event.RELEASE, State.QUEUED, SYSTEM)
            .transition(State.RUNNING, Event.INTERRUPT, State.INTERRUPTED, SYSTEM)
            .transition(State.INTERRUPTED, Event.RECOVER, State.QUEUED, SYSTEM)
            .transition(State.INTERRUPTED, Event.GIVE_UP, State.FAILED, SYSTEM)
            .run(r -> r.claim(State.QUEUED, Event.START).success(Event.COMPLETE).fatal(Event.FAIL).release(Event.RELEASE)
                    .recoverByInterrupt(Event.INTERRUPT, Event.RECOVER, Event.GIVE_UP, true))
            .build();

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void anInterruptedTaskIsBackAtTheFrontBeforeAnyOtherTaskOfItsLimitedQueueIsClaimed(Dialect dialect) throws Exception {
        try (Opened db = Opened.open(dialect)) {
            ManualClock clock = new ManualClock(Instant.parse("2026-03-29T00:30:00Z"));
            ManualExecutor executor = new ManualExecutor();
            TransitionEngine engine = TransitionEngine.builder().store(db.store()).clock(clock).build();
            QueueOptions one = QueueOptions.defaults().concurrency(1);
            TaskRuntime crashed = TaskRuntime.builder(engine).owner("killed").executor(executor).workers(1)
                    .register(MACHINE, "q", ctx -> WorkResult.success(), one).build();
            crashed.start();
            executor.runAll();
            long interrupted = engine.create(MACHINE, TaskSpec.defaults().queue("q")).task().id();
            executor.runNext();                  // claimed; the process dies before its worker returns
            long waiting = engine.create(MACHINE, TaskSpec.defaults().queue("q")).task().id();
            crashed.halt();
            executor.drop();
            clock.advance(Duration.ofSeconds(31));

            JdbcStore other = db.twin();         // another process claims the moment the interruption is written
            List<Long> intruderGot = new ArrayList<>();
            engine.subscribe(new TransitionListener() {
                @Override
                public void onTransition(String machine, TaskRecord task, @Nullable HistoryEntry entry) {
                    if (entry == null || !entry.event().equals("INTERRUPT")) return;
                    ClaimRequest request = new ClaimRequest(MACHINE.name(), "q", List.of(new ClaimRule("QUEUED", "START", "RUNNING")),
                            "intruder", clock.now(), Duration.ofSeconds(30), 1, 0);
                    for (Claimed c : other.claim(request)) intruderGot.add(c.task().id());
                }
            });
            List<Long> order = new ArrayList<>();
            TaskRuntime survivor = TaskRuntime.builder(engine).owner("survivor").executor(executor).workers(1)
                    .register(MACHINE, "q", ctx -> {
                        order.add(ctx.task().id());
                        return WorkResult.success();
                    }, one).build();
            survivor.start();
            executor.runAll();

            assertThat(intruderGot).as("claims while the interrupted task is put back").isEmpty();
            assertThat(order).containsExactly(interrupted, waiting);
            List<HistoryEntry> history = engine.history(interrupted);
            assertThat(history).extracting(HistoryEntry::event).containsExactly("START", "INTERRUPT", "RECOVER", "START", "COMPLETE");
            for (int i = 1; i < history.size(); i++) assertThat(history.get(i).at()).isAfterOrEqualTo(history.get(i - 1).at());
        }
    }
}
