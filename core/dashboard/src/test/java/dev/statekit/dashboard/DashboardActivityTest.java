package dev.statekit.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.Command;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.dashboard.DashboardFiguresTest.Event;
import dev.statekit.store.memory.InMemoryStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's activity: per queue, per minute of the last hour, the attempts started,
 * succeeded, failed and retried, read from the store's history through {@code /api/activity}.
 */
class DashboardActivityTest {
    final Instant t0 = Instant.parse("2031-04-05T13:30:00Z");
    final ManualClock clock = new ManualClock(t0);
    final TransitionEngine engine = TransitionEngine.builder().store(new InMemoryStore()).clock(clock).build();

    long job(String queue) {
        return engine.create(DashboardFiguresTest.JOB, TaskSpec.defaults().queue(queue)).task().id();
    }

    void fire(long id, Event... events) {
        for (Event e : events) engine.fire(DashboardFiguresTest.JOB, id, e, Command.system()).orElseThrow();
    }

    @Test
    @SuppressWarnings("unchecked")
    void eachQueueHasAPointPerMinuteWithItsStartsSuccessesFailuresAndRetries() {
        fire(job("jobs"), Event.START, Event.SUCCEED);
        fire(job("jobs"), Event.START, Event.FAIL);
        long flaky = job("jobs");
        fire(flaky, Event.START, Event.BACK_OFF);
        fire(job("other"), Event.FINISH);                         // no attempt: counts as nothing
        clock.advance(Duration.ofMinutes(2));
        fire(flaky, Event.START, Event.SUCCEED);

        Dashboard dashboard = Dashboard.builder(engine).machines(DashboardFiguresTest.JOB).basePath("/ops").build();
        Map<String, Object> activity = DashboardFiguresTest.read(dashboard, "/ops/api/activity");
        assertThat(activity.get("window")).isEqualTo("PT1H");
        assertThat(activity.get("bucket")).isEqualTo("PT1M");
        assertThat(activity.get("series")).isEqualTo(List.of("started", "succeeded", "failed", "retried"));
        List<Object> queues = (List<Object>) activity.get("queues");
        assertThat(queues).hasSize(1);
        Map<String, Object> jobs = (Map<String, Object>) queues.get(0);
        assertThat(jobs.get("queue")).isEqualTo("jobs");
        assertThat(jobs.get("total")).isEqualTo(Map.of("started", 4L, "succeeded", 2L, "failed", 1L, "retried", 1L));
        List<Map<String, Object>> points = (List<Map<String, Object>>) jobs.get("points");
        assertThat(points).hasSize(61);
        assertThat(points.get(58)).isEqualTo(Map.of("at", "2031-04-05T13:30:00Z", "started", 3L, "succeeded", 1L,
                "failed", 1L, "retried", 1L));
        assertThat(points.get(60)).isEqualTo(Map.of("at", "2031-04-05T13:32:00Z", "started", 1L, "succeeded", 1L,
                "failed", 0L, "retried", 0L));

        Map<String, Object> short_ = DashboardFiguresTest.read(dashboard, "/ops/api/activity?minutes=1");
        assertThat((List<Object>) ((Map<String, Object>) ((List<Object>) short_.get("queues")).get(0)).get("points"))
                .as("the last minute: two buckets, the current one still filling").hasSize(2);
        DashboardResponse refused = dashboard.handle(DashboardTest.get("/ops/api/activity?minutes=0"));
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.text()).contains("INVALID_QUERY");
    }
}
