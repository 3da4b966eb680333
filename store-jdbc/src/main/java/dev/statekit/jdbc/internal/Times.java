package dev.statekit.jdbc.internal;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import org.jspecify.annotations.Nullable;

/**
 * How a dialect's time columns travel: always at microsecond precision, never through the JVM's
 * default zone.
 */
public enum Times {
    /** A time with its zone ({@code timestamp with time zone}), bound and read as an {@link OffsetDateTime} in UTC. */
    ZONED {
        @Override
        public void set(PreparedStatement ps, int i, @Nullable Instant t) throws SQLException {
            if (t == null) ps.setNull(i, Types.TIMESTAMP_WITH_TIMEZONE);
            else ps.setObject(i, OffsetDateTime.ofInstant(t.truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC));
        }

        @Override
        public @Nullable Instant get(ResultSet rs, int i) throws SQLException {
            OffsetDateTime t = rs.getObject(i, OffsetDateTime.class);
            return t == null ? null : t.toInstant();
        }

        @Override
        public String earliest() {
            return "timestamp with time zone '-999999999-01-01 00:00:00+00'";
        }

        @Override
        public String epochMillis(String column) {
            return "extract(epoch from " + column + ") * 1000";
        }
    },
    /**
     * Whole microseconds since the epoch in a {@code bigint}: a database whose time type has no
     * zone, and whose drivers convert a time through the JVM's zone or cut its fraction, keeps
     * the instant exactly so.
     */
    EPOCH_MICROS {
        @Override
        public void set(PreparedStatement ps, int i, @Nullable Instant t) throws SQLException {
            Long micros = Rows.epochMicros(t);
            if (micros == null) ps.setNull(i, Types.BIGINT);
            else ps.setLong(i, micros);
        }

        @Override
        public @Nullable Instant get(ResultSet rs, int i) throws SQLException {
            long micros = rs.getLong(i);
            if (rs.wasNull()) return null;
            return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L);
        }

        @Override
        public String earliest() {
            return Long.toString(Long.MIN_VALUE);
        }

        @Override
        public String epochMillis(String column) {
            return column + " / 1000";
        }
    };

    /** Binds a time, or SQL null. */
    public abstract void set(PreparedStatement ps, int i, @Nullable Instant t) throws SQLException;

    /** Reads a time, or null. */
    public abstract @Nullable Instant get(ResultSet rs, int i) throws SQLException;

    /** Reads the task of the current row: {@link Rows#task}. */
    public dev.statekit.store.TaskRecord task(ResultSet rs) throws SQLException {
        return Rows.task(this, rs);
    }

    /** Reads the queue record of the current row: {@link Rows#queue}. */
    public dev.statekit.store.QueueRecord queue(ResultSet rs) throws SQLException {
        return Rows.queue(this, rs);
    }

    /** Milliseconds since the epoch of the time column {@code column}, as an SQL number. */
    public abstract String epochMillis(String column);

    /** The earliest time a column can hold, as SQL: a lower bound that lets an index range skip its nulls. */
    public abstract String earliest();
}
