package dev.statekit.spring;

import static dev.statekit.store.TriggerSource.SYSTEM;

import dev.statekit.core.Machine;
import dev.statekit.core.spi.WorkContext;
import dev.statekit.core.spi.WorkResult;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** The machine of the starter's tests, and a worker that records what it ran and can be held. */
final class Jobs {
    enum State { QUEUED, RUNNING, DONE, FAILED }

    enum Event { START, FINISH, FAIL }

    static final Machine<State, Event> JOB = Machine.builder("spring-job", State.class, Event.class)
            .initial(State.QUEUED)
            .terminal(State.DONE, State.FAILED)
            .transition(State.QUEUED, Event.START, State.RUNNING, SYSTEM)
            .transition(State.RUNNING, Event.FINISH, State.DONE, SYSTEM)
            .transition(State.RUNNING, Event.FAIL, State.FAILED, SYSTEM)
            .run(r -> r.claim(State.QUEUED, Event.START).success(Event.FINISH).fatal(Event.FAIL))
            .build();

    private Jobs() {}

    /** A worker that records every task it starts and finishes, and waits for {@link #release()} when held. */
    static final class Recorder {
        final Set<Long> started = ConcurrentHashMap.newKeySet();
        final Set<Long> finished = ConcurrentHashMap.newKeySet();
        final CountDownLatch firstStarted = new CountDownLatch(1);
        private volatile CountDownLatch gate = new CountDownLatch(0);

        /** Holds every task that starts from now on until {@link #release()}. */
        void hold() {
            gate = new CountDownLatch(1);
        }

        void release() {
            gate.countDown();
        }

        WorkResult work(WorkContext<State> context) throws InterruptedException {
            long id = context.task().id();
            started.add(id);
            firstStarted.countDown();
            if (!gate.await(1, TimeUnit.MINUTES)) return WorkResult.fatal("held", "the test never released the task");
            finished.add(id);
            return WorkResult.success();
        }
    }

    static final Duration WAIT = Duration.ofSeconds(30);
}
