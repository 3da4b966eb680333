package dev.statekit.core.ops;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.RefusalCode;
import dev.statekit.core.internal.Kernel;
import dev.statekit.store.Page;
import dev.statekit.store.RetentionRequest;
import dev.statekit.store.RetentionResult;
import dev.statekit.store.Store;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bulk operations of {@link TaskOperations}: the tasks a {@link TaskFilter} selects, page after
 * page by id (keyset paging: each task is found once, however pages change meanwhile), each page a
 * batch decided on the records it read and written through the engine's one write pipeline. A task
 * that changed since its page was read is read again and, if it still matches the filter, decided
 * once more on what is stored; one that no longer matches is refused as
 * {@link TaskOperations#NO_LONGER_MATCHES}. A batch that fails with an error is tried task by task,
 * so that only the tasks that fail are counted as failed.
 */
final class Bulk {
    private static final Logger log = LoggerFactory.getLogger(TaskOperations.class);

    /** What became of one task of a batch. */
    private enum Kind { APPLIED, REQUESTED, REFUSED, STALE }

    /** What became of {@code task}; {@code code} names a refusal. */
    private record Done(TaskRecord task, Kind kind, String code) {
        static Done of(TaskRecord task, Outcome<?> outcome) {
            if (outcome instanceof Outcome.Refused<?> r) {
                return r.code() == RefusalCode.VERSION_CONFLICT ? new Done(task, Kind.STALE, r.reasonCode())
                        : new Done(task, Kind.REFUSED, r.reasonCode());
            }
            return new Done(task, Kind.APPLIED, "");
        }

        static Done refused(TaskRecord task, String code) {
            return new Done(task, Kind.REFUSED, code);
        }
    }

    /** What a batch did: one {@link Done} per task, and the descendants deleted with them. */
    private record Batch(List<Done> done, long alsoDeleted) {}

    /** Applies the operation to a batch of tasks as read; writes nothing to the tally. */
    @FunctionalInterface
    private interface Action {
        Batch apply(List<TaskRecord> batch);
    }

    /** The counts of one operation. */
    private static final class Tally {
        long matched;
        long applied;
        long requested;
        long refused;
        long failed;
        long alsoDeleted;
        final Map<String, Long> refusals = new TreeMap<>();

        void refuse(String code) {
            refused++;
            refusals.merge(code, 1L, Long::sum);
        }

        BulkResult result() {
            return new BulkResult(matched, applied, requested, refused, refusals, failed, alsoDeleted);
        }
    }

    private final Kernel kernel;
    private final Store store;
    private final int batchSize;

    Bulk(Kernel kernel, int batchSize) {
        this.kernel = kernel;
        this.store = kernel.engine().store();
        this.batchSize = batchSize;
    }

    /** Counts the tasks {@code filter} selects now, page after page of the largest size. */
    BulkCount count(TaskFilter<?, ?> filter) {
        TaskQuery q = filter.toQuery().limit(TaskQuery.MAX_LIMIT);
        Long upTo = filter.upToId();
        long tasks = 0;
        long last = 0;
        for (Page<TaskRecord> page = store.query(q); ; page = store.query(q.after(Objects.requireNonNull(page.nextAfterId())))) {
            for (TaskRecord t : page.items()) {
                if (upTo != null && t.id() > upTo) return new BulkCount(tasks, last);
                tasks++;
                last = t.id();
            }
            if (!page.hasNext()) return new BulkCount(tasks, last);
        }
    }

    <S extends Enum<S>, E extends Enum<E>> BulkResult retry(TaskFilter<S, E> filter, E retryEvent, boolean front, Command command) {
        Machine<S, E> machine = filter.machine();
        return run(filter, "retry", command, batch -> {
            List<TaskRecord> order = new ArrayList<>(batch);
            order.sort(Comparator.comparingInt(TaskRecord::priority).reversed().thenComparingLong(TaskRecord::sequence));
            long[] sequences = new long[order.size()];
            if (front) {
                for (int i = order.size() - 1; i >= 0; i--) sequences[i] = store.nextSequence(true);
            } else {
                for (int i = 0; i < order.size(); i++) sequences[i] = store.nextSequence(false);
            }
            List<Kernel.Fire<S, E>> fires = new ArrayList<>(order.size());
            for (int i = 0; i < order.size(); i++) {
                TaskRecord t = order.get(i);
                long sequence = sequences[i];
                fires.add(new Kernel.Fire<>(machine, t.id(), retryEvent, command.expectVersion(t.version()),
                        (cur, next) -> next.retries(0).attempts(0).notBefore(null).sequence(sequence), t));
            }
            List<Outcome<?>> outcomes = kernel.fireEach(fires);
            List<Done> done = new ArrayList<>(order.size());
            for (int i = 0; i < order.size(); i++) done.add(Done.of(order.get(i), outcomes.get(i)));
            return new Batch(done, 0);
        });
    }

    <S extends Enum<S>, E extends Enum<E>> BulkResult cancel(TaskFilter<S, E> filter, E cancel, Command command) {
        Machine<S, E> machine = filter.machine();
        return run(filter, "cancellation", command, batch -> {
            List<Done> done = new ArrayList<>(batch.size());
            List<Kernel.Fire<S, E>> fires = new ArrayList<>();
            List<TaskRecord> fired = new ArrayList<>();
            for (TaskRecord t : batch) {
                S state = machine.state(t.state());
                if (t.lease() == null || state == null || !machine.permits(state, cancel)) {
                    fires.add(new Kernel.Fire<>(machine, t.id(), cancel, command.expectVersion(t.version()), null, t));
                    fired.add(t);
                    continue;
                }
                Outcome.Refused<S> forbidden = kernel.forbidden(machine, t, cancel, command);
                if (forbidden != null) {
                    done.add(Done.refused(t, forbidden.reasonCode()));
                } else if (store.requestCancel(t.id())) {
                    log.info("cancellation of task {} ({}) requested by {}", t.id(), machine.name(), command.actor());
                    done.add(new Done(t, Kind.REQUESTED, ""));
                } else {
                    done.add(Done.refused(t, RefusalCode.NOT_FOUND.name()));
                }
            }
            if (!fires.isEmpty()) {
                List<Outcome<?>> outcomes = kernel.fireEach(fires);
                for (int i = 0; i < fired.size(); i++) done.add(Done.of(fired.get(i), outcomes.get(i)));
            }
            return new Batch(done, 0);
        });
    }

    <S extends Enum<S>, E extends Enum<E>> BulkResult delete(TaskFilter<S, E> filter, Command command) {
        Machine<S, E> machine = filter.machine();
        Map<String, Set<String>> finished = Kernel.finishedStates(List.of(machine));
        return run(filter, "deletion", command, batch -> {
            List<Done> done = new ArrayList<>(batch.size());
            List<TaskRecord> candidates = new ArrayList<>();
            for (TaskRecord t : batch) {
                S state = machine.state(t.state());
                if (t.parentId() != null) {
                    done.add(Done.refused(t, TaskOperations.HAS_PARENT));
                } else if (state == null || !machine.isTerminal(state)) {
                    done.add(Done.refused(t, TaskOperations.NOT_FINISHED));
                } else if (t.lease() != null) {
                    done.add(Done.refused(t, TaskOperations.LEASED));
                } else {
                    Outcome.Refused<S> forbidden = kernel.forbidden(machine, t, TaskOperations.DELETE, command);
                    if (forbidden != null) done.add(Done.refused(t, forbidden.reasonCode()));
                    else candidates.add(t);
                }
            }
            if (candidates.isEmpty()) return new Batch(done, 0);
            List<Long> ids = candidates.stream().map(TaskRecord::id).toList();
            RetentionResult deleted = store.deleteFinished(RetentionRequest.ofTasks(machine.name(), ids, finished));
            Map<Long, TaskRecord> left = store.findAll(ids);
            long gone = 0;
            for (TaskRecord t : candidates) {
                TaskRecord now = left.get(t.id());
                if (now == null) {
                    if (++gone > deleted.trees()) {         // deleted meanwhile by another
                        done.add(Done.refused(t, RefusalCode.NOT_FOUND.name()));
                        continue;
                    }
                    log.info("task {} ({}, {}) deleted with its history and descendants by {}", t.id(), machine.name(), t.state(),
                            command.actor() != null ? command.actor() : command.source());
                    done.add(new Done(t, Kind.APPLIED, ""));
                } else if (now.version() != t.version()) {
                    done.add(new Done(t, Kind.STALE, RefusalCode.VERSION_CONFLICT.name()));
                } else {
                    done.add(Done.refused(t, TaskOperations.UNFINISHED_TREE));
                }
            }
            return new Batch(done, deleted.tasks() - deleted.trees());
        });
    }

    private BulkResult run(TaskFilter<?, ?> filter, String what, Command command, Action action) {
        TaskQuery q = filter.toQuery().limit(batchSize);
        Long upTo = filter.upToId();
        Tally tally = new Tally();
        long after = 0;
        while (true) {
            Page<TaskRecord> page = store.query(q.after(after));
            boolean last = !page.hasNext();
            List<TaskRecord> batch = new ArrayList<>(page.items().size());
            for (TaskRecord t : page.items()) {
                if (upTo != null && t.id() > upTo) {
                    last = true;
                    break;
                }
                batch.add(t);
            }
            tally.matched += batch.size();
            if (!batch.isEmpty()) runBatch(filter, batch, action, tally);
            if (last) break;
            after = Objects.requireNonNull(page.nextAfterId());
        }
        BulkResult result = tally.result();
        log.info("{} of the tasks of {} in {} (queue {}, parent {}, error {}, created {}..{}, updated {}..{}, up to {}) by {}: {}", what,
                filter.machine().name(), filter.stateNames(), filter.queue(), filter.parentId(), filter.errorCode(), filter.createdFrom(),
                filter.createdTo(), filter.updatedFrom(), filter.updatedTo(), filter.upToId(),
                command.actor() != null ? command.actor() : command.source(), result);
        return result;
    }

    private void runBatch(TaskFilter<?, ?> filter, List<TaskRecord> batch, Action action, Tally tally) {
        List<TaskRecord> stale = attempt(batch, action, tally);
        if (stale.isEmpty()) return;
        Map<Long, TaskRecord> fresh = store.findAll(stale.stream().map(TaskRecord::id).toList());
        List<TaskRecord> again = new ArrayList<>(stale.size());
        for (TaskRecord t : stale) {
            TaskRecord now = fresh.get(t.id());
            if (now == null) tally.refuse(RefusalCode.NOT_FOUND.name());
            else if (!filter.matches(now)) tally.refuse(TaskOperations.NO_LONGER_MATCHES);
            else again.add(now);
        }
        if (again.isEmpty()) return;
        for (TaskRecord t : attempt(again, action, tally)) tally.refuse(RefusalCode.VERSION_CONFLICT.name());
    }

    /** Applies {@code action} to {@code batch} and counts what it did; returns the tasks that changed since they were read. */
    private List<TaskRecord> attempt(List<TaskRecord> batch, Action action, Tally tally) {
        Batch b;
        try {
            b = action.apply(batch);
        } catch (RuntimeException e) {
            if (batch.size() == 1) {
                log.warn("bulk change of task {} ({}) failed", batch.get(0).id(), batch.get(0).machine(), e);
                tally.failed++;
                return List.of();
            }
            List<TaskRecord> stale = new ArrayList<>();
            for (TaskRecord t : batch) stale.addAll(attempt(List.of(t), action, tally));
            return stale;
        }
        List<TaskRecord> stale = new ArrayList<>();
        for (Done d : b.done()) {
            switch (d.kind()) {
                case APPLIED -> tally.applied++;
                case REQUESTED -> tally.requested++;
                case REFUSED -> tally.refuse(d.code());
                case STALE -> stale.add(d.task());
                default -> throw new IllegalStateException(d.kind().name());
            }
        }
        tally.alsoDeleted += b.alsoDeleted();
        return stale;
    }

}
