package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.Attributes;
import dev.statekit.store.NewTask;
import dev.statekit.store.ScheduleFirer;
import dev.statekit.store.SchedulePass;
import dev.statekit.store.ScheduleRecord;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on recurring schedules: declaring and changing them, pausing,
 * resuming and deleting them, and passes that create each occurrence once, with several passes at
 * once too. Every store runs it as {@link StoreContract.Schedules}. The firer here is a plain
 * interval walk: the store knows nothing of how a schedule recurs.
 */
abstract class ScheduleContract extends ContractPart {
    private static final Duration MINUTE = Duration.ofMinutes(1);

    ScheduleContract(StoreContract contract) {
        super(contract);
    }

    /** A schedule every {@code every} from {@link #T0} for {@link #MACHINE}, never run, first due at T0. */
    private static ScheduleRecord every(String name, Duration every) {
        return new ScheduleRecord(name, MACHINE, QUEUE, 3, Attributes.of(java.util.Map.of("report", "daily")), "{\"n\":1}",
                ScheduleRecord.INTERVAL, null, null, every, T0, "SKIP", 0, MINUTE, false, null, T0, 0);
    }

    private static ScheduleRecord cron(String name) {
        return new ScheduleRecord(name, MACHINE, null, 0, Attributes.EMPTY, null, ScheduleRecord.CRON, "0 2 * * *", "Europe/Berlin",
                null, null, "RUN_EACH", 3, MINUTE, false, T0.minusSeconds(60), T0.plusSeconds(3600), 0);
    }

    /** Creates each occurrence after the schedule's last one up to {@code now}, keyed {@code name@instant}. */
    private static ScheduleFirer walk(Instant now) {
        return s -> {
            Duration every = java.util.Objects.requireNonNull(s.interval());
            Instant t = s.last() == null ? java.util.Objects.requireNonNull(s.anchor()) : s.last().plus(every);
            List<NewTask> creates = new ArrayList<>();
            Instant latest = null;
            for (; !t.isAfter(now); t = t.plus(every)) {
                creates.add(occurrence(s, t));
                latest = t;
            }
            return new ScheduleFirer.Firing(creates, latest, t);
        };
    }

    private static NewTask occurrence(ScheduleRecord s, Instant at) {
        return new NewTask(s.machine(), 1, READY, s.queue() == null ? QUEUE : s.queue(), s.priority(), null, s.attributes(), s.payload(),
                s.name() + "@" + at, null, at, List.of());
    }

    private List<TaskRecord> all() {
        return store.query(TaskQuery.all().limit(TaskQuery.MAX_LIMIT)).items();
    }

    @Test
    public void aDeclaredScheduleIsStoredAtVersionZeroAndReadBack() {
        ScheduleRecord given = every("hourly", HOUR);
        ScheduleRecord stored = store.upsertSchedule(given);
        assertThat(stored).isEqualTo(given);
        assertThat(store.schedule("hourly")).contains(given);
        assertThat(store.upsertSchedule(cron("nightly"))).isEqualTo(cron("nightly"));
        assertThat(store.schedules()).extracting(ScheduleRecord::name).containsExactly("hourly", "nightly");
        assertThat(store.schedule("nightly")).contains(cron("nightly"));
        assertThat(store.schedule("none")).isEmpty();
    }

    @Test
    public void declaringTheSameDefinitionAgainKeepsTheProgress() {
        store.upsertSchedule(every("hourly", HOUR));
        SchedulePass pass = store.fireSchedules(List.of(MACHINE), T0.plus(HOUR), 10, walk(T0.plus(HOUR)));
        ScheduleRecord after = pass.fired().get(0).schedule();
        assertThat(after.last()).isEqualTo(T0.plus(HOUR));
        assertThat(after.nextDue()).isEqualTo(T0.plus(HOUR).plus(HOUR));
        assertThat(after.version()).isEqualTo(1);
        // a process starting again declares it as it was first declared: nothing changes
        assertThat(store.upsertSchedule(every("hourly", HOUR))).isEqualTo(after);
        assertThat(store.schedule("hourly")).contains(after);
    }

    @Test
    public void aChangedTemplateKeepsTheProgressAndAChangedTimingTakesTheGivenOne() {
        store.upsertSchedule(every("hourly", HOUR));
        store.fireSchedules(List.of(MACHINE), T0, 10, walk(T0));
        ScheduleRecord before = store.schedule("hourly").orElseThrow();
        assertThat(before.last()).isEqualTo(T0);
        ScheduleRecord template = new ScheduleRecord("hourly", MACHINE, "other", 9, Attributes.EMPTY, null, ScheduleRecord.INTERVAL, null,
                null, HOUR, T0, "RUN_ONCE", 1, MINUTE, false, null, T0, 0);
        ScheduleRecord changed = store.upsertSchedule(template);
        assertThat(changed.queue()).isEqualTo("other");
        assertThat(changed.priority()).isEqualTo(9);
        assertThat(changed.misfire()).isEqualTo("RUN_ONCE");
        assertThat(changed.last()).as("kept").isEqualTo(T0);
        assertThat(changed.nextDue()).as("kept").isEqualTo(T0.plus(HOUR));
        assertThat(changed.version()).isEqualTo(before.version() + 1);
        assertThat(store.pauseSchedule("hourly")).isPresent();
        ScheduleRecord timing = new ScheduleRecord("hourly", MACHINE, "other", 9, Attributes.EMPTY, null, ScheduleRecord.INTERVAL, null,
                null, MINUTE, T0, "RUN_ONCE", 1, MINUTE, false, T0.plusSeconds(600), T0.plusSeconds(660), 0);
        ScheduleRecord retimed = store.upsertSchedule(timing);
        assertThat(retimed.interval()).isEqualTo(MINUTE);
        assertThat(retimed.last()).as("given").isEqualTo(T0.plusSeconds(600));
        assertThat(retimed.nextDue()).as("given").isEqualTo(T0.plusSeconds(660));
        assertThat(retimed.paused()).as("a declaration does not resume a paused schedule").isTrue();
        assertThat(store.schedule("hourly")).contains(retimed);
    }

    @Test
    public void aPassCreatesTheDueOccurrencesWithTheirKeysAndAdvancesTheSchedule() {
        store.upsertSchedule(every("hourly", HOUR));
        store.upsertSchedule(every("later", HOUR).fired(null, T0.plus(Duration.ofDays(1))));
        Instant now = T0.plus(HOUR).plusSeconds(1);
        SchedulePass pass = store.fireSchedules(List.of(MACHINE), now, 10, walk(now));
        assertThat(pass.fired()).hasSize(1);
        assertThat(pass.created()).extracting(TaskRecord::idempotencyKey).containsExactly("hourly@" + T0, "hourly@" + T0.plus(HOUR));
        TaskRecord first = pass.created().get(0);
        assertThat(first.machine()).isEqualTo(MACHINE);
        assertThat(first.queue()).isEqualTo(QUEUE);
        assertThat(first.priority()).isEqualTo(3);
        assertThat(first.attributes()).isEqualTo(Attributes.of(java.util.Map.of("report", "daily")));
        assertThat(first.payload()).isEqualTo("{\"n\":1}");
        assertThat(first.version()).isZero();
        assertThat(all()).hasSize(2);
        ScheduleRecord after = store.schedule("hourly").orElseThrow();
        assertThat(after).isEqualTo(pass.fired().get(0).schedule());
        assertThat(after.last()).isEqualTo(T0.plus(HOUR));
        assertThat(after.nextDue()).isEqualTo(T0.plus(HOUR).plus(HOUR));
        assertThat(pass.nextDue()).as("the earliest next due").isEqualTo(T0.plus(HOUR).plus(HOUR));
        // nothing is due again until the next occurrence
        SchedulePass again = store.fireSchedules(List.of(MACHINE), now, 10, walk(now));
        assertThat(again.fired()).isEmpty();
        assertThat(again.nextDue()).isEqualTo(T0.plus(HOUR).plus(HOUR));
        assertThat(all()).hasSize(2);
    }

    @Test
    public void aReplayedOccurrenceIsNotCreatedTwice() {
        store.upsertSchedule(every("hourly", HOUR));
        // a firer that forgets the progress and creates the first occurrence at every pass
        ScheduleRecord declared = every("hourly", HOUR);
        ScheduleFirer forgetful = s -> new ScheduleFirer.Firing(List.of(occurrence(declared, T0)), T0, T0);
        SchedulePass first = store.fireSchedules(List.of(MACHINE), T0, 10, forgetful);
        SchedulePass replay = store.fireSchedules(List.of(MACHINE), T0, 10, forgetful);
        assertThat(first.created()).hasSize(1);
        assertThat(replay.fired()).hasSize(1);
        assertThat(replay.created()).as("its key's task exists").isEmpty();
        assertThat(all()).hasSize(1);
    }

    @Test
    public void pausedSchedulesAndOtherMachinesSchedulesAreLeftAlone() {
        store.upsertSchedule(every("hourly", HOUR));
        ScheduleRecord paused = store.pauseSchedule("hourly").orElseThrow();
        assertThat(paused.paused()).isTrue();
        assertThat(paused.version()).isEqualTo(1);
        Instant now = T0.plus(HOUR);
        SchedulePass pass = store.fireSchedules(List.of(MACHINE), now, 10, walk(now));
        assertThat(pass.fired()).isEmpty();
        assertThat(pass.nextDue()).as("paused schedules fall due never").isNull();
        assertThat(all()).isEmpty();
        ScheduleRecord resumed = store.resumeSchedule("hourly").orElseThrow();
        assertThat(resumed.paused()).isFalse();
        assertThat(store.fireSchedules(List.of("other-machine"), now, 10, walk(now)).fired()).isEmpty();
        assertThat(store.fireSchedules(List.of(MACHINE), now, 10, walk(now)).created()).hasSize(2);
        assertThat(store.pauseSchedule("none")).isEmpty();
        assertThat(store.resumeSchedule("none")).isEmpty();
    }

    @Test
    public void aDeletedScheduleIsGoneAndItsTasksStay() {
        store.upsertSchedule(every("hourly", HOUR));
        store.fireSchedules(List.of(MACHINE), T0, 10, walk(T0));
        assertThat(store.deleteSchedule("hourly")).isTrue();
        assertThat(store.deleteSchedule("hourly")).isFalse();
        assertThat(store.schedule("hourly")).isEmpty();
        assertThat(store.schedules()).isEmpty();
        assertThat(store.fireSchedules(List.of(MACHINE), T0.plus(HOUR), 10, walk(T0.plus(HOUR))).fired()).isEmpty();
        assertThat(all()).hasSize(1);
    }

    @Test
    public void aPassTakesAtMostMaxSchedulesEarliestDueFirst() {
        for (int i = 0; i < 5; i++) store.upsertSchedule(every("s" + i, HOUR).fired(null, T0.plusSeconds(5 - i)));
        Instant now = T0.plusSeconds(10);
        SchedulePass pass = store.fireSchedules(List.of(MACHINE), now, 2, walk(now));
        assertThat(pass.fired()).extracting(f -> f.schedule().name()).containsExactly("s4", "s3");
        assertThat(pass.nextDue()).isEqualTo(T0.plusSeconds(3));
    }

    @Test
    public void concurrentPassesCreateEachOccurrenceOnce() throws Exception {
        int schedules = 4;
        int minutes = 30;
        for (int i = 0; i < schedules; i++) store.upsertSchedule(every("m" + i, MINUTE));
        ConcurrentLinkedQueue<TaskRecord> created = new ConcurrentLinkedQueue<>();
        concurrently(3, thread -> {
            for (int m = 0; m < minutes; m++) {
                Instant now = T0.plus(MINUTE.multipliedBy(m));
                SchedulePass pass = store.fireSchedules(List.of(MACHINE), now, 2, walk(now));
                created.addAll(pass.created());
            }
        });
        // whatever was left to a later pass by a pass that took at most 2
        Instant end = T0.plus(MINUTE.multipliedBy(minutes - 1));
        for (int k = 0; k < schedules; k++) created.addAll(store.fireSchedules(List.of(MACHINE), end, 10, walk(end)).created());
        List<TaskRecord> tasks = all();
        assertThat(tasks).hasSize(schedules * minutes);
        assertThat(created).hasSize(schedules * minutes);
        Set<@Nullable String> keys = new HashSet<>();
        for (TaskRecord t : tasks) assertThat(keys.add(t.idempotencyKey())).as("key %s once", t.idempotencyKey()).isTrue();
        for (int i = 0; i < schedules; i++) {
            assertThat(store.schedule("m" + i).orElseThrow().last()).isEqualTo(end);
        }
    }
}
