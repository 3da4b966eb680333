package dev.statekit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.core.Chunk.Event;
import dev.statekit.core.Chunk.State;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.TransitionListener;
import dev.statekit.store.Attributes;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.NewTask;
import dev.statekit.store.Page;
import dev.statekit.store.StatekitException;
import dev.statekit.store.Store;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import java.time.Duration;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class TransitionEngineTest {
    static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

    final ManualClock clock = new ManualClock(T0);
    final InMemoryStore store = new InMemoryStore();
    final RecordingListener heard = new RecordingListener(store);
    final TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock).listener(heard).build();

    /** Records what it hears, and checks on each call that the change was already written. */
    static final class RecordingListener implements TransitionListener {
        final Store store;
        final List<HistoryEntry> transitions = new ArrayList<>();
        final List<TaskRecord> records = new ArrayList<>();
        final List<String> machines = new ArrayList<>();
        final List<TaskRecord> created = new ArrayList<>();

        RecordingListener(Store store) {
            this.store = store;
        }

        @Override
        public void onTransition(String machine, TaskRecord task, HistoryEntry entry) {
            assertThat(store.find(task.id())).as("the change is written before listeners hear of it").contains(task);
            List<HistoryEntry> history = store.history(task.id());
            assertThat(history).isNotEmpty();
            assertThat(history.get(history.size() - 1)).isEqualTo(entry);
            assertThat(entry.version()).isEqualTo(task.version());
            machines.add(machine);
            records.add(task);
            transitions.add(entry);
        }

        @Override
        public void onCreated(String machine, TaskRecord task) {
            assertThat(store.find(task.id())).contains(task);
            assertThat(task.version()).isZero();
            machines.add(machine);
            created.add(task);
        }
    }

    long newChunk() {
        return engine.create(Chunk.MACHINE).task().id();
    }

    long newReview(String... attributes) {
        TaskSpec spec = TaskSpec.defaults();
        for (int i = 0; i < attributes.length; i += 2) spec = spec.attribute(attributes[i], attributes[i + 1]);
        return engine.create(Review.MACHINE, spec).task().id();
    }

    TaskRecord record(long id) {
        return store.find(id).orElseThrow();
    }

    static <S extends Enum<S>> Outcome.Refused<S> refused(Outcome<S> o) {
        assertThat(o).isInstanceOf(Outcome.Refused.class);
        assertThat(o.isApplied()).isFalse();
        return (Outcome.Refused<S>) o;
    }

    static <S extends Enum<S>> Outcome.Applied<S> applied(Outcome<S> o) {
        assertThat(o).isInstanceOf(Outcome.Applied.class);
        assertThat(o.isApplied()).isTrue();
        return (Outcome.Applied<S>) o;
    }

    /** Fires and checks that the refusal changed nothing: same record, same history, no listener call. */
    <S extends Enum<S>, E extends Enum<E>> Outcome.Refused<S> refusedUnchanged(Machine<S, E> machine, long id, E event, Command command) {
        Optional<TaskRecord> before = store.find(id);
        List<HistoryEntry> history = store.history(id);
        int calls = heard.transitions.size();
        Outcome.Refused<S> r = refused(engine.fire(machine, id, event, command));
        assertThat(store.find(id)).isEqualTo(before);
        assertThat(store.history(id)).isEqualTo(history);
        assertThat(heard.transitions).hasSize(calls);
        assertThat(r.taskId()).isEqualTo(id);
        assertThat(r.event()).isEqualTo(event.name());
        return r;
    }

    // --- create ---------------------------------------------------------------------------------

    @Test
    void createsATaskAtVersionZeroWithoutHistory() {
        clock.advance(Duration.ofSeconds(7));
        Created<State> c = engine.create(Chunk.MACHINE);
        assertThat(c.created()).isTrue();
        Task<State> t = c.task();
        assertThat(t.state()).isEqualTo(State.PENDING);
        assertThat(t.version()).isZero();
        assertThat(t.attributes()).isEqualTo(Attributes.EMPTY);
        assertThat(t.parentId()).isNull();
        TaskRecord r = t.record();
        assertThat(r.machine()).isEqualTo("chunk");
        assertThat(r.machineVersion()).isEqualTo(1);
        assertThat(r.state()).isEqualTo("PENDING");
        assertThat(r.queue()).isEqualTo("chunk");
        assertThat(r.priority()).isEqualTo(TaskSpec.NORMAL_PRIORITY);
        assertThat(r.createdAt()).isEqualTo(T0.plusSeconds(7));
        assertThat(r.updatedAt()).isEqualTo(T0.plusSeconds(7));
        assertThat(r.idempotencyKey()).isNull();
        assertThat(store.find(t.id())).contains(r);
        assertThat(engine.history(t.id())).isEmpty();
        assertThat(heard.created).containsExactly(r);
        assertThat(heard.machines).containsExactly("chunk");
        assertThat(heard.transitions).isEmpty();
    }

    @Test
    void createsWithEveryOptionOfTheSpec() {
        long parent = newReview();
        TaskSpec spec = TaskSpec.defaults().queue("bulk").priority(5).parent(parent)
                .attributes(Map.of("model", "m1")).attribute("phase", "embed").payload("{\"n\":1}")
                .idempotencyKey("order-9").notBefore(T0.plusSeconds(30));
        Task<State> t = engine.create(Chunk.MACHINE, spec).task();
        TaskRecord r = t.record();
        assertThat(r.queue()).isEqualTo("bulk");
        assertThat(r.priority()).isEqualTo(5);
        assertThat(r.parentId()).isEqualTo(parent);
        assertThat(t.parentId()).isEqualTo(parent);
        assertThat(r.attributes()).isEqualTo(Attributes.of("model", "m1", "phase", "embed"));
        assertThat(t.attribute("phase")).isEqualTo("embed");
        assertThat(r.payload()).isEqualTo("{\"n\":1}");
        assertThat(r.idempotencyKey()).isEqualTo("order-9");
        assertThat(r.notBefore()).isEqualTo(T0.plusSeconds(30));
        assertThat(engine.create(Review.MACHINE).task().record().machineVersion()).isEqualTo(2);
        assertThatThrownBy(() -> TaskSpec.defaults().parent(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TaskSpec.defaults().queue(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TaskSpec.defaults().idempotencyKey("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void creatingAgainWithTheSameKeyReturnsTheFirstTaskAndWritesNothing() {
        Created<State> first = engine.create(Chunk.MACHINE, TaskSpec.defaults().idempotencyKey("k").attribute("a", "1"));
        engine.fire(Chunk.MACHINE, first.task().id(), Event.START);
        List<TaskRecord> before = store.query(TaskQuery.all()).items();
        clock.advance(Duration.ofMinutes(1));
        Created<State> again = engine.create(Chunk.MACHINE, TaskSpec.defaults().idempotencyKey("k").attribute("a", "2"));
        assertThat(again.created()).isFalse();
        assertThat(again.task().id()).isEqualTo(first.task().id());
        assertThat(again.task().record()).isEqualTo(record(first.task().id()));
        assertThat(again.task().state()).isEqualTo(State.PROCESSING);
        assertThat(store.query(TaskQuery.all()).items()).isEqualTo(before);
        assertThat(heard.created).hasSize(1);
        // the key is scoped to the machine
        assertThat(engine.create(Review.MACHINE, TaskSpec.defaults().idempotencyKey("k")).created()).isTrue();
    }

    @Test
    void anUnknownParentIsAnInvalidArgument() {
        assertThatThrownBy(() -> engine.create(Chunk.MACHINE, TaskSpec.defaults().parent(404)))
                .isInstanceOfSatisfying(StatekitException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
                    assertThat(e.taskId()).isEqualTo(404L);
                })
                .hasMessageContaining("parent task 404 does not exist");
        assertThat(store.query(TaskQuery.all()).items()).isEmpty();
        assertThat(heard.created).isEmpty();
    }

    @Test
    void aPayloadOverTheStoresLimitCreatesNothing() {
        InMemoryStore small = new InMemoryStore(8);
        RecordingListener listener = new RecordingListener(small);
        TransitionEngine e = TransitionEngine.builder().store(small).clock(clock).listener(listener).build();
        assertThatThrownBy(() -> e.create(Chunk.MACHINE, TaskSpec.defaults().payload("123456789")))
                .isInstanceOfSatisfying(StatekitException.class, x -> assertThat(x.code()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE));
        assertThat(small.query(TaskQuery.all()).items()).isEmpty();
        assertThat(listener.created).isEmpty();
        assertThat(e.create(Chunk.MACHINE, TaskSpec.defaults().payload("12345678")).created()).isTrue();
    }

    // --- fire: applied --------------------------------------------------------------------------

    @Test
    void appliesARowOfTheTable() {
        long id = newChunk();
        clock.advance(Duration.ofSeconds(5));
        Command command = Command.system().actor("worker-1").reason("picked up").idempotencyKey("c1");
        Outcome.Applied<State> a = applied(engine.fire(Chunk.MACHINE, id, Event.START, command));
        assertThat(a.replayed()).isFalse();
        assertThat(a.orElseThrow()).isSameAs(a);
        Task<State> t = a.task();
        assertThat(t.state()).isEqualTo(State.PROCESSING);
        assertThat(t.version()).isEqualTo(1);
        assertThat(t.record().updatedAt()).isEqualTo(T0.plusSeconds(5));
        assertThat(t.record().createdAt()).isEqualTo(T0);
        HistoryEntry expected = new HistoryEntry(id, 1, "PENDING", "PROCESSING", "START", TriggerSource.SYSTEM,
                "worker-1", "picked up", T0.plusSeconds(5), "c1");
        assertThat(a.entry()).isEqualTo(expected);
        assertThat(engine.history(id)).containsExactly(expected);
        assertThat(record(id)).isEqualTo(t.record());
        assertThat(engine.find(Chunk.MACHINE, id)).contains(t);

        clock.advance(Duration.ofSeconds(1));
        Outcome.Applied<State> b = applied(engine.fire(Chunk.MACHINE, id, Event.SUCCEED));
        assertThat(b.task().state()).isEqualTo(State.DONE);
        assertThat(b.task().version()).isEqualTo(2);
        assertThat(b.entry()).isEqualTo(new HistoryEntry(id, 2, "PROCESSING", "DONE", "SUCCEED", TriggerSource.SYSTEM,
                null, null, T0.plusSeconds(6), null));
        assertThat(engine.history(id)).containsExactly(expected, b.entry());
        assertThat(heard.transitions).containsExactly(expected, b.entry());
        assertThat(heard.records).containsExactly(t.record(), b.task().record());
    }

    @Test
    void aUserCommandRecordsTheUserAsActorAndSource() {
        long id = newReview("title", "Q3 report");
        Outcome.Applied<Review.State> a = applied(engine.fire(Review.MACHINE, id, Review.Event.SUBMIT, Command.user("ana")));
        assertThat(a.entry().source()).isEqualTo(TriggerSource.USER);
        assertThat(a.entry().actor()).isEqualTo("ana");
        assertThat(a.task().state()).isEqualTo(Review.State.SUBMITTED);
        assertThat(Command.by(TriggerSource.USER).source()).isEqualTo(TriggerSource.USER);
        assertThat(Command.by(TriggerSource.SYSTEM)).isSameAs(Command.system());
        assertThatThrownBy(() -> Command.user(" ")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aGuardedRowWinsWhenItsGuardAllowsAndTheFallbackOtherwise() {
        long auto = newReview("title", "t", "auto", "yes");
        long manual = newReview("title", "t", "auto", "no");
        engine.fire(Review.MACHINE, auto, Review.Event.SUBMIT, Command.user("ana")).orElseThrow();
        engine.fire(Review.MACHINE, manual, Review.Event.SUBMIT, Command.user("ana")).orElseThrow();

        Outcome.Applied<Review.State> published = applied(engine.fire(Review.MACHINE, auto, Review.Event.APPROVE, Command.user("bob")));
        assertThat(published.task().state()).isEqualTo(Review.State.PUBLISHED);
        assertThat(published.task().attribute("publishedBy")).isEqualTo("bob");
        assertThat(published.entry().to()).isEqualTo("PUBLISHED");

        Outcome.Applied<Review.State> approved = applied(engine.fire(Review.MACHINE, manual, Review.Event.APPROVE, Command.user("bob")));
        assertThat(approved.task().state()).isEqualTo(Review.State.APPROVED);
        assertThat(approved.task().attribute("publishedBy")).isNull();
        assertThat(approved.entry().to()).isEqualTo("APPROVED");
    }

    @Test
    void commandAttributeChangesAndEffectsAreApplied() {
        long id = engine.create(Chunk.MACHINE, TaskSpec.defaults().attribute("retries", "2").attribute("stale", "x")).task().id();
        engine.fire(Chunk.MACHINE, id, Event.START).orElseThrow();
        Command command = Command.system().set("phase", "embed").remove("stale").set("retries", "99").remove("absent");
        Outcome.Applied<State> a = applied(engine.fire(Chunk.MACHINE, id, Event.RETRYABLE_ERROR, command));
        // the effect runs after the command's own changes and sees the task as it was
        assertThat(a.task().attributes()).isEqualTo(Attributes.of("phase", "embed", "retries", "3"));
        assertThat(record(id).attributes()).isEqualTo(Attributes.of("phase", "embed", "retries", "3"));
        assertThat(command.attributes()).containsKeys("phase", "stale", "retries", "absent");

        // a command without changes on a row without effect keeps the attributes
        Outcome.Applied<State> b = applied(engine.fire(Chunk.MACHINE, id, Event.BACKOFF_DONE));
        assertThat(b.task().attributes()).isSameAs(a.task().attributes());

        // an effect that removes an attribute
        long doc = newReview("title", "t");
        engine.fire(Review.MACHINE, doc, Review.Event.SUBMIT, Command.user("ana")).orElseThrow();
        engine.fire(Review.MACHINE, doc, Review.Event.REJECT, Command.user("bob")).orElseThrow();
        Outcome.Applied<Review.State> edited = applied(engine.fire(Review.MACHINE, doc, Review.Event.EDIT,
                Command.user("ana").set("note", "shorter")));
        assertThat(edited.task().attributes()).isEqualTo(Attributes.of("note", "shorter"));
    }

    // --- fire: refused --------------------------------------------------------------------------

    @Test
    void anEventTheStateDoesNotAllowIsAnIllegalTransitionNamingTheAllowedEvents() {
        long id = newChunk();
        Outcome.Refused<State> r = refusedUnchanged(Chunk.MACHINE, id, Event.SUCCEED, Command.system());
        assertThat(r.code()).isEqualTo(RefusalCode.ILLEGAL_TRANSITION);
        assertThat(r.reasonCode()).isEqualTo("ILLEGAL_TRANSITION");
        assertThat(r.state()).isEqualTo(State.PENDING);
        assertThat(r.message()).isEqualTo("task " + id + " (chunk) in state PENDING does not allow event SUCCEED;"
                + " allowed events: [START]");

        engine.fire(Chunk.MACHINE, id, Event.START).orElseThrow();
        Outcome.Refused<State> again = refusedUnchanged(Chunk.MACHINE, id, Event.START, Command.system());
        assertThat(again.state()).isEqualTo(State.PROCESSING);
        assertThat(again.message()).endsWith("allowed events: [SUCCEED, FAIL, RETRYABLE_ERROR, RELEASE]");

        engine.fire(Chunk.MACHINE, id, Event.SUCCEED).orElseThrow();
        assertThat(refusedUnchanged(Chunk.MACHINE, id, Event.RELEASE, Command.system()).message())
                .endsWith("in state DONE does not allow event RELEASE; allowed events: []");
    }

    @Test
    void aSourceTheRowDoesNotAllowIsRefused() {
        long id = newReview("title", "t");
        Outcome.Refused<Review.State> bySystem = refusedUnchanged(Review.MACHINE, id, Review.Event.SUBMIT, Command.system());
        assertThat(bySystem.code()).isEqualTo(RefusalCode.ILLEGAL_TRANSITION);
        assertThat(bySystem.message()).isEqualTo("event SUBMIT may not be fired by SYSTEM in state DRAFT of task " + id
                + " (review); SYSTEM may fire: []; allowed events: [SUBMIT]");

        engine.fire(Review.MACHINE, id, Review.Event.SUBMIT, Command.user("ana")).orElseThrow();
        engine.fire(Review.MACHINE, id, Review.Event.APPROVE, Command.user("bob")).orElseThrow();
        Outcome.Refused<Review.State> byUser = refusedUnchanged(Review.MACHINE, id, Review.Event.PUBLISH, Command.user("bob"));
        assertThat(byUser.message()).contains("may not be fired by USER in state APPROVED").endsWith("USER may fire: []; allowed events: [PUBLISH]");
        assertThat(applied(engine.fire(Review.MACHINE, id, Review.Event.PUBLISH)).task().state()).isEqualTo(Review.State.PUBLISHED);
    }

    @Test
    void aNamedRefusalCarriesItsCode() {
        long id = newReview("title", "t");
        engine.fire(Review.MACHINE, id, Review.Event.SUBMIT, Command.user("ana")).orElseThrow();
        Outcome.Refused<Review.State> r = refusedUnchanged(Review.MACHINE, id, Review.Event.EDIT, Command.user("ana"));
        assertThat(r.code()).isEqualTo(RefusalCode.ILLEGAL_TRANSITION);
        assertThat(r.reasonCode()).isEqualTo(Review.REVIEW_IN_PROGRESS);
        assertThat(r.state()).isEqualTo(Review.State.SUBMITTED);
        assertThat(r.message()).isEqualTo("a submitted document cannot be edited (task " + id
                + " is SUBMITTED; allowed events: [APPROVE, REJECT])");
    }

    @Test
    void aRefusingGuardWithoutFallbackRefusesWithItsCodeAndMessage() {
        long id = newReview();
        Outcome.Refused<Review.State> r = refusedUnchanged(Review.MACHINE, id, Review.Event.SUBMIT,
                Command.user("ana").set("title", "too late: guards see the task before the change"));
        assertThat(r.code()).isEqualTo(RefusalCode.GUARD_REFUSED);
        assertThat(r.reasonCode()).isEqualTo(Review.TITLE_MISSING);
        assertThat(r.state()).isEqualTo(Review.State.DRAFT);
        assertThat(r.message()).isEqualTo("guard 'hasTitle' refused SUBMIT for task " + id
                + " in state DRAFT: a document needs a title before it is submitted");
        assertThat(RefusalCode.GUARD_REFUSED.httpStatus()).isEqualTo(409);
        assertThat(RefusalCode.NOT_FOUND.httpStatus()).isEqualTo(404);
    }

    @Test
    void anExpectedVersionThatIsNotCurrentIsAConflict() {
        long id = newChunk();
        engine.fire(Chunk.MACHINE, id, Event.START).orElseThrow();
        Outcome.Refused<State> stale = refusedUnchanged(Chunk.MACHINE, id, Event.SUCCEED, Command.system().expectVersion(0));
        assertThat(stale.code()).isEqualTo(RefusalCode.VERSION_CONFLICT);
        assertThat(stale.reasonCode()).isEqualTo("VERSION_CONFLICT");
        assertThat(stale.state()).isEqualTo(State.PROCESSING);
        assertThat(stale.message()).contains("version 1, not the expected 0");
        assertThat(refusedUnchanged(Chunk.MACHINE, id, Event.SUCCEED, Command.system().expectVersion(2)).code())
                .isEqualTo(RefusalCode.VERSION_CONFLICT);
        Outcome.Applied<State> ok = applied(engine.fire(Chunk.MACHINE, id, Event.SUCCEED, Command.system().expectVersion(1)));
        assertThat(ok.task().version()).isEqualTo(2);
        assertThat(Command.system().expectVersion(3).expectedVersion()).hasValue(3);
        assertThat(Command.system().expectedVersion()).isEmpty();
        assertThatThrownBy(() -> Command.system().expectVersion(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aMissingTaskOrATaskOfAnotherMachineIsNotFound() {
        Outcome.Refused<State> missing = refused(engine.fire(Chunk.MACHINE, 12345, Event.START));
        assertThat(missing.code()).isEqualTo(RefusalCode.NOT_FOUND);
        assertThat(missing.reasonCode()).isEqualTo("NOT_FOUND");
        assertThat(missing.state()).isNull();
        assertThat(missing.taskId()).isEqualTo(12345);
        assertThat(missing.message()).isEqualTo("no task 12345 in machine chunk");

        long doc = newReview("title", "t");
        Outcome.Refused<State> other = refusedUnchanged(Chunk.MACHINE, doc, Event.START, Command.system());
        assertThat(other.code()).isEqualTo(RefusalCode.NOT_FOUND);
        assertThat(other.state()).isNull();
        assertThat(engine.find(Chunk.MACHINE, doc)).isEmpty();
        assertThat(engine.find(Review.MACHINE, doc)).isPresent();
        assertThat(engine.find(Chunk.MACHINE, 999)).isEmpty();
    }

    @Test
    void orElseThrowThrowsTheRefusal() {
        long id = newChunk();
        Outcome<State> o = engine.fire(Chunk.MACHINE, id, Event.FAIL);
        Outcome.Refused<State> r = refused(o);
        assertThatThrownBy(o::orElseThrow)
                .isInstanceOfSatisfying(TransitionRefusedException.class, e -> {
                    assertThat(e.refusal()).isSameAs(r);
                    assertThat(e.code()).isEqualTo(ErrorCode.REFUSED);
                    assertThat(e.taskId()).isEqualTo(id);
                })
                .hasMessage("[REFUSED] ILLEGAL_TRANSITION: " + r.message());
    }

    @Test
    void aStoredStateUnknownToTheMachineIsSchemaDrift() {
        TaskRecord bogus = store.create(new NewTask("chunk", 1, "VANISHED", "chunk", 0, null, Attributes.EMPTY, null,
                null, null, T0)).task();
        assertThatThrownBy(() -> engine.fire(Chunk.MACHINE, bogus.id(), Event.START))
                .isInstanceOfSatisfying(StatekitException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.SCHEMA_DRIFT);
                    assertThat(e.taskId()).isEqualTo(bogus.id());
                })
                .hasMessageContaining("'VANISHED'").hasMessageContaining("chunk v1");
        assertThatThrownBy(() -> engine.find(Chunk.MACHINE, bogus.id()))
                .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SCHEMA_DRIFT));
        assertThatThrownBy(() -> engine.fireAll(List.of(Fire.of(Chunk.MACHINE, bogus.id(), Event.START))))
                .isInstanceOfSatisfying(StatekitException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SCHEMA_DRIFT));
        assertThat(record(bogus.id())).isEqualTo(bogus);
        assertThat(store.history(bogus.id())).isEmpty();
        assertThat(heard.transitions).isEmpty();
    }

    @Test
    void exceptionsOfGuardsAndEffectsPropagateAndWriteNothing() {
        enum S { A, B }
        enum E { BAD_GUARD, BAD_EFFECT, BAD_KEY }
        Machine<S, E> m = Machine.builder("faulty", S.class, E.class).initial(S.A).terminal(S.B)
                .row(S.A, E.BAD_GUARD, S.B).by(TriggerSource.SYSTEM).guard("boom", (t, c) -> {
                    throw new IllegalStateException("guard failure");
                }).add()
                .row(S.A, E.BAD_EFFECT, S.B).by(TriggerSource.SYSTEM).effect((t, c, ch) -> {
                    throw new IllegalStateException("effect failure");
                }).add()
                .row(S.A, E.BAD_KEY, S.B).by(TriggerSource.SYSTEM).effect((t, c, ch) -> ch.put(" ", "blank key")).add()
                .build();
        long id = engine.create(m).task().id();
        TaskRecord before = record(id);
        assertThatThrownBy(() -> engine.fire(m, id, E.BAD_GUARD)).hasMessage("guard failure");
        assertThatThrownBy(() -> engine.fire(m, id, E.BAD_EFFECT)).hasMessage("effect failure");
        assertThatThrownBy(() -> engine.fire(m, id, E.BAD_KEY)).isInstanceOf(IllegalArgumentException.class);
        assertThat(record(id)).isEqualTo(before);
        assertThat(store.history(id)).isEmpty();
        assertThat(heard.transitions).isEmpty();
    }

    // --- idempotency ----------------------------------------------------------------------------

    @Test
    void repeatingAKeyReplaysTheFirstApplicationAndWritesNothing() {
        long id = newChunk();
        Outcome.Applied<State> first = applied(engine.fire(Chunk.MACHINE, id, Event.START, Command.system().idempotencyKey("k1")));
        TaskRecord after = record(id);
        clock.advance(Duration.ofSeconds(3));

        Outcome.Applied<State> replay = applied(engine.fire(Chunk.MACHINE, id, Event.START, Command.system().idempotencyKey("k1")));
        assertThat(replay.replayed()).isTrue();
        assertThat(replay.entry()).isEqualTo(first.entry());
        assertThat(replay.task().record()).isEqualTo(after);
        assertThat(record(id)).isEqualTo(after);
        assertThat(store.history(id)).containsExactly(first.entry());
        assertThat(heard.transitions).containsExactly(first.entry());

        // the state moved on: the key still replays the first entry, with the task as it is now
        engine.fire(Chunk.MACHINE, id, Event.SUCCEED).orElseThrow();
        TaskRecord done = record(id);
        Outcome.Applied<State> late = applied(engine.fire(Chunk.MACHINE, id, Event.START, Command.system().idempotencyKey("k1")));
        assertThat(late.replayed()).isTrue();
        assertThat(late.entry()).isEqualTo(first.entry());
        assertThat(late.task().state()).isEqualTo(State.DONE);
        assertThat(late.task().record()).isEqualTo(done);
        assertThat(store.history(id)).hasSize(2);
        assertThat(heard.transitions).hasSize(2);
        // the key names the command, whatever the event it is repeated with
        assertThat(applied(engine.fire(Chunk.MACHINE, id, Event.FAIL, Command.system().idempotencyKey("k1"))).replayed()).isTrue();
        assertThat(store.history(id)).hasSize(2);
    }

    @Test
    void aRefusedCommandMayBeRepeatedWithItsKey() {
        long id = newChunk();
        refusedUnchanged(Chunk.MACHINE, id, Event.SUCCEED, Command.system().idempotencyKey("s"));
        assertThat(store.findCommand(id, "s")).isEmpty();
        engine.fire(Chunk.MACHINE, id, Event.START).orElseThrow();
        Outcome.Applied<State> ok = applied(engine.fire(Chunk.MACHINE, id, Event.SUCCEED, Command.system().idempotencyKey("s")));
        assertThat(ok.replayed()).isFalse();
        assertThat(store.findCommand(id, "s")).contains(ok.entry());
    }

    @Test
    void keysAreScopedToTheirTask() {
        long a = newChunk();
        long b = newChunk();
        Command k = Command.system().idempotencyKey("same");
        assertThat(applied(engine.fire(Chunk.MACHINE, a, Event.START, k)).replayed()).isFalse();
        assertThat(applied(engine.fire(Chunk.MACHINE, b, Event.START, k)).replayed()).isFalse();
        assertThat(record(a).version()).isEqualTo(1);
        assertThat(record(b).version()).isEqualTo(1);
    }

    // --- listeners ------------------------------------------------------------------------------

    @Test
    void aThrowingListenerIsLoggedTheChangeStandsAndLaterListenersStillRun() {
        RecordingListener before = new RecordingListener(store);
        RecordingListener after = new RecordingListener(store);
        AtomicInteger thrown = new AtomicInteger();
        TransitionListener throwing = new TransitionListener() {
            @Override
            public void onTransition(String machine, TaskRecord task, HistoryEntry entry) {
                thrown.incrementAndGet();
                throw new IllegalStateException("listener failure (expected by the test)");
            }

            @Override
            public void onCreated(String machine, TaskRecord task) {
                thrown.incrementAndGet();
                throw new IllegalStateException("listener failure on creation (expected by the test)");
            }
        };
        TransitionEngine e = TransitionEngine.builder().store(store).clock(clock)
                .listener(before).listener(throwing).listener(after).build();
        Created<State> c = e.create(Chunk.MACHINE);
        assertThat(c.created()).isTrue();
        assertThat(before.created).hasSize(1);
        assertThat(after.created).hasSize(1);
        Outcome.Applied<State> a = applied(e.fire(Chunk.MACHINE, c.task().id(), Event.START));
        assertThat(record(c.task().id())).isEqualTo(a.task().record());
        assertThat(before.transitions).containsExactly(a.entry());
        assertThat(after.transitions).containsExactly(a.entry());
        assertThat(after.records).containsExactly(a.task().record());
        assertThat(after.machines).containsExactly("chunk", "chunk");
        assertThat(thrown.get()).isEqualTo(2);
    }

    @Test
    void listenersAreNotCalledForRefusalsOrReplays() {
        long id = newChunk();
        engine.fire(Chunk.MACHINE, id, Event.SUCCEED);
        engine.fire(Chunk.MACHINE, 777, Event.SUCCEED);
        engine.fire(Chunk.MACHINE, id, Event.START, Command.system().idempotencyKey("x")).orElseThrow();
        engine.fire(Chunk.MACHINE, id, Event.START, Command.system().idempotencyKey("x")).orElseThrow();
        engine.create(Chunk.MACHINE, TaskSpec.defaults().idempotencyKey("c"));
        engine.create(Chunk.MACHINE, TaskSpec.defaults().idempotencyKey("c"));
        assertThat(heard.transitions).hasSize(1);
        assertThat(heard.created).hasSize(2);
    }

    // --- batches --------------------------------------------------------------------------------

    @Test
    void fireAllAppliesEveryCommandInOrder() {
        long a = newChunk();
        long b = newChunk();
        long doc = newReview("title", "t");
        clock.advance(Duration.ofSeconds(2));
        BatchOutcome out = engine.fireAll(List.of(
                Fire.of(Chunk.MACHINE, b, Event.START),
                new Fire<>(Review.MACHINE, doc, Review.Event.SUBMIT, Command.user("ana").set("k", "v")),
                Fire.of(Chunk.MACHINE, a, Event.START)));
        assertThat(out.isApplied()).isTrue();
        assertThat(out.refusal()).isNull();
        assertThat(out.refusedIndex()).isEqualTo(-1);
        assertThat(out.applied()).hasSize(3);
        assertThat(out.applied()).extracting(o -> o.task().id()).containsExactly(b, doc, a);
        assertThat(out.applied()).extracting(o -> o.task().state().name()).containsExactly("PROCESSING", "SUBMITTED", "PROCESSING");
        assertThat(out.applied()).allSatisfy(o -> {
            assertThat(o.replayed()).isFalse();
            assertThat(o.task().version()).isEqualTo(1);
            assertThat(o.entry().at()).isEqualTo(T0.plusSeconds(2));
            assertThat(store.history(o.task().id())).containsExactly(o.entry());
            assertThat(record(o.task().id())).isEqualTo(o.task().record());
        });
        assertThat(record(doc).attributes().get("k")).isEqualTo("v");
        assertThat(heard.transitions).hasSize(3);
        assertThat(heard.machines).endsWith("chunk", "review", "chunk");
    }

    @Test
    void fireAllWithOneRefusalWritesNothing() {
        long a = newChunk();
        long b = newChunk();
        long c = newChunk();
        TaskRecord ra = record(a);
        TaskRecord rb = record(b);
        TaskRecord rc = record(c);
        BatchOutcome out = engine.fireAll(List.of(
                Fire.of(Chunk.MACHINE, a, Event.START),
                Fire.of(Chunk.MACHINE, b, Event.SUCCEED),
                Fire.of(Chunk.MACHINE, c, Event.FAIL)));
        assertThat(out.isApplied()).isFalse();
        assertThat(out.applied()).isEmpty();
        assertThat(out.refusedIndex()).isEqualTo(1);
        assertThat(out.refusal()).isNotNull();
        assertThat(out.refusal().code()).isEqualTo(RefusalCode.ILLEGAL_TRANSITION);
        assertThat(out.refusal().taskId()).isEqualTo(b);
        assertThat(List.of(record(a), record(b), record(c))).containsExactly(ra, rb, rc);
        assertThat(store.history(a)).isEmpty();
        assertThat(heard.transitions).isEmpty();

        BatchOutcome missing = engine.fireAll(List.of(Fire.of(Chunk.MACHINE, a, Event.START), Fire.of(Chunk.MACHINE, 999, Event.START)));
        assertThat(missing.refusedIndex()).isEqualTo(1);
        assertThat(missing.refusal().code()).isEqualTo(RefusalCode.NOT_FOUND);
        assertThat(record(a)).isEqualTo(ra);

        BatchOutcome stale = engine.fireAll(List.of(Fire.of(Chunk.MACHINE, a, Event.START),
                new Fire<>(Chunk.MACHINE, b, Event.START, Command.system().expectVersion(4))));
        assertThat(stale.refusedIndex()).isEqualTo(1);
        assertThat(stale.refusal().code()).isEqualTo(RefusalCode.VERSION_CONFLICT);
        assertThat(record(a)).isEqualTo(ra);
        assertThat(record(b)).isEqualTo(rb);
    }

    @Test
    void fireAllReplaysAKeyAlreadyAppliedAndAppliesTheRest() {
        long a = newChunk();
        long b = newChunk();
        Outcome.Applied<State> first = applied(engine.fire(Chunk.MACHINE, a, Event.START, Command.system().idempotencyKey("k")));
        engine.fire(Chunk.MACHINE, a, Event.RELEASE).orElseThrow();
        TaskRecord aNow = record(a);
        BatchOutcome out = engine.fireAll(List.of(
                new Fire<>(Chunk.MACHINE, a, Event.START, Command.system().idempotencyKey("k")),
                new Fire<>(Chunk.MACHINE, b, Event.START, Command.system().idempotencyKey("k"))));
        assertThat(out.isApplied()).isTrue();
        Outcome.Applied<?> replay = out.applied().get(0);
        assertThat(replay.replayed()).isTrue();
        assertThat(replay.entry()).isEqualTo(first.entry());
        assertThat(replay.task().record()).isEqualTo(aNow);
        assertThat(record(a)).isEqualTo(aNow);
        assertThat(out.applied().get(1).replayed()).isFalse();
        assertThat(record(b).version()).isEqualTo(1);
        assertThat(heard.transitions).hasSize(3);

        // a batch of replays only writes nothing
        BatchOutcome again = engine.fireAll(List.of(
                new Fire<>(Chunk.MACHINE, b, Event.START, Command.system().idempotencyKey("k")),
                new Fire<>(Chunk.MACHINE, a, Event.START, Command.system().idempotencyKey("k"))));
        assertThat(again.applied()).allSatisfy(o -> assertThat(o.replayed()).isTrue());
        assertThat(store.history(a)).hasSize(2);
        assertThat(store.history(b)).hasSize(1);
        assertThat(heard.transitions).hasSize(3);
    }

    @Test
    void fireAllRejectsAnEmptyBatchAndOneTaskTwice() {
        long a = newChunk();
        assertThatThrownBy(() -> engine.fireAll(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> engine.fireAll(List.of(Fire.of(Chunk.MACHINE, a, Event.START), Fire.of(Chunk.MACHINE, a, Event.FAIL))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("task " + a + " appears twice");
        assertThat(record(a).version()).isZero();
    }

    // --- concurrent changes ---------------------------------------------------------------------

    /**
     * A store that lets a test change a task between the engine's read and its write: every call
     * goes to an in-memory store, and {@code beforeNextWrite} runs once before the next write.
     */
    static final class InterferingStore implements InvocationHandler {
        final InMemoryStore delegate = new InMemoryStore();
        final Store store = (Store) Proxy.newProxyInstance(Store.class.getClassLoader(), new Class<?>[] {Store.class}, this);
        @Nullable Runnable beforeNextWrite;
        int writes;

        @Override
        public @Nullable Object invoke(Object proxy, Method method, Object @Nullable [] args) throws Throwable {
            if (method.getName().equals("apply") || method.getName().equals("applyAll")) {
                writes++;
                Runnable r = beforeNextWrite;
                beforeNextWrite = null;
                if (r != null) r.run();
            }
            try {
                return method.invoke(delegate, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }

        List<HistoryEntry> history(long id) {
            return delegate.history(id);
        }
    }

    @Test
    void aCommandThatLosesARaceIsDecidedAgainOnTheNewSnapshot() {
        InterferingStore s = new InterferingStore();
        TransitionEngine e = TransitionEngine.builder().store(s.store).clock(clock).build();
        TransitionEngine direct = TransitionEngine.builder().store(s.delegate).clock(clock).build();
        long id = e.create(Chunk.MACHINE).task().id();
        e.fire(Chunk.MACHINE, id, Event.START).orElseThrow();
        s.beforeNextWrite = () -> direct.fire(Chunk.MACHINE, id, Event.RETRYABLE_ERROR).orElseThrow();
        // decided in PROCESSING, then written after the task moved to RETRYING: FAIL is legal in both
        Outcome.Applied<State> a = applied(e.fire(Chunk.MACHINE, id, Event.FAIL));
        assertThat(a.entry().from()).isEqualTo("RETRYING");
        assertThat(a.entry().version()).isEqualTo(3);
        assertThat(s.history(id)).extracting(HistoryEntry::to).containsExactly("PROCESSING", "RETRYING", "ERROR");
        assertThat(s.writes).isEqualTo(3);

        // decided again, the command becomes illegal
        e.fire(Chunk.MACHINE, id, Event.RETRY_FAILED).orElseThrow();
        s.beforeNextWrite = () -> direct.fire(Chunk.MACHINE, id, Event.START).orElseThrow();
        Outcome.Refused<State> r = refused(e.fire(Chunk.MACHINE, id, Event.START));
        assertThat(r.code()).isEqualTo(RefusalCode.ILLEGAL_TRANSITION);
        assertThat(r.state()).isEqualTo(State.PROCESSING);
        assertThat(s.history(id)).hasSize(5);
    }

    @Test
    void anExpectedVersionIsNotRetriedAndRetriesAreBounded() {
        InterferingStore s = new InterferingStore();
        TransitionEngine once = TransitionEngine.builder().store(s.store).clock(clock).maxConflictRetries(0).build();
        TransitionEngine direct = TransitionEngine.builder().store(s.delegate).clock(clock).build();
        long id = once.create(Chunk.MACHINE).task().id();
        s.beforeNextWrite = () -> direct.fire(Chunk.MACHINE, id, Event.START).orElseThrow();
        TransitionEngine retrying = TransitionEngine.builder().store(s.store).clock(clock).build();
        Outcome.Refused<State> withVersion = refused(retrying.fire(Chunk.MACHINE, id, Event.START, Command.system().expectVersion(0)));
        assertThat(withVersion.code()).isEqualTo(RefusalCode.VERSION_CONFLICT);
        assertThat(withVersion.message()).contains("no longer at the expected version 0");

        s.beforeNextWrite = () -> direct.fire(Chunk.MACHINE, id, Event.RELEASE).orElseThrow();
        Outcome.Refused<State> gaveUp = refused(once.fire(Chunk.MACHINE, id, Event.FAIL));
        assertThat(gaveUp.code()).isEqualTo(RefusalCode.VERSION_CONFLICT);
        assertThat(gaveUp.message()).contains("changed concurrently 1 times");
        assertThat(s.history(id)).extracting(HistoryEntry::event).containsExactly("START", "RELEASE");
        assertThatThrownBy(() -> TransitionEngine.builder().maxConflictRetries(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TransitionEngine.builder().build()).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aKeyAppliedConcurrentlyBecomesAReplay() {
        InterferingStore s = new InterferingStore();
        TransitionEngine e = TransitionEngine.builder().store(s.store).clock(clock).build();
        TransitionEngine direct = TransitionEngine.builder().store(s.delegate).clock(clock).build();
        long id = e.create(Chunk.MACHINE).task().id();
        Outcome<State>[] winner = newOutcomes(1);
        s.beforeNextWrite = () -> winner[0] = direct.fire(Chunk.MACHINE, id, Event.START, Command.system().idempotencyKey("k"));
        Outcome.Applied<State> loser = applied(e.fire(Chunk.MACHINE, id, Event.START, Command.system().idempotencyKey("k")));
        assertThat(loser.replayed()).isTrue();
        assertThat(loser.entry()).isEqualTo(applied(winner[0]).entry());
        assertThat(s.history(id)).hasSize(1);

        // the same inside a batch
        long other = e.create(Chunk.MACHINE).task().id();
        s.beforeNextWrite = () -> direct.fire(Chunk.MACHINE, id, Event.SUCCEED, Command.system().idempotencyKey("b")).orElseThrow();
        BatchOutcome out = e.fireAll(List.of(
                new Fire<>(Chunk.MACHINE, id, Event.SUCCEED, Command.system().idempotencyKey("b")),
                Fire.of(Chunk.MACHINE, other, Event.START)));
        assertThat(out.isApplied()).isTrue();
        assertThat(out.applied().get(0).replayed()).isTrue();
        assertThat(out.applied().get(1).replayed()).isFalse();
        assertThat(s.history(id)).hasSize(2);
        assertThat(s.history(other)).hasSize(1);
    }

    @Test
    void aBatchThatLosesARaceIsDecidedAgain() {
        InterferingStore s = new InterferingStore();
        TransitionEngine e = TransitionEngine.builder().store(s.store).clock(clock).build();
        TransitionEngine direct = TransitionEngine.builder().store(s.delegate).clock(clock).build();
        long a = e.create(Chunk.MACHINE).task().id();
        long b = e.create(Chunk.MACHINE).task().id();
        e.fire(Chunk.MACHINE, a, Event.START).orElseThrow();
        s.beforeNextWrite = () -> direct.fire(Chunk.MACHINE, a, Event.RETRYABLE_ERROR).orElseThrow();
        BatchOutcome out = e.fireAll(List.of(Fire.of(Chunk.MACHINE, b, Event.START), Fire.of(Chunk.MACHINE, a, Event.RELEASE)));
        assertThat(out.isApplied()).isTrue();
        assertThat(out.applied().get(1).entry().from()).isEqualTo("RETRYING");
        assertThat(s.history(a)).extracting(HistoryEntry::to).containsExactly("PROCESSING", "RETRYING", "PENDING");

        s.beforeNextWrite = () -> direct.fire(Chunk.MACHINE, a, Event.START).orElseThrow();
        BatchOutcome refused = e.fireAll(List.of(Fire.of(Chunk.MACHINE, b, Event.SUCCEED), Fire.of(Chunk.MACHINE, a, Event.START)));
        assertThat(refused.refusedIndex()).isEqualTo(1);
        assertThat(refused.refusal().code()).isEqualTo(RefusalCode.ILLEGAL_TRANSITION);
        assertThat(s.history(b)).hasSize(1);
    }

    // --- reads ----------------------------------------------------------------------------------

    @Test
    void queriesSeeOnlyTheMachinesTasks() {
        long a = newChunk();
        newReview();
        long b = newChunk();
        engine.fire(Chunk.MACHINE, b, Event.START).orElseThrow();
        Page<Task<State>> all = engine.query(Chunk.MACHINE, TaskQuery.all());
        assertThat(all.items()).extracting(Task::id).containsExactly(a, b);
        Page<Task<State>> processing = engine.query(Chunk.MACHINE, TaskQuery.all().states(Set.of("PROCESSING")));
        assertThat(processing.items()).extracting(Task::state).containsExactly(State.PROCESSING);
        Page<Task<State>> first = engine.query(Chunk.MACHINE, TaskQuery.all().machine("review").limit(1));
        assertThat(first.items()).extracting(Task::id).containsExactly(a);
        assertThat(first.nextAfterId()).isEqualTo(a);
        assertThat(engine.store()).isSameAs(store);
        assertThat(engine.clock()).isSameAs(clock);
    }

    @Test
    void rejectsNullArguments() {
        long id = newChunk();
        assertThatThrownBy(() -> engine.fire(null, id, Event.START)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> engine.fire(Chunk.MACHINE, id, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> engine.fire(Chunk.MACHINE, id, Event.START, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> engine.create(Chunk.MACHINE, null)).isInstanceOf(NullPointerException.class);
        assertThat(record(id).version()).isZero();
    }

    @SuppressWarnings("unchecked")
    private static <S extends Enum<S>> Outcome<S>[] newOutcomes(int n) {
        return (Outcome<S>[]) new Outcome<?>[n];
    }
}
