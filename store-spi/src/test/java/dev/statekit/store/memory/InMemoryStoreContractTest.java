package dev.statekit.store.memory;

import dev.statekit.store.Store;
import dev.statekit.store.tck.StoreContract;

/** The in-memory store against the store contract. */
class InMemoryStoreContractTest extends StoreContract {

    @Override
    protected Store newStore() {
        return new InMemoryStore(maxPayloadChars());
    }

    @Override
    protected int maxPayloadChars() {
        return 4096;
    }
}
