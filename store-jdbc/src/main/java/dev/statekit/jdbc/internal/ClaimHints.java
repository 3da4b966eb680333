package dev.statekit.jdbc.internal;

import dev.statekit.store.TaskRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Where the claims of a queue may start reading, per (machine, queue): the key of the last task
 * claimed (of the first one a claim read and left), before which no task of the queue is known to
 * be runnable.
 *
 * <p>PostgreSQL keeps the index entries of every task version a claim left behind until vacuum
 * removes them, and vacuum removes none that an open transaction might still see. While a
 * transaction holds the xmin horizon (or a long REPEATABLE READ snapshot is open), a claim that
 * reads its queue from the first entry passes the entries of every task claimed since then, and
 * claims slow down as they pile up. A claim that starts at the last key claimed passes none of them.
 * InnoDB keeps the secondary index entries of changed rows, marked deleted, until its purge removes
 * them: a claim from the first entry while purge lags behind a busy queue passes them the same way.
 *
 * <p>The start is a hint kept by one store; a claim is still made only on tasks that are runnable
 * and unleased when it locks them. What it must not do is leave a runnable task behind the start
 * for long. Every write of this store that leaves a task unleased in a state its queue's claims
 * take ({@link #placed}) moves the start back to that task; a write of a task whose not-before time
 * is in the future sets a time at which claims read from the queue's first entry again; writes
 * of groups, which may release held tasks, forget every start ({@link #forgetAll}). A claim under
 * way while such a write commits does not move the start past the written task. What the store does
 * not see (tasks other processes make runnable behind the start, a creation that commits after
 * tasks behind it were claimed, a task another claim had locked and gave back) is found by a read
 * from the first entry at least every quarter of a second, or 20 times what the last such read
 * took, whichever is longer; the claims do not wait for it ({@link Pass#probe()}).
 *
 * <p>Thread-safe: each queue's state is guarded by its own lock.
 */
public final class ClaimHints {
    /** The least time between two claims of a queue that read from its first entry, by default. */
    public static final Duration MIN_FULL_EVERY = Duration.ofMillis(250);
    /** How many times the last read from the first entry took passes before the next one. */
    static final int FULL_COST_FACTOR = 20;

    private final Map<String, Queue> queues = new ConcurrentHashMap<>();
    private final Duration minFullEvery;

    /** Hints whose claims read from the first entry at least every {@link #MIN_FULL_EVERY} or 20 times what the last such read took. */
    public ClaimHints() {
        this(MIN_FULL_EVERY);
    }

    /** Hints whose claims read from the first entry at least every {@code minFullEvery} or 20 times what the last such read took. */
    public ClaimHints(Duration minFullEvery) {
        if (minFullEvery.isNegative()) throw new IllegalArgumentException("minFullEvery is negative: " + minFullEvery);
        this.minFullEvery = minFullEvery;
    }

    /** A task's place in claim order: priority descending, then sequence and id ascending. */
    public record Key(int priority, long sequence, long id) implements Comparable<Key> {
        /** Returns the key of {@code task}. */
        public static Key of(TaskRecord task) {
            return new Key(task.priority(), task.sequence(), task.id());
        }

        @Override
        public int compareTo(Key o) {
            if (priority != o.priority) return Integer.compare(o.priority, priority);
            if (sequence != o.sequence) return Long.compare(sequence, o.sequence);
            return Long.compare(id, o.id);
        }
    }

    /** One claim's use of a queue's start, from {@link #begin} to {@link #end} or {@link #abandon}. */
    public static final class Pass {
        private final Queue queue;
        private final @Nullable Key start;
        private final boolean probe;
        private @Nullable Key lowest;
        private @Nullable Instant earliestDue;
        private boolean forgotten;

        private Pass(Queue queue, @Nullable Key start, boolean probe) {
            this.queue = queue;
            this.start = start;
            this.probe = probe;
        }

        /** Where the claim may start reading, or null to read from the queue's first entry. */
        public @Nullable Key start() {
            return start;
        }

        /**
         * Whether the caller is to look, beside the claim, for runnable tasks before the start
         * (reading from the queue's first entry), and report it with {@link #probed} or
         * {@link #probeFailed}.
         */
        public boolean probe() {
            return probe;
        }
    }

    private static final class Queue {
        final Set<String> states = new HashSet<>();
        final List<Pass> passes = new ArrayList<>(2);
        @Nullable Key start;
        @Nullable Instant due;
        long lastFull;
        boolean everFull;
        long fullNanos;
        boolean probing;

        /** Notes a task placed at {@code key}, unleased in a state claims take; called under the lock. */
        void placed(Key key, @Nullable Instant notBefore) {
            for (Pass p : passes) {
                if (p.lowest == null || key.compareTo(p.lowest) < 0) p.lowest = key;
                if (notBefore != null && (p.earliestDue == null || notBefore.isBefore(p.earliestDue))) p.earliestDue = notBefore;
            }
            start = lower(start, key);
            if (notBefore != null && (due == null || notBefore.isBefore(due))) due = notBefore;
        }

        void forget() {
            start = null;
            for (Pass p : passes) p.forgotten = true;
        }
    }

    /** The start moved back to {@code key}: null when the key is of a higher priority (the start reads one priority's range). */
    private static @Nullable Key lower(@Nullable Key start, Key key) {
        if (start == null || key.compareTo(start) >= 0) return start;
        return key.priority() == start.priority() ? key : null;
    }

    private static String name(String machine, String queue) {
        return machine + '\u0000' + queue;
    }

    /**
     * Begins a claim of {@code states} from (machine, queue) at {@code now}: gives the start to read
     * from, or none when the claim must read from the first entry (no start known, or a not-before
     * time has come). When the last read from the first entry is {@link #fullEvery} old, the claim
     * still reads from the start, and its caller is asked to {@link Pass#probe() look} behind it
     * meanwhile (one look at a time per queue): a claim never waits for that read.
     *
     * @param nanos the caller's {@link System#nanoTime()}
     */
    public Pass begin(String machine, String queueName, Collection<String> states, Instant now, long nanos) {
        Queue q = queues.computeIfAbsent(name(machine, queueName), k -> new Queue());
        synchronized (q) {
            q.states.addAll(states);
            boolean stale = !q.everFull || nanos - q.lastFull >= fullEvery(q.fullNanos).toNanos();
            boolean dueCome = q.due != null && !now.isBefore(q.due);
            Key start = dueCome ? null : q.start;
            boolean probe = start != null && stale && !q.probing;
            if (probe) q.probing = true;
            Pass pass = new Pass(q, start, probe);
            q.passes.add(pass);
            return pass;
        }
    }

    /**
     * Reports the look behind a pass's start: the first runnable task found there, in claim order
     * (the start moves back to it, or is forgotten when it is of a higher priority), and the
     * earliest future not-before time seen.
     *
     * @param found     the first runnable task before the start, or null when there is none
     * @param due       the earliest future not-before time of the queue's unleased tasks, or null
     * @param costNanos how long the look took
     * @param nanos     the caller's {@link System#nanoTime()} when the look began
     */
    public void probed(Pass pass, @Nullable Key found, @Nullable Instant due, long costNanos, long nanos) {
        Queue q = pass.queue;
        synchronized (q) {
            q.probing = false;
            q.everFull = true;
            q.lastFull = nanos;
            q.fullNanos = costNanos;
            if (due != null && (q.due == null || due.isBefore(q.due))) q.due = due;
            if (found != null) q.placed(found, null);
        }
    }

    /** Reports a look behind a pass's start that failed: the queue's next claim reads from its first entry. */
    public void probeFailed(Pass pass) {
        Queue q = pass.queue;
        synchronized (q) {
            q.probing = false;
            q.forget();
        }
    }

    /** How long claims read from a start after a claim that read from the first entry and took {@code fullNanos}. */
    Duration fullEvery(long fullNanos) {
        Duration scaled = Duration.ofNanos(Math.min(fullNanos, Long.MAX_VALUE / FULL_COST_FACTOR) * FULL_COST_FACTOR);
        return scaled.compareTo(minFullEvery) > 0 ? scaled : minFullEvery;
    }

    /**
     * Ends a claim that read what it should: the start moves to the last task it claimed (stays
     * where it was when it claimed none), back to a task placed before that while it ran.
     *
     * @param last      the key of the last task claimed, or null
     * @param fullNanos when the claim read from the first entry, what that read took; else negative
     * @param due       when it read from the first entry, the earliest future not-before time of the
     *                  queue's unleased tasks it saw, or null
     * @param nanos     the caller's {@link System#nanoTime()} when the claim began
     */
    public void end(Pass pass, @Nullable Key last, long fullNanos, @Nullable Instant due, long nanos) {
        Queue q = pass.queue;
        synchronized (q) {
            q.passes.remove(pass);
            if (fullNanos >= 0) {
                q.everFull = true;
                q.lastFull = nanos;
                q.fullNanos = fullNanos;
                q.due = earlier(due, pass.earliestDue);
            }
            if (pass.forgotten) {
                q.start = null;
                return;
            }
            Key next = last != null ? last : fullNanos >= 0 ? q.start : pass.start;
            if (next != null && pass.lowest != null) next = lower(next, pass.lowest);
            q.start = next;
        }
    }

    /** Ends a claim that was given up or failed: its queue's start is forgotten. */
    public void abandon(Pass pass) {
        Queue q = pass.queue;
        synchronized (q) {
            q.passes.remove(pass);
            q.start = null;
        }
    }

    /** Notes tasks a committed write left as they are: unleased ones may now be runnable. */
    public void placed(Collection<TaskRecord> tasks) {
        if (queues.isEmpty()) return;
        for (TaskRecord t : tasks) placed(t);
    }

    /** Notes a task a committed write left as it is. */
    public void placed(TaskRecord task) {
        if (task.lease() != null) return;
        Queue q = queues.get(name(task.machine(), task.queue()));
        if (q == null) return;
        synchronized (q) {
            if (q.states.contains(task.state())) q.placed(Key.of(task), task.notBefore());
        }
    }

    /** Forgets every start: a committed write may have made tasks runnable anywhere. */
    public void forgetAll() {
        for (Queue q : queues.values()) {
            synchronized (q) {
                q.forget();
            }
        }
    }

    private static @Nullable Instant earlier(@Nullable Instant a, @Nullable Instant b) {
        if (a == null) return b;
        if (b == null) return a;
        return a.isBefore(b) ? a : b;
    }
}
