package dev.statekit.examples.serve.etl;

import dev.statekit.core.Command;
import dev.statekit.core.Outcome;
import dev.statekit.core.Task;
import dev.statekit.examples.EtlTask;
import dev.statekit.examples.EtlTask.State;
import dev.statekit.examples.hosts.EtlHost;
import dev.statekit.store.Page;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskQuery;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs again the OCR jobs lost with their process. The task's table has no way back from
 * {@code MINERU_PARSING} to {@code PENDING}: when the process running an OCR job dies, the job's
 * lease expires and the runtime (of any process) fails the task with {@code LEASE_EXPIRED}, as the
 * seed says. This pass, run by every process every second, finds those failures in the store and
 * retries them from {@code mineru} at the front of the queue, as {@value EtlAccess#RECOVERY}, at
 * most {@code max} times per task (counted in {@value #RECOVERIES}), so a document that kills its
 * process does not loop forever.
 *
 * <p>The decision is the store's: a failure is found by any process, and the retry carries the
 * idempotency key {@code ocr-recovery-<task>-<attempt>}, so two processes finding the same failure
 * retry it once. Each pass reads one page of failed tasks, the next pass the page after it.
 */
final class LostOcrRecovery {
    /** The attribute counting a task's automatic OCR retries. */
    static final String RECOVERIES = "ocr_recoveries";
    /** The error of a job whose lease expired. */
    static final String LEASE_EXPIRED = "LEASE_EXPIRED";
    private static final int PAGE = 200;
    private static final Logger log = LoggerFactory.getLogger(LostOcrRecovery.class);

    private final EtlHost host;
    private final int max;
    private long after;

    LostOcrRecovery(EtlHost host, int max) {
        this.host = host;
        this.max = max;
    }

    /** Returns whether {@code task} failed because its OCR job was lost, and may be retried again. */
    static boolean lost(Task<State> task, int max) {
        TaskError error = task.record().lastError();
        return task.state() == State.FAILED && error != null && LEASE_EXPIRED.equals(error.code())
                && "ocr".equals(task.attribute(EtlTask.PHASE)) && EtlStages.count(task, RECOVERIES) < max;
    }

    /** Reads the next page of failed tasks and retries the lost OCR jobs in it; returns how many it retried. */
    synchronized int pass() {
        if (max == 0) return 0;
        TaskQuery query = TaskQuery.all().machine(EtlTask.MACHINE.name()).states(Set.of(State.FAILED.name())).after(after).limit(PAGE);
        Page<Task<State>> page = host.engine().query(EtlTask.MACHINE, query);
        int retried = 0;
        for (Task<State> task : page.items()) {
            if (!lost(task, max)) continue;
            int recoveries = EtlStages.count(task, RECOVERIES) + 1;
            Command command = Command.user(EtlAccess.RECOVERY)
                    .reason("the OCR job was lost with its process (lease expired): run again, " + recoveries + " of " + max)
                    .idempotencyKey("ocr-recovery-" + task.id() + "-" + task.attributes().getOrDefault(EtlTask.ATTEMPT_OCR, "0"))
                    .set(RECOVERIES, Integer.toString(recoveries));
            Outcome<State> outcome = host.retry(task.id(), "mineru", true, command);
            if (outcome.isApplied()) {
                retried++;
                log.info("task {}: OCR job lost with its process, retried from mineru ({} of {})", task.id(), recoveries, max);
            }
        }
        Long next = page.nextAfterId();
        after = page.hasNext() && next != null ? next : 0;
        return retried;
    }
}
