package dev.statekit.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.spi.ManualClock;
import dev.statekit.store.InMemoryStore;
import org.junit.jupiter.api.Test;

class TransitionEngineTest {
    final ManualClock clock = new ManualClock();
    final TransitionEngine engine = TransitionEngine.builder().store(new InMemoryStore()).clock(clock).build();

    @Test
    void appliesARowOfTheTable() {
        long id = engine.create(Chunk.MACHINE).task().id();
        Outcome<Chunk.State> o = engine.fire(Chunk.MACHINE, id, Chunk.Event.START);
        assertThat(o.isApplied()).isTrue();
        assertThat(o.orElseThrow().task().state()).isEqualTo(Chunk.State.PROCESSING);
    }
}
