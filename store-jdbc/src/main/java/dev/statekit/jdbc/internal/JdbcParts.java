package dev.statekit.jdbc.internal;

/**
 * The parts of one {@code JdbcStore} over one {@link JdbcContext}, each with one duty, built once
 * and wired to each other: what the store's one-line methods call. Not API.
 */
public final class JdbcParts {
    /** The store's inserts. */
    public final TaskInserts inserts;
    /** The store's reads. */
    public final TaskReads reads;
    /** The store's writes. */
    public final TaskWrites writes;
    /** The store's task metadata (leases, cancel requests, sequences). */
    public final TaskMetadata metadata;
    /** The store's queue records. */
    public final QueueTable queues;
    /** The store's claims. */
    public final Claims claims;
    /** The store's purges of finished tasks. */
    public final Purges purges;
    /** The store's group writes. */
    public final GroupWrites groupWrites;
    /** The store's group resolution passes. */
    public final Resolutions resolutions;
    /** The store's group reads. */
    public final GroupReads groupReads;
    /** The store's archive. */
    public final ArchiveTable archive;
    /** The store's recurring schedules. */
    public final ScheduleTable schedules;
    /** The records of the processes that serve the store. */
    public final ProcessTable processes;
    /** The store's counts of history by time bucket. */
    public final ActivityReads activity;

    /** Where the store's at-once claims start reading, told what its writes place. */
    public final ClaimHints hints;
    /** Where the store's scans of expired leases start reading, told what leases it writes. */
    public final LeaseFloors floors;

    /** Builds the parts over {@code context}, sharing {@code hints} with every store on the same tables in this process. */
    public JdbcParts(JdbcContext context, ClaimHints hints, LeaseFloors floors) {
        this.hints = hints;
        this.floors = floors;
        this.inserts = new TaskInserts(context);
        this.reads = new TaskReads(context, floors);
        this.writes = new TaskWrites(context, reads);
        this.metadata = new TaskMetadata(context);
        this.queues = new QueueTable(context);
        this.claims = new Claims(context, queues, hints, floors);
        this.purges = new Purges(context);
        this.groupWrites = new GroupWrites(context, writes, inserts);
        this.resolutions = new Resolutions(context, writes, inserts);
        this.groupReads = new GroupReads(context);
        this.archive = new ArchiveTable(context);
        this.schedules = new ScheduleTable(context, inserts);
        this.processes = new ProcessTable(context);
        this.activity = new ActivityReads(context);
    }
}
