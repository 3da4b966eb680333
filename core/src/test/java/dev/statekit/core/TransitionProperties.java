package dev.statekit.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.spi.ManualClock;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.Store;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.TriggerSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;
import org.jspecify.annotations.Nullable;

/**
 * Properties of the transition engine over generated machines, concurrent callers and a model.
 * They run through {@link TransitionPropertiesTest}, as the test run selects classes by a name
 * ending in {@code Test}.
 */
abstract class TransitionProperties {

    // --- shared checks --------------------------------------------------------------------------

    /** Asserts that the history of {@code id} is one unbroken chain ending at the stored version. */
    static List<HistoryEntry> assertUnbrokenChain(Store store, long id, String initial) {
        TaskRecord task = store.find(id).orElseThrow();
        List<HistoryEntry> history = store.history(id);
        assertThat(task.version()).as("version equals history length").isEqualTo(history.size());
        String state = initial;
        for (int i = 0; i < history.size(); i++) {
            HistoryEntry e = history.get(i);
            assertThat(e.taskId()).isEqualTo(id);
            assertThat(e.version()).as("version of entry %s", i).isEqualTo(i + 1);
            assertThat(e.from()).as("entry %s leaves the state entry %s entered", i, i - 1).isEqualTo(state);
            state = e.to();
        }
        assertThat(task.state()).isEqualTo(state);
        return history;
    }

    /** Asserts that {@code entry} is a row of {@code machine}'s table. */
    static <S extends Enum<S>, E extends Enum<E>> void assertIsARow(Machine<S, E> machine, HistoryEntry entry) {
        S from = machine.state(entry.from());
        S to = machine.state(entry.to());
        E event = machine.event(entry.event());
        assertThat(from).isNotNull();
        assertThat(to).isNotNull();
        assertThat(event).isNotNull();
        assertThat(machine.transitions(from, event))
                .as("a row %s --%s--> %s for %s", entry.from(), entry.event(), entry.to(), entry.source())
                .anySatisfy(t -> {
                    assertThat(t.to()).isEqualTo(to);
                    assertThat(t.allows(entry.source())).isTrue();
                });
    }

    // --- (a) random event sequences on generated machines ---------------------------------------

    enum GS { S0, S1, S2, S3, S4, S5 }

    enum GE { E0, E1, E2, E3, E4 }

    static final GS[] STATES = GS.values();
    static final GE[] EVENTS = GE.values();

    /** A generated row: indices into the enums, sources 1 = SYSTEM, 2 = USER, 3 = both; guard 0 = none. */
    record RawRow(int from, int event, int to, int sources, int guard, boolean effect) {}

    /**
     * One command of a sequence: {@code event} by {@code source}; when {@code follow} is set and
     * the task's state allows events to that source, the {@code pick}-th of those instead.
     */
    record Step(GE event, TriggerSource source, boolean note, boolean follow, int pick) {
        GE eventIn(Machine<GS, GE> machine, GS state) {
            List<GE> allowed = List.copyOf(machine.allowedEvents(state, source));
            return follow && !allowed.isEmpty() ? allowed.get(pick % allowed.size()) : event;
        }
    }

    /** A row kept in the generated machine, as the model sees it. */
    record Row(int index, GS from, GE event, GS to, Set<TriggerSource> sources, int guard, boolean effect) {
        boolean overlaps(Row o) {
            return from == o.from && event == o.event && !Collections.disjoint(sources, o.sources);
        }
    }

    static final Guard<GS> EVEN_VERSION = (task, command) ->
            Verdict.when(task.version() % 2 == 0, "ODD_VERSION", "the version is odd");
    static final Guard<GS> MARKED = (task, command) ->
            Verdict.when(task.attributes().contains("mark"), "NOT_MARKED", "the task carries no mark");

    static String guardName(int kind) {
        return kind == 1 ? "evenVersion" : "marked";
    }

    /** A generated machine that is valid by construction, with the rows the model decides by. */
    record Generated(Machine<GS, GE> machine, List<Row> rows, Map<GS, Map<GE, String>> refusals) {
        @Override
        public String toString() {
            return machine + " initial " + machine.initial() + " rows " + rows + " refusals " + refusals;
        }
    }

    static Generated generate(int initialIndex, List<RawRow> raw, List<int[]> rawRefusals) {
        GS initial = STATES[initialIndex];
        List<Row> kept = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) {
            RawRow r = raw.get(i);
            EnumSet<TriggerSource> sources = EnumSet.noneOf(TriggerSource.class);
            if ((r.sources() & 1) != 0) sources.add(TriggerSource.SYSTEM);
            if ((r.sources() & 2) != 0) sources.add(TriggerSource.USER);
            GS from = i == 0 ? initial : STATES[r.from()];
            Row row = new Row(i, from, EVENTS[r.event()], STATES[r.to()], sources, r.guard(), r.effect());
            boolean ambiguous = false;
            for (Row k : kept) {
                if (!row.overlaps(k)) continue;
                boolean bothPlain = row.guard() == 0 && k.guard() == 0;
                boolean sameGuard = row.guard() != 0 && row.guard() == k.guard();
                boolean idleGuard = (row.guard() == 0) != (k.guard() == 0) && row.to() == k.to() && !row.effect() && !k.effect();
                ambiguous |= bothPlain || sameGuard || idleGuard;
            }
            if (!ambiguous) kept.add(row);
        }
        EnumSet<GS> reached = EnumSet.of(initial);
        for (boolean grew = true; grew; ) {
            grew = false;
            for (Row r : kept) if (reached.contains(r.from())) grew |= reached.add(r.to());
        }
        List<Row> rows = new ArrayList<>();
        for (Row r : kept) if (reached.contains(r.from())) rows.add(r);
        EnumSet<GS> terminals = EnumSet.copyOf(reached);
        for (Row r : rows) terminals.remove(r.from());

        MachineBuilder<GS, GE> b = Machine.builder("generated", GS.class, GE.class)
                .states(reached.toArray(new GS[0]))
                .initial(initial)
                .terminal(terminals.toArray(new GS[0]));
        for (Row r : rows) {
            MachineBuilder<GS, GE>.RowBuilder rb = b.row(r.from(), r.event(), r.to());
            for (TriggerSource s : r.sources()) rb.by(s);
            if (r.guard() != 0) rb.guard(guardName(r.guard()), r.guard() == 1 ? EVEN_VERSION : MARKED);
            int index = r.index();
            if (r.effect()) {
                rb.effect((task, command, changes) -> changes.put("mark", task.attributes().contains("mark") ? null : "r" + index));
            }
            rb.add();
        }
        Map<GS, Map<GE, String>> refusals = new EnumMap<>(GS.class);
        for (int[] nr : rawRefusals) {
            GS s = STATES[nr[0]];
            GE e = EVENTS[nr[1]];
            if (!reached.contains(s) || rows.stream().anyMatch(r -> r.from() == s && r.event() == e)) continue;
            String code = "NR_" + s + "_" + e;
            b.refuse(s, e, code, "named refusal of " + e + " in " + s);
            refusals.computeIfAbsent(s, k -> new EnumMap<>(GE.class)).put(e, code);
        }
        // valid by construction: build() must accept it
        return new Generated(b.build(), rows, refusals);
    }

    @Provide
    Arbitrary<Generated> machines() {
        Arbitrary<RawRow> row = Combinators.combine(
                Arbitraries.integers().between(0, STATES.length - 1),
                Arbitraries.integers().between(0, EVENTS.length - 1),
                Arbitraries.integers().between(0, STATES.length - 1),
                Arbitraries.integers().between(1, 3),
                Arbitraries.integers().between(0, 2),
                Arbitraries.of(true, false)).as(RawRow::new);
        Arbitrary<int[]> refusal = Combinators.combine(
                Arbitraries.integers().between(0, STATES.length - 1),
                Arbitraries.integers().between(0, EVENTS.length - 1)).as((s, e) -> new int[] {s, e});
        return Combinators.combine(
                Arbitraries.integers().between(0, STATES.length - 1),
                row.list().ofMinSize(1).ofMaxSize(24),
                refusal.list().ofMaxSize(4)).as(TransitionProperties::generate);
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        return Combinators.combine(Arbitraries.of(GE.class), Arbitraries.of(TriggerSource.class), Arbitraries.of(true, false),
                        Arbitraries.integers().between(0, 9).map(n -> n < 6), Arbitraries.integers().between(0, 4))
                .as(Step::new).list().ofMinSize(1).ofMaxSize(40);
    }

    /** What the model predicts for one step: the target state, or the refusal. */
    record Prediction(@Nullable GS to, @Nullable Row row, @Nullable RefusalCode code, @Nullable String reasonCode) {}

    static Prediction predict(Generated g, GS state, long version, Map<String, String> attributes, GE event, TriggerSource source) {
        List<Row> guarded = new ArrayList<>();
        List<Row> plain = new ArrayList<>();
        for (Row r : g.rows()) {
            if (r.from() != state || r.event() != event || !r.sources().contains(source)) continue;
            (r.guard() != 0 ? guarded : plain).add(r);
        }
        if (guarded.isEmpty() && plain.isEmpty()) {
            String named = g.refusals().getOrDefault(state, Map.of()).get(event);
            return new Prediction(null, null, RefusalCode.ILLEGAL_TRANSITION, named != null ? named : "ILLEGAL_TRANSITION");
        }
        String firstRefusal = null;
        for (Row r : guarded) {
            boolean allows = r.guard() == 1 ? version % 2 == 0 : attributes.containsKey("mark");
            if (allows) return new Prediction(r.to(), r, null, null);
            if (firstRefusal == null) firstRefusal = r.guard() == 1 ? "ODD_VERSION" : "NOT_MARKED";
        }
        if (!plain.isEmpty()) return new Prediction(plain.get(0).to(), plain.get(0), null, null);
        return new Prediction(null, null, RefusalCode.GUARD_REFUSED, firstRefusal);
    }

    @Property(tries = 500)
    void randomEventsOnGeneratedMachinesFollowTheTable(@ForAll("machines") Generated g, @ForAll("steps") List<Step> steps) {
        InMemoryStore store = new InMemoryStore();
        TransitionEngine engine = TransitionEngine.builder().store(store).clock(new ManualClock()).build();
        Machine<GS, GE> m = g.machine();
        long id = engine.create(m).task().id();
        GS state = m.initial();
        Map<String, String> attributes = new TreeMap<>();
        for (int i = 0; i < steps.size(); i++) {
            Step step = steps.get(i);
            TaskRecord before = store.find(id).orElseThrow();
            List<HistoryEntry> historyBefore = store.history(id);
            Command command = step.source() == TriggerSource.USER ? Command.user("u") : Command.system();
            if (step.note()) command = command.set("note", "n" + i);
            GE event = step.eventIn(m, state);
            Prediction p = predict(g, state, before.version(), attributes, event, step.source());

            Outcome<GS> o = engine.fire(m, id, event, command);

            if (p.to() != null) {
                Row row = p.row();
                assertThat(o).as("step %s: %s", i, step).isInstanceOf(Outcome.Applied.class);
                Outcome.Applied<GS> a = (Outcome.Applied<GS>) o;
                assertThat(a.replayed()).isFalse();
                HistoryEntry e = a.entry();
                assertThat(e.from()).isEqualTo(state.name());
                assertThat(e.to()).isEqualTo(p.to().name());
                assertThat(e.event()).isEqualTo(event.name());
                assertThat(e.source()).isEqualTo(step.source());
                assertIsARow(m, e);
                if (step.note()) attributes.put("note", "n" + i);
                if (row != null && row.effect()) {
                    if (attributes.containsKey("mark")) attributes.remove("mark");
                    else attributes.put("mark", "r" + row.index());
                }
                state = p.to();
                assertThat(a.task().state()).isEqualTo(state);
                assertThat(a.task().version()).isEqualTo(before.version() + 1);
                assertThat(a.task().attributes().asMap()).isEqualTo(attributes);
                assertThat(store.history(id)).hasSize(historyBefore.size() + 1).endsWith(e);
            } else {
                assertThat(o).as("step %s: %s", i, step).isInstanceOf(Outcome.Refused.class);
                Outcome.Refused<GS> r = (Outcome.Refused<GS>) o;
                assertThat(r.code()).isEqualTo(p.code());
                assertThat(r.reasonCode()).isEqualTo(p.reasonCode());
                assertThat(r.state()).isEqualTo(state);
                assertThat(store.find(id)).contains(before);
                assertThat(store.history(id)).isEqualTo(historyBefore);
            }
            assertUnbrokenChain(store, id, m.initial().name());
        }
    }

    // --- (b) concurrent callers on one task -----------------------------------------------------

    static final int THREADS = 4;

    record ChunkStep(Chunk.Event event, TriggerSource source) {}

    @Provide
    Arbitrary<List<List<ChunkStep>>> chunkWorkloads() {
        // SUCCEED is left out so that the task keeps moving instead of resting in DONE
        Arbitrary<Chunk.Event> events = Arbitraries.of(Chunk.Event.START, Chunk.Event.FAIL, Chunk.Event.RETRYABLE_ERROR,
                Chunk.Event.BACKOFF_DONE, Chunk.Event.RETRY_FAILED, Chunk.Event.RELEASE);
        Arbitrary<TriggerSource> sources = Arbitraries.of(TriggerSource.class);
        return Combinators.combine(events, sources).as(ChunkStep::new).list().ofMinSize(100).ofMaxSize(300)
                .list().ofSize(THREADS);
    }

    /** Runs {@code work} on {@link #THREADS} threads released together, and returns their results. */
    static <T> List<T> runTogether(List<java.util.concurrent.Callable<T>> work) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(work.size());
        try {
            CyclicBarrier gate = new CyclicBarrier(work.size());
            List<Future<T>> futures = new ArrayList<>();
            for (java.util.concurrent.Callable<T> w : work) {
                futures.add(pool.submit(() -> {
                    gate.await(30, TimeUnit.SECONDS);
                    return w.call();
                }));
            }
            List<T> results = new ArrayList<>();
            for (Future<T> f : futures) results.add(f.get(60, TimeUnit.SECONDS));
            return results;
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Property(tries = 30)
    void concurrentCallersFormOneUnbrokenChain(@ForAll("chunkWorkloads") List<List<ChunkStep>> workload) throws Exception {
        InMemoryStore store = new InMemoryStore();
        ConcurrentLinkedQueue<HistoryEntry> heard = new ConcurrentLinkedQueue<>();
        TransitionEngine engine = TransitionEngine.builder().store(store).clock(new ManualClock())
                .maxConflictRetries(Integer.MAX_VALUE)
                .listener((machine, task, entry) -> heard.add(entry))
                .build();
        long id = engine.create(Chunk.MACHINE).task().id();
        List<java.util.concurrent.Callable<List<Outcome<Chunk.State>>>> work = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            List<ChunkStep> mine = workload.get(t);
            String actor = "user-" + t;
            work.add(() -> {
                List<Outcome<Chunk.State>> outcomes = new ArrayList<>();
                for (ChunkStep s : mine) {
                    Command c = s.source() == TriggerSource.USER ? Command.user(actor) : Command.system();
                    outcomes.add(engine.fire(Chunk.MACHINE, id, s.event(), c));
                }
                return outcomes;
            });
        }
        List<HistoryEntry> appliedEntries = new ArrayList<>();
        for (List<Outcome<Chunk.State>> outcomes : runTogether(work)) {
            for (Outcome<Chunk.State> o : outcomes) {
                if (o instanceof Outcome.Applied<Chunk.State> a) {
                    assertThat(a.replayed()).isFalse();
                    appliedEntries.add(a.entry());
                } else {
                    Outcome.Refused<Chunk.State> r = (Outcome.Refused<Chunk.State>) o;
                    assertThat(r.code()).isEqualTo(RefusalCode.ILLEGAL_TRANSITION);
                }
            }
        }
        List<HistoryEntry> history = assertUnbrokenChain(store, id, "PENDING");
        assertThat(history).isNotEmpty();
        history.forEach(e -> assertIsARow(Chunk.MACHINE, e));
        appliedEntries.sort(Comparator.comparingLong(HistoryEntry::version));
        assertThat(appliedEntries).as("every applied outcome is in history once, nothing else is")
                .containsExactlyElementsOf(history);
        assertThat(store.find(id).orElseThrow().version()).isEqualTo(appliedEntries.size());
        List<HistoryEntry> heardSorted = new ArrayList<>(heard);
        heardSorted.sort(Comparator.comparingLong(HistoryEntry::version));
        assertThat(heardSorted).containsExactlyElementsOf(history);
    }

    // --- (c) idempotent replays under concurrency -----------------------------------------------

    enum Flip { A, B }

    enum Toggle { FLIP }

    static final Machine<Flip, Toggle> FLIPPER = Machine.builder("flipper", Flip.class, Toggle.class)
            .initial(Flip.A)
            .transition(Flip.A, Toggle.FLIP, Flip.B, TriggerSource.SYSTEM, TriggerSource.USER)
            .transition(Flip.B, Toggle.FLIP, Flip.A, TriggerSource.SYSTEM, TriggerSource.USER)
            .build();

    @Property(tries = 30)
    void eachIdempotencyKeyIsAppliedOnceUnderConcurrency(
            @ForAll Random random, @ForAll @IntRange(min = 1, max = 30) int sharedKeys,
            @ForAll @IntRange(min = 0, max = 30) int ownKeys) throws Exception {
        InMemoryStore store = new InMemoryStore();
        TransitionEngine engine = TransitionEngine.builder().store(store).clock(new ManualClock())
                .maxConflictRetries(Integer.MAX_VALUE).build();
        long id = engine.create(FLIPPER).task().id();
        List<java.util.concurrent.Callable<Map<String, Outcome<Flip>>>> work = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            List<String> keys = new ArrayList<>();
            for (int k = 0; k < sharedKeys; k++) keys.add("shared-" + k);
            for (int k = 0; k < ownKeys; k++) keys.add("own-" + t + "-" + k);
            Collections.shuffle(keys, new Random(random.nextLong()));
            String actor = "caller-" + t;
            work.add(() -> {
                Map<String, Outcome<Flip>> outcomes = new LinkedHashMap<>();
                for (String key : keys) {
                    outcomes.put(key, engine.fire(FLIPPER, id, Toggle.FLIP, Command.user(actor).idempotencyKey(key)));
                }
                return outcomes;
            });
        }
        Map<String, List<Outcome.Applied<Flip>>> byKey = new HashMap<>();
        for (Map<String, Outcome<Flip>> outcomes : runTogether(work)) {
            outcomes.forEach((key, o) -> {
                assertThat(o).as("key %s", key).isInstanceOf(Outcome.Applied.class);
                byKey.computeIfAbsent(key, k -> new ArrayList<>()).add((Outcome.Applied<Flip>) o);
            });
        }
        List<HistoryEntry> history = assertUnbrokenChain(store, id, "A");
        assertThat(history).hasSize(sharedKeys + THREADS * ownKeys);
        assertThat(history).extracting(HistoryEntry::commandKey).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(byKey.keySet());
        byKey.forEach((key, outcomes) -> {
            HistoryEntry recorded = store.findCommand(id, key).orElseThrow();
            assertThat(outcomes).as("key %s", key).allSatisfy(a -> assertThat(a.entry()).isEqualTo(recorded));
            assertThat(outcomes.stream().filter(a -> !a.replayed()).count()).as("first applications of %s", key).isEqualTo(1);
            assertThat(history).contains(recorded);
        });
        assertThat(byKey.get("shared-0")).hasSize(THREADS);
    }

    // --- model-based: action chains over the engine ---------------------------------------------

    /** The engine under test with a model of what it must have written. */
    static final class EngineModel {
        final InMemoryStore store = new InMemoryStore();
        final ManualClock clock = new ManualClock();
        final TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock).build();
        final List<Long> tasks = new ArrayList<>();
        final List<Map.Entry<Long, String>> usedKeys = new ArrayList<>();
        final Map<String, HistoryEntry> entriesByKey = new HashMap<>();
        int keys;

        void create() {
            Created<Chunk.State> c = engine.create(Chunk.MACHINE);
            assertThat(c.created()).isTrue();
            assertThat(c.task().version()).isZero();
            assertThat(store.history(c.task().id())).isEmpty();
            tasks.add(c.task().id());
        }

        void fire(int task, Chunk.Event event, TriggerSource source, boolean withKey, @Nullable Integer versionDelta) {
            long id = tasks.get(task);
            TaskRecord before = store.find(id).orElseThrow();
            List<HistoryEntry> history = store.history(id);
            Command c = source == TriggerSource.USER ? Command.user("ana") : Command.system();
            String key = withKey ? "key-" + keys++ : null;
            if (key != null) c = c.idempotencyKey(key);
            long expected = -1;
            if (versionDelta != null) {
                expected = before.version() + versionDelta >= 0 ? before.version() + versionDelta : before.version() + 1;
                c = c.expectVersion(expected);
            }
            clock.advance(java.time.Duration.ofSeconds(1));
            Outcome<Chunk.State> o = engine.fire(Chunk.MACHINE, id, event, c);
            boolean legal = Chunk.MACHINE.allowedEvents(Chunk.MACHINE.state(before.state()), source).contains(event);
            if (expected >= 0 && expected != before.version()) {
                assertThat(o).isInstanceOf(Outcome.Refused.class);
                assertThat(((Outcome.Refused<Chunk.State>) o).code()).isEqualTo(RefusalCode.VERSION_CONFLICT);
            }
            if (o instanceof Outcome.Applied<Chunk.State> a) {
                assertThat(legal).isTrue();
                assertThat(a.replayed()).isFalse();
                assertThat(a.task().version()).isEqualTo(before.version() + 1);
                assertThat(a.entry().commandKey()).isEqualTo(key);
                assertThat(a.entry().at()).isEqualTo(clock.now());
                assertThat(store.history(id)).hasSize(history.size() + 1).endsWith(a.entry());
                assertIsARow(Chunk.MACHINE, a.entry());
                if (key != null) {
                    usedKeys.add(Map.entry(id, key));
                    entriesByKey.put(key, a.entry());
                }
            } else {
                Outcome.Refused<Chunk.State> r = (Outcome.Refused<Chunk.State>) o;
                if (expected < 0 || expected == before.version()) {
                    assertThat(legal).isFalse();
                    assertThat(r.code()).isEqualTo(RefusalCode.ILLEGAL_TRANSITION);
                }
                assertThat(store.find(id)).contains(before);
                assertThat(store.history(id)).isEqualTo(history);
                if (key != null) assertThat(store.findCommand(id, key)).isEmpty();
            }
        }

        void replay(int used, Chunk.Event event) {
            Map.Entry<Long, String> k = usedKeys.get(used);
            long id = k.getKey();
            TaskRecord before = store.find(id).orElseThrow();
            List<HistoryEntry> history = store.history(id);
            Outcome<Chunk.State> o = engine.fire(Chunk.MACHINE, id, event, Command.system().idempotencyKey(k.getValue()));
            assertThat(o).isInstanceOf(Outcome.Applied.class);
            Outcome.Applied<Chunk.State> a = (Outcome.Applied<Chunk.State>) o;
            assertThat(a.replayed()).isTrue();
            assertThat(a.entry()).isEqualTo(entriesByKey.get(k.getValue()));
            assertThat(a.task().record()).isEqualTo(before);
            assertThat(store.find(id)).contains(before);
            assertThat(store.history(id)).isEqualTo(history);
        }

        void check() {
            for (long id : tasks) assertUnbrokenChain(store, id, "PENDING");
        }

        @Override
        public String toString() {
            return "EngineModel[" + tasks.size() + " tasks, " + usedKeys.size() + " keys used]";
        }
    }

    static final class FireAction implements Action.Dependent<EngineModel> {
        @Override
        public boolean precondition(EngineModel state) {
            return !state.tasks.isEmpty();
        }

        @Override
        public Arbitrary<Transformer<EngineModel>> transformer(EngineModel state) {
            return Combinators.combine(
                    Arbitraries.integers().between(0, state.tasks.size() - 1),
                    Arbitraries.of(Chunk.Event.class),
                    Arbitraries.of(TriggerSource.class),
                    Arbitraries.of(true, false)).as((task, event, source, key) ->
                    Transformer.mutate("fire " + event + " by " + source + " at task #" + task + (key ? " with a new key" : ""),
                            m -> m.fire(task, event, source, key, null)));
        }
    }

    static final class FireExpectingAction implements Action.Dependent<EngineModel> {
        @Override
        public boolean precondition(EngineModel state) {
            return !state.tasks.isEmpty();
        }

        @Override
        public Arbitrary<Transformer<EngineModel>> transformer(EngineModel state) {
            return Combinators.combine(
                    Arbitraries.integers().between(0, state.tasks.size() - 1),
                    Arbitraries.of(Chunk.Event.class),
                    Arbitraries.integers().between(-1, 1)).as((task, event, delta) ->
                    Transformer.mutate("fire " + event + " at task #" + task + " expecting its version " + (delta >= 0 ? "+" : "") + delta,
                            m -> m.fire(task, event, TriggerSource.SYSTEM, false, delta)));
        }
    }

    static final class ReplayAction implements Action.Dependent<EngineModel> {
        @Override
        public boolean precondition(EngineModel state) {
            return !state.usedKeys.isEmpty();
        }

        @Override
        public Arbitrary<Transformer<EngineModel>> transformer(EngineModel state) {
            return Combinators.combine(
                    Arbitraries.integers().between(0, state.usedKeys.size() - 1),
                    Arbitraries.of(Chunk.Event.class)).as((used, event) ->
                    Transformer.mutate("replay key #" + used + " with " + event, m -> m.replay(used, event)));
        }
    }

    @Provide
    Arbitrary<ActionChain<EngineModel>> engineChains() {
        return ActionChain.startWith(EngineModel::new)
                .withAction(1, Action.just(Transformer.mutate("create", EngineModel::create)))
                .withAction(6, new FireAction())
                .withAction(2, new FireExpectingAction())
                .withAction(2, new ReplayAction())
                .withMaxTransformations(60);
    }

    @Property(tries = 200)
    void theEngineKeepsItsInvariantsOverAnyChainOfCommands(@ForAll("engineChains") ActionChain<EngineModel> chain) {
        chain.withInvariant("versions equal history lengths and histories are unbroken", EngineModel::check).run();
    }
}
