package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.Attributes;
import dev.statekit.store.Lease;
import dev.statekit.store.RenewResult;
import dev.statekit.store.TaskRecord;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract on renewal and cancellation of leases. Every store runs it as
 * {@link StoreContract.Renewal}.
 */
abstract class RenewalContract extends ContractPart {

    RenewalContract(StoreContract contract) {
        super(contract);
    }

    @Test
    public void aRenewalExtendsTheLeaseWithoutAVersion() {
        TaskRecord claimed = claimOne(create().id(), OWNER, LEASE);
        Lease lease = leaseOf(claimed);
        assertThat(store.renew(claimed.id(), lease.fencingToken(), T0.plus(Duration.ofMinutes(4)), T0.plus(HOUR)))
                .isEqualTo(RenewResult.RENEWED);
        TaskRecord renewed = get(claimed.id());
        assertThat(renewed.lease()).isEqualTo(new Lease(OWNER, lease.fencingToken(), T0.plus(HOUR)));
        assertThat(renewed.toBuilder().lease(lease).build()).isEqualTo(claimed);
        assertThat(store.history(claimed.id())).hasSize(1);
        // renewed again, still before the lease runs out in its extended form
        assertThat(store.renew(claimed.id(), lease.fencingToken(), T0.plus(Duration.ofMinutes(30)), T0.plus(HOUR.multipliedBy(2))))
                .isEqualTo(RenewResult.RENEWED);
        assertThat(leaseOf(get(claimed.id())).expiresAt()).isEqualTo(T0.plus(HOUR.multipliedBy(2)));
    }

    @Test
    public void aRenewalNeverShortensTheLease() {
        TaskRecord claimed = claimOne(create().id(), OWNER, HOUR);
        long token = leaseOf(claimed).fencingToken();
        assertThat(store.renew(claimed.id(), token, T0, T0.plusSeconds(60))).isEqualTo(RenewResult.RENEWED);
        assertThat(leaseOf(get(claimed.id())).expiresAt()).isEqualTo(T0.plus(HOUR));
    }

    @Test
    public void anExpiredLeaseIsNeverRenewed() {
        TaskRecord claimed = claimOne(create().id(), OWNER, LEASE);
        long token = leaseOf(claimed).fencingToken();
        assertThat(store.renew(claimed.id(), token, T0.plus(LEASE), T0.plus(HOUR))).as("at its expiry").isEqualTo(RenewResult.LOST);
        assertThat(store.renew(claimed.id(), token, T0.plus(HOUR), T0.plus(HOUR.multipliedBy(2)))).isEqualTo(RenewResult.LOST);
        assertThat(get(claimed.id())).isEqualTo(claimed);
        assertThat(store.renew(claimed.id(), token, T0.plus(LEASE).minus(1, ChronoUnit.MICROS), T0.plus(HOUR)))
                .as("a microsecond before").isEqualTo(RenewResult.RENEWED);
    }

    @Test
    public void aWrongTokenOrAReleasedLeaseIsLost() {
        TaskRecord claimed = claimOne(create().id(), OWNER, LEASE);
        long token = leaseOf(claimed).fencingToken();
        assertThat(store.renew(claimed.id(), token + 1, T0, T0.plus(HOUR))).isEqualTo(RenewResult.LOST);
        if (token > 0) assertThat(store.renew(claimed.id(), token - 1, T0, T0.plus(HOUR))).isEqualTo(RenewResult.LOST);
        assertThat(get(claimed.id())).isEqualTo(claimed);
        TaskRecord released = applied(release(claimed, READY));
        assertThat(store.renew(claimed.id(), token, T0, T0.plus(HOUR))).isEqualTo(RenewResult.LOST);
        assertThat(get(claimed.id())).isEqualTo(released);
        // taken over by a new claim: the old token is lost, the new one renews
        TaskRecord again = claimOne(claimed.id(), "worker-2", LEASE);
        assertThat(store.renew(claimed.id(), token, T0, T0.plus(HOUR))).isEqualTo(RenewResult.LOST);
        assertThat(store.renew(claimed.id(), leaseOf(again).fencingToken(), T0, T0.plus(HOUR))).isEqualTo(RenewResult.RENEWED);
    }

    @Test
    public void aCancelRequestIsReportedByRenewalsUntilTheNextClaim() {
        TaskRecord claimed = claimOne(create().id(), OWNER, LEASE);
        long token = leaseOf(claimed).fencingToken();
        assertThat(store.cancelRequested(claimed.id())).isFalse();
        assertThat(store.requestCancel(claimed.id())).isTrue();
        assertThat(store.cancelRequested(claimed.id())).isTrue();
        assertThat(get(claimed.id())).as("a request is not a change").isEqualTo(claimed);
        assertThat(store.renew(claimed.id(), token, T0.plusSeconds(10), T0.plus(Duration.ofMinutes(10))))
                .isEqualTo(RenewResult.RENEWED_CANCEL_REQUESTED);
        assertThat(leaseOf(get(claimed.id())).expiresAt()).isEqualTo(T0.plus(Duration.ofMinutes(10)));
        TaskRecord progressed = applied(change(get(claimed.id()), b -> b.attributes(Attributes.of("p", "1")), null));
        assertThat(store.renew(claimed.id(), token, T0.plusSeconds(20), T0.plus(Duration.ofMinutes(11))))
                .as("an apply keeps the request").isEqualTo(RenewResult.RENEWED_CANCEL_REQUESTED);
        applied(release(progressed, READY));
        assertThat(store.cancelRequested(claimed.id())).as("until the next claim").isTrue();
        TaskRecord again = claimOne(claimed.id(), OWNER, LEASE);
        assertThat(store.cancelRequested(claimed.id())).isFalse();
        assertThat(store.renew(claimed.id(), leaseOf(again).fencingToken(), T0, T0.plus(HOUR))).isEqualTo(RenewResult.RENEWED);
    }
}
