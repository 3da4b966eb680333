package dev.statekit.core.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.ops.ScheduleView;
import dev.statekit.core.ops.TaskOperations;
import dev.statekit.core.schedule.Misfire;
import dev.statekit.core.schedule.Recurrence;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.ManualExecutor;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.TaskQuery;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.test.fixtures.Jobs;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Recurring schedules run by a runtime under a manual clock and a manual executor: occurrences
 * created at their instants, missed ones by the misfire policy after the runtime was down, pause
 * and resume, changes at run time, and the reads a dashboard shows.
 */
class RuntimeSchedulesTest {
    static final Instant START = Instant.parse("2026-03-01T08:00:00Z");
    static final Duration MINUTE = Duration.ofMinutes(1);

    final ManualClock clock = new ManualClock(START);
    final ManualExecutor executor = new ManualExecutor();
    final InMemoryStore store = new InMemoryStore();
    final TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock).build();
    final TaskOperations ops = TaskOperations.of(engine);

    /** Every ten minutes from 08:01:30. */
    static Recurrence tenMinutes(Misfire misfire) {
        return Recurrence.builder("ten").every(Duration.ofMinutes(10)).anchor(START.plusSeconds(90)).misfire(misfire).build();
    }

    TaskRuntimeBuilder builder() {
        return TaskRuntime.builder(engine).owner("r").executor(executor).workers(2).pollInterval(MINUTE).seed(7)
                .register(Jobs.MACHINE, "q", ctx -> WorkResult.success(), QueueOptions.defaults());
    }

    /** Advances the clock second by second, running what falls due. */
    void advance(Duration d) {
        for (long s = 0; s < d.toSeconds(); s++) {
            clock.advance(Duration.ofSeconds(1));
            executor.runAll();
        }
    }

    List<TaskRecord> tasks() {
        return store.query(TaskQuery.all().limit(TaskQuery.MAX_LIMIT)).items();
    }

    List<String> keys() {
        return tasks().stream().map(TaskRecord::idempotencyKey).toList();
    }

    static String key(String name, Instant at) {
        return name + "@" + at;
    }

    @Test
    void eachOccurrenceIsCreatedAtItsInstantAndRuns() {
        TaskRuntime rt = builder().schedule(Jobs.MACHINE, tenMinutes(Misfire.skip()),
                TaskSpec.defaults().queue("q").priority(4).attribute("report", "daily").payload("{}")).build();
        rt.start();
        executor.runAll();
        assertThat(tasks()).isEmpty();
        advance(Duration.ofMinutes(25));
        List<TaskRecord> created = tasks();
        assertThat(created).extracting(TaskRecord::idempotencyKey).containsExactly(key("ten", START.plusSeconds(90)),
                key("ten", START.plusSeconds(690)), key("ten", START.plusSeconds(1290)));
        TaskRecord first = created.get(0);
        assertThat(first.createdAt()).as("created at its instant, between two polls").isEqualTo(START.plusSeconds(90));
        assertThat(created.get(2).createdAt()).isEqualTo(START.plusSeconds(1290));
        assertThat(first.queue()).isEqualTo("q");
        assertThat(first.priority()).isEqualTo(4);
        assertThat(first.payload()).isEqualTo("{}");
        assertThat(first.attributes().get("report")).isEqualTo("daily");
        assertThat(first.attributes().get("schedule")).isEqualTo("ten");
        assertThat(first.attributes().get("scheduled_at")).isEqualTo(START.plusSeconds(90).toString());
        assertThat(created).allSatisfy(t -> assertThat(engine.find(Jobs.MACHINE, t.id()).orElseThrow().state()).isEqualTo(Jobs.State.DONE));
        ScheduleView view = ops.schedule("ten").orElseThrow();
        assertThat(view.record().nextDue()).isEqualTo(START.plusSeconds(1890));
        assertThat(view.next()).hasSize(TaskOperations.NEXT_OCCURRENCES).startsWith(START.plusSeconds(1890), START.plusSeconds(2490));
        rt.halt();
    }

    @Test
    void occurrencesMissedWhileNothingRanFollowEachSchedulesPolicy() {
        Recurrence skip = Recurrence.builder("skip").every(Duration.ofMinutes(10)).anchor(START.plusSeconds(90)).build();
        Recurrence once = Recurrence.builder("once").every(Duration.ofMinutes(10)).anchor(START.plusSeconds(90)).misfire(Misfire.runOnce()).build();
        Recurrence each = Recurrence.builder("each").every(Duration.ofMinutes(10)).anchor(START.plusSeconds(90)).misfire(Misfire.runEach(2)).build();
        TaskRuntime first = builder().schedule(Jobs.MACHINE, skip, TaskSpec.defaults().queue("q")).schedule(Jobs.MACHINE, once, TaskSpec.defaults().queue("q"))
                .schedule(Jobs.MACHINE, each, TaskSpec.defaults().queue("q")).build();
        first.start();
        advance(Duration.ofMinutes(2));
        assertThat(keys()).containsExactlyInAnyOrder(key("skip", START.plusSeconds(90)), key("once", START.plusSeconds(90)),
                key("each", START.plusSeconds(90)));
        first.halt();
        // down from 08:02 to 09:05:00: 08:11:30 to 09:01:30 missed (six occurrences)
        clock.advanceTo(START.plus(Duration.ofMinutes(65)));
        TaskRuntime second = builder().schedule(Jobs.MACHINE, skip, TaskSpec.defaults().queue("q")).schedule(Jobs.MACHINE, once, TaskSpec.defaults().queue("q"))
                .schedule(Jobs.MACHINE, each, TaskSpec.defaults().queue("q")).build();
        second.start();
        executor.runAll();
        assertThat(keys()).containsExactlyInAnyOrder(key("skip", START.plusSeconds(90)), key("once", START.plusSeconds(90)),
                key("each", START.plusSeconds(90)),
                key("once", START.plusSeconds(3690)),
                key("each", START.plusSeconds(3090)), key("each", START.plusSeconds(3690)));
        advance(Duration.ofMinutes(7));
        assertThat(keys()).as("on time again at 09:11:30").contains(key("skip", START.plusSeconds(4290)), key("once", START.plusSeconds(4290)),
                key("each", START.plusSeconds(4290))).hasSize(9);
        second.halt();
    }

    @Test
    void aPausedScheduleCreatesNothingUntilResumed() {
        TaskRuntime rt = builder().schedule(Jobs.MACHINE, tenMinutes(Misfire.runOnce()), TaskSpec.defaults().queue("q")).build();
        rt.start();
        advance(Duration.ofMinutes(2));
        assertThat(tasks()).hasSize(1);
        assertThat(ops.pauseSchedule("ten").orElseThrow().paused()).isTrue();
        advance(Duration.ofMinutes(30));
        assertThat(tasks()).as("paused over three occurrences").hasSize(1);
        assertThat(ops.resumeSchedule("ten").orElseThrow().paused()).isFalse();
        advance(MINUTE);
        assertThat(keys()).as("the latest missed one, by RUN_ONCE").containsExactly(key("ten", START.plusSeconds(90)),
                key("ten", START.plusSeconds(1890)));
        assertThat(ops.pauseSchedule("none")).isEmpty();
        assertThat(ops.deleteSchedule("ten")).isTrue();
        advance(Duration.ofMinutes(20));
        assertThat(tasks()).as("deleted: nothing more").hasSize(2);
        assertThat(ops.schedules()).isEmpty();
        rt.halt();
    }

    @Test
    void aScheduleChangedAtRunTimeRunsOnItsNewTiming() {
        TaskRuntime rt = builder().schedule(Jobs.MACHINE, tenMinutes(Misfire.skip()), TaskSpec.defaults().queue("q")).build();
        rt.start();
        advance(Duration.ofMinutes(2));
        assertThat(tasks()).hasSize(1);
        // at 08:02, every hour on the hour in Berlin (09:00 UTC is 10:00 in Berlin)
        Recurrence hourly = Recurrence.builder("ten").cron("0 * * * *").zone(ZoneId.of("Europe/Berlin")).build();
        ScheduleView changed = ops.schedule(Jobs.MACHINE, hourly, TaskSpec.defaults().queue("q"));
        assertThat(changed.record().nextDue()).isEqualTo(Instant.parse("2026-03-01T09:00:00Z"));
        assertThat(changed.next()).startsWith(Instant.parse("2026-03-01T09:00:00Z"), Instant.parse("2026-03-01T10:00:00Z"));
        // a new schedule declared at run time, for a machine the runtime serves
        ops.schedule(Jobs.MACHINE, Recurrence.builder("quarter").cron("*/15 * * * *").zone(java.time.ZoneOffset.UTC).build(),
                TaskSpec.defaults().queue("q"));
        assertThat(ops.schedules()).extracting(ScheduleView::name).containsExactly("quarter", "ten");
        advance(Duration.ofMinutes(60));
        assertThat(keys()).containsExactly(key("ten", START.plusSeconds(90)), key("quarter", Instant.parse("2026-03-01T08:15:00Z")),
                key("quarter", Instant.parse("2026-03-01T08:30:00Z")), key("quarter", Instant.parse("2026-03-01T08:45:00Z")),
                key("quarter", Instant.parse("2026-03-01T09:00:00Z")), key("ten", Instant.parse("2026-03-01T09:00:00Z")));
        // declaring it again unchanged, as a restart does, keeps its progress
        assertThat(ops.schedule(Jobs.MACHINE, hourly, TaskSpec.defaults().queue("q")).record())
                .isEqualTo(store.schedule("ten").orElseThrow());
        rt.halt();
    }

    @Test
    void theBuilderRefusesATwiceDeclaredNameAndATemplateThatDoesNotRepeat() {
        TaskRuntimeBuilder b = builder().schedule(Jobs.MACHINE, tenMinutes(Misfire.skip()));
        assertThatThrownBy(() -> b.schedule(Jobs.MACHINE, tenMinutes(Misfire.runOnce())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ten is already declared");
        Recurrence other = Recurrence.builder("other").every(MINUTE).anchor(START).build();
        assertThatThrownBy(() -> b.schedule(Jobs.MACHINE, other, TaskSpec.defaults().idempotencyKey("k")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("queue, priority, attributes and payload only");
        assertThatThrownBy(() -> ops.schedule(Jobs.MACHINE, other, TaskSpec.defaults().notBefore(START)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
