package dev.statekit.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.Attributes;
import dev.statekit.store.Lease;
import dev.statekit.store.TaskRecord;
import dev.statekit.test.fixtures.Jobs;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A worker's result mapped to the write it means, by the run policy, without a runtime. */
class ResultMapperTest {
    static final Instant T0 = Instant.parse("2026-10-25T00:59:59Z");
    final Registration<Jobs.State, Jobs.Event> reg = new Registration<>(Jobs.MACHINE, "q", ctx -> WorkResult.success(),
            QueueOptions.defaults());
    boolean cancelRequested;
    final ResultMapper mapper = new ResultMapper("owner", id -> cancelRequested, () -> 0.5);

    Run<Jobs.State, Jobs.Event> run(int retries) {
        TaskRecord t = new TaskRecord(3, Jobs.MACHINE.name(), 1, "RUNNING", "q", 0, 1, null, 1, retries,
                new Lease("owner", 9, T0.plusSeconds(30)), null, null, Attributes.EMPTY, null, null, T0, T0, 1);
        return new Run<>(reg, new Task<>(Jobs.State.RUNNING, t), t.lease(), new dev.statekit.core.spi.ManualClock(T0));
    }

    @Test
    void successWritesTheWorkersAttributesAndProgressUnderTheLease() {
        Run<Jobs.State, Jobs.Event> run = run(0);
        run.progress("percent", "100");
        ResultMapper.Completion<Jobs.State, Jobs.Event> c = mapper.map(run, WorkResult.success(Map.of("out", "ok")), T0);
        assertThat(c.event()).isEqualTo(Jobs.Event.COMPLETE);
        assertThat(c.command().attributes()).containsEntry("out", "ok").containsEntry("percent", "100");
        assertThat(c.command().leaseTokenOrMinusOne()).isEqualTo(9);
        assertThat(c.wakeAt()).isNull();
    }

    @Test
    void aRetryableFailureRetriesWhileTheBudgetLastsThenFails() {
        ResultMapper.Completion<Jobs.State, Jobs.Event> again = mapper.map(run(0), WorkResult.retryable("RATE", "429"), T0);
        assertThat(again.event()).isEqualTo(Jobs.Event.RETRYABLE);
        assertThat(again.command().error().code()).isEqualTo("RATE");
        assertThat(again.wakeAt()).isAfter(T0);
        int max = Jobs.MACHINE.runPolicy().retry().maxRetries();
        ResultMapper.Completion<Jobs.State, Jobs.Event> spent = mapper.map(run(max), WorkResult.retryable("RATE", "429"), T0);
        assertThat(spent.event()).isEqualTo(Jobs.Event.FAIL);
        assertThat(spent.command().reason()).contains("after " + max + " retries");
        assertThat(spent.wakeAt()).isNull();
    }

    @Test
    void aFatalFailureFailsAndASnoozeReleasesUntilLater() {
        assertThat(mapper.map(run(0), WorkResult.fatal("BAD", "bad input"), T0).event()).isEqualTo(Jobs.Event.FAIL);
        ResultMapper.Completion<Jobs.State, Jobs.Event> z = mapper.map(run(0), WorkResult.snooze(Duration.ofMinutes(5)), T0);
        assertThat(z.event()).isEqualTo(Jobs.Event.RELEASE);
        assertThat(z.wakeAt()).isEqualTo(T0.plus(Duration.ofMinutes(5)));
    }

    @Test
    void aCancellationRequestedElsewhereWinsOverARetry() {
        cancelRequested = true;
        Run<Jobs.State, Jobs.Event> run = run(0);
        ResultMapper.Completion<Jobs.State, Jobs.Event> c = mapper.map(run, WorkResult.retryable("RATE", "429"), T0);
        assertThat(c.event()).isEqualTo(Jobs.Event.CANCEL);
        assertThat(run.cancelReason()).isEqualTo("CANCELLED");
        assertThat(mapper.map(run(0), WorkResult.success(), T0).event()).as("a success is not retried, so it stands")
                .isEqualTo(Jobs.Event.COMPLETE);
    }
}
