package dev.statekit.core.runtime;

import dev.statekit.core.Machine;
import dev.statekit.core.internal.Kernel;
import dev.statekit.core.spi.Cancellable;
import dev.statekit.store.RetentionRequest;
import dev.statekit.store.RetentionResult;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A runtime's retention: passes that take each retained machine's finished trees out of the hot
 * table, batch after batch, into the archive or nowhere, and delete archived trees whose time is up.
 *
 * <p>Threads: the clock's timer thread asks for a pass every interval ({@link #request()}); the pass
 * runs on the runtime's executor, never on the timer thread (a pass makes many store calls). At
 * most one pass is queued or running at a time ({@code pending}, cleared when a pass ends: a request
 * meanwhile is dropped, and the next tick asks again). A pass is bracketed by {@link Lifecycle#enter()} /
 * {@link Lifecycle#exit()} and tests {@link Lifecycle#running()} before every batch, so a stop
 * waits for the batch under way and no more follow. Each batch is one store transaction; the store
 * makes concurrent passes of several processes safe, so nothing here coordinates with them.
 */
final class RetentionPasses {
    private static final Logger log = LoggerFactory.getLogger(TaskRuntime.class);

    /** One machine's retention. */
    record Rule(Machine<?, ?> machine, Retention retention) {}

    private final RuntimeContext ctx;
    private final List<Rule> rules;
    private final Map<String, Set<String>> finished;
    private final int batch;
    private final Duration interval;
    private final Runnable onIdle;
    private final AtomicBoolean pending = new AtomicBoolean();

    /**
     * @param known  the machines whose terminal states count as finished (with their children's machines)
     * @param onIdle called after a pass, to let a stop under way complete
     */
    RetentionPasses(RuntimeContext ctx, List<Rule> rules, Collection<Machine<?, ?>> known, int batch, Duration interval, Runnable onIdle) {
        this.ctx = ctx;
        this.rules = List.copyOf(rules);
        this.finished = finishedStates(known);
        this.batch = batch;
        this.interval = interval;
        this.onIdle = onIdle;
    }

    /** Returns the terminal states of {@code machines} and of the machines of their children, and theirs, by name. */
    static Map<String, Set<String>> finishedStates(Collection<Machine<?, ?>> machines) {
        return Kernel.finishedStates(machines);
    }

    /** Returns whether any machine is retained. */
    boolean any() {
        return !rules.isEmpty();
    }

    /** Starts the passes' timer on the clock, the first pass one interval from now; returns its handle. */
    Cancellable start() {
        for (Rule r : rules) {
            log.info("runtime {}: retention of machine {}: {}; batches of {} every {}", ctx.owner, r.machine().name(), r.retention(),
                    batch, interval);
        }
        return ctx.timers.every(interval, this::request);
    }

    /** Asks for a pass on the executor; a request while one is queued or running is dropped. */
    void request() {
        if (rules.isEmpty() || !ctx.life.running()) return;
        if (!pending.compareAndSet(false, true)) return;
        try {
            ctx.executor.execute(this::pass);
        } catch (RejectedExecutionException e) {
            pending.set(false);
            if (ctx.life.running()) throw e;      // else a stop completed meanwhile: nothing to do
        }
    }

    /** One pass over every rule. */
    void pass() {
        ctx.life.enter();
        try {
            if (!ctx.life.running()) return;
            Instant now = ctx.clock.now();
            for (Rule rule : rules) {
                if (!ctx.life.running()) return;
                passOver(rule, now);
            }
        } catch (RuntimeException e) {
            log.warn("runtime {}: retention pass failed ({}); the next pass, in {}, tries again", ctx.owner, e.toString(), interval, e);
        } finally {
            ctx.life.exit();
            pending.set(false);
            onIdle.run();
        }
    }

    private void passOver(Rule rule, Instant now) {
        String machine = rule.machine().name();
        Retention retention = rule.retention();
        RetentionRequest request = new RetentionRequest(machine, now.minus(retention.after()), finished, batch);
        RetentionResult moved = RetentionResult.NONE;
        RetentionResult last;
        do {
            last = retention.archives() ? ctx.store.archive(request, now) : ctx.store.deleteFinished(request);
            moved = moved.plus(last);
            if (last.trees() > 0) {
                log.debug("runtime {}: {} {} finished tree(s), {} task(s), of machine {}", ctx.owner,
                        retention.archives() ? "archived" : "deleted", last.trees(), last.tasks(), machine);
            }
        } while (last.trees() >= batch && ctx.life.running());
        Optional<Duration> archivedFor = retention.archivedFor();
        RetentionResult purged = RetentionResult.NONE;
        if (archivedFor.isPresent()) {
            Instant before = now.minus(archivedFor.get());
            do {
                last = ctx.store.purgeArchived(machine, before, batch);
                purged = purged.plus(last);
            } while (last.trees() >= batch && ctx.life.running());
        }
        if (moved.tasks() > 0 || purged.tasks() > 0) {
            log.debug("runtime {}: retention of machine {}: {} {} task(s) finished before {}{}", ctx.owner, machine,
                    retention.archives() ? "archived" : "deleted", moved.tasks(), request.finishedBefore(),
                    purged.tasks() > 0 ? ", deleted " + purged.tasks() + " archived task(s)" : "");
        }
    }
}
