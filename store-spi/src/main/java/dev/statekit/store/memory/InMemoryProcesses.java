package dev.statekit.store.memory;

import dev.statekit.store.ProcessRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/** The process records of an {@link InMemoryStore}, by owner. Thread-safe: every method holds this object's monitor. */
final class InMemoryProcesses {
    private final TreeMap<String, ProcessRecord> byOwner = new TreeMap<>();

    synchronized void register(ProcessRecord process) {
        byOwner.put(process.owner(), process);
    }

    synchronized boolean touch(String owner, Instant at) {
        ProcessRecord r = byOwner.get(owner);
        if (r == null) return false;
        byOwner.put(owner, r.seen(at));
        return true;
    }

    synchronized boolean stop(String owner, Instant at) {
        ProcessRecord r = byOwner.get(owner);
        if (r == null) return false;
        byOwner.put(owner, r.stopped(at));
        return true;
    }

    synchronized List<ProcessRecord> all() {
        return List.copyOf(new ArrayList<>(byOwner.values()));
    }

    synchronized int purge(Instant seenBefore) {
        int before = byOwner.size();
        byOwner.values().removeIf(r -> r.lastSeen().isBefore(seenBefore));
        return before - byOwner.size();
    }
}
