package dev.statekit.examples.serve.etl;

import dev.statekit.core.Authorizer;
import dev.statekit.core.Verdict;
import dev.statekit.examples.EtlTask;
import dev.statekit.examples.serve.Exchange;
import java.util.Locale;
import java.util.Set;

/**
 * Who may control a task: the engine asks it about every person's command (cancel, retry, from
 * the API or the dashboard). Its submitter (the {@code X-User} of the submission, recorded as
 * {@value #SUBMITTED_BY}) and the admins ({@code --admins}) may; anybody else is refused with
 * {@code FORBIDDEN} (HTTP 403), which changes nothing. A submission without {@code X-User} acts as
 * {@value Exchange#ANONYMOUS}, who owns nothing: only an admin controls its tasks. The service's
 * own recovery of OCR jobs lost with their process ({@value #RECOVERY}, a name no request can
 * carry) may retry any task.
 */
final class EtlAccess implements Authorizer {
    /** The attribute naming the task's submitter. */
    static final String SUBMITTED_BY = "submitted_by";
    /** The actor of the service's automatic retries; {@code /} is not allowed in {@code X-User}. */
    static final String RECOVERY = "etl/recovery";
    /** The verdict code of a refused person. */
    static final String FORBIDDEN = "FORBIDDEN";

    private final Set<String> admins;

    EtlAccess(Set<String> admins) {
        this.admins = Set.copyOf(admins);
    }

    @Override
    public Verdict authorize(Request request) {
        if (!request.machine().equals(EtlTask.MACHINE.name())) return Verdict.allow();
        String actor = request.actor();
        if (actor != null) {
            if (actor.equals(RECOVERY) && request.event().equals(EtlTask.Event.RETRY.name())) return Verdict.allow();
            if (admins.contains(actor)) return Verdict.allow();
            String submitter = request.task().attributes().get(SUBMITTED_BY);
            if (!actor.equals(Exchange.ANONYMOUS) && actor.equals(submitter)) return Verdict.allow();
        }
        return Verdict.refuse(FORBIDDEN, "only the submitter of task " + request.taskId() + " or an admin may "
                + request.event().toLowerCase(Locale.ROOT) + " it");
    }
}
