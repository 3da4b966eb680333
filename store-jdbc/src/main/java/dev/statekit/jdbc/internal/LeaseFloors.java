package dev.statekit.jdbc.internal;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Where the scans for expired leases of one store start reading, per set of machines: a time
 * before which no task holds a lease.
 *
 * <p>The lease index keeps an entry for every version of a leased task until vacuum removes it,
 * and vacuum removes none that an open transaction might still see. While a transaction holds the
 * xmin horizon, a scan for leases expired by now reads from the earliest expiry, past the entries
 * of every task leased and finished since then, at every housekeeping. A scan that starts at the
 * floor reads only the entries since the last scan.
 *
 * <p>After a scan up to a time that found every expired lease there is (fewer than its limit), no
 * lease expires before the earliest it found, or before that time: the floor moves there, but
 * never past the latest time at which this store claimed (so a scan far ahead of the clock, as a
 * runtime's look for every lease at its start, moves nothing). Leases written later expire later,
 * as their claims' clocks are not behind by a lease (the assumption every lease expiry across
 * processes already rests on). Every lease this store writes moves the floor back to its expiry
 * (a claim with a clock behind the scans', a change that sets a lease), also while a scan runs;
 * writes of groups, which may write anything, forget every floor.
 *
 * <p>Thread-safe.
 */
public final class LeaseFloors {
    private final Map<String, Instant> floors = new HashMap<>();
    private final List<Scan> scans = new ArrayList<>(2);
    private @Nullable Instant latestClaim;

    /** One scan, from {@link #begin} to {@link #end}. */
    public static final class Scan {
        private final String key;
        private final @Nullable Instant floor;
        private @Nullable Instant lowest;
        private boolean forgotten;

        private Scan(String key, @Nullable Instant floor) {
            this.key = key;
            this.floor = floor;
        }

        /** Where the scan starts reading: no lease expires before it; null to read from the earliest. */
        public @Nullable Instant floor() {
            return floor;
        }
    }

    private static String key(@Nullable Collection<String> machines) {
        return machines == null ? "" : String.join("\u0000", new TreeSet<>(machines)) + "\u0000";
    }

    /** Begins a scan of the leases of {@code machines}, or of every machine when null. */
    public synchronized Scan begin(@Nullable Collection<String> machines) {
        String key = key(machines);
        Scan scan = new Scan(key, floors.get(key));
        scans.add(scan);
        return scan;
    }

    /**
     * Ends a scan up to {@code upTo} that returned {@code earliest} as its earliest expiry (null when
     * it found none); a scan that failed ends with {@code upTo} null and moves nothing.
     */
    public synchronized void end(Scan scan, @Nullable Instant upTo, @Nullable Instant earliest) {
        scans.remove(scan);
        if (upTo == null || scan.forgotten || latestClaim == null) return;
        floors.put(scan.key, earliest(earliest(earliest(upTo, earliest), latestClaim), scan.lowest));
    }

    /** Notes a lease this store wrote (committed or not), expiring at {@code expiry}. */
    public synchronized void leased(Instant expiry) {
        floors.replaceAll((k, floor) -> earliest(floor, expiry));
        for (Scan s : scans) s.lowest = s.lowest == null ? expiry : earliest(s.lowest, expiry);
    }

    /** Notes a claim this store made at {@code now} whose leases expire at {@code expiry}. */
    public synchronized void claimed(Instant now, Instant expiry) {
        leased(expiry);
        if (latestClaim == null || now.isAfter(latestClaim)) latestClaim = now;
    }

    /** Forgets every floor: a write may have leased anything. */
    public synchronized void forgetAll() {
        floors.clear();
        for (Scan s : scans) s.forgotten = true;
    }

    private static Instant earliest(Instant a, @Nullable Instant b) {
        return b == null || !b.isBefore(a) ? a : b;
    }
}
