package dev.statekit.examples.scenarios;

import dev.statekit.core.TransitionEngine;
import dev.statekit.store.HistoryEntry;
import java.util.List;

/** Small helpers of the scenario tests. */
final class Scripts {
    private Scripts() {}

    /** Returns the events of a task's history, oldest first. */
    static List<String> events(TransitionEngine engine, long id) {
        return engine.history(id).stream().map(HistoryEntry::event).toList();
    }

    /** Returns the latest history entry of a task. */
    static HistoryEntry last(TransitionEngine engine, long id) {
        List<HistoryEntry> h = engine.history(id);
        return h.get(h.size() - 1);
    }
}
