package dev.statekit.jdbc.internal;

/**
 * The id and FIFO sequence the database gave a new task row.
 *
 * @param id       the task's id
 * @param sequence its FIFO sequence
 */
public record InsertedRow(long id, long sequence) {}
