package dev.statekit.store.tck;

import org.junit.jupiter.api.BeforeEach;

/**
 * A part of the store contract: the tests of one area, run by {@link StoreContract} as one of its
 * nested classes on the store it opened for the test. JUnit Jupiter runs the contract's
 * {@code @BeforeEach} before the part's, so the part sees the store the contract just opened.
 */
abstract class ContractPart extends ContractFixtures {
    private final StoreContract contract;

    ContractPart(StoreContract contract) {
        this.contract = contract;
    }

    @BeforeEach
    final void useTheContractsStore() {
        store = contract.store;
    }

    @Override
    protected final int maxPayloadChars() {
        return contract.maxPayloadChars();
    }
}
