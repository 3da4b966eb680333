package dev.statekit.store.memory;

import dev.statekit.store.CreateResult;
import dev.statekit.store.ScheduleFirer;
import dev.statekit.store.SchedulePass;
import dev.statekit.store.ScheduleRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The recurring schedules of an {@link InMemoryStore}, by name, under one monitor: a schedule pass
 * holds it from reading the due schedules to writing their progress, so passes run one at a time
 * and each occurrence is created once. Thread-safe.
 */
final class InMemorySchedules {
    private final TreeMap<String, ScheduleRecord> schedules = new TreeMap<>();
    private final InMemoryCreations creations;

    InMemorySchedules(InMemoryCreations creations) {
        this.creations = creations;
    }

    synchronized ScheduleRecord upsert(ScheduleRecord given) {
        ScheduleRecord stored = schedules.get(given.name());
        ScheduleRecord next = stored == null ? initial(given) : stored.upsertedWith(given);
        schedules.put(next.name(), next);
        return next;
    }

    private static ScheduleRecord initial(ScheduleRecord given) {
        return new ScheduleRecord(given.name(), given.machine(), given.queue(), given.priority(), given.attributes(), given.payload(),
                given.kind(), given.expression(), given.zone(), given.interval(), given.anchor(), given.misfire(), given.misfireLimit(),
                given.misfireThreshold(), given.paused(), given.last(), given.nextDue(), 0);
    }

    synchronized Optional<ScheduleRecord> get(String name) {
        return Optional.ofNullable(schedules.get(Objects.requireNonNull(name, "name")));
    }

    synchronized List<ScheduleRecord> all() {
        return List.copyOf(schedules.values());
    }

    synchronized Optional<ScheduleRecord> setPaused(String name, boolean paused) {
        ScheduleRecord stored = schedules.get(Objects.requireNonNull(name, "name"));
        if (stored == null) return Optional.empty();
        ScheduleRecord next = stored.withPaused(paused);
        schedules.put(name, next);
        return Optional.of(next);
    }

    synchronized boolean delete(String name) {
        return schedules.remove(Objects.requireNonNull(name, "name")) != null;
    }

    synchronized SchedulePass fire(Collection<String> machines, Instant now, int max, ScheduleFirer firer) {
        Objects.requireNonNull(now, "now");
        Objects.requireNonNull(firer, "firer");
        if (max <= 0) throw new IllegalArgumentException("max must be positive, was " + max);
        Set<String> of = Set.copyOf(machines);
        List<ScheduleRecord> due = new ArrayList<>();
        for (ScheduleRecord s : schedules.values()) {
            if (!s.paused() && of.contains(s.machine()) && !s.nextDue().isAfter(now)) due.add(s);
        }
        due.sort((a, b) -> a.nextDue().equals(b.nextDue()) ? a.name().compareTo(b.name()) : a.nextDue().compareTo(b.nextDue()));
        List<SchedulePass.Fired> fired = new ArrayList<>();
        for (ScheduleRecord s : due.subList(0, Math.min(max, due.size()))) {
            ScheduleFirer.Firing firing = firer.fire(s);
            List<CreateResult> results = creations.createAll(firing.creates());
            List<dev.statekit.store.TaskRecord> created = new ArrayList<>();
            for (CreateResult r : results) if (r.created()) created.add(r.task());
            ScheduleRecord next = s.fired(firing.last(), firing.nextDue());
            schedules.put(next.name(), next);
            fired.add(new SchedulePass.Fired(next, created));
        }
        return new SchedulePass(fired, nextDue(of));
    }

    private @Nullable Instant nextDue(Set<String> machines) {
        Instant earliest = null;
        for (ScheduleRecord s : schedules.values()) {
            if (s.paused() || !machines.contains(s.machine())) continue;
            if (earliest == null || s.nextDue().isBefore(earliest)) earliest = s.nextDue();
        }
        return earliest;
    }
}
