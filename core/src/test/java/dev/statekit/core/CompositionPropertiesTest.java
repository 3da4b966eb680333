package dev.statekit.core;

import java.time.Duration;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;

/**
 * A model-based property of groups: chains of jobs fanned out to chunks, steps depending on jobs
 * and steps, worker runs in any order, clock moves, runtime crashes between any two steps, pauses,
 * cancellations, retries of failed chunks and passes run by a process without workers. After every
 * step {@link CompositionModel#check()} asserts that no job was settled twice without re-opening,
 * no job is done before all its chunks, and no step ran before all its dependencies succeeded; at
 * the end {@link CompositionModel#settle()} asserts that every job is in the state its chunks imply
 * and no step is left waiting on an ended dependency.
 */
class CompositionPropertiesTest {

    static Transformer<CompositionModel> indexed(String what, java.util.function.BiConsumer<CompositionModel, Integer> action, int i) {
        return Transformer.mutate(what + " " + i, m -> action.accept(m, i));
    }

    @Provide
    Arbitrary<ActionChain<CompositionModel>> chains() {
        Arbitrary<Integer> index = Arbitraries.integers().between(0, 20);
        Action.Independent<CompositionModel> addJob = () -> Arbitraries.of(true, true, true, false).list().ofMaxSize(4)
                .map(outcomes -> Transformer.mutate("add a job with chunks " + outcomes, m -> m.addJob(outcomes)));
        Action.Independent<CompositionModel> addStep = () -> Combinators.combine(index.list().ofMinSize(1).ofMaxSize(3),
                Arbitraries.of(true, true, false)).as((picks, ok) -> Transformer.mutate("add a step on " + picks + " succeeding " + ok,
                m -> m.addStep(picks, ok)));
        Action.Independent<CompositionModel> runOne = () -> index.map(i -> indexed("run runnable", CompositionModel::runOne, i));
        Action.Independent<CompositionModel> advance = () -> Arbitraries.integers().between(1, 40)
                .map(s -> Transformer.mutate("advance " + s + " s", m -> m.advance(Duration.ofSeconds(s))));
        Action.Independent<CompositionModel> crash = () -> index.map(i -> indexed("crash runtime", CompositionModel::crash, i));
        Action.Independent<CompositionModel> pause = () -> index.map(i -> indexed("pause job", CompositionModel::pause, i));
        Action.Independent<CompositionModel> resume = () -> index.map(i -> indexed("resume job", CompositionModel::resume, i));
        Action.Independent<CompositionModel> cancel = () -> index.map(i -> indexed("cancel job", CompositionModel::cancel, i));
        Action.Independent<CompositionModel> retry = () -> index.map(i -> indexed("retry chunk", CompositionModel::retryChunk, i));
        return ActionChain.startWith(() -> new CompositionModel(true))
                .withAction(4, addJob)
                .withAction(2, addStep)
                .withAction(8, runOne)
                .withAction(2, Action.just(Transformer.mutate("run all", CompositionModel::runAll)))
                .withAction(3, advance)
                .withAction(2, crash)
                .withAction(1, pause)
                .withAction(2, resume)
                .withAction(1, cancel)
                .withAction(2, retry)
                .withAction(2, Action.just(Transformer.mutate("resolve in another process", CompositionModel::resolveElsewhere)))
                .withMaxTransformations(40);
    }

    @Property(tries = 150)
    void groupsAndDependenciesKeepTheirInvariantsOverAnyChainOfEvents(@ForAll("chains") ActionChain<CompositionModel> chain) {
        CompositionModel end = chain.withInvariant("jobs settle once, never early; steps run only after their dependencies",
                CompositionModel::check).run();
        end.settle();
    }

    @Property(tries = 1)
    void groupsOfNoneAndOneSettle() {
        CompositionModel m = new CompositionModel(false);
        m.addJob(List.of());
        m.addJob(List.of(true));
        m.addJob(List.of(false));
        m.settle();
        m.check();
    }
}
