package dev.statekit.jdbc.bench.pressure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The harness adapter's protocol: its settings from the environment, the lines it reads and the lines it writes (no database). */
class HarnessAdapterTest {

    private static Map<String, String> env(String... pairs) {
        Map<String, String> env = new HashMap<>();
        env.put("DATABASE_URL", "postgres://bench:bench@localhost:15555/statekit_bench");
        for (int i = 0; i < pairs.length; i += 2) env.put(pairs[i], pairs[i + 1]);
        return env;
    }

    @Test
    void readsTheHarnessDefaultsFromAnEnvironmentWithOnlyTheDatabase() {
        HarnessAdapter.Settings s = HarnessAdapter.Settings.from(env());
        assertThat(s.jdbcUrl()).isEqualTo("jdbc:postgresql://localhost:15555/statekit_bench");
        assertThat(s.user()).isEqualTo("bench");
        assertThat(s.password()).isEqualTo("bench");
        assertThat(s.dbName()).isEqualTo("statekit_bench");
        assertThat(s.scenario()).isEqualTo("long_horizon");
        assertThat(s.producerMode()).isEqualTo("fixed");
        assertThat(s.producerRate()).isEqualTo(800);
        assertThat(s.batchMax()).isEqualTo(128);
        assertThat(s.batchMillis()).isEqualTo(25);
        assertThat(s.pacing()).isEqualTo("adapter");
        assertThat(s.targetDepth()).isEqualTo(1000);
        assertThat(s.workers()).isEqualTo(32);
        assertThat(s.payloadBytes()).isEqualTo(256);
        assertThat(s.workMillis()).isEqualTo(1);
        assertThat(s.sampleEverySeconds()).isEqualTo(5);
        assertThat(s.instanceId()).isZero();
        assertThat(s.observer()).isTrue();
        assertThat(s.produces()).isTrue();
        assertThat(s.harnessPaced()).isFalse();
        assertThat(s.rateControlFile()).isNull();
        assertThat(s.prefix()).isEqualTo("statekit_");
        assertThat(s.claimBatch()).isEqualTo(32);
        assertThat(s.eventTables()).containsExactly("public.statekit_tasks", "public.statekit_history");
    }

    @Test
    void readsEverySettingTheHarnessPasses() {
        HarnessAdapter.Settings s = HarnessAdapter.Settings.from(env("PRODUCER_MODE", "depth-target", "PRODUCER_RATE", "1200",
                "PRODUCER_BATCH_MAX", "64", "PRODUCER_BATCH_MS", "10", "PRODUCER_PACING", "harness", "TARGET_DEPTH", "5000",
                "WORKER_COUNT", "8", "JOB_PAYLOAD_BYTES", "0", "JOB_WORK_MS", "0", "SAMPLE_EVERY_S", "2", "BENCH_INSTANCE_ID", "1",
                "PRODUCER_ONLY_INSTANCE_ZERO", "1", "PRODUCER_RATE_CONTROL_FILE", "/control/producer_rate.txt",
                "STATEKIT_TABLE_PREFIX", "sk_", "STATEKIT_CLAIM_BATCH", "16"));
        assertThat(s.producerMode()).isEqualTo("depth-target");
        assertThat(s.producerRate()).isEqualTo(1200);
        assertThat(s.batchMax()).isEqualTo(64);
        assertThat(s.batchMillis()).isEqualTo(10);
        assertThat(s.pacing()).isEqualTo("harness");
        assertThat(s.harnessPaced()).as("the harness paces only a fixed rate").isFalse();
        assertThat(s.targetDepth()).isEqualTo(5000);
        assertThat(s.workers()).isEqualTo(8);
        assertThat(s.payloadBytes()).isZero();
        assertThat(s.workMillis()).isZero();
        assertThat(s.sampleEverySeconds()).isEqualTo(2);
        assertThat(s.instanceId()).isEqualTo(1);
        assertThat(s.observer()).isFalse();
        assertThat(s.produces()).isFalse();
        assertThat(s.rateControlFile()).isEqualTo(Paths.get("/control/producer_rate.txt"));
        assertThat(s.eventTables()).containsExactly("public.sk_tasks", "public.sk_history");
        assertThat(s.claimBatch()).isEqualTo(16);
        assertThat(HarnessAdapter.Settings.from(env("PRODUCER_PACING", "harness")).harnessPaced()).isTrue();
    }

    @Test
    void turnsDatabaseUrlsIntoJdbcOnes() {
        assertThat(HarnessAdapter.jdbc("postgresql://us%40er:p%3Ass%2Fw0rd@db.example:5432/jobs?sslmode=disable"))
                .containsExactly("jdbc:postgresql://db.example:5432/jobs?sslmode=disable", "us@er", "p:ss/w0rd", "jobs");
        assertThat(HarnessAdapter.jdbc("postgres://bench@localhost/bench")).containsExactly("jdbc:postgresql://localhost/bench", "bench", "", "bench");
        assertThat(HarnessAdapter.jdbc("jdbc:postgresql://127.0.0.1:5432/bench?user=bench&password=s%26cret"))
                .containsExactly("jdbc:postgresql://127.0.0.1:5432/bench?user=bench&password=s%26cret", "bench", "s&cret", "bench");
    }

    @Test
    void refusesAMissingDatabaseAndBadValues() {
        assertThatThrownBy(() -> HarnessAdapter.Settings.from(Map.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("DATABASE_URL");
        assertThatThrownBy(() -> HarnessAdapter.Settings.from(Map.of("DATABASE_URL", "mysql://x/y")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("postgres://");
        assertThatThrownBy(() -> HarnessAdapter.Settings.from(env("PRODUCER_RATE", "fast")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PRODUCER_RATE");
        assertThatThrownBy(() -> HarnessAdapter.Settings.from(env("WORKER_COUNT", "0")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("WORKER_COUNT");
        assertThatThrownBy(() -> HarnessAdapter.Settings.from(env("PRODUCER_MODE", "burst")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PRODUCER_MODE");
        assertThatThrownBy(() -> HarnessAdapter.Settings.from(env("PRODUCER_PACING", "both")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PRODUCER_PACING");
    }

    @Test
    void readsEnqueueTokensAndIgnoresOtherLines() {
        assertThat(HarnessAdapter.enqueueToken("ENQUEUE 128")).isEqualTo(128);
        assertThat(HarnessAdapter.enqueueToken("ENQUEUE 7\r")).isEqualTo(7);
        assertThat(HarnessAdapter.enqueueToken("ENQUEUE 0")).isEqualTo(-1);
        assertThat(HarnessAdapter.enqueueToken("ENQUEUE -3")).isEqualTo(-1);
        assertThat(HarnessAdapter.enqueueToken("ENQUEUE many")).isEqualTo(-1);
        assertThat(HarnessAdapter.enqueueToken("STOP")).isEqualTo(-1);
        assertThat(HarnessAdapter.enqueueToken("")).isEqualTo(-1);
    }

    @Test
    void readsTheRateFromTheControlFileAndFallsBackWithoutOne() throws IOException {
        Path dir = Files.createTempDirectory("harness-control");
        Path file = dir.resolve("producer_rate.txt");
        try {
            assertThat(HarnessAdapter.controlRate(null, 800)).isEqualTo(800);
            assertThat(HarnessAdapter.controlRate(file, 800)).as("no file yet").isEqualTo(800);
            Files.writeString(file, "1200.0\n");
            assertThat(HarnessAdapter.controlRate(file, 800)).isEqualTo(1200);
            Files.writeString(file, "PRODUCER_TARGET_RATE=600");
            assertThat(HarnessAdapter.controlRate(file, 800)).isEqualTo(600);
            Files.writeString(file, "garbage");
            assertThat(HarnessAdapter.controlRate(file, 800)).isEqualTo(800);
        } finally {
            Files.deleteIfExists(file);
            Files.delete(dir);
        }
    }

    @Test
    void alignsTheFirstSampleToTheWallClock() {
        assertThat(HarnessAdapter.untilBoundary(1_700_000_001_200L, 5)).isEqualTo(3_800);
        assertThat(HarnessAdapter.untilBoundary(1_700_000_000_000L, 5)).isEqualTo(5_000);
        assertThat(HarnessAdapter.untilBoundary(1_700_000_004_999L, 5)).isEqualTo(1);
    }

    @Test
    void writesTheDescriptorLine() {
        HarnessAdapter.Settings s = HarnessAdapter.Settings.from(env("BENCH_INSTANCE_ID", "2"));
        assertThat(HarnessAdapter.descriptor(s, "0.9.0", Instant.parse("2026-04-17T09:00:10Z"))).isEqualTo(
                "{\"kind\":\"descriptor\",\"system\":\"statekit\",\"instance_id\":2,"
                        + "\"event_tables\":[\"public.statekit_tasks\",\"public.statekit_history\"],\"event_indexes\":[],"
                        + "\"extensions\":[],\"version\":\"0.9.0\",\"schema_version\":\"current\",\"db_name\":\"statekit_bench\","
                        + "\"started_at\":\"2026-04-17T09:00:10.000Z\"}");
    }

    @Test
    void writesOneSampleLinePerMetric() {
        assertThat(HarnessAdapter.sample(Instant.parse("2026-04-17T09:00:10.123456Z"), 0, "claim_p99_ms", 4.25, 30)).isEqualTo(
                "{\"t\":\"2026-04-17T09:00:10.123Z\",\"system\":\"statekit\",\"kind\":\"adapter\",\"subject_kind\":\"adapter\","
                        + "\"subject\":\"\",\"metric\":\"claim_p99_ms\",\"value\":4.250,\"window_s\":30.0,\"instance_id\":0}");
        assertThat(HarnessAdapter.sample(Instant.parse("2026-04-17T09:00:15Z"), 1, "queue_depth", 17, 0))
                .contains("\"t\":\"2026-04-17T09:00:15.000Z\"", "\"value\":17.0,\"window_s\":0.0,\"instance_id\":1");
        assertThat(HarnessAdapter.sample(Instant.parse("2026-04-17T09:00:15Z"), 0, "claim_p50_ms", Double.NaN, 30))
                .as("JSON has no NaN").contains("\"value\":0.0");
        assertThat(HarnessAdapter.json("a\"b\\c\nd\u0001")).isEqualTo("\"a\\\"b\\\\c\\nd\\u0001\"");
    }

    @Test
    void keepsClaimLatenciesOverTheLastThirtySeconds() {
        HarnessAdapter.Rolling rolling = new HarnessAdapter.Rolling(30, 10);
        for (int i = 1; i <= 100; i++) rolling.record(i * 1000L);     // 1 .. 100 ms
        double[] first = rolling.roll();
        assertThat(first[0]).isBetween(49.9, 50.1);
        assertThat(first[1]).isBetween(94.9, 95.1);
        assertThat(first[2]).isBetween(98.9, 99.1);
        rolling.record(1_000_000);      // 1 s, in the second period
        assertThat(rolling.roll()[2]).as("the first period is still in the window").isBetween(99.9, 100.1);
        rolling.roll();
        double[] last = rolling.roll();
        for (double q : last) assertThat(q).as("only the 1 s value is left").isBetween(999.5, 1000.5);
        assertThat(rolling.roll()).as("an empty window reports zeros").containsExactly(0.0, 0.0, 0.0);
    }
}
