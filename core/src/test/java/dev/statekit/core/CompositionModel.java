package dev.statekit.core;

import dev.statekit.core.runtime.RuntimeModelExecutor;
import dev.statekit.core.runtime.TaskRuntime;
import static dev.statekit.store.TriggerSource.SYSTEM;
import static dev.statekit.store.TriggerSource.USER;

import dev.statekit.core.spi.ManualClock;
import dev.statekit.core.spi.WorkContext;
import dev.statekit.core.spi.WorkResult;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.TaskRecord;
import dev.statekit.test.fixtures.Chunks;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The model of {@link CompositionPropertiesTest}: jobs whose chunks are their children, and steps that
 * depend on jobs and on other steps, run by one or two runtimes that crash and are replaced, with
 * pauses, cancellations, retries of failed chunks and resolution passes from a process that runs
 * no worker. {@link #check()} holds after every action; {@link #settle()} lets everything finish and
 * checks that each parent is in the state its children imply and nothing waits on an ended dependency.
 */
final class CompositionModel {
    enum JobState { PROCESSING, PAUSED, DONE, ERROR, CANCELLED }

    enum JobEvent { CHUNKS_DONE, CHUNKS_FAILED, REOPEN, PAUSE, RESUME, CANCEL }

    enum StepState { QUEUED, RUNNING, DONE, FAILED, CANCELLED }

    enum StepEvent { START, COMPLETE, FAIL, CANCEL, UPSTREAM_FAILED, RELEASE }

    static final Machine<Chunks.State, Chunks.Event> CHUNK = Chunks.machine("m-chunk", SYSTEM);

    static final Machine<JobState, JobEvent> JOB = Machine.builder("m-job", JobState.class, JobEvent.class)
            .initial(JobState.PROCESSING)
            .terminal(JobState.DONE, JobState.CANCELLED)
            .succeeded(JobState.DONE).failed(JobState.ERROR).cancelled(JobState.CANCELLED)
            .transition(JobState.PROCESSING, JobEvent.CHUNKS_DONE, JobState.DONE, SYSTEM)
            .transition(JobState.PROCESSING, JobEvent.CHUNKS_FAILED, JobState.ERROR, SYSTEM)
            .transition(JobState.ERROR, JobEvent.REOPEN, JobState.PROCESSING, SYSTEM)
            .transition(JobState.PROCESSING, JobEvent.PAUSE, JobState.PAUSED, USER)
            .transition(JobState.PAUSED, JobEvent.RESUME, JobState.PROCESSING, USER)
            .transition(JobState.PROCESSING, JobEvent.CANCEL, JobState.CANCELLED, USER)
            .transition(JobState.PAUSED, JobEvent.CANCEL, JobState.CANCELLED, USER)
            .transition(JobState.ERROR, JobEvent.CANCEL, JobState.CANCELLED, USER)
            .children(CHUNK, c -> c.whenSucceeded(JobEvent.CHUNKS_DONE).whenFailed(JobEvent.CHUNKS_FAILED).reopen(JobEvent.REOPEN)
                    .holdIn(JobState.PAUSED).cancelIn(JobState.CANCELLED))
            .build();

    static final Machine<StepState, StepEvent> STEP = Machine.builder("m-step", StepState.class, StepEvent.class)
            .initial(StepState.QUEUED)
            .terminal(StepState.DONE, StepState.FAILED, StepState.CANCELLED)
            .succeeded(StepState.DONE).failed(StepState.FAILED).cancelled(StepState.CANCELLED)
            .transition(StepState.QUEUED, StepEvent.START, StepState.RUNNING, SYSTEM)
            .transition(StepState.RUNNING, StepEvent.COMPLETE, StepState.DONE, SYSTEM)
            .transition(StepState.RUNNING, StepEvent.FAIL, StepState.FAILED, SYSTEM)
            .transition(StepState.RUNNING, StepEvent.RELEASE, StepState.QUEUED, SYSTEM)
            .transition(StepState.QUEUED, StepEvent.CANCEL, StepState.CANCELLED, USER, SYSTEM)
            .transition(StepState.QUEUED, StepEvent.UPSTREAM_FAILED, StepState.FAILED, SYSTEM)
            .run(r -> r.claim(StepState.QUEUED, StepEvent.START).success(StepEvent.COMPLETE).fatal(StepEvent.FAIL)
                    .release(StepEvent.RELEASE).cancel(StepEvent.CANCEL).recoverByRequeue())
            .dependencies(d -> d.on(JOB).whenFailed(StepEvent.UPSTREAM_FAILED).whenCancelled(StepEvent.CANCEL))
            .build();

    static final Duration LEASE = Duration.ofSeconds(30);

    record Live(int index, TaskRuntime runtime) {}

    final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    final InMemoryStore store = new InMemoryStore();
    final TransitionEngine engine = TransitionEngine.builder().store(store).clock(clock).build();
    final RuntimeModelExecutor executor = new RuntimeModelExecutor();
    final List<Live> live = new ArrayList<>();
    final List<Long> jobs = new ArrayList<>();
    final List<Long> chunks = new ArrayList<>();
    final List<Long> steps = new ArrayList<>();
    /** Whether a chunk's or step's next run succeeds. */
    final Map<Long, Boolean> succeeds = new HashMap<>();
    private int started;

    CompositionModel(boolean twoRuntimes) {
        start();
        if (twoRuntimes) start();
    }

    // --- actions ------------------------------------------------------------------------------

    void start() {
        int index = started++;
        TaskRuntime rt = TaskRuntime.builder(engine).owner("runtime-" + index).executor(executor.forRuntime(index))
                .workers(2).leaseDuration(LEASE).pollInterval(Duration.ofSeconds(1)).seed(index)
                .register(CHUNK, this::work).register(STEP, this::work).resolves(JOB).build();
        live.add(new Live(index, rt));
        rt.start();
    }

    void addJob(List<Boolean> outcomes) {
        long job = engine.create(JOB).task().id();
        jobs.add(job);
        List<TaskSpec> specs = new ArrayList<>();
        for (int i = 0; i < outcomes.size(); i++) specs.add(TaskSpec.defaults().idempotencyKey(job + "/" + i));
        engine.addChildren(JOB, job, specs, true);
        List<TaskRecord> created = store.query(dev.statekit.store.TaskQuery.all().parent(job)).items();
        for (int i = 0; i < created.size(); i++) {
            chunks.add(created.get(i).id());
            succeeds.put(created.get(i).id(), outcomes.get(i));
        }
    }

    void addStep(List<Integer> picks, boolean outcome) {
        List<Long> upstream = new ArrayList<>();
        for (int p : picks) {
            List<Long> candidates = new ArrayList<>(jobs);
            candidates.addAll(steps);
            if (candidates.isEmpty()) break;
            long id = candidates.get(Math.floorMod(p, candidates.size()));
            if (!upstream.contains(id)) upstream.add(id);
        }
        if (upstream.isEmpty()) return;
        long[] ids = upstream.stream().mapToLong(Long::longValue).toArray();
        long step = engine.create(STEP, TaskSpec.defaults().dependsOn(ids)).task().id();
        steps.add(step);
        succeeds.put(step, outcome);
    }

    void runOne(int index) {
        executor.runAt(index);
    }

    void runAll() {
        executor.runAll(100_000);
    }

    void advance(Duration d) {
        clock.advance(d);
    }

    /** Crashes runtime {@code which}: it halts and its work is gone; a runtime takes its place. */
    void crash(int which) {
        Live victim = live.remove(Math.floorMod(which, live.size()));
        victim.runtime().halt();
        executor.discard(victim.index());
        start();
    }

    /** A pass from a process that serves none of these machines' workers. */
    void resolveElsewhere() {
        engine.resolveGroups(List.of(JOB, STEP), 5);
    }

    void pause(int job) {
        if (!jobs.isEmpty()) engine.fire(JOB, jobAt(job), JobEvent.PAUSE, Command.user("ann"));
    }

    void resume(int job) {
        if (!jobs.isEmpty()) engine.fire(JOB, jobAt(job), JobEvent.RESUME, Command.user("ann"));
    }

    void cancel(int job) {
        if (!jobs.isEmpty()) engine.fire(JOB, jobAt(job), JobEvent.CANCEL, Command.user("ann"));
    }

    /** Retries a failed chunk, which then succeeds. */
    void retryChunk(int chunk) {
        if (chunks.isEmpty()) return;
        long id = chunks.get(Math.floorMod(chunk, chunks.size()));
        if (engine.fire(CHUNK, id, Chunks.Event.RETRY, Command.user("ann")).isApplied()) succeeds.put(id, true);
    }

    private long jobAt(int i) {
        return jobs.get(Math.floorMod(i, jobs.size()));
    }

    private WorkResult work(WorkContext<?> ctx) {
        return succeeds.getOrDefault(ctx.task().id(), true) ? WorkResult.success()
                : new WorkResult.Failure("BROKEN", "planned failure", false, null);
    }

    // --- invariants ---------------------------------------------------------------------------

    /** What holds after every action. */
    void check() {
        for (long job : jobs) {
            List<HistoryEntry> h = store.history(job);
            int open = 0;                  // settling events since the last re-opening
            for (HistoryEntry e : h) {
                if (e.event().equals(JobEvent.CHUNKS_DONE.name()) || e.event().equals(JobEvent.CHUNKS_FAILED.name())) open++;
                if (e.event().equals(JobEvent.REOPEN.name())) open = 0;
                require(open <= 1, "job %s was settled twice without re-opening: %s", job, h);
            }
            if (state(job).equals(JobState.DONE.name())) {
                for (TaskRecord c : children(job)) {
                    require(c.state().equals(Chunks.State.DONE.name()), "job %s is done but its chunk %s is %s", job, c.id(), c.state());
                }
            }
        }
        for (long step : steps) {
            boolean ran = store.history(step).stream().anyMatch(e -> e.event().equals(StepEvent.START.name()));
            if (!ran) continue;
            for (long d : store.dependencies(step)) {
                require(succeeded(d), "step %s ran while its dependency %s is %s", step, d, state(d));
            }
        }
    }

    /**
     * Lets everything finish: runtimes run all their work, leases of crashed ones expire, paused jobs
     * resume; then every job is in the state its chunks imply, and every step has ended by its
     * dependencies, or waits on one that has not ended.
     */
    void settle() {
        for (long job : jobs) if (state(job).equals(JobState.PAUSED.name())) resume(jobs.indexOf(job));
        for (int round = 0; round < 30; round++) {
            runAll();
            advance(LEASE.plusSeconds(1));
            runAll();
            resolveElsewhere();
            runAll();
            check();
        }
        require(store.pendingMarks() == 0, "marks left after settling: %s", store.pendingMarks());
        for (long job : jobs) {
            List<TaskRecord> kids = children(job);
            boolean allEnded = kids.stream().allMatch(c -> ended(CHUNK, c.state()));
            boolean allDone = kids.stream().allMatch(c -> c.state().equals(Chunks.State.DONE.name()));
            String s = state(job);
            if (s.equals(JobState.CANCELLED.name())) continue;
            require(allEnded, "job %s is %s with chunks that never ended: %s", job, s, kids);
            require(s.equals(allDone ? JobState.DONE.name() : JobState.ERROR.name()),
                    "job %s is %s, but its chunks imply %s: %s", job, s, allDone ? "DONE" : "ERROR", kids);
        }
        for (long step : steps) {
            String s = state(step);
            require(STEP.isTerminal(STEP.state(s)), "step %s is left %s; its dependencies: %s", step, s,
                    store.dependencies(step).stream().map(d -> d + "=" + state(d)).toList());
        }
    }

    private boolean succeeded(long id) {
        TaskRecord t = store.find(id).orElseThrow();
        Machine<?, ?> m = t.machine().equals(JOB.name()) ? JOB : STEP;
        return m.ending(t.state()) == Ending.SUCCEEDED;
    }

    private static boolean ended(Machine<?, ?> m, String state) {
        return m.ending(state) != null;
    }

    private List<TaskRecord> children(long job) {
        return store.query(dev.statekit.store.TaskQuery.all().parent(job).limit(1000)).items();
    }

    private String state(long id) {
        return store.find(id).orElseThrow().state();
    }

    private static void require(boolean condition, String message, Object... args) {
        if (!condition) throw new AssertionError(String.format(message, args));
    }
}
