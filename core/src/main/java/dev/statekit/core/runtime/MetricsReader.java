package dev.statekit.core.runtime;

import dev.statekit.store.QueueRecord;
import dev.statekit.store.StateCount;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Reads a runtime's {@link RuntimeMetrics}: the store's counts by state (one
 * {@link dev.statekit.store.Store#stateCounts} call), the control record of each queue met (one
 * {@link dev.statekit.store.Store#queue} call each), and the last minute counted by this runtime's
 * {@link RuntimeEvents}. Stateless; each read is made anew.
 */
final class MetricsReader {
    private static final Comparator<RuntimeEvents.Pair> ORDER = Comparator.comparing(RuntimeEvents.Pair::machine)
            .thenComparing(RuntimeEvents.Pair::queue);

    private final RuntimeContext ctx;

    MetricsReader(RuntimeContext ctx) {
        this.ctx = ctx;
    }

    /** What one machine on one queue adds up to while the counts are read. */
    private static final class Tally {
        final Map<String, Long> states = new HashMap<>();
        long running;
        long waiting;
        @Nullable Instant oldestReady;
    }

    RuntimeMetrics read() {
        Instant now = ctx.clock.now();
        TreeMap<RuntimeEvents.Pair, Tally> tallies = new TreeMap<>(ORDER);
        for (Registration<?, ?> r : ctx.registrations.all()) tallies.computeIfAbsent(new RuntimeEvents.Pair(r.machine.name(), r.queue), p -> new Tally());
        for (RuntimeEvents.Pair p : ctx.events.counted()) tallies.computeIfAbsent(p, k -> new Tally());
        for (StateCount c : ctx.store.stateCounts(now)) {
            Tally t = tallies.computeIfAbsent(new RuntimeEvents.Pair(c.machine(), c.queue()), p -> new Tally());
            t.states.merge(c.state(), c.tasks(), Long::sum);
            t.running += c.leased();
            if (!claimable(c.machine(), c.queue(), c.state())) continue;
            t.waiting += c.tasks() - c.leased();
            Instant ready = c.oldestReady();
            if (ready != null && (t.oldestReady == null || ready.isBefore(t.oldestReady))) t.oldestReady = ready;
        }
        Map<String, QueueRecord> queues = new HashMap<>();
        List<QueueMetrics> out = new ArrayList<>(tallies.size());
        tallies.forEach((p, t) -> {
            QueueRecord q = queues.computeIfAbsent(p.queue(), ctx.store::queue);
            Instant ready = t.oldestReady;
            Duration age = ready == null ? null : RuntimeEvents.between(ready, now);
            out.add(new QueueMetrics(p.machine(), p.queue(), t.states, t.running, t.waiting, q.paused(), q.concurrency(), age,
                    ctx.events.lastMinute(p.machine(), p.queue(), now)));
        });
        return new RuntimeMetrics(now, out);
    }

    /**
     * Returns whether a task of {@code machine} on {@code queue} in {@code state} is one this
     * runtime would claim: by the registration of that queue, or, for a queue the machine is not
     * registered on, by any of the machine's registrations; false for a machine it does not serve.
     */
    private boolean claimable(String machine, String queue, String state) {
        List<Registration<?, ?>> regs = ctx.registrations.forMachine(machine);
        for (Registration<?, ?> r : regs) if (r.queue.equals(queue)) return r.claimStates.contains(state);
        for (Registration<?, ?> r : regs) if (r.claimStates.contains(state)) return true;
        return false;
    }
}
