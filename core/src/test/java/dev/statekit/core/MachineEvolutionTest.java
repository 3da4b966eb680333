package dev.statekit.core;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.core.spi.ManualClock;
import dev.statekit.store.ErrorCode;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.StatekitException;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A machine changes while its tasks live: version 2 of the article machine retires REVIEW (tasks
 * in it drain through the rows that leave it) and removes LEGACY_HOLD (its tasks move to ON_HOLD
 * by a declared migration). docs/machines.md shows this code.
 */
class MachineEvolutionTest {
    enum V1 { DRAFT, REVIEW, LEGACY_HOLD, PUBLISHED }

    enum V1Event { SUBMIT, PUBLISH, HOLD }

    static final Machine<V1, V1Event> ARTICLE_V1 = Machine.builder("article", V1.class, V1Event.class)
            .initial(V1.DRAFT)
            .terminal(V1.PUBLISHED)
            .transition(V1.DRAFT, V1Event.SUBMIT, V1.REVIEW, USER)
            .transition(V1.REVIEW, V1Event.PUBLISH, V1.PUBLISHED, USER)
            .transition(V1.DRAFT, V1Event.HOLD, V1.LEGACY_HOLD, SYSTEM)
            .transition(V1.LEGACY_HOLD, V1Event.SUBMIT, V1.REVIEW, USER)
            .build();

    enum State { DRAFT, REVIEW, ON_HOLD, PUBLISHED }

    enum Event { PUBLISH, HOLD, RESUME }

    // Version 2: drafts are published directly; REVIEW is retired, LEGACY_HOLD is gone.
    static final Machine<State, Event> ARTICLE = Machine.builder("article", State.class, Event.class)
            .version(2)
            .initial(State.DRAFT)
            .terminal(State.PUBLISHED)
            .transition(State.DRAFT, Event.PUBLISH, State.PUBLISHED, USER)
            .transition(State.REVIEW, Event.PUBLISH, State.PUBLISHED, USER)        // tasks still in REVIEW drain
            .transition(State.DRAFT, Event.HOLD, State.ON_HOLD, SYSTEM)
            .transition(State.ON_HOLD, Event.RESUME, State.DRAFT, USER)
            .retire(State.REVIEW)
            .migrate("LEGACY_HOLD", State.ON_HOLD)
            .build();

    final ManualClock clock = new ManualClock(Instant.parse("2031-04-05T13:30:00Z"));
    final InMemoryStore store = new InMemoryStore();
    final TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock).build();

    @Test
    void tasksOfTheOldVersionDrainOrMoveAndKeepTheirVersion() {
        long inReview = engine.create(ARTICLE_V1).task().id();
        engine.fire(ARTICLE_V1, inReview, V1Event.SUBMIT, Command.user("ann")).orElseThrow();
        long onHold = engine.create(ARTICLE_V1).task().id();
        engine.fire(ARTICLE_V1, onHold, V1Event.HOLD).orElseThrow();

        // Before the migration, version 2 cannot read a task in a state it no longer has.
        assertThatThrownBy(() -> engine.find(ARTICLE, onHold)).isInstanceOf(StatekitException.class)
                .satisfies(e -> assertThat(((StatekitException) e).code()).isEqualTo(ErrorCode.SCHEMA_DRIFT))
                .hasMessageContaining("task " + onHold).hasMessageContaining("'LEGACY_HOLD'");

        assertThat(engine.migrate(ARTICLE, 100)).isEqualTo(1);
        assertThat(engine.migrate(ARTICLE, 100)).as("nothing left to move").isZero();
        Task<State> moved = engine.find(ARTICLE, onHold).orElseThrow();
        assertThat(moved.state()).isEqualTo(State.ON_HOLD);
        assertThat(moved.record().machineVersion()).as("the version it was created under").isEqualTo(1);
        HistoryEntry last = store.history(onHold).get(store.history(onHold).size() - 1);
        assertThat(last.event()).isEqualTo("MIGRATE");
        assertThat(last.from()).isEqualTo("LEGACY_HOLD");
        assertThat(last.reason()).isEqualTo("machine article v2");

        // A task in the retired state leaves it by the rows that still leave it.
        assertThat(engine.fire(ARTICLE, inReview, Event.PUBLISH, Command.user("ann")).orElseThrow().task().state())
                .isEqualTo(State.PUBLISHED);
        // New tasks are created under version 2.
        assertThat(engine.create(ARTICLE).task().record().machineVersion()).isEqualTo(2);
    }

    @Test
    void aRetiredStateIsNotRefusedAsUnreachableButNoRowMayEnterIt() {
        assertThat(ARTICLE.retired()).containsExactly(State.REVIEW);
        assertThatThrownBy(() -> Machine.builder("article", State.class, Event.class).version(2).initial(State.DRAFT)
                .terminal(State.PUBLISHED)
                .transition(State.DRAFT, Event.PUBLISH, State.REVIEW, USER)
                .transition(State.REVIEW, Event.PUBLISH, State.PUBLISHED, USER)
                .transition(State.DRAFT, Event.HOLD, State.ON_HOLD, SYSTEM)
                .transition(State.ON_HOLD, Event.RESUME, State.DRAFT, USER)
                .retire(State.REVIEW).build())
                .isInstanceOf(MachineDefinitionException.class).hasMessageContaining("enters retired state REVIEW");
        assertThatThrownBy(() -> Machine.builder("article", State.class, Event.class).initial(State.DRAFT)
                .terminal(State.PUBLISHED)
                .transition(State.DRAFT, Event.PUBLISH, State.PUBLISHED, USER)
                .transition(State.REVIEW, Event.PUBLISH, State.PUBLISHED, USER)
                .transition(State.DRAFT, Event.HOLD, State.ON_HOLD, SYSTEM)
                .transition(State.ON_HOLD, Event.RESUME, State.DRAFT, USER).build())
                .as("without retire, REVIEW is unreachable")
                .isInstanceOf(MachineDefinitionException.class).hasMessageContaining("state REVIEW is unreachable");
    }

    @Test
    void aMigrationFromAStateTheMachineStillHasIsRefused() {
        assertThatThrownBy(() -> Machine.builder("article", State.class, Event.class).initial(State.DRAFT)
                .terminal(State.PUBLISHED)
                .transition(State.DRAFT, Event.PUBLISH, State.PUBLISHED, USER)
                .transition(State.DRAFT, Event.HOLD, State.ON_HOLD, SYSTEM)
                .transition(State.ON_HOLD, Event.RESUME, State.DRAFT, USER)
                .transition(State.REVIEW, Event.PUBLISH, State.PUBLISHED, USER)
                .retire(State.REVIEW)
                .migrate("ON_HOLD", State.DRAFT).build())
                .isInstanceOf(MachineDefinitionException.class).hasMessageContaining("migration from ON_HOLD");
    }
}
