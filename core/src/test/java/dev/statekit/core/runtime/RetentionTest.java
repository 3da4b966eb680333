package dev.statekit.core.runtime;

import dev.statekit.core.GroupsTest;
import dev.statekit.core.Machine;
import dev.statekit.core.TransitionEngine;

import static dev.statekit.store.TriggerSource.SYSTEM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.core.spi.WorkResult;
import dev.statekit.test.fixtures.Jobs;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The retention value and the runtime builder's retention options: what they accept and refuse. */
class RetentionTest {
    static final Duration HOUR = Duration.ofHours(1);

    @Test
    void deleteAndArchiveCarryTheirTimes() {
        Retention delete = Retention.delete(HOUR);
        assertThat(delete.after()).isEqualTo(HOUR);
        assertThat(delete.archives()).isFalse();
        assertThat(delete.archivedFor()).isEmpty();
        assertThat(delete).hasToString("delete after PT1H");

        Retention archive = Retention.archive(Duration.ZERO);
        assertThat(archive.archives()).isTrue();
        assertThat(archive.archivedFor()).isEmpty();
        Retention kept = archive.thenDelete(Duration.ofDays(30));
        assertThat(kept.archivedFor()).isEqualTo(Optional.of(Duration.ofDays(30)));
        assertThat(kept.after()).isEqualTo(Duration.ZERO);
        assertThat(archive.archivedFor()).as("immutable: thenDelete returns a new value").isEmpty();
        assertThat(kept).hasToString("archive after PT0S, then delete after PT720H");
        assertThat(kept).isEqualTo(Retention.archive(Duration.ZERO).thenDelete(Duration.ofDays(30))).isNotEqualTo(archive);
        assertThat(kept.hashCode()).isEqualTo(Retention.archive(Duration.ZERO).thenDelete(Duration.ofDays(30)).hashCode());
    }

    @Test
    void negativeTimesAndAnArchiveOfADeletingRetentionAreRefused() {
        assertThatThrownBy(() -> Retention.delete(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("after must not be negative");
        assertThatThrownBy(() -> Retention.archive(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Retention.archive(HOUR).thenDelete(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("archivedFor");
        assertThatThrownBy(() -> Retention.delete(HOUR).thenDelete(HOUR)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no archive");
        assertThatThrownBy(() -> Retention.delete(null)).isInstanceOf(NullPointerException.class);
    }

    enum Loop { A, B }

    enum Flip { FLIP }

    @Test
    void theBuilderRefusesAMachineWithoutTerminalStatesATwiceRetainedMachineAndBadBatchesOrIntervals() {
        Machine<Loop, Flip> endless = Machine.builder("endless", Loop.class, Flip.class)
                .initial(Loop.A)
                .transition(Loop.A, Flip.FLIP, Loop.B, SYSTEM)
                .transition(Loop.B, Flip.FLIP, Loop.A, SYSTEM)
                .build();
        TransitionEngine engine = TransitionEngine.builder().store(new dev.statekit.store.memory.InMemoryStore()).build();
        TaskRuntimeBuilder b = TaskRuntime.builder(engine).register(Jobs.MACHINE, c -> WorkResult.success());
        assertThatThrownBy(() -> b.retain(endless, Retention.delete(HOUR))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("endless has no terminal state");
        b.retain(Jobs.MACHINE, Retention.archive(HOUR));
        assertThatThrownBy(() -> b.retain(Jobs.MACHINE, Retention.delete(HOUR))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("already has a retention: archive after PT1H");
        assertThatThrownBy(() -> b.retentionBatch(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.retentionBatch(10_001)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.retentionInterval(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.retentionInterval(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThat(b.retentionBatch(10_000).retentionInterval(Duration.ofSeconds(5)).build()).isNotNull();
    }

    @Test
    void theFinishedStatesAreTheTerminalStatesOfEveryKnownMachineAndOfTheirChildren() {
        assertThat(RetentionPasses.finishedStates(java.util.List.of(GroupsTest.JOB))).isEqualTo(java.util.Map.of(
                "job", java.util.Set.of("DONE", "CANCELLED"),
                "chunk", java.util.Set.of("DONE", "CANCELLED")));
        assertThat(RetentionPasses.finishedStates(java.util.List.of(Jobs.MACHINE)))
                .isEqualTo(java.util.Map.of("job", java.util.Set.of("DONE", "CANCELED")));
    }
}
