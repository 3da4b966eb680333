package com.example.tickets;

import dev.statekit.store.Store;
import dev.statekit.store.tck.StoreContract;

/** This project's store against statekit's store contract: every test of the contract is inherited. */
class AuditedStoreTest extends StoreContract {
    @Override
    protected Store newStore() {
        return new AuditedStore(maxPayloadChars());
    }

    @Override
    protected int maxPayloadChars() {
        return 8192;
    }
}
