package dev.statekit.jdbc.bench.pressure;

import java.util.Map;

/**
 * One sample of a scenario: its time (seconds since the scenario's start) and phase; the target
 * and actual creation rate, the completion rate, pickup latency p50 and p99 (milliseconds; NaN
 * when no task started in the window) of the tasks started in the window; the backlog (tasks not
 * done: read from the tasks table, or from the counters when the database did not answer, then
 * {@code backlogCounted}); and per table (named without its prefix) dead tuples and total bytes.
 */
record Sample(double seconds, String phase, double target, double created, double completed, double p50, double p99,
              long backlog, boolean backlogCounted, Map<String, Tables.Stat> tables) {
    long dead(String table) {
        Tables.Stat s = tables.get(table);
        return s == null ? -1 : s.deadTuples();
    }

    long bytes(String table) {
        Tables.Stat s = tables.get(table);
        return s == null ? -1 : s.bytes();
    }

    /** Dead tuples of every table but tasks and history (-1 when the statistics were not read). */
    long deadOther() {
        if (tables.isEmpty()) return -1;
        return tables.entrySet().stream().filter(e -> !e.getKey().equals("tasks") && !e.getKey().equals("history"))
                .mapToLong(e -> e.getValue().deadTuples()).sum();
    }

    long bytesOther() {
        if (tables.isEmpty()) return -1;
        return tables.entrySet().stream().filter(e -> !e.getKey().equals("tasks") && !e.getKey().equals("history"))
                .mapToLong(e -> e.getValue().bytes()).sum();
    }
}
