package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on {@link dev.statekit.store.Store#afterCommit}: a store whose writes
 * commit by themselves runs the action at once, after the write before it is visible. Every store
 * runs it as {@link StoreContract.AfterCommit}.
 */
abstract class AfterCommitContract extends ContractPart {

    AfterCommitContract(StoreContract contract) {
        super(contract);
    }

    @Test
    public void anActionRunsAtOnceWhenNoTransactionIsOpen() {
        List<String> ran = new ArrayList<>();
        store.afterCommit(() -> ran.add("first"));
        store.afterCommit(() -> ran.add("second"));
        assertThat(ran).containsExactly("first", "second");
    }

    @Test
    public void theWriteBeforeIsVisibleWhenTheActionRuns() {
        long id = create().id();
        List<Boolean> found = new ArrayList<>();
        store.afterCommit(() -> found.add(store.find(id).isPresent()));
        assertThat(found).containsExactly(true);
    }
}
