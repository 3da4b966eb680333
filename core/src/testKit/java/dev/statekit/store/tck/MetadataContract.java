package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.ApplyResult;
import dev.statekit.store.Attributes;
import dev.statekit.store.Change;
import dev.statekit.store.Lease;
import dev.statekit.store.RenewResult;
import dev.statekit.store.TaskRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on what changes without a version: the priority and place a reorder sets, and a
 * renewed lease's expiry. Every store runs it as {@link StoreContract.Metadata}.
 */
abstract class MetadataContract extends ContractPart {

    MetadataContract(StoreContract contract) {
        super(contract);
    }

    @Test
    public void priorityAndSequenceSetByReorderSurviveALaterApply() {
        TaskRecord t = create(spec().priority(1));
        long front = store.nextSequence(true);
        assertThat(store.reorder(t.id(), 9, front)).isTrue();
        TaskRecord reordered = get(t.id());
        assertThat(reordered.priority()).isEqualTo(9);
        assertThat(reordered.sequence()).isEqualTo(front);
        assertThat(reordered.version()).as("reorder is not a change").isZero();
        assertThat(reordered.updatedAt()).isEqualTo(t.updatedAt());
        assertThat(store.history(t.id())).isEmpty();

        // a change computed from the snapshot before the reorder
        TaskRecord moved = applied(move(t, WAITING, null));
        assertThat(moved.state()).isEqualTo(WAITING);
        assertThat(moved.priority()).isEqualTo(9);
        assertThat(moved.sequence()).isEqualTo(front);
        // a change that names another priority and sequence does not set them either
        TaskRecord again = applied(change(moved, b -> b.state(READY).priority(-4).sequence(12345), null));
        assertThat(again.state()).isEqualTo(READY);
        assertThat(again.priority()).isEqualTo(9);
        assertThat(again.sequence()).isEqualTo(front);
        assertThat(again.version()).isEqualTo(2);
    }

    @Test
    public void aReorderingChangeWritesPriorityAndSequenceWithTheState() {
        TaskRecord a = create();
        TaskRecord b = create();
        TaskRecord c = create(spec().priority(2));
        long front = store.nextSequence(true);
        Change toFront = reordering(change(b, x -> x.attributes(Attributes.of("moved", "front")).sequence(front), null));
        TaskRecord moved = applied(toFront);
        assertThat(moved).isEqualTo(toFront.next());
        assertThat(moved.sequence()).isEqualTo(front);
        assertThat(moved.version()).isEqualTo(1);
        assertThat(store.history(b.id())).containsExactly(toFront.entry());
        // the claim order follows at once: c by its priority, then b ahead of a
        assertThat(ids(claim(3))).containsExactly(c.id(), b.id(), a.id());

        TaskRecord d = create();
        Change away = reordering(change(d, x -> x.state(WAITING).priority(-7).sequence(front - 1000), "k-d"));
        TaskRecord waiting = applied(away);
        assertThat(waiting.state()).isEqualTo(WAITING);
        assertThat(waiting.priority()).isEqualTo(-7);
        assertThat(waiting.sequence()).isEqualTo(front - 1000);
        // a normal change naming another place keeps the stored one
        TaskRecord kept = applied(change(waiting, x -> x.state(READY).priority(9).sequence(1), null));
        assertThat(kept.priority()).isEqualTo(-7);
        assertThat(kept.sequence()).isEqualTo(front - 1000);
    }

    @Test
    public void reorderingChangesInBatchesWriteTheirPlaceAndTheOthersKeepTheirs() {
        List<TaskRecord> t = new ArrayList<>();
        for (int i = 0; i < 6; i++) t.add(create(spec().priority(1)));
        long front = store.nextSequence(true);
        long back = store.nextSequence(false);
        // in each batch the first change reorders and the second names the same place without reordering
        List<List<Change>> batches = new ArrayList<>();
        for (int i = 0; i < 6; i += 2) {
            int priority = 4 + i;
            long sequence = i == 2 ? back : front - i;
            String key = i == 4 ? "k" : null;
            batches.add(List.of(
                    reordering(change(t.get(i), x -> x.state(WAITING).priority(priority).sequence(sequence), key)),
                    change(t.get(i + 1), x -> x.state(WAITING).priority(priority).sequence(sequence), key)));
        }
        assertThat(store.applyAll(batches.get(0))).isEqualTo(ApplyResult.APPLIED);
        assertThat(store.applyEach(batches.get(1))).as("without command keys").containsExactly(ApplyResult.APPLIED, ApplyResult.APPLIED);
        assertThat(store.applyEach(batches.get(2))).as("with command keys").containsExactly(ApplyResult.APPLIED, ApplyResult.APPLIED);
        for (int i = 0; i < 6; i += 2) {
            Change reordered = batches.get(i / 2).get(0);
            assertThat(get(t.get(i).id())).as("task %s, reordered", i).isEqualTo(reordered.next());
            TaskRecord kept = get(t.get(i + 1).id());
            assertThat(kept.state()).isEqualTo(WAITING);
            assertThat(kept.priority()).as("priority of task %s", i + 1).isEqualTo(t.get(i + 1).priority());
            assertThat(kept.sequence()).as("sequence of task %s", i + 1).isEqualTo(t.get(i + 1).sequence());
        }
    }

    @Test
    public void aRenewedLeaseExpirySurvivesAnApplyThatKeepsTheLease() {
        TaskRecord t = create();
        TaskRecord claimed = claimOne(t.id(), OWNER, LEASE);
        Lease lease = leaseOf(claimed);
        Instant renewed = T0.plus(HOUR);
        assertThat(store.renew(t.id(), lease.fencingToken(), T0.plusSeconds(60), renewed)).isEqualTo(RenewResult.RENEWED);

        // computed from the claimed snapshot, whose lease still has the earlier expiry
        TaskRecord progressed = applied(change(claimed, b -> b.attributes(Attributes.of("phase", "half")), null));
        assertThat(progressed.attributes()).isEqualTo(Attributes.of("phase", "half"));
        assertThat(leaseOf(progressed)).isEqualTo(new Lease(OWNER, lease.fencingToken(), renewed));
        // a change carrying a later expiry for the same token does not extend the lease: only renew does
        TaskRecord later = applied(change(progressed,
                b -> b.lease(new Lease(OWNER, lease.fencingToken(), T0.plus(HOUR.multipliedBy(5)))), null));
        assertThat(leaseOf(later).expiresAt()).isEqualTo(renewed);
        // releasing the lease is written
        TaskRecord released = applied(release(later, DONE));
        assertThat(released.lease()).isNull();
        assertThat(store.leased(QUEUE)).isZero();
    }
}
