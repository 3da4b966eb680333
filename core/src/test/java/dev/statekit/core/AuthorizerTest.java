package dev.statekit.core;

import dev.statekit.core.ops.CancelResult;
import dev.statekit.core.runtime.TaskRuntime;
import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.TaskRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The engine asks its authorizer about every command of a person, and about none of the system's. */
class AuthorizerTest {
    enum State { QUEUED, RUNNING, DONE, FAILED, CANCELLED }

    enum Event { START, FINISH, FAIL, RETRY, CANCEL }

    static final Attribute<String> SUBMITTER = Attribute.string("submitter");

    static final Machine<State, Event> TASKS = Machine.builder("etl-task", State.class, Event.class)
            .initial(State.QUEUED)
            .terminal(State.DONE, State.CANCELLED)
            .transition(State.QUEUED, Event.START, State.RUNNING, SYSTEM)
            .transition(State.RUNNING, Event.FINISH, State.DONE, SYSTEM)
            .transition(State.RUNNING, Event.FAIL, State.FAILED, SYSTEM)
            .transition(State.FAILED, Event.RETRY, State.QUEUED, USER)
            .transition(State.QUEUED, Event.CANCEL, State.CANCELLED, USER, SYSTEM)
            .transition(State.RUNNING, Event.CANCEL, State.CANCELLED, USER, SYSTEM)
            .run(r -> r.claim(State.QUEUED, Event.START).success(Event.FINISH).fatal(Event.FAIL).cancel(Event.CANCEL))
            .build();

    final List<Authorizer.Request> asked = new ArrayList<>();
    /** Only the submitter or an admin may act on a task. */
    final Authorizer submitterOrAdmin = request -> {
        asked.add(request);
        boolean mine = request.actor() != null && request.actor().equals(request.task().attributes().get(SUBMITTER.name()));
        return Verdict.when(mine || "admin".equals(request.actor()), "NOT_SUBMITTER",
                "only the submitter or an admin may " + request.event().toLowerCase(java.util.Locale.ROOT) + " a task");
    };

    final ManualClock clock = new ManualClock(Instant.parse("2031-04-05T13:30:00Z"));
    final InMemoryStore store = new InMemoryStore();
    final TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock).authorizer(submitterOrAdmin).build();

    long submittedBy(String user) {
        return engine.create(TASKS, TaskSpec.defaults().attribute(SUBMITTER, user)).task().id();
    }

    @SuppressWarnings("unchecked")
    static Outcome.Refused<State> refused(Outcome<State> o) {
        assertThat(o).isInstanceOf(Outcome.Refused.class);
        return (Outcome.Refused<State>) o;
    }

    @Test
    void aForbiddenCommandIsRefusedWith403AndChangesNothing() {
        long id = submittedBy("ana");
        Outcome<State> o = engine.fire(TASKS, id, Event.CANCEL, Command.user("bob").reason("not mine"));
        Outcome.Refused<State> r = refused(o);
        assertThat(r.code()).isEqualTo(RefusalCode.FORBIDDEN);
        assertThat(r.code().httpStatus()).isEqualTo(403);
        assertThat(r.reasonCode()).isEqualTo("NOT_SUBMITTER");
        assertThat(r.message()).contains("only the submitter or an admin may cancel a task").contains("actor bob");
        assertThat(r.state()).isEqualTo(State.QUEUED);
        TaskRecord t = store.find(id).orElseThrow();
        assertThat(t.version()).isZero();
        assertThat(store.history(id)).isEmpty();
        assertThat(asked).singleElement().satisfies(q -> {
            assertThat(q.actor()).isEqualTo("bob");
            assertThat(q.machine()).isEqualTo("etl-task");
            assertThat(q.taskId()).isEqualTo(id);
            assertThat(q.state()).isEqualTo("QUEUED");
            assertThat(q.event()).isEqualTo("CANCEL");
        });
    }

    @Test
    void anAllowedCommandGoesOnToTheTable() {
        long id = submittedBy("ana");
        assertThat(engine.fire(TASKS, id, Event.CANCEL, Command.user("ana")).isApplied()).isTrue();
        long other = submittedBy("ana");
        assertThat(engine.fire(TASKS, other, Event.CANCEL, Command.user("admin")).isApplied()).isTrue();
        long third = submittedBy("ana");
        Outcome<State> illegal = engine.fire(TASKS, third, Event.RETRY, Command.user("ana"));
        assertThat(refused(illegal).code()).as("allowed by the authorizer, refused by the table").isEqualTo(RefusalCode.ILLEGAL_TRANSITION);
    }

    @Test
    void theSystemIsNeverAskedAbout() {
        long id = submittedBy("ana");
        assertThat(engine.fire(TASKS, id, Event.CANCEL, Command.system()).isApplied()).isTrue();
        assertThat(asked).isEmpty();
    }

    @Test
    void aForbiddenCommandInABatchRefusesTheWholeBatch() {
        long mine = submittedBy("bob");
        long theirs = submittedBy("ana");
        BatchOutcome b = engine.fireAll(List.of(new Fire<>(TASKS, mine, Event.CANCEL, Command.user("bob")),
                new Fire<>(TASKS, theirs, Event.CANCEL, Command.user("bob"))));
        assertThat(b.isApplied()).isFalse();
        assertThat(store.find(mine).orElseThrow().state()).isEqualTo("QUEUED");
        assertThat(store.find(theirs).orElseThrow().state()).isEqualTo("QUEUED");
    }

    @Test
    void anIdempotencyKeyDoesNotLetAnotherPersonReplayACommand() {
        long id = submittedBy("ana");
        assertThat(engine.fire(TASKS, id, Event.CANCEL, Command.user("ana").idempotencyKey("k1")).isApplied()).isTrue();
        Outcome<State> replay = engine.fire(TASKS, id, Event.CANCEL, Command.user("bob").idempotencyKey("k1"));
        assertThat(refused(replay).code()).isEqualTo(RefusalCode.FORBIDDEN);
    }

    @Test
    void aForbiddenCancellationOfARunningTaskIsNotEvenRequested() {
        ManualExecutor executor = new ManualExecutor();
        long id = submittedBy("ana");
        List<CancelResult<State>> results = new ArrayList<>();
        TaskRuntime[] rt = new TaskRuntime[1];
        rt[0] = TaskRuntime.builder(engine).owner("r").executor(executor).workers(1).leaseDuration(Duration.ofSeconds(30))
                .register(TASKS, ctx -> {
                    results.add(rt[0].cancel(TASKS, id, Command.user("bob")));
                    assertThat(ctx.cancelled()).isFalse();
                    assertThat(store.cancelRequested(id)).isFalse();
                    results.add(rt[0].cancel(TASKS, id, Command.user("ana")));
                    assertThat(ctx.cancelled()).isTrue();
                    return WorkResult.success();
                }).build();
        rt[0].start();
        executor.runAll();
        assertThat(results).extracting(CancelResult::status).containsExactly(CancelResult.Status.REFUSED, CancelResult.Status.REQUESTED);
        assertThat(refused(java.util.Objects.requireNonNull(results.get(0).outcome())).code()).isEqualTo(RefusalCode.FORBIDDEN);
        assertThat(store.find(id).orElseThrow().state()).isEqualTo("CANCELLED");
        rt[0].halt();
    }
}
