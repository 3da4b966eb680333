package dev.statekit.core.runtime;

import dev.statekit.core.Command;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.spi.Clock;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.test.fixtures.Jobs;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Nothing statekit starts outlives the objects that started it: a plain {@code main} that ran a
 * runtime on the system clock, cancelled a task and closed the runtime leaves no statekit thread
 * behind (a host such as Maven's exec plugin waits for such threads before it returns).
 */
class NothingOutlivesARuntimeTest {

    /** The child program: uses a runtime, closes it, then acts as a host that waits 2 s for statekit threads to end. */
    public static void main(String[] args) throws Exception {
        TransitionEngine engine = TransitionEngine.builder().store(new InMemoryStore()).clock(Clock.system()).build();
        CountDownLatch done = new CountDownLatch(3);
        CountDownLatch hanging = new CountDownLatch(1);
        TaskRuntime runtime = TaskRuntime.builder(engine).owner("child").workers(2).leaseDuration(Duration.ofSeconds(30))
                .cancelGrace(Duration.ofMinutes(5))
                .register(Jobs.MACHINE, "q", ctx -> {
                    if ("hang".equals(ctx.task().attribute("kind"))) {
                        hanging.countDown();
                        CountDownLatch released = new CountDownLatch(1);
                        ctx.onCancel(released::countDown);
                        released.await();
                        return WorkResult.success();
                    }
                    done.countDown();
                    return WorkResult.success();
                }, QueueOptions.defaults())
                .build();
        runtime.start();
        for (int i = 0; i < 3; i++) engine.create(Jobs.MACHINE, TaskSpec.defaults().queue("q"));
        long hang = engine.create(Jobs.MACHINE, TaskSpec.defaults().queue("q").attribute("kind", "hang")).task().id();
        if (!done.await(20, TimeUnit.SECONDS) || !hanging.await(20, TimeUnit.SECONDS)) throw new AssertionError("tasks did not run");
        runtime.cancel(Jobs.MACHINE, hang, Command.user("test"));      // schedules the forced cancellation after 5 minutes
        runtime.close();                                                // grace of 30 s, which the stop does not need
        System.out.println("main returned");

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        List<String> lingering = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (!t.getName().startsWith("statekit")) continue;
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (t.isAlive()) lingering.add(t.getName());
        }
        System.out.println(lingering.isEmpty() ? "no statekit thread left" : "lingering: " + lingering);
        System.exit(lingering.isEmpty() ? 0 : 1);
    }

    @Test
    void aMainThatUsedARuntimeLeavesNoStatekitThreadBehind() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                NothingOutlivesARuntimeTest.class.getName()).redirectErrorStream(true);
        pb.redirectOutput(File.createTempFile("child", ".log"));
        Process child = pb.start();
        boolean exited = child.waitFor(60, TimeUnit.SECONDS);
        String output = Files.readString(pb.redirectOutput().file().toPath(), StandardCharsets.UTF_8);
        if (!exited) child.destroyForcibly();
        assertThat(exited).as("the child ended; output:%n%s", output).isTrue();
        assertThat(output).contains("main returned").contains("no statekit thread left");
        assertThat(child.exitValue()).as("output:%n%s", output).isZero();
    }
}
