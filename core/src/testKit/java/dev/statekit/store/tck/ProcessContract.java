package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.ProcessRecord;
import dev.statekit.store.ProcessState;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on the records of the processes that serve the store: registered,
 * seen, stopped, listed and purged. Every store runs it as {@link StoreContract.Processes}.
 */
abstract class ProcessContract extends ContractPart {

    ProcessContract(StoreContract contract) {
        super(contract);
    }

    private static ProcessRecord process(String owner) {
        return new ProcessRecord(owner, "host-a", 4242L, List.of(MACHINE, "chunk"), List.of(QUEUE), T0, T0, LEASE, null);
    }

    @Test
    public void aRegisteredProcessIsReadBackAsWritten() {
        ProcessRecord a = process("worker-b");
        ProcessRecord b = new ProcessRecord("worker-a", null, null, List.of(), List.of(), T0.plusSeconds(1), T0.plusSeconds(1),
                Duration.ofSeconds(30), null);
        store.registerProcess(a);
        store.registerProcess(b);
        assertThat(store.processes()).as("in owner order").containsExactly(b, a);
    }

    @Test
    public void aRegistrationReplacesTheRecordOfTheSameOwner() {
        store.registerProcess(process(OWNER));
        store.stopProcess(OWNER, T0.plusSeconds(5));
        ProcessRecord restarted = new ProcessRecord(OWNER, "host-b", 7L, List.of(MACHINE), List.of("other"), T0.plus(HOUR),
                T0.plus(HOUR), LEASE, null);
        store.registerProcess(restarted);
        assertThat(store.processes()).containsExactly(restarted);
        assertThat(restarted.state(T0.plus(HOUR))).isEqualTo(ProcessState.ALIVE);
    }

    @Test
    public void aTouchMovesLastSeenForwardOnly() {
        ProcessRecord p = process(OWNER);
        store.registerProcess(p);
        assertThat(store.touchProcess(OWNER, T0.plusSeconds(10))).isTrue();
        assertThat(store.processes()).containsExactly(p.seen(T0.plusSeconds(10)));
        assertThat(store.touchProcess(OWNER, T0.plusSeconds(3))).as("an earlier time").isTrue();
        assertThat(store.processes().get(0).lastSeen()).isEqualTo(T0.plusSeconds(10));
        assertThat(store.touchProcess("nobody", T0)).as("no record").isFalse();
        assertThat(store.processes()).hasSize(1);
    }

    @Test
    public void aStopMarksTheRecordStopped() {
        store.registerProcess(process(OWNER));
        assertThat(store.stopProcess(OWNER, T0.plusSeconds(20))).isTrue();
        ProcessRecord stopped = store.processes().get(0);
        assertThat(stopped.stoppedAt()).isEqualTo(T0.plusSeconds(20));
        assertThat(stopped.lastSeen()).isEqualTo(T0.plusSeconds(20));
        assertThat(stopped.state(T0.plus(HOUR))).isEqualTo(ProcessState.STOPPED);
        assertThat(store.stopProcess("nobody", T0)).isFalse();
    }

    @Test
    public void aProcessNotSeenForItsGoneAfterIsGone() {
        store.registerProcess(process(OWNER));
        store.touchProcess(OWNER, T0.plusSeconds(60));
        ProcessRecord p = store.processes().get(0);
        assertThat(p.state(T0.plusSeconds(60).plus(LEASE))).isEqualTo(ProcessState.ALIVE);
        assertThat(p.state(T0.plusSeconds(61).plus(LEASE))).isEqualTo(ProcessState.GONE);
    }

    @Test
    public void aPurgeDeletesRecordsLastSeenBeforeItsTime() {
        store.registerProcess(process("old"));
        store.registerProcess(process("stopped"));
        store.stopProcess("stopped", T0.plusSeconds(30));
        store.registerProcess(process("fresh"));
        store.touchProcess("fresh", T0.plus(HOUR));
        assertThat(store.purgeProcesses(T0)).as("strictly before").isZero();
        assertThat(store.purgeProcesses(T0.plusSeconds(31))).isEqualTo(2);
        assertThat(store.processes()).extracting(ProcessRecord::owner).containsExactly("fresh");
        assertThat(store.purgeProcesses(T0.plusSeconds(31))).isZero();
    }
}
