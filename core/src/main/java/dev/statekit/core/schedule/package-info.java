/**
 * Recurring schedules, as pure functions of their arguments: no clock is read and nothing is stored.
 *
 * <p>The parts: {@link dev.statekit.core.schedule.Cron} parses a cron expression and matches
 * wall-clock times; a {@link dev.statekit.core.schedule.Schedule} is either a
 * {@link dev.statekit.core.schedule.CronSchedule} (the expression on a zone's wall clock, with the
 * daylight-saving rules for gaps and overlaps) or an {@link dev.statekit.core.schedule.IntervalSchedule}
 * (a fixed duration from an anchor), and answers {@code next}, {@code previous} and
 * {@code nextOccurrences}; a {@link dev.statekit.core.schedule.Recurrence} names a schedule and
 * gives it a {@link dev.statekit.core.schedule.Misfire} policy.
 *
 * <p>How an occurrence moves through them: whoever persists a recurrence keeps the latest occurrence
 * it created; at a moment {@code now} it asks {@link dev.statekit.core.schedule.Recurrence#due}, which
 * walks the schedule from that occurrence, lets the misfire policy pick among the missed ones, and
 * answers a {@link dev.statekit.core.schedule.Due}: the {@link dev.statekit.core.schedule.Occurrence}s
 * to create now, each with its scheduled instant and idempotency key, and the instant the next falls
 * due. Creating them and recording the latest in one transaction makes each occurrence happen once.
 * The syntax and the rules are in docs/schedules.md.
 */
@NullMarked
package dev.statekit.core.schedule;

import org.jspecify.annotations.NullMarked;
