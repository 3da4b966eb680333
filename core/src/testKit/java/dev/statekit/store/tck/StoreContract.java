package dev.statekit.store.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.statekit.store.GroupResolver.Resolution;
import dev.statekit.store.Store;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.TimeZone;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link Store} honours, as tests. A store implementation subclasses this class
 * in a test class whose name ends in {@code Test}, returns a new, empty store from
 * {@link #newStore()}, and inherits every test.
 *
 * <p>{@link #newStore()} is called once per test from JUnit Jupiter's {@code @BeforeEach}, and once
 * per try of the property {@link #anyScriptKeepsVersionsHistoriesLeasesAndTasks}, which jqwik runs
 * without Jupiter's callbacks: it must not depend on a subclass's own {@code @BeforeEach} or
 * {@code @BeforeAll}.
 *
 * <p>The tests are grouped by area in nested classes, {@link Create} to {@link Errors}: each runs
 * one part of the contract on the store this class opened for the test. The constants, task
 * descriptions and helpers they share are those of {@link ContractFixtures}, which this class
 * extends.
 *
 * <p>Every time handed to the store is a whole number of microseconds, so a store that keeps
 * microseconds returns every instant exactly. The base instant {@link #T0} lies an hour before
 * daylight saving time ends in Pacific/Chatham, the zone the build runs tests in: there, {@code T0}
 * and {@code T0 + 1 h} show the same local wall-clock time, so a store that keeps local times loses
 * their order.
 */
public abstract class StoreContract extends ContractFixtures {

    /** Returns a new, empty store; called once per test. */
    protected abstract Store newStore();

    /** Releases what {@link #newStore()} acquired (default: nothing). */
    protected void closeStore(Store store) throws Exception {
    }

    /** The largest payload (characters) the store under test accepts; tests of the limit use it. */
    protected abstract int maxPayloadChars();

    @BeforeEach
    protected final void openStoreUnderTest() {
        store = newStore();
    }

    @AfterEach
    protected final void closeStoreUnderTest() throws Exception {
        closeStore(store);
    }

    @Test
    public void runsUnderATimeZoneAndLocaleOtherThanUtcAndEnglish() {
        assumeFalse("false".equals(System.getProperty("statekit.tck.hostile")), "statekit.tck.hostile=false");
        TimeZone zone = TimeZone.getDefault();
        assertThat(zone.hasSameRules(TimeZone.getTimeZone("UTC"))).as("default time zone %s is UTC", zone.getID()).isFalse();
        assertThat(zone.getOffset(T0.toEpochMilli())).as("offset of %s at T0", zone.getID()).isNotZero();
        assertThat(Locale.getDefault().getLanguage()).as("default locale").isNotEqualTo(Locale.ENGLISH.getLanguage());
        assertThat(Locale.getDefault(Locale.Category.FORMAT).getLanguage()).as("default format locale")
                .isNotEqualTo(Locale.ENGLISH.getLanguage());
        assertThat(T0.truncatedTo(ChronoUnit.MICROS)).isEqualTo(T0);
    }

    /** Creating a task: ids, sequences, idempotency keys, payloads up to the limit, and the row as written. */
    @Nested
    public class Create extends CreateContract {
        /** Runs the part on this contract's store. */
        public Create() {
            super(StoreContract.this);
        }
    }

    /**
     * Unique keys: a duplicate returns the task holding the key, which it holds across a claim and a
     * retry within the unique states and gives up when it leaves them; concurrent creations make one task.
     */
    @Nested
    public class Unique extends UniqueContract {
        /** Runs the part on this contract's store. */
        public Unique() {
            super(StoreContract.this);
        }
    }

    /**
     * Applying changes: compare-and-set on the version with one history entry, replayed command keys, and
     * applyAll.
     */
    @Nested
    public class Apply extends ApplyContract {
        /** Runs the part on this contract's store. */
        public Apply() {
            super(StoreContract.this);
        }
    }

    /** What changes without a version: the priority and place a reorder sets, and a renewed lease's expiry. */
    @Nested
    public class Metadata extends MetadataContract {
        /** Runs the part on this contract's store. */
        public Metadata() {
            super(StoreContract.this);
        }
    }

    /** Queries: filters, pages in ascending id order, and the current snapshot. */
    @Nested
    public class Queries extends QueryContract {
        /** Runs the part on this contract's store. */
        public Queries() {
            super(StoreContract.this);
        }
    }

    /**
     * Claims: rules, order by priority then FIFO, not-before times, paused and limited queues, leases and
     * fencing tokens.
     */
    @Nested
    public class Claims extends ClaimContract {
        /** Runs the part on this contract's store. */
        public Claims() {
            super(StoreContract.this);
        }
    }

    /** Anti-starvation: a lower task passed over often enough is taken. */
    @Nested
    public class Starvation extends StarvationContract {
        /** Runs the part on this contract's store. */
        public Starvation() {
            super(StoreContract.this);
        }
    }

    /** Concurrent claimers: never more than the limit hold a lease. */
    @Nested
    public class ConcurrentClaims extends ConcurrentClaimContract {
        /** Runs the part on this contract's store. */
        public ConcurrentClaims() {
            super(StoreContract.this);
        }
    }

    /** Renewal and cancellation of leases. */
    @Nested
    public class Renewal extends RenewalContract {
        /** Runs the part on this contract's store. */
        public Renewal() {
            super(StoreContract.this);
        }
    }

    /** Scans over leases and not-before times: expired leases, leases of one owner, due tasks. */
    @Nested
    public class Scans extends ScanContract {
        /** Runs the part on this contract's store. */
        public Scans() {
            super(StoreContract.this);
        }
    }

    /** Reads and writes of several tasks by id: findAll and applyEach. */
    @Nested
    public class Batches extends BatchContract {
        /** Runs the part on this contract's store. */
        public Batches() {
            super(StoreContract.this);
        }
    }

    /** Creating several tasks at once, in order, all or none. */
    @Nested
    public class CreateAll extends CreateAllContract {
        /** Runs the part on this contract's store. */
        public CreateAll() {
            super(StoreContract.this);
        }
    }

    /** Peek: the tasks a claim would take, in its order, without claiming them. */
    @Nested
    public class Peek extends PeekContract {
        /** Runs the part on this contract's store. */
        public Peek() {
            super(StoreContract.this);
        }
    }

    /** Queue control records: pause with its reason, the concurrency limit and the starvation count. */
    @Nested
    public class Queues extends QueueContract {
        /** Runs the part on this contract's store. */
        public Queues() {
            super(StoreContract.this);
        }
    }

    /** Groups of children: sealed and open groups, their children counted once, and held groups. */
    @Nested
    public class Groups extends GroupContract {
        /** Runs the part on this contract's store. */
        public Groups() {
            super(StoreContract.this);
        }
    }

    /** Resolution passes: the counts they keep, the resolver's writes, and marks left by failures. */
    @Nested
    public class GroupPasses extends GroupPassContract {
        /** Runs the part on this contract's store. */
        public GroupPasses() {
            super(StoreContract.this);
        }
    }

    /** Groups of dependencies: a task waits for the tasks it depends on. */
    @Nested
    public class Dependencies extends DependencyContract {
        /** Runs the part on this contract's store. */
        public Dependencies() {
            super(StoreContract.this);
        }
    }

    /** Purge: old finished tasks deleted with their history, bounded, children before parents. */
    @Nested
    public class Purge extends PurgeContract {
        /** Runs the part on this contract's store. */
        public Purge() {
            super(StoreContract.this);
        }
    }

    /** Counts by state: tasks by machine, queue and state, with their leases and since when they were ready. */
    @Nested
    public class StateCounts extends StateCountContract {
        /** Runs the part on this contract's store. */
        public StateCounts() {
            super(StoreContract.this);
        }
    }

    /** Activity: history entries counted by machine, queue, time bucket, event and target state within a window. */
    @Nested
    public class Activity extends ActivityContract {
        /** Runs the part on this contract's store. */
        public Activity() {
            super(StoreContract.this);
        }
    }

    /** Retention: finished trees moved to the archive with their history, deleted, and purged from the archive. */
    @Nested
    public class Archive extends ArchiveContract {
        /** Runs the part on this contract's store. */
        public Archive() {
            super(StoreContract.this);
        }
    }

    /** After the commit: a store whose writes commit by themselves runs the action at once. */
    @Nested
    public class AfterCommit extends AfterCommitContract {
        /** Runs the part on this contract's store. */
        public AfterCommit() {
            super(StoreContract.this);
        }
    }

    /** Rate limits: starts per period for a queue or per key, and key holds. */
    @Nested
    public class RateLimits extends RateLimitContract {
        /** Runs the part on this contract's store. */
        public RateLimits() {
            super(StoreContract.this);
        }
    }

    /** Recurring schedules: declaring, changing, pausing, deleting, and passes that create each occurrence once. */
    @Nested
    public class Schedules extends ScheduleContract {
        /** Runs the part on this contract's store. */
        public Schedules() {
            super(StoreContract.this);
        }
    }

    /** The records of the processes that serve the store: registered, seen, stopped, listed and purged. */
    @Nested
    public class Processes extends ProcessContract {
        /** Runs the part on this contract's store. */
        public Processes() {
            super(StoreContract.this);
        }
    }

    /** Errors: a task's last error keeps its detail, and a history entry keeps the error its change recorded, archived too. */
    @Nested
    public class Errors extends ErrorDetailContract {
        /** Runs the part on this contract's store. */
        public Errors() {
            super(StoreContract.this);
        }
    }

    // --- a model over random scripts ---------------------------------------------------------------

    /**
     * Any script of creations, changes, claims, renewals, moves to the front and completions keeps
     * what a model predicts: claims in priority and FIFO order up to the limit, version equal to
     * history length with an unbroken chain, at most one lease per task with tokens that only grow,
     * and every task created still there. Delays and the passing of time are part of the scripts, and
     * the queue has a concurrency limit, a row that says it has none, or no row, and its tasks one
     * priority or several.
     */
    @Property(tries = 60)
    public void anyScriptKeepsVersionsHistoriesLeasesAndTasks(@ForAll("scripts") List<ScriptModel.Step> script,
                                                               @ForAll @IntRange(min = -1, max = 3) int limit,
                                                               @ForAll @IntRange(min = 1, max = 3) int priorities) throws Exception {
        Store s = newStore();
        try {
            new ScriptModel(s, limit, priorities).run(script);
        } finally {
            closeStore(s);
        }
    }

    /**
     * The same on a queue whose row says it has no limit, with tasks of one priority: the case a
     * store may serve its fastest way (the JDBC store on PostgreSQL claims at once, each claim
     * reading on from where the last one stopped), with claims following each other closely.
     */
    @Property(tries = 40)
    public void anyScriptOnAnOpenQueueOfOnePriorityKeepsTheSame(@ForAll("longScripts") List<ScriptModel.Step> script) throws Exception {
        Store s = newStore();
        try {
            new ScriptModel(s, 0, 1).run(script);
        } finally {
            closeStore(s);
        }
    }

    @Provide
    public Arbitrary<List<ScriptModel.Step>> scripts() {
        return ScriptModel.steps().list().ofMinSize(1).ofMaxSize(30);
    }

    @Provide
    public Arbitrary<List<ScriptModel.Step>> longScripts() {
        return ScriptModel.steps().list().ofMinSize(20).ofMaxSize(60);
    }
}
