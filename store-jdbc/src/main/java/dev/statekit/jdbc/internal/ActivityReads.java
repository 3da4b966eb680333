package dev.statekit.jdbc.internal;

import dev.statekit.store.ActivityCount;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Counting history entries by machine, queue, time bucket, event and target state, as
 * {@code Store.activity} describes, in one statement. The history table has no index on its time:
 * the statement takes the tasks changed since the window's start (a pass over the tasks table, as
 * the state counts make) and reads their history through its primary key, which leads with the
 * task id. Both dialects compute the bucket the same way: the entry's epoch milliseconds divided by
 * the bucket's, rounded down. Immutable and thread-safe.
 */
public final class ActivityReads {
    private final Jdbc jdbc;
    private final String text;
    private final Times times;

    /** Creates the reads of one store. */
    public ActivityReads(JdbcContext context) {
        this.times = context.sql().times;
        this.jdbc = context.jdbc();
        Sql sql = context.sql();
        // Parameters: bucket millis, from (tasks), from, to (entries).
        this.text = "select machine, queue, event, to_state, b, count(*) from (select t.machine, t.queue, h.event, h.to_state,"
                + " floor(" + sql.flavor.epochMillis("h.at") + " / ?) b from " + sql.tasks + " t join " + sql.history
                + " h on h.task_id = t.id where t.updated_at >= ? and h.at >= ? and h.at < ?) x"
                + " group by machine, queue, event, to_state, b";
    }

    /** Returns the counts of entries within [{@code from}, {@code to}), as {@code Store.activity} describes. */
    public List<ActivityCount> activity(Instant from, Instant to, Duration bucket) {
        long ms = ActivityCount.requireWindow(from, to, bucket);
        List<ActivityCount> counts = jdbc.read("counting history by bucket", null, c -> Jdbc.query(c, text, ps -> {
            ps.setLong(1, ms);
            times.set(ps, 2, from);
            times.set(ps, 3, from);
            times.set(ps, 4, to);
        }, rs -> new ActivityCount(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                Instant.ofEpochMilli(rs.getLong(5) * ms), rs.getLong(6))));
        List<ActivityCount> sorted = new ArrayList<>(counts);
        sorted.sort(ActivityCount.ORDER);      // in Java: the database's collation may order strings otherwise
        return sorted;
    }
}
