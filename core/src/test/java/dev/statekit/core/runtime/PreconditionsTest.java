package dev.statekit.core.runtime;

import dev.statekit.core.Command;
import dev.statekit.core.TaskSpec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.ClaimRequest;
import dev.statekit.store.HistoryEntry;
import dev.statekit.test.fixtures.Jobs;
import java.util.ArrayList;
import java.util.List;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Tasks kept out of the claim while their queue's precondition does not hold, and let back in once it does. */
class PreconditionsTest {
    final RuntimeParts parts = new RuntimeParts();
    /** The sizes the disk has room for now. */
    final Set<String> fits = new HashSet<>(Set.of("small"));

    final Registration<Jobs.State, Jobs.Event> gated = new Registration<>(Jobs.MACHINE, "q", c -> WorkResult.success(),
            QueueOptions.defaults().precondition(t -> fits.contains(t.attributes().getOrDefault("size", "small")) ? null
                    : "no room for a " + t.attributes().get("size") + " file"));

    long enqueue(String queue, String size) {
        return parts.engine.create(Jobs.MACHINE, TaskSpec.defaults().queue(queue).attribute("size", size)).task().id();
    }

    @Test
    void theUnreadyTasksAmongTheNextToBeClaimedAreBlockedWithTheirReason() {
        RuntimeContext ctx = parts.started("r", gated);
        long big = enqueue("q", "big");
        long small = enqueue("q", "small");
        long huge = enqueue("q", "huge");
        long beyond = enqueue("q", "big");
        new Preconditions(ctx).blockUnready(gated, parts.clock.now(), 3);
        assertThat(parts.task(big).state()).isEqualTo("BLOCKED");
        assertThat(parts.task(big).attributes().get(TaskRuntime.ATTR_BLOCKED_REASON)).isEqualTo("no room for a big file");
        assertThat(parts.task(huge).attributes().get(TaskRuntime.ATTR_BLOCKED_REASON)).isEqualTo("no room for a huge file");
        assertThat(parts.task(small).state()).isEqualTo("QUEUED");
        assertThat(parts.task(beyond).state()).as("not among the next three").isEqualTo("QUEUED");
        HistoryEntry entry = parts.last(big);
        assertThat(entry.event()).isEqualTo("BLOCK");
        assertThat(entry.reason()).isEqualTo("no room for a big file");
        assertThat(entry.actor()).isEqualTo("r");
        ClaimRequest peeked = (ClaimRequest) parts.spy.calls("peek").get(0).args().get(0);
        assertThat(peeked.queue()).isEqualTo("q");
        assertThat(peeked.max()).isEqualTo(3);
    }

    @Test
    void blockedTasksWhosePreconditionHoldsAgainGoBackToTheQueue() {
        RuntimeContext ctx = parts.started("r", gated);
        Preconditions preconditions = new Preconditions(ctx);
        long big = enqueue("q", "big");
        long huge = enqueue("q", "huge");
        preconditions.blockUnready(gated, parts.clock.now(), 2);
        preconditions.unblockReady();
        assertThat(parts.task(big).state()).as("nothing changed yet").isEqualTo("BLOCKED");
        fits.add("big");
        preconditions.unblockReady();
        assertThat(parts.task(big).state()).isEqualTo("QUEUED");
        assertThat(parts.task(big).attributes().get(TaskRuntime.ATTR_BLOCKED_REASON)).isNull();
        assertThat(parts.events(big)).containsExactly("BLOCK", "UNBLOCK");
        assertThat(parts.last(big).reason()).isEqualTo("precondition holds");
        assertThat(parts.task(huge).state()).isEqualTo("BLOCKED");
        assertThat(parts.events(huge)).containsExactly("BLOCK");
    }

    @Test
    void onlyTheBlockedTasksOfAQueueWithAPreconditionAreLookedAt() {
        Registration<Jobs.State, Jobs.Event> free = RuntimeParts.registration(Jobs.MACHINE, "other", c -> WorkResult.success());
        RuntimeContext ctx = parts.started("r", gated, free);
        long onGated = enqueue("q", "small");
        long onFree = enqueue("other", "small");
        for (long id : new long[] {onGated, onFree}) {
            parts.engine.fire(Jobs.MACHINE, id, Jobs.Event.BLOCK, Command.system().reason("blocked by hand"));
        }
        new Preconditions(ctx).unblockReady();
        assertThat(parts.task(onGated).state()).isEqualTo("QUEUED");
        assertThat(parts.task(onFree).state()).as("its queue has no precondition").isEqualTo("BLOCKED");
    }

    @Test
    void aTaskChangedAfterThePeekIsLeftForTheNextClaim() {
        RuntimeContext ctx = parts.started("r", gated);
        long big = enqueue("q", "big");
        parts.spy.afterNext("peek", () -> {
            parts.engine.fire(Jobs.MACHINE, big, Jobs.Event.BLOCK, Command.system().reason("blocked by hand"));
            parts.engine.fire(Jobs.MACHINE, big, Jobs.Event.UNBLOCK, Command.system().reason("unblocked by hand"));
        });
        new Preconditions(ctx).blockUnready(gated, parts.clock.now(), 1);
        assertThat(parts.task(big).state()).isEqualTo("QUEUED");
        assertThat(parts.events(big)).containsExactly("BLOCK", "UNBLOCK");
    }

    @Test
    void aBlockedTaskBeyondTheFirstScanIsUnblockedOnceItsPreconditionHolds() {
        Set<String> fits = new HashSet<>();
        Registration<Jobs.State, Jobs.Event> gated = new Registration<>(Jobs.MACHINE, "q", c -> WorkResult.success(),
                QueueOptions.defaults().precondition(t -> fits.contains(t.attributes().get("size")) ? null : "no room"));
        RuntimeContext ctx = parts.started("r", gated);
        for (int i = 0; i < RuntimeContext.SCAN_BATCH; i++) {
            parts.engine.create(Jobs.MACHINE, TaskSpec.defaults().queue("q").attribute("size", "big"));
        }
        long small = parts.engine.create(Jobs.MACHINE, TaskSpec.defaults().queue("q").attribute("size", "small")).task().id();
        Preconditions preconditions = new Preconditions(ctx);
        preconditions.blockUnready(gated, parts.clock.now(), 1000);
        assertThat(parts.task(small).state()).isEqualTo("BLOCKED");
        fits.add("small");
        preconditions.unblockReady();                            // the first page: all stay blocked
        assertThat(parts.task(small).state()).isEqualTo("BLOCKED");
        preconditions.unblockReady();                            // the next round goes on after it
        assertThat(parts.task(small).state()).isEqualTo("QUEUED");
    }

    /**
     * A task that becomes runnable after the round looked at the next tasks, and before its claim,
     * is claimed without that look: it goes back before its work starts, and the next round blocks it.
     */
    @Test
    void aTaskCreatedBetweenTheLookAndTheClaimIsGivenBackAndThenBlocked() {
        List<Long> worked = new ArrayList<>();
        Registration<Jobs.State, Jobs.Event> recording = new Registration<>(Jobs.MACHINE, "q", c -> {
            worked.add(c.task().id());
            return WorkResult.success();
        }, gated.options);
        RuntimeContext ctx = parts.started("r", recording);
        Dispatcher d = RuntimeParts.dispatcher(ctx, () -> { }, () -> { });
        long[] big = {0};
        parts.spy.afterNext("peek", () -> big[0] = enqueue("q", "big"));     // after the look, before the claim
        d.requestDispatch();
        parts.executor.runAll();

        assertThat(worked).as("no work of a task whose precondition does not hold").isEmpty();
        assertThat(parts.events(big[0])).containsExactly("START", "RELEASE", "BLOCK");
        HistoryEntry release = parts.store.history(big[0]).get(1);
        assertThat(release.reason()).isEqualTo("precondition does not hold: no room for a big file");
        assertThat(parts.task(big[0]).state()).isEqualTo("BLOCKED");
        assertThat(parts.task(big[0]).attempts()).as("the attempt given back").isZero();
        assertThat(ctx.running).isEmpty();
    }
}
