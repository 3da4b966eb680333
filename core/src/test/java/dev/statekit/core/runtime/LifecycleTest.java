package dev.statekit.core.runtime;


import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The life cycle of a runtime: its phases, and when a stop completes. */
class LifecycleTest {
    final Lifecycle life = new Lifecycle();
    int stoppedRuns;

    void finish(boolean idle) {
        life.finishIfIdle(() -> idle, () -> stoppedRuns++);
    }

    @Test
    void aRuntimeRunsOnlyBetweenItsStartAndItsStop() {
        assertThat(life.running()).isFalse();
        life.start("r");
        assertThat(life.running()).isTrue();
        assertThat(life.beginStop()).isEqualTo(Lifecycle.Phase.RUNNING);
        assertThat(life.running()).isFalse();
        assertThat(life.halted()).isFalse();
    }

    @Test
    void aSecondStartIsRefusedNamingTheRuntime() {
        life.start("r7");
        assertThatThrownBy(() -> life.start("r7")).isInstanceOf(IllegalStateException.class).hasMessageContaining("r7");
        assertThat(life.running()).isTrue();
    }

    @Test
    void aStopBeforeTheStartCompletesAtOnceAndTheRuntimeCannotStartAfterIt() {
        assertThat(life.beginStop()).isEqualTo(Lifecycle.Phase.NEW);
        assertThat(life.stopped()).isDone();
        assertThatThrownBy(() -> life.start("r")).isInstanceOf(IllegalStateException.class);
        assertThat(life.running()).isFalse();
        assertThat(life.beginStop()).as("a later stop sees the earlier one").isEqualTo(Lifecycle.Phase.STOPPED);
    }

    @Test
    void aSecondStopReportsThatTheFirstOneBeganIt() {
        life.start("r");
        assertThat(life.beginStop()).isEqualTo(Lifecycle.Phase.RUNNING);
        assertThat(life.beginStop()).isEqualTo(Lifecycle.Phase.STOPPING);
        assertThat(life.stopped()).isNotDone();
    }

    @Test
    void aStopCompletesOnlyWhenNoRunIsHeldAndNoStoreCallIsUnderWay() {
        life.start("r");
        finish(true);
        assertThat(life.stopped()).as("no stop was begun").isNotDone();
        life.beginStop();
        finish(false);
        assertThat(life.stopped()).as("a run is still held").isNotDone();
        life.enter();
        life.enter();
        finish(true);
        life.exit();
        finish(true);
        assertThat(life.stopped()).as("a claim is still under way").isNotDone();
        assertThat(stoppedRuns).isZero();
        life.exit();
        finish(true);
        assertThat(life.stopped()).isDone();
        assertThat(stoppedRuns).isEqualTo(1);
    }

    @Test
    void theStopActionRunsOnceHoweverOftenTheStopIsFinished() {
        life.start("r");
        life.beginStop();
        finish(true);
        finish(true);
        assertThat(stoppedRuns).isEqualTo(1);
        assertThat(life.beginStop()).isEqualTo(Lifecycle.Phase.STOPPED);
    }

    @Test
    void aFailingStopActionStillCompletesTheStop() {
        life.start("r");
        life.beginStop();
        assertThatThrownBy(() -> life.finishIfIdle(() -> true, () -> {
            throw new IllegalStateException("closing failed");
        })).hasMessage("closing failed");
        assertThat(life.stopped()).isDone();
    }

    @Test
    void aHaltStopsAtOnceWithoutTheStopAction() {
        life.start("r");
        life.enter();                 // a claim under way does not hold a crash up
        life.halt();
        assertThat(life.halted()).isTrue();
        assertThat(life.running()).isFalse();
        assertThat(life.stopped()).isDone();
        life.exit();
        finish(true);
        assertThat(stoppedRuns).as("a halted runtime runs no stop action").isZero();
        assertThat(life.beginStop()).isEqualTo(Lifecycle.Phase.STOPPED);
    }

    @Test
    void aHaltDuringAStopEndsIt() {
        life.start("r");
        life.beginStop();
        life.halt();
        assertThat(life.stopped()).isDone();
        finish(true);
        assertThat(stoppedRuns).isZero();
    }
}
