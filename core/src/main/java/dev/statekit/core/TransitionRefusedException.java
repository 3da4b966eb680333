package dev.statekit.core;

import dev.statekit.store.ErrorCode;
import dev.statekit.store.StatekitException;

/** Thrown by {@link Outcome#orElseThrow()} for a refused command; carries the refusal. */
public final class TransitionRefusedException extends StatekitException {
    private static final long serialVersionUID = 1L;

    private final transient Outcome.Refused<?> refusal;

    TransitionRefusedException(Outcome.Refused<?> refusal) {
        super(ErrorCode.REFUSED, refusal.reasonCode() + ": " + refusal.message(), refusal.taskId(), null);
        this.refusal = refusal;
    }

    /** Returns the refusal. */
    public Outcome.Refused<?> refusal() {
        return refusal;
    }
}
