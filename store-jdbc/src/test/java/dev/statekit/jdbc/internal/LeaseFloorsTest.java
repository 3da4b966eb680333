package dev.statekit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Where the scans for expired leases start reading: from the time of the last complete scan (or
 * the earliest expiry it found), never past the latest claim's time, moved back by every lease
 * the store writes, also while a scan runs, and forgotten after writes of groups.
 */
class LeaseFloorsTest {
    private static final Instant T = Instant.parse("2031-04-05T13:30:00Z");
    private static final List<String> JOBS = List.of("job");

    private final LeaseFloors floors = new LeaseFloors();

    private @Nullable Instant scan(Instant upTo, @Nullable Instant earliest) {
        LeaseFloors.Scan s = floors.begin(JOBS);
        floors.end(s, upTo, earliest);
        return s.floor();
    }

    private @Nullable Instant floor() {
        LeaseFloors.Scan s = floors.begin(JOBS);
        floors.end(s, null, null);
        return s.floor();
    }

    @Test
    void aScanMovesTheFloorToItsTimeOrItsEarliestExpiredLeaseButNotPastTheLatestClaim() {
        assertThat(scan(T, null)).as("nothing claimed yet").isNull();
        assertThat(floor()).as("a store that never claimed reads from the earliest expiry").isNull();

        floors.claimed(T.plusSeconds(100), T.plusSeconds(130));
        scan(T.plusSeconds(110), null);
        assertThat(floor()).isEqualTo(T.plusSeconds(100));           // the latest claim's time
        floors.claimed(T.plusSeconds(200), T.plusSeconds(230));
        scan(T.plusSeconds(199), null);
        assertThat(floor()).isEqualTo(T.plusSeconds(199));           // the scan's time
        floors.claimed(T.plusSeconds(300), T.plusSeconds(330));
        scan(T.plusSeconds(350), T.plusSeconds(260));
        assertThat(floor()).as("a lease it found, which may not be recovered").isEqualTo(T.plusSeconds(260));
    }

    @Test
    void aScanFarAheadOfTheClockMovesTheFloorOnlyToTheLatestClaim() {
        floors.claimed(T, T.plusSeconds(30));
        scan(T.plusSeconds(3_600L * 24 * 365 * 100), null);
        assertThat(floor()).isEqualTo(T);
    }

    @Test
    void aLeaseTheStoreWritesMovesTheFloorBackAlsoWhileAScanRuns() {
        floors.claimed(T.plusSeconds(100), T.plusSeconds(130));
        scan(T.plusSeconds(100), null);
        floors.leased(T.plusSeconds(40));                            // a change that sets an early lease
        assertThat(floor()).isEqualTo(T.plusSeconds(40));

        LeaseFloors.Scan running = floors.begin(JOBS);
        floors.claimed(T.plusSeconds(5), T.plusSeconds(35));        // a claim with a clock behind, while the scan reads
        floors.end(running, T.plusSeconds(100), null);
        assertThat(floor()).isEqualTo(T.plusSeconds(35));
    }

    @Test
    void aFailedScanMovesNothingAndWritesOfGroupsForgetTheFloors() {
        floors.claimed(T.plusSeconds(100), T.plusSeconds(130));
        scan(T.plusSeconds(100), null);
        LeaseFloors.Scan failed = floors.begin(JOBS);
        floors.end(failed, null, null);
        assertThat(floor()).isEqualTo(T.plusSeconds(100));

        LeaseFloors.Scan running = floors.begin(JOBS);
        floors.forgetAll();
        floors.end(running, T.plusSeconds(120), null);
        assertThat(floor()).isNull();
    }

    @Test
    void eachSetOfMachinesHasItsOwnFloor() {
        floors.claimed(T.plusSeconds(100), T.plusSeconds(130));
        scan(T.plusSeconds(100), null);
        LeaseFloors.Scan others = floors.begin(List.of("mail", "job"));
        floors.end(others, null, null);
        assertThat(others.floor()).isNull();
        LeaseFloors.Scan every = floors.begin(null);
        floors.end(every, null, null);
        assertThat(every.floor()).isNull();
    }
}
