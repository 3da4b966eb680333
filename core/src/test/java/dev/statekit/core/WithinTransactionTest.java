package dev.statekit.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.spi.TransitionListener;
import dev.statekit.store.HistoryEntry;
import dev.statekit.store.Store;
import dev.statekit.store.TaskRecord;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.test.fixtures.Jobs;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An engine within a transaction ({@link TransitionEngine#within}): its writes go to the transaction's
 * store, and the engine's listeners hear of them once that store says the transaction committed, never
 * when it rolled back.
 */
class WithinTransactionTest {
    final InMemoryStore base = new InMemoryStore();
    final TransitionEngine engine = TransitionEngine.builder().store(base).build();
    final List<String> heard = new ArrayList<>();
    final List<Runnable> pending = new ArrayList<>();
    final List<String> storeCalls = new ArrayList<>();

    /** A store whose writes are those of {@code base} and whose after-commit actions wait for {@link #commit}. */
    final Store transaction = (Store) Proxy.newProxyInstance(Store.class.getClassLoader(), new Class<?>[] {Store.class},
            (proxy, method, args) -> {
                if (method.getName().equals("afterCommit")) {
                    pending.add((Runnable) args[0]);
                    return null;
                }
                storeCalls.add(method.getName());
                try {
                    return method.invoke(base, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            });

    WithinTransactionTest() {
        engine.subscribe(new TransitionListener() {
            @Override
            public void onTransition(String machine, TaskRecord task, HistoryEntry entry) {
                heard.add(entry.event() + " " + task.id());
            }

            @Override
            public void onCreated(String machine, TaskRecord task) {
                heard.add("created " + task.id());
            }
        });
    }

    void commit() {
        List<Runnable> now = new ArrayList<>(pending);
        pending.clear();
        now.forEach(Runnable::run);
    }

    @Test
    void listenersHearOfACreateAndAFireOnlyOnceTheTransactionCommits() {
        TransitionEngine tx = engine.within(transaction);
        long id = tx.create(Jobs.MACHINE).task().id();
        Outcome<Jobs.State> started = tx.fire(Jobs.MACHINE, id, Jobs.Event.START);

        assertThat(started.isApplied()).isTrue();
        assertThat(storeCalls).contains("create", "apply");
        assertThat(tx.store()).isSameAs(transaction);
        assertThat(heard).isEmpty();
        assertThat(base.history(id)).hasSize(1);

        commit();
        assertThat(heard).containsExactly("created " + id, "START " + id);
    }

    @Test
    void listenersNeverHearOfAChangeWhoseTransactionRolledBack() {
        TransitionEngine tx = engine.within(transaction);
        tx.create(Jobs.MACHINE);
        pending.clear();

        commit();
        assertThat(heard).isEmpty();
    }

    @Test
    void theEngineItselfStillTellsItsListenersAtOnceAndTheViewSharesThem() {
        long id = engine.create(Jobs.MACHINE).task().id();
        assertThat(heard).containsExactly("created " + id);

        List<String> late = new ArrayList<>();
        TransitionEngine tx = engine.within(transaction);
        tx.subscribe((machine, task, entry) -> late.add(entry.event()));
        tx.fire(Jobs.MACHINE, id, Jobs.Event.START);
        commit();
        assertThat(late).containsExactly("START");
        engine.fire(Jobs.MACHINE, id, Jobs.Event.COMPLETE);
        assertThat(late).containsExactly("START", "COMPLETE");
    }

    @Test
    void aRefusalInTheTransactionTellsNoListener() {
        TransitionEngine tx = engine.within(transaction);
        long id = tx.create(Jobs.MACHINE).task().id();
        Outcome<Jobs.State> refused = tx.fire(Jobs.MACHINE, id, Jobs.Event.COMPLETE);
        assertThat(refused.isApplied()).isFalse();
        commit();
        assertThat(heard).containsExactly("created " + id);
    }
}
