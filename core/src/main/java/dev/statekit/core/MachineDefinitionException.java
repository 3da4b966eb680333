package dev.statekit.core;

import dev.statekit.store.ErrorCode;
import dev.statekit.store.StatekitException;
import java.util.List;

/**
 * Thrown by {@link MachineBuilder#build()} when a definition has defects; lists all of them.
 */
public final class MachineDefinitionException extends StatekitException {
    private static final long serialVersionUID = 1L;

    private final List<String> defects;

    MachineDefinitionException(String machine, List<String> defects) {
        super(ErrorCode.INVALID_DEFINITION, "machine '" + machine + "' has " + defects.size()
                + (defects.size() == 1 ? " defect: " : " defects: ") + String.join("; ", defects));
        this.defects = List.copyOf(defects);
    }

    /** Returns every defect found, one sentence each. */
    public List<String> defects() {
        return defects;
    }
}
