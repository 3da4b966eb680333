package dev.statekit.core.runtime;


import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.runtime.RuntimeModel.Config;
import dev.statekit.core.runtime.RuntimeModel.Kind;
import dev.statekit.core.runtime.RuntimeModel.Recovery;
import dev.statekit.core.runtime.RuntimeModel.Replacement;
import dev.statekit.core.runtime.RuntimeModel.Step;
import java.time.Duration;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;

/**
 * A model-based property of {@link TaskRuntime}: chains of enqueues, worker runs (in any order,
 * or left hanging), clock moves, crashes and restarts, pause and resume, cancellations and
 * reordering, over one queue with a concurrency limit and anti-starvation, served by one or two
 * runtimes. After each action {@link RuntimeModel#check()} asserts that leases never exceed the
 * limit, no task is lost or completed twice, retries are bounded and spaced, every claim picks
 * what the claim contract prescribes, a task whose cancellation was requested while it ran never
 * starts again, and histories are unbroken rows of the table; at the end
 * (and at random points) {@link RuntimeModel#settle()} asserts that every task reaches an end.
 * The properties run through {@link RuntimePropertiesTest}.
 */
abstract class RuntimeProperties {

    static Arbitrary<Config> configs() {
        return Combinators.combine(
                Arbitraries.integers().between(1, 3),
                Arbitraries.integers().between(0, 3),
                Arbitraries.integers().between(1, 3),
                Arbitraries.of(Recovery.class),
                Arbitraries.of(true, false),
                Arbitraries.of(true, false)).as(Config::new);
    }

    static Arbitrary<Step> steps() {
        Arbitrary<Duration> snoozes = Arbitraries.of(0, 1, 3, 7, 20).map(s -> Duration.ofMillis(s * 1000L + (s > 0 ? 500 : 0)));
        return Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.just(Kind.SUCCEED)),
                Tuple.of(3, Arbitraries.just(Kind.RETRY)),
                Tuple.of(1, Arbitraries.just(Kind.FATAL)),
                Tuple.of(2, Arbitraries.just(Kind.SNOOZE)),
                Tuple.of(2, Arbitraries.just(Kind.HANG))).flatMap(kind -> kind == Kind.SNOOZE
                ? snoozes.map(d -> new Step(kind, d))
                : Arbitraries.just(new Step(kind, Duration.ZERO)));
    }

    static Arbitrary<List<Step>> scripts() {
        return steps().list().ofMaxSize(3);
    }

    static Arbitrary<Integer> priorities() {
        return Arbitraries.of(RuntimeModel.HIGH, RuntimeModel.NORMAL, RuntimeModel.LOW);
    }

    static Arbitrary<Duration> advances() {
        return Arbitraries.oneOf(Arbitraries.integers().between(1, 40), Arbitraries.integers().between(1, 400))
                .map(n -> Duration.ofMillis(100L * n));
    }

    static final class Enqueue implements Action.Independent<RuntimeModel> {
        @Override
        public Arbitrary<Transformer<RuntimeModel>> transformer() {
            return Combinators.combine(priorities(), scripts()).as((priority, script) ->
                    Transformer.mutate("enqueue with priority " + priority + ", worker script " + script,
                            m -> m.enqueue(priority, script)));
        }
    }

    static final class Rescript implements Action.Dependent<RuntimeModel> {
        @Override
        public boolean precondition(RuntimeModel m) {
            return !m.tasks.isEmpty();
        }

        @Override
        public Arbitrary<Transformer<RuntimeModel>> transformer(RuntimeModel m) {
            return Combinators.combine(Arbitraries.integers().between(0, m.tasks.size() - 1), scripts()).as((task, script) ->
                    Transformer.mutate("script task #" + task + " as " + script, x -> x.rescript(task, script)));
        }
    }

    static final class RunOne implements Action.Dependent<RuntimeModel> {
        @Override
        public boolean precondition(RuntimeModel m) {
            return m.executor.pending() > 0;
        }

        @Override
        public Arbitrary<Transformer<RuntimeModel>> transformer(RuntimeModel m) {
            return Arbitraries.integers().between(0, m.executor.pending() - 1).map(i ->
                    Transformer.mutate("run waiting runnable " + i, x -> x.runOne(i)));
        }
    }

    static final class Advance implements Action.Independent<RuntimeModel> {
        @Override
        public Arbitrary<Transformer<RuntimeModel>> transformer() {
            return advances().map(d -> Transformer.mutate("advance the clock by " + d.toMillis() + " ms", m -> m.advance(d)));
        }
    }

    static final class Crash implements Action.Dependent<RuntimeModel> {
        @Override
        public Arbitrary<Transformer<RuntimeModel>> transformer(RuntimeModel m) {
            Arbitrary<Replacement> how = m.live.size() > 1 ? Arbitraries.of(Replacement.class)
                    : Arbitraries.of(Replacement.SAME_OWNER, Replacement.NEW_OWNER);
            return Combinators.combine(Arbitraries.integers().between(0, m.live.size() - 1), how).as((which, replacement) ->
                    Transformer.mutate("crash runtime " + which + ", replacement: " + replacement, x -> x.crash(which, replacement)));
        }

        @Override
        public boolean precondition(RuntimeModel m) {
            return !m.live.isEmpty();
        }
    }

    static final class StartAnother implements Action.Independent<RuntimeModel> {
        @Override
        public boolean precondition(RuntimeModel m) {
            return m.live.size() < 2;
        }

        @Override
        public Arbitrary<Transformer<RuntimeModel>> transformer() {
            return Combinators.combine(Arbitraries.of(true, false), Arbitraries.integers().between(0, 3)).as((reuse, which) ->
                    Transformer.mutate(reuse ? "start a runtime under dead owner " + which : "start a runtime under a new owner",
                            m -> m.startAnother(reuse, which)));
        }
    }

    static final class Control implements Action.Dependent<RuntimeModel> {
        @Override
        public boolean precondition(RuntimeModel m) {
            return !m.live.isEmpty();
        }

        @Override
        public Arbitrary<Transformer<RuntimeModel>> transformer(RuntimeModel m) {
            Arbitrary<Integer> runtimes = Arbitraries.integers().between(0, m.live.size() - 1);
            Arbitrary<Transformer<RuntimeModel>> pause = runtimes.map(r ->
                    Transformer.mutate("pause the queue through runtime " + r, x -> x.pause(r)));
            Arbitrary<Transformer<RuntimeModel>> resume = runtimes.map(r ->
                    Transformer.mutate("resume the queue through runtime " + r, x -> x.resume(r)));
            if (m.tasks.isEmpty()) return Arbitraries.oneOf(pause, resume);
            Arbitrary<Integer> tasks = Arbitraries.integers().between(0, m.tasks.size() - 1);
            Arbitrary<Transformer<RuntimeModel>> cancel = Combinators.combine(tasks, runtimes).as((t, r) ->
                    Transformer.mutate("cancel task #" + t + " through runtime " + r, x -> x.cancel(t, r)));
            Arbitrary<Transformer<RuntimeModel>> front = Combinators.combine(tasks, runtimes).as((t, r) ->
                    Transformer.mutate("move task #" + t + " to the front through runtime " + r, x -> x.moveToFront(t, r)));
            return Arbitraries.frequencyOf(Tuple.of(2, pause), Tuple.of(3, resume), Tuple.of(2, cancel), Tuple.of(2, front));
        }
    }

    /** The configuration of the try under way; the chains start from it. */
    private Config config = new Config(1, 0, 1, Recovery.REQUEUE, false);

    @Provide
    Arbitrary<Config> runtimeConfigs() {
        return configs();
    }

    @Provide
    Arbitrary<ActionChain<RuntimeModel>> runtimeChains() {
        return ActionChain.startWith(() -> new RuntimeModel(config))
                .withAction(5, new Enqueue())
                .withAction(1, new Rescript())
                .withAction(7, new RunOne())
                .withAction(2, Action.just(Transformer.mutate("run all waiting runnables", RuntimeModel::runAll)))
                .withAction(5, new Advance())
                .withAction(1, new Crash())
                .withAction(1, new StartAnother())
                .withAction(3, new Control())
                .withAction(1, Action.just(Transformer.mutate("settle", RuntimeModel::settle)))
                .withMaxTransformations(50);
    }

    // --- regressions found by the property ------------------------------------------------------

    /** Returns the index among the live runtimes of the one holding task {@code id}'s lease. */
    private static int holderOf(RuntimeModel m, long id) {
        String owner = m.store.find(id).orElseThrow().lease().owner();
        for (int i = 0; i < m.live.size(); i++) if (m.live.get(i).owner().equals(owner)) return i;
        throw new AssertionError("no live runtime holds task " + id);
    }

    private static void assertCancelledWithoutRestart(RuntimeModel m, long id) {
        m.settle();
        assertThat(m.store.find(id).orElseThrow().state()).isEqualTo(RuntimeModel.State.CANCELED.name());
        assertThat(m.store.history(id)).extracting(h -> h.event()).containsOnlyOnce(RuntimeModel.Event.START.name());
    }

    @Example
    void aCancellationRequestedFromAnotherRuntimeOutlivesTheCrashOfTheHolder() {
        RuntimeModel m = new RuntimeModel(new Config(1, 0, 1, Recovery.REQUEUE, true));
        m.enqueue(RuntimeModel.NORMAL, List.of(new Step(Kind.HANG, Duration.ZERO), new Step(Kind.FATAL, Duration.ZERO)));
        long id = m.tasks.get(0);
        m.runAll();
        int holder = holderOf(m, id);
        m.cancel(0, 1 - holder);
        m.check();
        m.crash(holder, Replacement.NEW_OWNER);
        m.check();
        assertCancelledWithoutRestart(m, id);       // was: requeued when the lease expired, then run again
    }

    @Example
    void aCancellationOfALocalRunOutlivesTheCrashOfItsRuntime() {
        for (Recovery recovery : Recovery.values()) {
            RuntimeModel m = new RuntimeModel(new Config(2, 0, 2, recovery, false));
            m.enqueue(RuntimeModel.HIGH, List.of(new Step(Kind.HANG, Duration.ZERO)));
            long id = m.tasks.get(0);
            m.runAll();
            m.cancel(0, 0);
            m.check();
            m.crash(0, Replacement.SAME_OWNER);     // the new runtime heals the task at once
            m.check();
            assertCancelledWithoutRestart(m, id);
        }
    }

    @Example
    void aCancellationRequestedElsewhereWinsOverARetryReportedBeforeTheNextHeartbeat() {
        for (Kind kind : List.of(Kind.RETRY, Kind.SNOOZE)) {
            RuntimeModel m = new RuntimeModel(new Config(1, 0, 1, Recovery.REQUEUE, true));
            m.enqueue(RuntimeModel.LOW, List.of(new Step(kind, Duration.ofSeconds(1))));
            long id = m.tasks.get(0);
            while (m.store.find(id).orElseThrow().lease() == null) m.runOne(0);
            m.cancel(0, 1 - holderOf(m, id));
            m.check();
            m.runAll();                             // the worker reports before its runtime renews the lease
            m.check();
            assertCancelledWithoutRestart(m, id);   // was: retried (or snoozed) and run again
        }
    }

    // --- the property ---------------------------------------------------------------------------

    @Property(tries = 200)
    void theRuntimeKeepsItsInvariantsOverAnyChainOfEvents(@ForAll("runtimeConfigs") Config config,
                                                          @ForAll("runtimeChains") ActionChain<RuntimeModel> chain) {
        this.config = config;
        RuntimeModel end = chain.withInvariant("leases, claims, histories, retries and results", RuntimeModel::check).run();
        end.settle();
    }
}
